//! [`ManagerStatus`] (bound addresses, leadership) and [`ShutdownHandle`]: what tests and
//! embedding applications see of a running manager.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
};
use tokio_util::sync::CancellationToken;

/// Stops a running manager gracefully (tests and embedding applications use it).
#[derive(Clone, Debug)]
pub struct ShutdownHandle(pub(super) CancellationToken);

impl ShutdownHandle {
    /// Requests a graceful shutdown; `Manager::run` then returns.
    pub fn shutdown(&self) {
        self.0.cancel();
    }
}

#[derive(Default, Debug)]
pub(super) struct StatusInner {
    pub(super) metrics_addr: Option<SocketAddr>,
    pub(super) probe_addr: Option<SocketAddr>,
    pub(super) leader: bool,
}

/// What a running manager is doing: bound addresses, leadership (cheap to clone).
#[derive(Clone, Default, Debug)]
pub struct ManagerStatus(Arc<Mutex<StatusInner>>);

impl ManagerStatus {
    /// Where `/metrics` is served, once bound.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.0.lock().expect("status lock").metrics_addr
    }
    /// Where the probes are served, once bound.
    pub fn probe_addr(&self) -> Option<SocketAddr> {
        self.0.lock().expect("status lock").probe_addr
    }
    /// Whether this manager currently runs its controllers as the leader (always true once
    /// started without leader election).
    pub fn is_leader(&self) -> bool {
        self.0.lock().expect("status lock").leader
    }
    pub(super) fn update(&self, f: impl FnOnce(&mut StatusInner)) {
        f(&mut self.0.lock().expect("status lock"));
    }
}
