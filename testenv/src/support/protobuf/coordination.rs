//! `coordination.k8s.io/v1`: Lease.
//!
//! Written by `scripts/record_protobuf_tables.py` from the Go types of k8s.io/api v1.34.

use super::schema::{Message, Ty, ptr, val};

/// `Lease`.
pub(super) static LEASE: Message = Message::new(
    "Lease",
    &[
        val(1, "metadata", Ty::Msg(&super::meta::OBJECT_META)),
        val(2, "spec", Ty::Msg(&LEASE_SPEC)),
    ],
);

/// `LeaseSpec`.
pub(super) static LEASE_SPEC: Message = Message::new(
    "LeaseSpec",
    &[
        ptr(1, "holderIdentity", Ty::Str),
        ptr(2, "leaseDurationSeconds", Ty::Int),
        ptr(3, "acquireTime", Ty::MicroTime),
        ptr(4, "renewTime", Ty::MicroTime),
        ptr(5, "leaseTransitions", Ty::Int),
        ptr(6, "strategy", Ty::Str),
        ptr(7, "preferredHolder", Ty::Str),
    ],
);
