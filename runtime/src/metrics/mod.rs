//! Prometheus metrics with controller-runtime's names and labels, so existing Grafana dashboards
//! for kubebuilder operators work unchanged.
//!
//! Every [`Manager`](crate::Manager) owns one [`Metrics`]; operators may register their own
//! metrics in the same registry through [`Metrics::registry`].

mod handles;
mod registry;
mod shard;

pub(crate) use handles::ControllerHandles;
pub use registry::{
    ControllerLabels, Families, Metrics, QueueLabels, ResultLabels, controller_labels, queue_labels,
};
pub use shard::{DirectionLabels, KindLabels, ShardFamilies};
