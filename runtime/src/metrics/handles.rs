//! The metric handles one controller updates on every reconcile, resolved once from the
//! families so that the hot path never looks up labels. Per-object controllers and
//! state-of-world controllers share them, so both show up on the same dashboards.

use prometheus_client::metrics::{counter::Counter, gauge::Gauge, histogram::Histogram};

use super::registry::{Metrics, controller_labels, queue_labels};

/// controller-runtime's reconcile and workqueue series of one controller.
pub(crate) struct ControllerHandles {
    pub(crate) success: Counter,
    pub(crate) error: Counter,
    pub(crate) requeue: Counter,
    pub(crate) requeue_after: Counter,
    pub(crate) errors: Counter,
    pub(crate) terminal: Counter,
    pub(crate) panics: Counter,
    pub(crate) reconcile_time: Histogram,
    pub(crate) active: Gauge,
    pub(crate) depth: Gauge,
    pub(crate) adds: Counter,
    pub(crate) retries: Counter,
    pub(crate) queue_duration: Histogram,
    pub(crate) work_duration: Histogram,
}

impl ControllerHandles {
    /// Resolves the series of controller `name` and records its `max_concurrent` reconciles.
    pub(crate) fn new(name: &str, metrics: &Metrics, max_concurrent: u16) -> Self {
        let f = metrics.families();
        let c = controller_labels(name);
        let q = queue_labels(name);
        let result = |r: &str| {
            f.reconcile_total
                .get_or_create_owned(&[("controller", name.to_string()), ("result", r.to_string())])
        };
        f.max_concurrent
            .get_or_create(&c)
            .set(i64::from(max_concurrent));
        Self {
            success: result("success"),
            error: result("error"),
            requeue: result("requeue"),
            requeue_after: result("requeue_after"),
            errors: f.reconcile_errors.get_or_create_owned(&c),
            terminal: f.terminal_errors.get_or_create_owned(&c),
            panics: f.reconcile_panics.get_or_create_owned(&c),
            reconcile_time: f.reconcile_time.get_or_create_owned(&c),
            active: f.active_workers.get_or_create_owned(&c),
            depth: f.queue_depth.get_or_create_owned(&q),
            adds: f.queue_adds.get_or_create_owned(&q),
            retries: f.queue_retries.get_or_create_owned(&q),
            queue_duration: f.queue_duration.get_or_create_owned(&q),
            work_duration: f.work_duration.get_or_create_owned(&q),
        }
    }
}
