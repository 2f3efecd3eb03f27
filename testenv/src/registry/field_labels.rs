//! The field selectors of each built-in kind, as kube-apiserver's registries define them:
//! which fields a kind can be selected by, the value each field has (an unset field has the
//! value its Go type has: `spec.unschedulable` is `false` on a Node without it), and the
//! message a field the kind does not support is refused with.

use serde_json::Value;

use crate::support::resource::ResourceDef;

/// The kinds whose field selectors differ from the default (`metadata.name`,
/// `metadata.namespace`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldKind {
    /// `metadata.name` and `metadata.namespace` only.
    Generic,
    /// A custom resource: its CRD's selectable fields as well.
    Custom,
    /// core Pods.
    Pod,
    /// core Nodes.
    Node,
    /// core Namespaces.
    Namespace,
    /// core Secrets.
    Secret,
    /// core Services.
    Service,
    /// core ReplicationControllers.
    ReplicationController,
    /// core Events.
    Event,
    /// events.k8s.io Events (stored as core Events).
    EventsV1,
    /// batch Jobs.
    Job,
    /// CertificateSigningRequests.
    Csr,
    /// resource.k8s.io ResourceSlices.
    ResourceSlice,
}

impl FieldKind {
    /// The field selector kind of a resource.
    pub fn of(def: &ResourceDef) -> Self {
        if def.custom.is_some() {
            return FieldKind::Custom;
        }
        match (def.group.as_str(), def.plural.as_str()) {
            ("", "pods") => FieldKind::Pod,
            ("", "nodes") => FieldKind::Node,
            ("", "namespaces") => FieldKind::Namespace,
            ("", "secrets") => FieldKind::Secret,
            ("", "services") => FieldKind::Service,
            ("", "replicationcontrollers") => FieldKind::ReplicationController,
            ("", "events") => FieldKind::Event,
            ("events.k8s.io", "events") => FieldKind::EventsV1,
            ("batch", "jobs") => FieldKind::Job,
            ("certificates.k8s.io", "certificatesigningrequests") => FieldKind::Csr,
            ("resource.k8s.io", "resourceslices") => FieldKind::ResourceSlice,
            _ => FieldKind::Generic,
        }
    }

    /// The fields of the kind besides `metadata.name` (and `metadata.namespace`).
    fn own(self) -> &'static [&'static str] {
        match self {
            FieldKind::Pod => &[
                "spec.hostNetwork",
                "spec.nodeName",
                "spec.restartPolicy",
                "spec.schedulerName",
                "spec.serviceAccountName",
                "status.nominatedNodeName",
                "status.phase",
                "status.podIP",
                "status.podIPs",
            ],
            FieldKind::Node => &["spec.unschedulable"],
            FieldKind::Namespace => &["status.phase"],
            FieldKind::Secret => &["type"],
            FieldKind::Service => &["spec.clusterIP", "spec.type"],
            FieldKind::ReplicationController => &["status.replicas"],
            FieldKind::Event => &[
                "involvedObject.apiVersion",
                "involvedObject.fieldPath",
                "involvedObject.kind",
                "involvedObject.name",
                "involvedObject.namespace",
                "involvedObject.resourceVersion",
                "involvedObject.uid",
                "reason",
                "reportingComponent",
                "source",
                "type",
            ],
            FieldKind::EventsV1 => &[
                "reason",
                "regarding.apiVersion",
                "regarding.fieldPath",
                "regarding.kind",
                "regarding.name",
                "regarding.namespace",
                "regarding.resourceVersion",
                "regarding.uid",
                "reportingController",
                "type",
            ],
            FieldKind::Job => &["status.successful"],
            FieldKind::Csr => &["spec.signerName"],
            FieldKind::ResourceSlice => &["spec.driver", "spec.nodeName"],
            FieldKind::Generic | FieldKind::Custom => &[],
        }
    }

    /// Whether `metadata.namespace` is a field of the kind.
    fn has_namespace(self) -> bool {
        !matches!(
            self,
            FieldKind::Node | FieldKind::Namespace | FieldKind::Csr | FieldKind::ResourceSlice
        )
    }

    /// Whether the kind can be selected by `field`.
    pub fn supports(self, field: &str) -> bool {
        field == "metadata.name"
            || (field == "metadata.namespace" && self.has_namespace())
            || self.own().contains(&field)
    }

    /// The message a field the kind does not support is refused with (400).
    pub fn unsupported(self, field: &str) -> String {
        match self {
            FieldKind::Generic => format!(
                "\"{field}\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
            ),
            FieldKind::Job => format!("field label \"{field}\" not supported for Job"),
            FieldKind::ResourceSlice => format!(
                "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: {field}"
            ),
            _ => format!("field label not supported: {field}"),
        }
    }

    /// The value of `field` of a stored object, as the kind's registry computes it.
    pub fn value(self, object: &Value, field: &str) -> String {
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        let at = |path: &str| {
            let mut cur = object;
            for seg in path.split('.') {
                cur = cur.get(seg).unwrap_or(&Value::Null);
            }
            cur
        };
        let or = |v: &Value, default: &str| match v {
            Value::Null => default.to_string(),
            v => text(v),
        };
        match (self, field) {
            (FieldKind::Node, "spec.unschedulable") => or(at(field), "false"),
            (FieldKind::Pod, "spec.hostNetwork") => or(at(field), "false"),
            (FieldKind::Pod, "status.podIPs") => at("status.podIPs")
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["ip"].as_str())
                .collect::<Vec<_>>()
                .join(","),
            (FieldKind::ReplicationController, "status.replicas") => or(at(field), "0"),
            (FieldKind::Job, "status.successful") => or(at("status.succeeded"), "0"),
            (FieldKind::Event, "source") => text(at("source.component")),
            // events.k8s.io Events are stored as core Events.
            (FieldKind::EventsV1, f) if f.starts_with("regarding.") => {
                text(at(&f.replacen("regarding.", "involvedObject.", 1)))
            }
            (FieldKind::EventsV1, "reportingController") => text(at("reportingComponent")),
            (_, f) => text(at(f.trim_start_matches('.'))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unset_fields_have_their_go_zero_value() {
        let node = json!({"metadata": {"name": "n"}, "spec": {}});
        assert_eq!(FieldKind::Node.value(&node, "spec.unschedulable"), "false");
        let job = json!({"status": {"succeeded": 2}});
        assert_eq!(FieldKind::Job.value(&job, "status.successful"), "2");
        assert!(!FieldKind::Node.supports("metadata.namespace"));
        assert!(FieldKind::Generic.supports("metadata.namespace"));
        assert!(!FieldKind::Generic.supports("status.replicas"));
    }
}
