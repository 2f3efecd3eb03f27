//! Fault injection: make the embedded API server fail, slow down, lose watch events, end
//! watches, forget history or restart, so tests can prove an operator survives what real
//! clusters do to it (envtest cannot do this).
//!
//! ```no_run
//! # async fn demo() -> Result<(), kubeforge_testenv::Error> {
//! use std::time::Duration;
//! use kubeforge_testenv::TestEnv;
//! use kubeforge_testenv::faults::{Failure, Matcher};
//! let env = TestEnv::start().await?;
//! let faults = env.faults()?;
//! faults.fail_next(Matcher::any().verb("list").resource("configmaps"), 3, Failure::status(503));
//! faults.latency(Matcher::any().resource("pods"), Duration::from_millis(200));
//! let closed = faults.close_watches();
//! faults.restart().await;
//! assert!(faults.injected() >= closed as u64);
//! # Ok(()) }
//! ```
//!
//! Requests are matched on the attributes kube-apiserver's `RequestInfo` derives from
//! method, path and `?watch` (see [`Matcher`]); faults apply before the request reaches the
//! handlers (a filter of the server layer), so nothing is written by a failed request.

mod failure;
mod matcher;
mod state;

use std::sync::{Arc, Weak};
use std::time::Duration;

pub use failure::Failure;
pub use matcher::{Matcher, RequestInfo};
pub(crate) use state::FaultState;

use futures::future::BoxFuture;

use crate::Error;

/// What a fault handle asks of the running server; the server implements it, and hands the
/// handle a weak reference (a handle outliving its server does nothing).
pub(crate) trait ServerControl: Send + Sync {
    /// Forgets the watch history up to the current resourceVersion.
    fn compact(&self);
    /// Drops the listener and every connection, stays down for `down`, then listens again on
    /// the same address.
    fn restart(self: Arc<Self>, down: Duration) -> BoxFuture<'static, Result<(), Error>>;
}

/// A handle on the faults of one embedded API server (cheap to clone, `Send + Sync`).
///
/// Obtained from [`TestEnv::faults`](crate::TestEnv::faults). Once the environment is
/// dropped, the handle still answers but has no server to act on: `close_watches` returns 0
/// and `compact`/`restart` do nothing.
#[derive(Clone)]
pub struct Faults {
    state: Arc<FaultState>,
    server: Weak<dyn ServerControl>,
}

impl std::fmt::Debug for Faults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Faults")
            .field("injected", &self.injected())
            .field("server_running", &(self.server.strong_count() > 0))
            .finish()
    }
}

impl Faults {
    pub(crate) fn new(state: Arc<FaultState>, server: Weak<dyn ServerControl>) -> Faults {
        Faults { state, server }
    }

    /// The next `count` requests matching `matcher` fail with `failure` (the real server's
    /// `Status` body for its code) without reaching the handlers. Rules are tried in the
    /// order they were added; one request consumes at most one failure.
    pub fn fail_next(&self, matcher: Matcher, count: usize, failure: Failure) {
        self.state.fail_next(matcher, count, failure);
    }

    /// Adds `delay` to every request matching `matcher` until [`Faults::clear`] (several
    /// matching latencies add up). For watches, the delay is before the stream starts.
    pub fn latency(&self, matcher: Matcher, delay: Duration) {
        self.state.latency(matcher, delay);
    }

    /// The next `count` store changes matching `matcher` reach no watcher: the object does
    /// change (gets, lists and later events show it), but its watch event is lost, also for
    /// watches that later resume from an older resourceVersion. The matcher is applied to
    /// the changed object with verb `watch`.
    pub fn drop_watch_events(&self, matcher: Matcher, count: usize) {
        self.state.drop_watch_events(matcher, count);
    }

    /// Ends every open watch stream now, cleanly (the response ends, the connection stays);
    /// clients re-watch from their last resourceVersion. Returns how many were ended.
    pub fn close_watches(&self) -> usize {
        if self.server.strong_count() == 0 {
            return 0;
        }
        self.state.close_watches()
    }

    /// How many watch streams are open right now.
    pub fn open_watches(&self) -> usize {
        self.state.open_watches()
    }

    /// Forgets the watch history up to now, like an etcd compaction: a watch or a list
    /// from an older resourceVersion gets `410 Expired`, so clients must re-list. Open
    /// watches keep running (combine with [`Faults::close_watches`] to force the resume).
    pub fn compact(&self) {
        if let Some(server) = self.server.upgrade() {
            server.compact();
        }
    }

    /// Restarts the server: every connection (and with it every watch) is dropped at once,
    /// the listener is closed and opened again on the same address; the data is kept.
    /// Returns when the server accepts connections again.
    ///
    /// # Panics
    ///
    /// When the address cannot be listened on again within a few seconds (another process
    /// took the port); [`Faults::try_restart`] returns that as an error instead.
    pub async fn restart(&self) {
        if let Err(e) = self.try_restart().await {
            panic!("{e}");
        }
    }

    /// [`Faults::restart`], with a failure to listen again returned as
    /// [`Error::Bind`].
    pub async fn try_restart(&self) -> Result<(), Error> {
        self.try_restart_after(Duration::ZERO).await
    }

    /// An outage: like [`Faults::restart`], but the server stays down for `down` first (every
    /// connection is dropped and new ones are refused), as when kube-apiserver is restarted
    /// or unreachable for a while. Returns when the server accepts connections again.
    ///
    /// # Panics
    ///
    /// When the address cannot be listened on again (see [`Faults::try_restart_after`]).
    pub async fn restart_after(&self, down: Duration) {
        if let Err(e) = self.try_restart_after(down).await {
            panic!("{e}");
        }
    }

    /// [`Faults::restart_after`], with a failure to listen again returned as
    /// [`Error::Bind`].
    pub async fn try_restart_after(&self, down: Duration) -> Result<(), Error> {
        match self.server.upgrade() {
            Some(server) => server.restart(down).await,
            None => Ok(()),
        }
    }

    /// Removes every pending failure, latency and event drop (open watches and history are
    /// left as they are).
    pub fn clear(&self) {
        self.state.clear();
    }

    /// How many faults fired so far: failed requests, delayed requests, dropped watch
    /// events and watches ended by [`Faults::close_watches`].
    pub fn injected(&self) -> u64 {
        self.state.injected()
    }
}
