//! What each cache watches: namespace, label and field selectors, managedFields stripping.

use std::{any::TypeId, collections::HashMap, time::Duration};

use super::Kind;

/// Scope and behaviour of the cache for one kind (or the default for all kinds).
#[derive(Clone, Debug)]
pub struct CacheOptions {
    /// Only cache objects in this namespace (ignored for cluster-scoped kinds). `None` = all.
    pub namespace: Option<String>,
    /// Only cache objects matching this label selector (`app=web,tier!=db`).
    pub label_selector: Option<String>,
    /// Only cache objects matching this field selector.
    pub field_selector: Option<String>,
    /// Drop `metadata.managedFields` from cached objects (on by default: they are large and
    /// controllers almost never read them).
    pub strip_managed_fields: bool,
}

impl Default for CacheOptions {
    fn default() -> Self {
        Self {
            namespace: None,
            label_selector: None,
            field_selector: None,
            strip_managed_fields: true,
        }
    }
}

impl CacheOptions {
    /// Restricts the cache to one namespace.
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }
    /// Restricts the cache to objects matching a label selector.
    #[must_use]
    pub fn labels(mut self, selector: impl Into<String>) -> Self {
        self.label_selector = Some(selector.into());
        self
    }
    /// Restricts the cache to objects matching a field selector.
    #[must_use]
    pub fn fields(mut self, selector: impl Into<String>) -> Self {
        self.field_selector = Some(selector.into());
        self
    }
    /// Keeps `metadata.managedFields` in cached objects.
    #[must_use]
    pub fn keep_managed_fields(mut self) -> Self {
        self.strip_managed_fields = false;
        self
    }
}

/// Cache configuration of a manager: defaults, per-kind overrides, the sync timeout, and how
/// changes reach subscribers and watches recover.
#[derive(Clone, Debug)]
pub struct CacheConfig {
    /// Options for kinds without an override.
    pub default: CacheOptions,
    /// Per-kind overrides (set with [`CacheConfig::by_kind`]).
    pub by_kind: HashMap<TypeId, CacheOptions>,
    /// How long start-up waits for every cache's initial list before failing.
    pub sync_timeout: Duration,
    /// How many changes may wait for one subscriber before its informer waits for it
    /// (backpressure; default 16,384). Bounds the memory a slow subscriber can hold: the
    /// changes point to objects the cache shares, so a full buffer is a few hundred KiB.
    pub subscriber_buffer: usize,
    /// While watches fail because the API server cannot be reached, the server is probed
    /// (`GET /readyz`, one probe per cache) this often, and watches resume as soon as it
    /// answers, instead of waiting out their backoff (default 500 ms; zero: backoff only).
    pub recovery_probe_interval: Duration,
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            default: CacheOptions::default(),
            by_kind: HashMap::new(),
            sync_timeout: Duration::from_secs(120),
            subscriber_buffer: 16 * 1024,
            recovery_probe_interval: Duration::from_millis(500),
        }
    }
}

impl CacheConfig {
    /// Overrides the cache options for kind `K`.
    #[must_use]
    pub fn by_kind<K: Kind>(mut self, options: CacheOptions) -> Self {
        self.by_kind.insert(TypeId::of::<K>(), options);
        self
    }
    /// The options that apply to kind `K`.
    pub fn for_kind<K: Kind>(&self) -> &CacheOptions {
        self.by_kind
            .get(&TypeId::of::<K>())
            .unwrap_or(&self.default)
    }
}
