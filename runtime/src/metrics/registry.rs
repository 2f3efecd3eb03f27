//! The registry of a manager: controller-runtime's metric families, registered under
//! controller-runtime's names, and the label sets they are keyed by.

use prometheus_client::{
    encoding::text::encode,
    metrics::{counter::Counter, family::Family, gauge::Gauge, histogram::Histogram},
    registry::Registry,
};
use std::sync::{Arc, Mutex, MutexGuard};

use super::shard::ShardFamilies;

/// Labels `{controller="..."}`.
pub type ControllerLabels = [(&'static str, String); 1];
/// Labels `{controller="...", result="..."}`.
pub type ResultLabels = [(&'static str, String); 2];
/// Labels `{name="...", controller="..."}` of the workqueue metrics.
pub type QueueLabels = [(&'static str, String); 2];

type HistogramFamily<S> = Family<S, Histogram, fn() -> Histogram>;

/// controller-runtime's reconcile_time_seconds buckets.
const RECONCILE_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

fn reconcile_histogram() -> Histogram {
    Histogram::new(RECONCILE_BUCKETS)
}

/// client-go's workqueue buckets: 10ns to 10s, factor 10.
fn queue_histogram() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        1e-8, 10.0, 10,
    ))
}

/// The metric families the runtime updates.
#[derive(Clone)]
pub struct Families {
    /// `controller_runtime_reconcile_total{controller,result}`.
    pub reconcile_total: Family<ResultLabels, Counter>,
    /// `controller_runtime_reconcile_errors_total{controller}`.
    pub reconcile_errors: Family<ControllerLabels, Counter>,
    /// `controller_runtime_terminal_reconcile_errors_total{controller}`.
    pub terminal_errors: Family<ControllerLabels, Counter>,
    /// `controller_runtime_reconcile_panics_total{controller}`.
    pub reconcile_panics: Family<ControllerLabels, Counter>,
    /// `controller_runtime_reconcile_time_seconds{controller}`.
    pub reconcile_time: HistogramFamily<ControllerLabels>,
    /// `controller_runtime_max_concurrent_reconciles{controller}`.
    pub max_concurrent: Family<ControllerLabels, Gauge>,
    /// `controller_runtime_active_workers{controller}`.
    pub active_workers: Family<ControllerLabels, Gauge>,
    /// `workqueue_depth{name,controller}`.
    pub queue_depth: Family<QueueLabels, Gauge>,
    /// `workqueue_adds_total{name,controller}`.
    pub queue_adds: Family<QueueLabels, Counter>,
    /// `workqueue_retries_total{name,controller}`.
    pub queue_retries: Family<QueueLabels, Counter>,
    /// `workqueue_queue_duration_seconds{name,controller}`.
    pub queue_duration: HistogramFamily<QueueLabels>,
    /// `workqueue_work_duration_seconds{name,controller}`.
    pub work_duration: HistogramFamily<QueueLabels>,
    /// `leader_election_master_status{name}`.
    pub leader_status: Family<[(&'static str, String); 1], Gauge>,
    /// The `kubeforge_shard_*` families (sharded managers).
    pub shard: ShardFamilies,
}

/// The metrics registry of a manager (cheap to clone; clones share the registry).
#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Mutex<Registry>>,
    families: Families,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Creates a registry with every runtime metric registered.
    pub fn new() -> Self {
        let mut r = Registry::default();
        let families = Families {
            reconcile_total: Family::default(),
            reconcile_errors: Family::default(),
            terminal_errors: Family::default(),
            reconcile_panics: Family::default(),
            reconcile_time: Family::new_with_constructor(reconcile_histogram),
            max_concurrent: Family::default(),
            active_workers: Family::default(),
            queue_depth: Family::default(),
            queue_adds: Family::default(),
            queue_retries: Family::default(),
            queue_duration: Family::new_with_constructor(queue_histogram),
            work_duration: Family::new_with_constructor(queue_histogram),
            leader_status: Family::default(),
            shard: ShardFamilies::register(&mut r),
        };
        let f = &families;
        r.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            f.reconcile_total.clone(),
        );
        r.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            f.reconcile_errors.clone(),
        );
        r.register(
            "controller_runtime_terminal_reconcile_errors",
            "Total number of terminal reconciliation errors per controller",
            f.terminal_errors.clone(),
        );
        r.register(
            "controller_runtime_reconcile_panics",
            "Total number of reconciliation panics per controller",
            f.reconcile_panics.clone(),
        );
        r.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            f.reconcile_time.clone(),
        );
        r.register(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            f.max_concurrent.clone(),
        );
        r.register(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            f.active_workers.clone(),
        );
        r.register(
            "workqueue_depth",
            "Current depth of workqueue",
            f.queue_depth.clone(),
        );
        r.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            f.queue_adds.clone(),
        );
        r.register(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            f.queue_retries.clone(),
        );
        r.register(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            f.queue_duration.clone(),
        );
        r.register(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes",
            f.work_duration.clone(),
        );
        r.register(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
            f.leader_status.clone(),
        );
        Self {
            registry: Arc::new(Mutex::new(r)),
            families,
        }
    }

    /// The runtime's metric families (for the controller and leader election code).
    pub fn families(&self) -> &Families {
        &self.families
    }

    /// The registry, to register operator-specific metrics next to the runtime's.
    pub fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().expect("metrics registry lock")
    }

    /// Renders every metric in the OpenMetrics text format (what `/metrics` serves).
    pub fn render(&self) -> String {
        let mut out = String::new();
        encode(&mut out, &self.registry()).expect("writing to a String cannot fail");
        out
    }
}

/// `{controller="<name>"}`.
pub fn controller_labels(controller: &str) -> ControllerLabels {
    [("controller", controller.to_string())]
}

/// `{name="<name>", controller="<name>"}` (controller-runtime names the queue after the controller).
pub fn queue_labels(controller: &str) -> QueueLabels {
    [
        ("name", controller.to_string()),
        ("controller", controller.to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_controller_runtime_names() {
        let m = Metrics::new();
        let f = m.families();
        f.reconcile_total
            .get_or_create(&[
                ("controller", "memcached".to_string()),
                ("result", "success".to_string()),
            ])
            .inc();
        f.reconcile_time
            .get_or_create(&controller_labels("memcached"))
            .observe(0.2);
        f.queue_depth
            .get_or_create(&queue_labels("memcached"))
            .set(3);
        let text = m.render();
        assert!(
            text.contains(
                "controller_runtime_reconcile_total{controller=\"memcached\",result=\"success\"} 1"
            ),
            "{text}"
        );
        assert!(text.contains("controller_runtime_reconcile_time_seconds_bucket{le=\"0.25\",controller=\"memcached\"} 1") || text.contains("controller_runtime_reconcile_time_seconds_bucket{controller=\"memcached\",le=\"0.25\"} 1"), "{text}");
        assert!(text.contains("workqueue_depth{name=\"memcached\",controller=\"memcached\"} 3"));
    }
}
