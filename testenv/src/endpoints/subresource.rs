//! Which endpoint of an object a write goes through (the object itself, `/status`,
//! `/finalize`), and the parts of a request's target the write handlers read.

use crate::support::request::Target;

/// Which endpoint an update came through.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Endpoint {
    /// The object itself: status changes are ignored when status is a subresource.
    Main,
    /// `/status`: only status changes are kept.
    Status,
    /// `/finalize` of a namespace: only `spec.finalizers` changes are kept.
    Finalize,
    /// `/scale`: the replicas the Scale object set, recorded as the `scale` subresource.
    Scale,
}

/// The update endpoint a request addresses.
pub fn endpoint_of(target: &Target) -> Endpoint {
    match target.subresource.as_deref() {
        Some("status") => Endpoint::Status,
        Some("finalize") => Endpoint::Finalize,
        _ => Endpoint::Main,
    }
}

/// The request's namespace, empty for cluster-scoped objects.
pub fn ns_of(target: &Target) -> &str {
    target.namespace.as_deref().unwrap_or_default()
}
