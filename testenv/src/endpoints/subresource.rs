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
    /// `/ephemeralcontainers` of a pod: only new ephemeral containers are kept.
    EphemeralContainers,
    /// `/resize` of a pod: only the containers' resources are kept.
    Resize,
    /// `/approval` of a CertificateSigningRequest: only `status.conditions` are kept.
    Approval,
}

impl Endpoint {
    /// The subresource name of the endpoint (empty for the object itself), as
    /// managedFields record it.
    pub fn subresource(self) -> &'static str {
        match self {
            Endpoint::Main => "",
            Endpoint::Status => "status",
            Endpoint::Finalize => "finalize",
            Endpoint::Scale => "scale",
            Endpoint::EphemeralContainers => "ephemeralcontainers",
            Endpoint::Resize => "resize",
            Endpoint::Approval => "approval",
        }
    }
}

/// The update endpoint a request addresses.
pub fn endpoint_of(target: &Target) -> Endpoint {
    match target.subresource.as_deref() {
        Some("status") => Endpoint::Status,
        Some("finalize") => Endpoint::Finalize,
        Some("ephemeralcontainers") => Endpoint::EphemeralContainers,
        Some("resize") => Endpoint::Resize,
        Some("approval") => Endpoint::Approval,
        _ => Endpoint::Main,
    }
}

/// The request's namespace, empty for cluster-scoped objects.
pub fn ns_of(target: &Target) -> &str {
    target.namespace.as_deref().unwrap_or_default()
}
