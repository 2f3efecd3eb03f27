//! The core `v1` `Affinity`: node affinity, pod affinity and pod anti-affinity.

use super::meta::LABEL_SELECTOR;
use super::schema::{Field, Message, Ty, list, ptr, val};

/// `NodeSelectorRequirement`.
pub(super) static NODE_SELECTOR_REQUIREMENT: Message = Message::new(
    "NodeSelectorRequirement",
    &[
        val(1, "key", Ty::Str),
        val(2, "operator", Ty::Str),
        list(3, "values", Ty::Str),
    ],
);

/// `NodeSelectorTerm`.
pub(super) static NODE_SELECTOR_TERM: Message = Message::new(
    "NodeSelectorTerm",
    &[
        list(1, "matchExpressions", Ty::Msg(&NODE_SELECTOR_REQUIREMENT)),
        list(2, "matchFields", Ty::Msg(&NODE_SELECTOR_REQUIREMENT)),
    ],
);

/// `NodeSelector`.
pub(super) static NODE_SELECTOR: Message = Message::new(
    "NodeSelector",
    &[list(1, "nodeSelectorTerms", Ty::Msg(&NODE_SELECTOR_TERM))],
);

/// `PreferredSchedulingTerm`.
pub(super) static PREFERRED_SCHEDULING_TERM: Message = Message::new(
    "PreferredSchedulingTerm",
    &[
        val(1, "weight", Ty::Int),
        val(2, "preference", Ty::Msg(&NODE_SELECTOR_TERM)),
    ],
);

/// `NodeAffinity`.
pub(super) static NODE_AFFINITY: Message = Message::new(
    "NodeAffinity",
    &[
        ptr(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Ty::Msg(&NODE_SELECTOR),
        ),
        list(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Ty::Msg(&PREFERRED_SCHEDULING_TERM),
        ),
    ],
);

/// `PodAffinityTerm`.
pub(super) static POD_AFFINITY_TERM: Message = Message::new(
    "PodAffinityTerm",
    &[
        ptr(1, "labelSelector", Ty::Msg(&LABEL_SELECTOR)),
        list(2, "namespaces", Ty::Str),
        val(3, "topologyKey", Ty::Str),
        ptr(4, "namespaceSelector", Ty::Msg(&LABEL_SELECTOR)),
        list(5, "matchLabelKeys", Ty::Str),
        list(6, "mismatchLabelKeys", Ty::Str),
    ],
);

/// `WeightedPodAffinityTerm`.
pub(super) static WEIGHTED_POD_AFFINITY_TERM: Message = Message::new(
    "WeightedPodAffinityTerm",
    &[
        val(1, "weight", Ty::Int),
        val(2, "podAffinityTerm", Ty::Msg(&POD_AFFINITY_TERM)),
    ],
);

/// The fields of a `PodAffinity`, which a `PodAntiAffinity` repeats.
static POD_AFFINITY_FIELDS: [Field; 2] = [
    list(
        1,
        "requiredDuringSchedulingIgnoredDuringExecution",
        Ty::Msg(&POD_AFFINITY_TERM),
    ),
    list(
        2,
        "preferredDuringSchedulingIgnoredDuringExecution",
        Ty::Msg(&WEIGHTED_POD_AFFINITY_TERM),
    ),
];

/// `PodAffinity`.
pub(super) static POD_AFFINITY: Message = Message::new("PodAffinity", &POD_AFFINITY_FIELDS);

/// `PodAntiAffinity`: a `PodAffinity`'s fields.
pub(super) static POD_ANTI_AFFINITY: Message =
    Message::new("PodAntiAffinity", &POD_AFFINITY_FIELDS);

/// `Affinity`.
pub(super) static AFFINITY: Message = Message::new(
    "Affinity",
    &[
        ptr(1, "nodeAffinity", Ty::Msg(&NODE_AFFINITY)),
        ptr(2, "podAffinity", Ty::Msg(&POD_AFFINITY)),
        ptr(3, "podAntiAffinity", Ty::Msg(&POD_ANTI_AFFINITY)),
    ],
);
