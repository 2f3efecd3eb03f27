//! What a status update of each kind keeps of the metadata it was sent, and what of it the
//! field manager credits to the status writer: a table of the kinds' status strategies, read
//! by the registry (which applies the first) and the field manager (the second).

use serde_json::Value;

/// What a status update keeps of the metadata it was sent (the kind's status strategy's
/// `PrepareForUpdate`); the immutable and server-set fields come from the stored object
/// whatever this says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusMetadata {
    /// None of it: the stored metadata stays (custom resources, and the kinds whose strategy
    /// resets the object metadata of a status update).
    Stored,
    /// All of it.
    Sent,
    /// All but `labels` (Deployments).
    SentButLabels,
    /// All but `ownerReferences` (Pods).
    SentButOwnerReferences,
}

impl StatusMetadata {
    /// The metadata field the update takes from the stored object, when only one is.
    pub fn stored_field(self) -> Option<&'static str> {
        match self {
            StatusMetadata::SentButLabels => Some("labels"),
            StatusMetadata::SentButOwnerReferences => Some("ownerReferences"),
            StatusMetadata::Stored | StatusMetadata::Sent => None,
        }
    }

    /// The metadata of a status update sent `sent` over `stored`.
    pub fn metadata(self, stored: &Value, sent: Value) -> Value {
        match self {
            StatusMetadata::Stored => stored.clone(),
            StatusMetadata::Sent => sent,
            StatusMetadata::SentButLabels | StatusMetadata::SentButOwnerReferences => {
                let field = self.stored_field().unwrap_or_default();
                let mut out = sent;
                if let Some(m) = out.as_object_mut() {
                    match stored.get(field) {
                        Some(v) => {
                            m.insert(field.into(), v.clone());
                        }
                        None => {
                            m.remove(field);
                        }
                    }
                }
                out
            }
        }
    }
}

/// What a status update of the `group` `kind` (a custom resource when `custom`) keeps of the
/// metadata it was sent, as kube-apiserver v1.34 does.
pub fn status_metadata(group: &str, kind: &str, custom: bool) -> StatusMetadata {
    if custom {
        return StatusMetadata::Stored;
    }
    match (group, kind) {
        ("apps", "Deployment") => StatusMetadata::SentButLabels,
        ("", "Pod") => StatusMetadata::SentButOwnerReferences,
        ("apiregistration.k8s.io", "APIService")
        | ("flowcontrol.apiserver.k8s.io", "FlowSchema" | "PriorityLevelConfiguration")
        | ("networking.k8s.io", "ServiceCIDR")
        | ("storage.k8s.io", "VolumeAttachment")
        | ("resource.k8s.io", "ResourceClaim")
        | ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy") => StatusMetadata::Stored,
        _ => StatusMetadata::Sent,
    }
}

/// What kube-apiserver's field manager credits to the writer of a status update of the
/// `group` `kind` (a custom resource when `custom`) of the metadata it was sent: all of it
/// but the strategy's reset fields. It runs before the strategy, so a strategy that resets
/// the metadata without naming it in its reset fields (ResourceClaims, ServiceCIDRs and
/// custom resources, whose strategies reset it after the field manager ran) credits the
/// writer with labels and annotations the object does not keep, and a
/// CustomResourceDefinition's, which names the metadata but keeps it (it resets the new
/// metadata to itself), credits none of the metadata it keeps.
pub fn credited_status_metadata(group: &str, kind: &str, custom: bool) -> StatusMetadata {
    if custom {
        return StatusMetadata::Sent;
    }
    match (group, kind) {
        ("resource.k8s.io", "ResourceClaim") | ("networking.k8s.io", "ServiceCIDR") => {
            StatusMetadata::Sent
        }
        ("apiextensions.k8s.io", "CustomResourceDefinition") => StatusMetadata::Stored,
        _ => status_metadata(group, kind, false),
    }
}

/// Whether kube-apiserver's field manager credits the writer of a status update of the
/// `group` `kind` with the spec it sent, which the strategy keeps as stored: a ServiceCIDR's
/// status strategy names its reset fields for a version the group does not have
/// (`networking/v1alpha1`), so no field is reset for the field manager.
pub fn credits_status_spec(group: &str, kind: &str) -> bool {
    (group, kind) == ("networking.k8s.io", "ServiceCIDR")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_status_update_keeps_the_sent_metadata_its_kind_keeps() {
        let stored = json!({"name": "a", "labels": {"a": "1"}, "ownerReferences": [{"uid": "1"}]});
        let sent = json!({"name": "a", "labels": {"b": "2"}, "annotations": {"y": "2"}});
        let keeps = |group, kind, custom| {
            status_metadata(group, kind, custom).metadata(&stored, sent.clone())
        };
        assert_eq!(keeps("", "Service", false), sent);
        assert_eq!(keeps("h.example.com", "Service", true), stored);
        assert_eq!(keeps("storage.k8s.io", "VolumeAttachment", false), stored);
        assert_eq!(
            keeps("apps", "Deployment", false),
            json!({"name": "a", "labels": {"a": "1"}, "annotations": {"y": "2"}})
        );
        assert_eq!(
            keeps("", "Pod", false),
            json!({"name": "a", "labels": {"b": "2"}, "annotations": {"y": "2"}, "ownerReferences": [{"uid": "1"}]})
        );
    }

    #[test]
    fn the_field_manager_credits_the_metadata_outside_the_reset_fields() {
        let credited = |group, kind, custom| credited_status_metadata(group, kind, custom);
        assert_eq!(
            credited("resource.k8s.io", "ResourceClaim", false),
            StatusMetadata::Sent
        );
        assert_eq!(
            credited("networking.k8s.io", "ServiceCIDR", false),
            StatusMetadata::Sent
        );
        assert_eq!(
            credited("h.example.com", "Widget", true),
            StatusMetadata::Sent
        );
        assert_eq!(
            credited("apiextensions.k8s.io", "CustomResourceDefinition", false),
            StatusMetadata::Stored
        );
        assert_eq!(
            status_metadata("apiextensions.k8s.io", "CustomResourceDefinition", false),
            StatusMetadata::Sent
        );
        assert_eq!(
            credited("storage.k8s.io", "VolumeAttachment", false),
            StatusMetadata::Stored
        );
        assert_eq!(
            credited("apps", "Deployment", false),
            StatusMetadata::SentButLabels
        );
        assert_eq!(credited("", "Service", false), StatusMetadata::Sent);
    }
}
