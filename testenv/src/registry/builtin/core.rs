//! The core group (`/api/v1`).

use super::table::{Builtin, CREATE, PROXY_VERBS, SCALE, STATUS, Sub, b};
use crate::support::resource::GET_PATCH_UPDATE;

const NAMESPACE_VERBS: &[&str] = &[
    "create", "delete", "get", "list", "patch", "update", "watch",
];
const GET_CREATE: &[&str] = &["create", "get"];

const POD_SUBRESOURCES: &[Sub] = &[
    Sub("attach", "", "", "PodAttachOptions", GET_CREATE),
    Sub("binding", "", "", "Binding", CREATE),
    Sub("ephemeralcontainers", "", "", "", GET_PATCH_UPDATE),
    Sub("eviction", "policy", "v1", "Eviction", CREATE),
    Sub("exec", "", "", "PodExecOptions", GET_CREATE),
    Sub("log", "", "", "", &["get"]),
    Sub("portforward", "", "", "PodPortForwardOptions", GET_CREATE),
    Sub("proxy", "", "", "PodProxyOptions", PROXY_VERBS),
    Sub("resize", "", "", "", GET_PATCH_UPDATE),
    STATUS,
];

pub(super) const RESOURCES: &[Builtin] = &[
    b("", "v1", "Binding", "bindings", &[], true).virtual_with(CREATE),
    b(
        "",
        "v1",
        "ComponentStatus",
        "componentstatuses",
        &["cs"],
        false,
    )
    .virtual_with(&["get", "list"]),
    b("", "v1", "ConfigMap", "configmaps", &["cm"], true),
    b("", "v1", "Endpoints", "endpoints", &["ep"], true),
    b("", "v1", "Event", "events", &["ev"], true),
    b("", "v1", "LimitRange", "limitranges", &["limits"], true),
    b("", "v1", "Namespace", "namespaces", &["ns"], false)
        .verbs(NAMESPACE_VERBS)
        .subs(&[Sub("finalize", "", "", "", &["update"]), STATUS]),
    b("", "v1", "Node", "nodes", &["no"], false).subs(&[
        Sub("proxy", "", "", "NodeProxyOptions", PROXY_VERBS),
        STATUS,
    ]),
    b(
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        &["pvc"],
        true,
    )
    .subs(&[STATUS])
    .returns_deleted(),
    b(
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        &["pv"],
        false,
    )
    .subs(&[STATUS])
    .returns_deleted(),
    b("", "v1", "Pod", "pods", &["po"], true)
        .subs(POD_SUBRESOURCES)
        .generation()
        .returns_deleted()
        .all(),
    b("", "v1", "PodTemplate", "podtemplates", &[], true)
        .generation()
        .returns_deleted(),
    b(
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        &["rc"],
        true,
    )
    .subs(&[SCALE, STATUS])
    .generation()
    .all(),
    b(
        "",
        "v1",
        "ResourceQuota",
        "resourcequotas",
        &["quota"],
        true,
    )
    .subs(&[STATUS])
    .returns_deleted(),
    b("", "v1", "Secret", "secrets", &[], true),
    b("", "v1", "ServiceAccount", "serviceaccounts", &["sa"], true)
        .subs(&[Sub(
            "token",
            "authentication.k8s.io",
            "v1",
            "TokenRequest",
            CREATE,
        )])
        .returns_deleted(),
    b("", "v1", "Service", "services", &["svc"], true)
        .subs(&[
            Sub("proxy", "", "", "ServiceProxyOptions", PROXY_VERBS),
            STATUS,
        ])
        .returns_deleted()
        .all(),
];
