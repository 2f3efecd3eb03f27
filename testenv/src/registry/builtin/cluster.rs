//! networking, storage, scheduling, node, discovery, resource, coordination and events.

use super::table::{Builtin, STATUS, b};

const NET: &str = "networking.k8s.io";
const STORAGE: &str = "storage.k8s.io";
const RESOURCE: &str = "resource.k8s.io";

pub(super) const RESOURCES: &[Builtin] = &[
    b(NET, "v1", "IngressClass", "ingressclasses", &[], false).generation(),
    b(NET, "v1", "Ingress", "ingresses", &["ing"], true)
        .subs(&[STATUS])
        .generation(),
    b(NET, "v1", "IPAddress", "ipaddresses", &["ip"], false),
    b(
        NET,
        "v1",
        "NetworkPolicy",
        "networkpolicies",
        &["netpol"],
        true,
    )
    .generation(),
    b(NET, "v1", "ServiceCIDR", "servicecidrs", &[], false).subs(&[STATUS]),
    b(STORAGE, "v1", "CSIDriver", "csidrivers", &[], false)
        .returns_deleted()
        .generation(),
    b(STORAGE, "v1", "CSINode", "csinodes", &[], false).returns_deleted(),
    b(
        STORAGE,
        "v1",
        "CSIStorageCapacity",
        "csistoragecapacities",
        &[],
        true,
    ),
    b(
        STORAGE,
        "v1",
        "StorageClass",
        "storageclasses",
        &["sc"],
        false,
    )
    .returns_deleted(),
    b(
        STORAGE,
        "v1",
        "VolumeAttachment",
        "volumeattachments",
        &[],
        false,
    )
    .subs(&[STATUS])
    .returns_deleted(),
    b(
        STORAGE,
        "v1",
        "VolumeAttributesClass",
        "volumeattributesclasses",
        &["vac"],
        false,
    )
    .returns_deleted()
    .stored_as(STORAGE, "v1beta1", "VolumeAttributesClass"),
    b(
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        "priorityclasses",
        &["pc"],
        false,
    )
    .generation(),
    b(
        "node.k8s.io",
        "v1",
        "RuntimeClass",
        "runtimeclasses",
        &[],
        false,
    ),
    b(
        "discovery.k8s.io",
        "v1",
        "EndpointSlice",
        "endpointslices",
        &[],
        true,
    )
    .generation(),
    b(RESOURCE, "v1", "DeviceClass", "deviceclasses", &[], false)
        .generation()
        .returns_deleted()
        .stored_as(RESOURCE, "v1beta2", "DeviceClass"),
    b(RESOURCE, "v1", "ResourceClaim", "resourceclaims", &[], true)
        .subs(&[STATUS])
        .returns_deleted()
        .stored_as(RESOURCE, "v1beta2", "ResourceClaim"),
    b(
        RESOURCE,
        "v1",
        "ResourceClaimTemplate",
        "resourceclaimtemplates",
        &[],
        true,
    )
    .returns_deleted()
    .stored_as(RESOURCE, "v1beta2", "ResourceClaimTemplate"),
    b(
        RESOURCE,
        "v1",
        "ResourceSlice",
        "resourceslices",
        &[],
        false,
    )
    .generation()
    .returns_deleted()
    .stored_as(RESOURCE, "v1beta2", "ResourceSlice"),
    b("coordination.k8s.io", "v1", "Lease", "leases", &[], true),
    b("events.k8s.io", "v1", "Event", "events", &["ev"], true).stored_as("", "v1", "Event"),
];
