//! Fan-out of an informer's changes to its subscribers over bounded channels, with
//! backpressure: when a subscriber's buffer is full, the informer waits for it before it reads
//! the next watch event, so a slow subscriber delays the watch instead of growing memory.
//!
//! These are the semantics of kube-runtime's shared reflectors (`reflect_shared`, behind its
//! `unstable-runtime-subscribe` feature), with what kubeforge's controllers need on top: every
//! change carries the old and the new object (deletions included), and a late subscriber first
//! gets the cached objects replayed.

use futures::Stream;
use std::{
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
};
use tokio::sync::mpsc;

use super::Change;

/// The changes of one kind's informer for one subscriber: first the objects cached when it
/// subscribed (as [`Change::Added`]), then every later change, in order.
///
/// Dropping it unsubscribes. At most the cache's
/// [`subscriber_buffer`](super::CacheConfig::subscriber_buffer) changes wait for a subscriber;
/// a subscriber that stops reading holds up the informer (and so every other subscriber of the
/// kind) until it reads again, without losing anything.
pub struct Subscription<K> {
    replay: std::vec::IntoIter<Arc<K>>,
    rx: mpsc::Receiver<Change<K>>,
}

impl<K> Subscription<K> {
    /// Takes the replayed objects not yet received (all of them right after subscribing).
    pub fn take_replay(&mut self) -> Vec<Arc<K>> {
        std::mem::take(&mut self.replay).collect()
    }

    /// The next change if one is ready now, without waiting.
    pub fn try_next(&mut self) -> Option<Change<K>> {
        match self.replay.next() {
            Some(obj) => Some(Change::Added(obj)),
            None => self.rx.try_recv().ok(),
        }
    }
}

impl<K> Stream for Subscription<K> {
    type Item = Change<K>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Change<K>>> {
        if let Some(obj) = self.replay.next() {
            return Poll::Ready(Some(Change::Added(obj)));
        }
        self.rx.poll_recv(cx)
    }
}

impl<K> std::fmt::Debug for Subscription<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("replay", &self.replay.len())
            .field("queued", &self.rx.len())
            .finish()
    }
}

/// The subscribers of one informer: a copy-on-write list of bounded senders, so delivering a
/// change never holds the lock across an await.
pub(crate) struct Subscribers<K> {
    buffer: usize,
    list: Mutex<Arc<[mpsc::Sender<Change<K>>]>>,
}

impl<K> Subscribers<K> {
    /// No subscribers yet; each gets a buffer of `buffer` changes (at least one).
    pub(crate) fn new(buffer: usize) -> Self {
        Self {
            buffer: buffer.max(1),
            list: Mutex::new(Arc::from([])),
        }
    }

    /// Adds a subscriber. `replay` runs under the list's lock and returns the objects the new
    /// subscriber starts with: a change delivered to the current list (see [`Self::current`])
    /// either reaches the new subscriber or is already part of what `replay` sees.
    pub(crate) fn subscribe(&self, replay: impl FnOnce() -> Vec<Arc<K>>) -> Subscription<K> {
        let (tx, rx) = mpsc::channel(self.buffer);
        let mut list = self.list.lock().expect("subscribers lock");
        let replay = replay();
        *list = list.iter().cloned().chain([tx]).collect();
        Subscription {
            replay: replay.into_iter(),
            rx,
        }
    }

    /// The subscribers right now (cheap: the list is shared, not copied).
    pub(crate) fn current(&self) -> Arc<[mpsc::Sender<Change<K>>]> {
        self.list.lock().expect("subscribers lock").clone()
    }

    /// Delivers `changes` to `targets` in order, waiting while a subscriber's buffer is full;
    /// subscribers that went away are forgotten.
    ///
    /// A full subscriber is waited for until half its buffer is free (or room for all that is
    /// left), then sent a batch: the informer wakes once per batch instead of once per change
    /// the subscriber reads, which kept a busy controller's informer switching in and out for
    /// every change of a large list.
    pub(crate) async fn deliver(
        &self,
        targets: &[mpsc::Sender<Change<K>>],
        changes: impl IntoIterator<Item = Change<K>>,
    ) {
        let changes: Vec<Change<K>> = changes.into_iter().collect();
        let mut gone = false;
        for tx in targets {
            let batch = (tx.max_capacity() / 2).max(1);
            let mut rest = changes.iter();
            let mut left = changes.len();
            while left > 0 {
                let want = left.min(batch);
                let Ok(permits) = tx.reserve_many(want).await else {
                    gone = true;
                    break;
                };
                for (permit, change) in permits.zip(rest.by_ref()) {
                    permit.send(change.clone());
                }
                left -= want;
            }
        }
        if gone {
            let mut list = self.list.lock().expect("subscribers lock");
            *list = list.iter().filter(|tx| !tx.is_closed()).cloned().collect();
        }
    }

    /// The most changes waiting for any one subscriber (at most the buffer size).
    pub(crate) fn queued(&self) -> usize {
        self.current()
            .iter()
            .map(|tx| tx.max_capacity() - tx.capacity())
            .max()
            .unwrap_or(0)
    }

    /// How many subscribers there are.
    pub(crate) fn len(&self) -> usize {
        self.current().iter().filter(|tx| !tx.is_closed()).count()
    }
}
