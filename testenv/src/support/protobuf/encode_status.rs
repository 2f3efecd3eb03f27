//! The messages only responses carry, for the encoder: `ListMeta` and the lists around each
//! kind, `Status` (errors and delete answers), `PartialObjectMetadata`, and the discovery
//! documents, legacy and aggregated (`apidiscovery.k8s.io/v2`).

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, ptr, val};

/// `ListMeta`.
pub(super) static LIST_META: Message = Message::new(
    "ListMeta",
    &[
        val(1, "selfLink", Ty::Str),
        val(2, "resourceVersion", Ty::Str),
        val(3, "continue", Ty::Str),
        ptr(4, "remainingItemCount", Ty::Int),
    ],
);

/// `StatusCause`.
static STATUS_CAUSE: Message = Message::new(
    "StatusCause",
    &[
        val(1, "reason", Ty::Str),
        val(2, "message", Ty::Str),
        val(3, "field", Ty::Str),
    ],
);

/// `StatusDetails`.
static STATUS_DETAILS: Message = Message::new(
    "StatusDetails",
    &[
        val(1, "name", Ty::Str),
        val(2, "group", Ty::Str),
        val(3, "kind", Ty::Str),
        list(4, "causes", Ty::Msg(&STATUS_CAUSE)),
        val(5, "retryAfterSeconds", Ty::Int),
        val(6, "uid", Ty::Str),
    ],
);

/// `Status`.
pub(super) static STATUS: Message = Message::new(
    "Status",
    &[
        val(1, "metadata", Ty::Msg(&LIST_META)),
        val(2, "status", Ty::Str),
        val(3, "message", Ty::Str),
        val(4, "reason", Ty::Str),
        ptr(5, "details", Ty::Msg(&STATUS_DETAILS)),
        val(6, "code", Ty::Int),
    ],
);

/// `PartialObjectMetadata`.
pub(super) static PARTIAL_OBJECT_METADATA: Message = Message::new(
    "PartialObjectMetadata",
    &[val(1, "metadata", Ty::Msg(&OBJECT_META))],
);

/// `ServerAddressByClientCIDR`.
static SERVER_ADDRESS_BY_CLIENT_CIDR: Message = Message::new(
    "ServerAddressByClientCIDR",
    &[
        val(1, "clientCIDR", Ty::Str),
        val(2, "serverAddress", Ty::Str),
    ],
);

/// `APIVersions` (`/api`).
pub(super) static API_VERSIONS: Message = Message::new(
    "APIVersions",
    &[
        list(1, "versions", Ty::Str),
        list(
            2,
            "serverAddressByClientCIDRs",
            Ty::Msg(&SERVER_ADDRESS_BY_CLIENT_CIDR),
        ),
    ],
);

/// `GroupVersionForDiscovery`.
static GROUP_VERSION_FOR_DISCOVERY: Message = Message::new(
    "GroupVersionForDiscovery",
    &[val(1, "groupVersion", Ty::Str), val(2, "version", Ty::Str)],
);

/// `APIGroup` (`/apis/<group>`).
pub(super) static API_GROUP: Message = Message::new(
    "APIGroup",
    &[
        val(1, "name", Ty::Str),
        list(2, "versions", Ty::Msg(&GROUP_VERSION_FOR_DISCOVERY)),
        val(3, "preferredVersion", Ty::Msg(&GROUP_VERSION_FOR_DISCOVERY)),
        list(
            4,
            "serverAddressByClientCIDRs",
            Ty::Msg(&SERVER_ADDRESS_BY_CLIENT_CIDR),
        ),
    ],
);

/// `APIGroupList` (`/apis`).
pub(super) static API_GROUP_LIST: Message =
    Message::new("APIGroupList", &[list(1, "groups", Ty::Msg(&API_GROUP))]);

/// `APIResource`.
static API_RESOURCE: Message = Message::new(
    "APIResource",
    &[
        val(1, "name", Ty::Str),
        val(2, "namespaced", Ty::Bool),
        val(3, "kind", Ty::Str),
        val(4, "verbs", Ty::Strings),
        list(5, "shortNames", Ty::Str),
        val(6, "singularName", Ty::Str),
        list(7, "categories", Ty::Str),
        val(8, "group", Ty::Str),
        val(9, "version", Ty::Str),
        val(10, "storageVersionHash", Ty::Str),
    ],
);

/// `APIResourceList` (`/api/v1`, `/apis/<group>/<version>`).
pub(super) static API_RESOURCE_LIST: Message = Message::new(
    "APIResourceList",
    &[
        val(1, "groupVersion", Ty::Str),
        list(2, "resources", Ty::Msg(&API_RESOURCE)),
    ],
);

/// `GroupVersionKind` (a resource's or subresource's `responseKind` in aggregated discovery).
static GROUP_VERSION_KIND: Message = Message::new(
    "GroupVersionKind",
    &[
        val(1, "group", Ty::Str),
        val(2, "version", Ty::Str),
        val(3, "kind", Ty::Str),
    ],
);

/// `APISubresourceDiscovery`.
static API_SUBRESOURCE_DISCOVERY: Message = Message::new(
    "APISubresourceDiscovery",
    &[
        val(1, "subresource", Ty::Str),
        ptr(2, "responseKind", Ty::Msg(&GROUP_VERSION_KIND)),
        list(3, "acceptedTypes", Ty::Msg(&GROUP_VERSION_KIND)),
        list(4, "verbs", Ty::Str),
    ],
);

/// `APIResourceDiscovery`.
static API_RESOURCE_DISCOVERY: Message = Message::new(
    "APIResourceDiscovery",
    &[
        val(1, "resource", Ty::Str),
        ptr(2, "responseKind", Ty::Msg(&GROUP_VERSION_KIND)),
        val(3, "scope", Ty::Str),
        val(4, "singularResource", Ty::Str),
        list(5, "verbs", Ty::Str),
        list(6, "shortNames", Ty::Str),
        list(7, "categories", Ty::Str),
        list(8, "subresources", Ty::Msg(&API_SUBRESOURCE_DISCOVERY)),
    ],
);

/// `APIVersionDiscovery`.
static API_VERSION_DISCOVERY: Message = Message::new(
    "APIVersionDiscovery",
    &[
        val(1, "version", Ty::Str),
        list(2, "resources", Ty::Msg(&API_RESOURCE_DISCOVERY)),
        val(3, "freshness", Ty::Str),
    ],
);

/// `APIGroupDiscovery`, the item of aggregated discovery's `APIGroupDiscoveryList`.
pub(super) static API_GROUP_DISCOVERY: Message = Message::new(
    "APIGroupDiscovery",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        list(2, "versions", Ty::Msg(&API_VERSION_DISCOVERY)),
    ],
);
