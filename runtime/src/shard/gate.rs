//! [`ShardGate`]: the ranges this replica works on right now, shared by the cache's informers
//! (which watch only them), the controllers (which reconcile only objects in them) and the
//! handover coordinator (which moves ranges in and out).
//!
//! The gate is where "never two replicas at once" is enforced locally: a reconcile runs only
//! inside [`ShardGate::enter`]'s guard, which is refused once its range is deactivated, and a
//! range counts as drained only when no guard in it is left and every sharded informer has
//! switched to the ranges without it ([`ShardGate::released`]).

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};
use tokio::sync::{Notify, watch};

use super::{
    hash::ShardKey,
    range::{RangeSet, ShardRange},
};
use crate::metrics::ShardFamilies;

/// The active ranges as published to the informers, with a generation number that increases
/// with every change.
#[derive(Clone, Debug)]
pub struct Published {
    /// Increases by one with every change of the active ranges.
    pub generation: u64,
    /// The ranges to watch and reconcile.
    pub ranges: Arc<RangeSet>,
}

struct State {
    active: Arc<RangeSet>,
    generation: u64,
    /// Hashes of the objects being reconciled now (with a count: two controllers may
    /// reconcile the same object).
    in_flight: HashMap<u64, usize>,
}

struct Inner {
    key: ShardKey,
    state: Mutex<State>,
    changed: Notify,
    published: watch::Sender<Published>,
    /// The generation each sharded informer has switched to.
    informers: Mutex<Vec<Arc<AtomicU64>>>,
    /// Where the `kubeforge_shard_*` metrics go, if anywhere.
    families: Option<ShardFamilies>,
}

/// The shard state of one manager (cheap to clone; clones share it). See the
/// [module docs](self).
#[derive(Clone)]
pub struct ShardGate {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ShardGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardGate")
            .field("key", &self.inner.key)
            .field("active", &self.active().to_string())
            .finish_non_exhaustive()
    }
}

impl ShardGate {
    /// A gate sharding by `key`, with no active range yet, reporting `kubeforge_shard_*`
    /// metrics into `families` when given.
    pub fn new(key: ShardKey, families: Option<ShardFamilies>) -> Self {
        let empty = Arc::new(RangeSet::empty());
        Self {
            inner: Arc::new(Inner {
                key,
                state: Mutex::new(State {
                    active: empty.clone(),
                    generation: 0,
                    in_flight: HashMap::new(),
                }),
                changed: Notify::new(),
                published: watch::Sender::new(Published {
                    generation: 0,
                    ranges: empty,
                }),
                informers: Mutex::new(Vec::new()),
                families,
            }),
        }
    }

    /// The `kubeforge_shard_*` metric families, if this gate reports them.
    pub fn families(&self) -> Option<&ShardFamilies> {
        self.inner.families.as_ref()
    }

    /// The field objects are sharded by.
    pub fn key(&self) -> ShardKey {
        self.inner.key
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The ranges active now.
    pub fn active(&self) -> Arc<RangeSet> {
        self.state().active.clone()
    }

    /// Whether an object hashing to `hash` is in an active range.
    pub fn contains(&self, hash: u64) -> bool {
        self.state().active.contains(hash)
    }

    /// Makes `ranges` the active ranges and publishes them to the informers; returns the new
    /// generation (the current one when nothing changed). Reconciles already running in a
    /// range that is no longer active go on; [`ShardGate::released`] tells when they ended.
    pub fn set_active(&self, ranges: RangeSet) -> u64 {
        let mut state = self.state();
        if *state.active == ranges {
            return state.generation;
        }
        state.generation += 1;
        state.active = Arc::new(ranges);
        let published = Published {
            generation: state.generation,
            ranges: state.active.clone(),
        };
        // Published under the lock, so generations reach the informers in order.
        self.inner.published.send_replace(published);
        state.generation
    }

    /// The active ranges as the informers see them, and every later change.
    pub fn watch(&self) -> watch::Receiver<Published> {
        self.inner.published.subscribe()
    }

    /// Starts the work on an object hashing to `hash` if its range is active: the returned
    /// guard marks it in flight until dropped. `None`: not this replica's object (now).
    pub fn enter(&self, hash: u64) -> Option<WorkGuard> {
        let mut state = self.state();
        if !state.active.contains(hash) {
            return None;
        }
        *state.in_flight.entry(hash).or_default() += 1;
        Some(WorkGuard {
            gate: self.clone(),
            hash,
        })
    }

    /// How many reconciles run now on objects in `range`.
    pub fn in_flight(&self, range: &ShardRange) -> usize {
        self.state()
            .in_flight
            .iter()
            .filter(|(h, _)| range.contains(**h))
            .map(|(_, n)| n)
            .sum()
    }

    /// Registers a sharded informer; it stores the generation it watches in the returned cell.
    pub(crate) fn register_informer(&self) -> Arc<AtomicU64> {
        let cell = Arc::new(AtomicU64::new(0));
        self.inner
            .informers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(cell.clone());
        cell
    }

    /// Tells waiters that an informer switched generation (see [`Self::register_informer`]).
    pub(crate) fn informer_switched(&self) {
        self.inner.changed.notify_waiters();
    }

    /// Whether `range`, deactivated at generation `generation` or before, is fully released
    /// here: no reconcile in it runs any more and every sharded informer has stopped watching
    /// it (switched to `generation` or later).
    pub fn released(&self, range: &ShardRange, generation: u64) -> bool {
        let informers_switched = self
            .inner
            .informers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .all(|g| g.load(Ordering::SeqCst) >= generation);
        informers_switched && self.in_flight(range) == 0
    }

    /// Waits until every range of `ranges` is [released](Self::released) at `generation`,
    /// or `timeout` passed; `true` when released.
    pub async fn wait_released(
        &self,
        ranges: &RangeSet,
        generation: u64,
        timeout: Duration,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let changed = self.inner.changed.notified();
            if ranges.ranges().iter().all(|r| self.released(r, generation)) {
                return true;
            }
            // Re-checked at least every 50 ms: an informer's switch is a plain store.
            let wake = deadline.min(tokio::time::Instant::now() + Duration::from_millis(50));
            tokio::select! {
                () = changed => {}
                () = tokio::time::sleep_until(wake) => {}
            }
            if tokio::time::Instant::now() >= deadline {
                return ranges.ranges().iter().all(|r| self.released(r, generation));
            }
        }
    }
}

/// Marks one reconcile in flight (see [`ShardGate::enter`]); dropping it ends it.
#[derive(Debug)]
pub struct WorkGuard {
    gate: ShardGate,
    hash: u64,
}

impl Drop for WorkGuard {
    fn drop(&mut self) {
        {
            let mut state = self.gate.state();
            if let Some(n) = state.in_flight.get_mut(&self.hash) {
                *n -= 1;
                if *n == 0 {
                    state.in_flight.remove(&self.hash);
                }
            }
        }
        self.gate.inner.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::range::slot_range;

    #[tokio::test]
    async fn work_runs_only_in_active_ranges_and_release_waits_for_it() {
        let gate = ShardGate::new(ShardKey::Uid, None);
        let low = slot_range(0, 2);
        let (a, b) = (1u64, u64::MAX);
        assert!(gate.enter(a).is_none(), "nothing is active at first");
        let g1 = gate.set_active(RangeSet::full());
        assert_eq!(
            gate.set_active(RangeSet::full()),
            g1,
            "no change, same generation"
        );
        let mut published = gate.watch();
        let informer = gate.register_informer();
        informer.store(g1, Ordering::SeqCst);
        let guard = gate.enter(a).expect("active");
        let other = gate.enter(b).expect("active");
        assert_eq!(gate.in_flight(&low), 1);

        // The low half leaves: new work there is refused, running work goes on.
        let g2 = gate.set_active(RangeSet::from_slots(&[1], 2));
        assert!(published.has_changed().unwrap());
        assert_eq!(published.borrow_and_update().generation, g2);
        assert!(gate.enter(a).is_none());
        assert!(gate.enter(b).is_some());
        assert!(!gate.released(&low, g2), "a reconcile still runs");
        drop(guard);
        assert!(
            !gate.released(&low, g2),
            "the informer still watches the old ranges"
        );
        informer.store(g2, Ordering::SeqCst);
        gate.informer_switched();
        assert!(gate.released(&low, g2));
        drop(other);

        // Waiting: released once the last guard in the range is dropped.
        let g3 = gate.set_active(RangeSet::empty());
        informer.store(g3, Ordering::SeqCst);
        let held = gate.enter(b);
        assert!(held.is_none());
        let gate2 = gate.clone();
        let guard = {
            gate.set_active(RangeSet::full());
            gate.enter(b).unwrap()
        };
        let g4 = gate.set_active(RangeSet::empty());
        informer.store(g4, Ordering::SeqCst);
        let waiter = tokio::spawn(async move {
            gate2
                .wait_released(&RangeSet::full(), g4, Duration::from_secs(5))
                .await
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!waiter.is_finished());
        drop(guard);
        assert!(waiter.await.unwrap());
        assert!(
            !gate
                .wait_released(&RangeSet::full(), g4 + 1, Duration::from_millis(100))
                .await,
            "an informer that never switches times out"
        );
    }
}
