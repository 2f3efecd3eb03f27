//! `networking.k8s.io/v1`: Ingress, IngressClass, NetworkPolicy, IPAddress and ServiceCIDR, with their status.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, list, ptr, val};

/// `Ingress`.
pub(super) static INGRESS: Message = Message::new(
    "Ingress",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&super::networking::INGRESS_SPEC)),
        val(3, "status", Ty::Msg(&INGRESS_STATUS)),
    ],
);

/// `IngressStatus`.
pub(super) static INGRESS_STATUS: Message = Message::new(
    "IngressStatus",
    &[val(
        1,
        "loadBalancer",
        Ty::Msg(&INGRESS_LOAD_BALANCER_STATUS),
    )],
);

/// `IngressLoadBalancerStatus`.
pub(super) static INGRESS_LOAD_BALANCER_STATUS: Message = Message::new(
    "IngressLoadBalancerStatus",
    &[list(1, "ingress", Ty::Msg(&INGRESS_LOAD_BALANCER_INGRESS))],
);

/// `IngressLoadBalancerIngress`.
pub(super) static INGRESS_LOAD_BALANCER_INGRESS: Message = Message::new(
    "IngressLoadBalancerIngress",
    &[
        val(1, "ip", Ty::Str),
        val(2, "hostname", Ty::Str),
        list(4, "ports", Ty::Msg(&INGRESS_PORT_STATUS)),
    ],
);

/// `IngressPortStatus`.
pub(super) static INGRESS_PORT_STATUS: Message = Message::new(
    "IngressPortStatus",
    &[
        val(1, "port", Ty::Int),
        val(2, "protocol", Ty::Str),
        ptr(3, "error", Ty::Str),
    ],
);

/// `IngressClass`.
pub(super) static INGRESS_CLASS: Message = Message::new(
    "IngressClass",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&INGRESS_CLASS_SPEC)),
    ],
);

/// `IngressClassSpec`.
pub(super) static INGRESS_CLASS_SPEC: Message = Message::new(
    "IngressClassSpec",
    &[
        val(1, "controller", Ty::Str),
        ptr(
            2,
            "parameters",
            Ty::Msg(&INGRESS_CLASS_PARAMETERS_REFERENCE),
        ),
    ],
);

/// `IngressClassParametersReference`.
pub(super) static INGRESS_CLASS_PARAMETERS_REFERENCE: Message = Message::new(
    "IngressClassParametersReference",
    &[
        ptr(1, "apiGroup", Ty::Str),
        val(2, "kind", Ty::Str),
        val(3, "name", Ty::Str),
        ptr(4, "scope", Ty::Str),
        ptr(5, "namespace", Ty::Str),
    ],
);

/// `NetworkPolicy`.
pub(super) static NETWORK_POLICY: Message = Message::new(
    "NetworkPolicy",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&NETWORK_POLICY_SPEC)),
    ],
);

/// `NetworkPolicySpec`.
pub(super) static NETWORK_POLICY_SPEC: Message = Message::new(
    "NetworkPolicySpec",
    &[
        val(1, "podSelector", Ty::Msg(&super::meta::LABEL_SELECTOR)),
        list(2, "ingress", Ty::Msg(&NETWORK_POLICY_INGRESS_RULE)),
        list(3, "egress", Ty::Msg(&NETWORK_POLICY_EGRESS_RULE)),
        list(4, "policyTypes", Ty::Str),
    ],
);

/// `NetworkPolicyIngressRule`.
pub(super) static NETWORK_POLICY_INGRESS_RULE: Message = Message::new(
    "NetworkPolicyIngressRule",
    &[
        list(1, "ports", Ty::Msg(&NETWORK_POLICY_PORT)),
        list(2, "from", Ty::Msg(&NETWORK_POLICY_PEER)),
    ],
);

/// `NetworkPolicyPort`.
pub(super) static NETWORK_POLICY_PORT: Message = Message::new(
    "NetworkPolicyPort",
    &[
        ptr(1, "protocol", Ty::Str),
        ptr(2, "port", Ty::IntOrString),
        ptr(3, "endPort", Ty::Int),
    ],
);

/// `NetworkPolicyPeer`.
pub(super) static NETWORK_POLICY_PEER: Message = Message::new(
    "NetworkPolicyPeer",
    &[
        ptr(1, "podSelector", Ty::Msg(&super::meta::LABEL_SELECTOR)),
        ptr(
            2,
            "namespaceSelector",
            Ty::Msg(&super::meta::LABEL_SELECTOR),
        ),
        ptr(3, "ipBlock", Ty::Msg(&IP_BLOCK)),
    ],
);

/// `IPBlock`.
pub(super) static IP_BLOCK: Message = Message::new(
    "IPBlock",
    &[val(1, "cidr", Ty::Str), list(2, "except", Ty::Str)],
);

/// `NetworkPolicyEgressRule`.
pub(super) static NETWORK_POLICY_EGRESS_RULE: Message = Message::new(
    "NetworkPolicyEgressRule",
    &[
        list(1, "ports", Ty::Msg(&NETWORK_POLICY_PORT)),
        list(2, "to", Ty::Msg(&NETWORK_POLICY_PEER)),
    ],
);

/// `IPAddress`.
pub(super) static IP_ADDRESS: Message = Message::new(
    "IPAddress",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&IP_ADDRESS_SPEC)),
    ],
);

/// `IPAddressSpec`.
pub(super) static IP_ADDRESS_SPEC: Message = Message::new(
    "IPAddressSpec",
    &[ptr(1, "parentRef", Ty::Msg(&PARENT_REFERENCE))],
);

/// `ParentReference`.
pub(super) static PARENT_REFERENCE: Message = Message::new(
    "ParentReference",
    &[
        val(1, "group", Ty::Str),
        val(2, "resource", Ty::Str),
        val(3, "namespace", Ty::Str),
        val(4, "name", Ty::Str),
    ],
);

/// `ServiceCIDR`.
pub(super) static SERVICE_CIDR: Message = Message::new(
    "ServiceCIDR",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&SERVICE_CIDR_SPEC)),
        val(3, "status", Ty::Msg(&SERVICE_CIDR_STATUS)),
    ],
);

/// `ServiceCIDRSpec`.
pub(super) static SERVICE_CIDR_SPEC: Message =
    Message::new("ServiceCIDRSpec", &[list(1, "cidrs", Ty::Str)]);

/// `ServiceCIDRStatus`.
pub(super) static SERVICE_CIDR_STATUS: Message = Message::new(
    "ServiceCIDRStatus",
    &[list(1, "conditions", Ty::Msg(&super::meta_more::CONDITION))],
);
