//! The watch cache of one resource, kept as kube-apiserver's cacher keeps it: a window of the
//! resource's most recent events that watches from a past resourceVersion replay.
//!
//! The window starts at the resourceVersion the cache was initialised (listed) at. It holds
//! at least 100 events; when it is full and its oldest event is younger than 75 seconds it
//! doubles (up to an upper bound), and when even the newest quarter of it is older than that
//! it halves. A full cache forgets its oldest event for each new one, and from then on only
//! the events it still holds can be replayed.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::history::Event;

/// How long the cache tries to keep events, as kube-apiserver's default: the bookmark
/// interval (60 s) plus 15 s.
pub const EVENT_FRESH_DURATION: Duration = Duration::from_secs(75);

/// The smallest capacity of a cache (kube-apiserver's lower bound).
pub const LOWER_BOUND_CAPACITY: usize = 100;

/// The events one resource's watches can resume from.
pub struct WatchCache {
    /// Retained events, oldest first, with the moment each was recorded.
    events: VecDeque<(Instant, Arc<Event>)>,
    capacity: usize,
    lower: usize,
    upper: usize,
    fresh: Duration,
    /// The resourceVersion the cache was initialised at.
    list_rv: u64,
    /// Whether an event was forgotten since the cache was initialised.
    removed_since_list: bool,
}

impl WatchCache {
    /// An empty cache initialised at `list_rv`, growing up to `upper` events.
    pub fn new(list_rv: u64, upper: usize) -> Self {
        Self::with_freshness(list_rv, upper, EVENT_FRESH_DURATION)
    }

    /// As [`WatchCache::new`], keeping events for `fresh` instead of 75 seconds.
    pub fn with_freshness(list_rv: u64, upper: usize, fresh: Duration) -> Self {
        let upper = upper.max(1);
        let lower = LOWER_BOUND_CAPACITY.min(upper);
        WatchCache {
            events: VecDeque::new(),
            capacity: lower,
            lower,
            upper,
            fresh,
            list_rv,
            removed_since_list: false,
        }
    }

    fn is_full(&self) -> bool {
        self.events.len() >= self.capacity
    }

    /// Records an event that happened at `at`, resizing first and then forgetting the
    /// oldest event when the cache is full.
    pub fn push(&mut self, at: Instant, event: Arc<Event>) {
        self.resize(at);
        if self.is_full() {
            self.events.pop_front();
            self.removed_since_list = true;
        }
        self.events.push_back((at, event));
    }

    /// Grows a full cache whose oldest event is fresh; shrinks one whose newest quarter is
    /// stale (keeping the newest events).
    fn resize(&mut self, at: Instant) {
        if !self.is_full() {
            return;
        }
        let age = |i: usize| at.saturating_duration_since(self.events[i].0);
        if age(0) < self.fresh {
            self.capacity = (self.capacity * 2).min(self.upper);
            return;
        }
        let quarter = self.events.len() - self.capacity / 4;
        if quarter < self.events.len() && age(quarter) > self.fresh {
            let capacity = (self.capacity / 2).max(self.lower);
            while self.events.len() > capacity {
                self.events.pop_front();
            }
            self.capacity = capacity;
            self.events.shrink_to(capacity);
        }
    }

    /// The resourceVersion a watch must start at or after: the one the window begins after.
    pub fn window_start(&self) -> u64 {
        match self.events.front() {
            Some((_, first)) if self.removed_since_list => first.rv - 1,
            _ => self.list_rv,
        }
    }

    /// Every retained event newer than `rv`, or `Err(window start)` when `rv` is older than
    /// the window (the numbers of "too old resource version: rv (start)").
    pub fn since(&self, rv: u64) -> Result<Vec<Arc<Event>>, u64> {
        let start = self.window_start();
        if rv < start {
            return Err(start);
        }
        let first = self.events.partition_point(|(_, e)| e.rv <= rv);
        Ok(self.events.range(first..).map(|(_, e)| e.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(rv: u64) -> Arc<Event> {
        Event::added_at(rv)
    }

    fn rvs(events: &[Arc<Event>]) -> Vec<u64> {
        events.iter().map(|e| e.rv).collect()
    }

    #[test]
    fn window_starts_at_the_list_resource_version() {
        let mut cache = WatchCache::new(10, 1000);
        assert_eq!(cache.since(9).unwrap_err(), 10);
        assert!(cache.since(10).unwrap().is_empty());
        let now = Instant::now();
        cache.push(now, ev(15));
        cache.push(now, ev(17));
        // An RV older than the first event but not than the list is served.
        assert_eq!(rvs(&cache.since(12).unwrap()), vec![15, 17]);
        assert_eq!(rvs(&cache.since(15).unwrap()), vec![17]);
        assert_eq!(cache.since(3).unwrap_err(), 10);
    }

    #[test]
    fn fresh_events_double_the_capacity_up_to_the_bound() {
        let mut cache = WatchCache::new(0, 250);
        let now = Instant::now();
        for rv in 1..=1000 {
            cache.push(now, ev(rv));
        }
        assert_eq!(cache.capacity, 250);
        assert_eq!(cache.events.len(), 250);
        assert_eq!(cache.since(749).unwrap_err(), 750);
        assert_eq!(cache.since(750).unwrap().len(), 250);
    }

    #[test]
    fn stale_events_are_forgotten_and_the_cache_shrinks() {
        let mut cache = WatchCache::with_freshness(0, 1000, Duration::from_millis(10));
        let start = Instant::now();
        for rv in 1..=100 {
            cache.push(start, ev(rv));
        }
        assert_eq!(cache.capacity, 100);
        // Older than the freshness: a full cache does not grow, it forgets its oldest.
        let later = start + Duration::from_millis(50);
        cache.push(later, ev(101));
        assert_eq!(cache.capacity, 100);
        assert_eq!(cache.since(0).unwrap_err(), 1);
        assert_eq!(cache.since(1).unwrap().len(), 100);
        // A fresh oldest event lets it grow again.
        for rv in 102..=300 {
            cache.push(later, ev(rv));
        }
        assert!(cache.capacity >= 200, "capacity {}", cache.capacity);
        // Everything stale: it halves back toward the lower bound.
        let much_later = later + Duration::from_secs(1);
        let before = cache.capacity;
        cache.push(much_later, ev(301));
        assert_eq!(cache.capacity, (before / 2).max(100));
        assert_eq!(cache.events.len(), cache.capacity);
    }
}
