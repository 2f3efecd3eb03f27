//! `certificates.k8s.io/v1`: the CertificateSigningRequest `kubectl certificate approve|deny` puts
//! to `/approval`; its status (the conditions) is what that subresource reads, so it is decoded.

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, map, ptr, val};

/// `CertificateSigningRequestSpec`.
pub(super) static CERTIFICATE_SIGNING_REQUEST_SPEC: Message = Message::new(
    "CertificateSigningRequestSpec",
    &[
        val(1, "request", Ty::Bytes),
        val(7, "signerName", Ty::Str),
        ptr(8, "expirationSeconds", Ty::Int),
        list(5, "usages", Ty::Str),
        val(2, "username", Ty::Str),
        val(3, "uid", Ty::Str),
        list(4, "groups", Ty::Str),
        map(6, "extra", Ty::Strings),
    ],
);

/// `CertificateSigningRequestCondition`.
pub(super) static CERTIFICATE_SIGNING_REQUEST_CONDITION: Message = Message::new(
    "CertificateSigningRequestCondition",
    &[
        val(1, "type", Ty::Str),
        val(6, "status", Ty::Str),
        val(2, "reason", Ty::Str),
        val(3, "message", Ty::Str),
        val(4, "lastUpdateTime", Ty::Time),
        val(5, "lastTransitionTime", Ty::Time),
    ],
);

/// `CertificateSigningRequestStatus`.
pub(super) static CERTIFICATE_SIGNING_REQUEST_STATUS: Message = Message::new(
    "CertificateSigningRequestStatus",
    &[
        list(
            1,
            "conditions",
            Ty::Msg(&CERTIFICATE_SIGNING_REQUEST_CONDITION),
        ),
        val(2, "certificate", Ty::Bytes),
    ],
);

/// `CertificateSigningRequest`.
pub(super) static CERTIFICATE_SIGNING_REQUEST: Message = Message::new(
    "CertificateSigningRequest",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&CERTIFICATE_SIGNING_REQUEST_SPEC)),
        val(3, "status", Ty::Msg(&CERTIFICATE_SIGNING_REQUEST_STATUS)),
    ],
);
