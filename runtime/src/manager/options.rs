//! [`ManagerOptions`]: everything a manager can be told, as plain data.

use std::{path::PathBuf, time::Duration};

use crate::{cache::CacheConfig, leader_election::LeaderElectionOptions, shard::ShardingOptions};

/// How the metrics endpoint is served.
#[derive(Clone, Debug)]
pub struct MetricsServerOptions {
    /// `host:port` or `:port` (kubebuilder style).
    pub bind_address: String,
    /// HTTPS with TokenReview + SubjectAccessReview authorization (kubebuilder's default);
    /// `false` serves plain, unauthenticated HTTP.
    pub secure: bool,
    /// Directory with `tls.crt` and `tls.key`; `None` generates a self-signed certificate.
    pub cert_dir: Option<PathBuf>,
}

/// Options of a [`Manager`](crate::Manager). `ManagerOptions::default()` runs no metrics server,
/// no probe server and no leader election: what tests want.
#[derive(Clone, Debug)]
pub struct ManagerOptions {
    /// Cache scope (namespaces, selectors per kind) and sync timeout.
    pub cache: CacheConfig,
    /// The metrics server, if any.
    pub metrics: Option<MetricsServerOptions>,
    /// Bind address of `/healthz` and `/readyz`, if any.
    pub health_probe_bind_address: Option<String>,
    /// Leader election, if enabled.
    pub leader_election: Option<LeaderElectionOptions>,
    /// Sharding, if enabled: controllers run on every replica, each reconciling its share of
    /// the objects (see [`crate::shard`]). Leader election, if also enabled, still decides
    /// where the other leader-elected runnables (state-of-world controllers) run.
    pub sharding: Option<ShardingOptions>,
    /// How long running reconciles may take to finish after a shutdown request (default 30 s).
    pub graceful_shutdown_timeout: Duration,
    /// Stop on SIGTERM and SIGINT (default true).
    pub handle_signals: bool,
    /// Whether the metrics server also speaks HTTP/2. Off by default (the CVE-2023-44487
    /// mitigation kubebuilder applies); turning it on needs the crate's `http2` feature, and
    /// without it [`Manager::run`](crate::Manager::run) fails with an error saying so.
    pub enable_http2: bool,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        Self {
            cache: CacheConfig::default(),
            metrics: None,
            health_probe_bind_address: None,
            leader_election: None,
            sharding: None,
            graceful_shutdown_timeout: Duration::from_secs(30),
            handle_signals: true,
            enable_http2: false,
        }
    }
}
