//! The sharding metric families (`kubeforge_shard_*`): how much of the ring this replica owns,
//! how many objects that is, how often ranges changed hands and how long taking one over took.

use prometheus_client::{
    metrics::{counter::Counter, family::Family, gauge::Gauge, histogram::Histogram},
    registry::Registry,
};

/// Labels `{kind="group/version/Kind"}`.
pub type KindLabels = [(&'static str, String); 1];
/// Labels `{direction="acquired"|"released"}`.
pub type DirectionLabels = [(&'static str, String); 1];

/// Buckets of the takeover time: 10 ms to about 80 s.
fn takeover_histogram() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        0.01, 2.0, 14,
    ))
}

/// The `kubeforge_shard_*` families.
#[derive(Clone)]
pub struct ShardFamilies {
    /// `kubeforge_shard_owned_ranges`: ranges of the ring this replica works on.
    pub owned_ranges: Gauge,
    /// `kubeforge_shard_owned_objects{kind}`: objects of each sharded kind in this replica's
    /// ranges (its cache).
    pub owned_objects: Family<KindLabels, Gauge>,
    /// `kubeforge_shard_handovers_total{direction}`: ranges acquired and released.
    pub handovers: Family<DirectionLabels, Counter>,
    /// `kubeforge_shard_takeover_seconds`: from a range being assigned to this replica until
    /// it works on it (the previous owner's release or lease expiry included).
    pub takeover: Histogram,
    /// `kubeforge_shard_members`: live members this replica sees (itself included).
    pub members: Gauge,
    /// `kubeforge_shard_server_side{kind}`: 1 when the API server filters the kind's list and
    /// watch by shard (`shardSelector`), 0 when this replica filters them itself.
    pub server_side: Family<KindLabels, Gauge>,
}

impl ShardFamilies {
    /// The families, registered into `registry`.
    pub(crate) fn register(registry: &mut Registry) -> Self {
        let families = Self {
            owned_ranges: Gauge::default(),
            owned_objects: Family::default(),
            handovers: Family::default(),
            takeover: takeover_histogram(),
            members: Gauge::default(),
            server_side: Family::default(),
        };
        let f = &families;
        registry.register(
            "kubeforge_shard_owned_ranges",
            "Ranges of the hash ring this replica works on",
            f.owned_ranges.clone(),
        );
        registry.register(
            "kubeforge_shard_owned_objects",
            "Objects of each sharded kind in this replica's ranges",
            f.owned_objects.clone(),
        );
        registry.register(
            "kubeforge_shard_handovers",
            "Ranges of the hash ring acquired and released by this replica",
            f.handovers.clone(),
        );
        registry.register(
            "kubeforge_shard_takeover_seconds",
            "Time from a range being assigned to this replica until it works on it",
            f.takeover.clone(),
        );
        registry.register(
            "kubeforge_shard_members",
            "Live members of the shard group this replica sees",
            f.members.clone(),
        );
        registry.register(
            "kubeforge_shard_server_side",
            "Whether the API server filters this kind by shard (1) or the replica does (0)",
            f.server_side.clone(),
        );
        families
    }
}
