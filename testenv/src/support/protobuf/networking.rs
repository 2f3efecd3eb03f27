//! `networking.k8s.io/v1`: the IngressSpec `kubectl create ingress` sends (the kind, with its
//! status, is in `networking_kinds`).

use super::pod_volumes::TYPED_LOCAL_OBJECT_REFERENCE;
use super::schema::{Message, Ty, inline, list, ptr, val};

/// `ServiceBackendPort`.
pub(super) static SERVICE_BACKEND_PORT: Message = Message::new(
    "ServiceBackendPort",
    &[val(1, "name", Ty::Str), val(2, "number", Ty::Int)],
);

/// `IngressServiceBackend`.
pub(super) static INGRESS_SERVICE_BACKEND: Message = Message::new(
    "IngressServiceBackend",
    &[
        val(1, "name", Ty::Str),
        val(2, "port", Ty::Msg(&SERVICE_BACKEND_PORT)),
    ],
);

/// `IngressBackend`.
pub(super) static INGRESS_BACKEND: Message = Message::new(
    "IngressBackend",
    &[
        ptr(4, "service", Ty::Msg(&INGRESS_SERVICE_BACKEND)),
        ptr(3, "resource", Ty::Msg(&TYPED_LOCAL_OBJECT_REFERENCE)),
    ],
);

/// `IngressTLS`.
pub(super) static INGRESS_TLS: Message = Message::new(
    "IngressTLS",
    &[list(1, "hosts", Ty::Str), val(2, "secretName", Ty::Str)],
);

/// `HTTPIngressPath`.
pub(super) static HTTP_INGRESS_PATH: Message = Message::new(
    "HTTPIngressPath",
    &[
        val(1, "path", Ty::Str),
        ptr(3, "pathType", Ty::Str),
        val(2, "backend", Ty::Msg(&INGRESS_BACKEND)),
    ],
);

/// `HTTPIngressRuleValue`.
pub(super) static HTTP_INGRESS_RULE_VALUE: Message = Message::new(
    "HTTPIngressRuleValue",
    &[list(1, "paths", Ty::Msg(&HTTP_INGRESS_PATH))],
);

/// `IngressRuleValue`.
pub(super) static INGRESS_RULE_VALUE: Message = Message::new(
    "IngressRuleValue",
    &[ptr(1, "http", Ty::Msg(&HTTP_INGRESS_RULE_VALUE))],
);

/// `IngressRule`.
pub(super) static INGRESS_RULE: Message = Message::new(
    "IngressRule",
    &[val(1, "host", Ty::Str), inline(2, &INGRESS_RULE_VALUE)],
);

/// `IngressSpec`.
pub(super) static INGRESS_SPEC: Message = Message::new(
    "IngressSpec",
    &[
        ptr(4, "ingressClassName", Ty::Str),
        ptr(1, "defaultBackend", Ty::Msg(&INGRESS_BACKEND)),
        list(2, "tls", Ty::Msg(&INGRESS_TLS)),
        list(3, "rules", Ty::Msg(&INGRESS_RULE)),
    ],
);
