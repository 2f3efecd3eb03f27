//! What kube-apiserver's field manager credits to the writer of a status update where the
//! status strategy resets more of the object than its reset fields name: the field manager
//! runs first and sees the object as sent, but for the reset fields.
//!
//! A ResourceClaim's, a ServiceCIDR's and a custom resource's status strategy reset the
//! metadata (`ResetObjectMetaForStatus`, or a copy of the stored object) and name only the
//! spec among their reset fields: the writer owns the labels and annotations it sent although
//! the object keeps the stored ones, and a custom resource's writer the top-level fields it
//! sent besides the spec. A ServiceCIDR's names no reset field for its served version: its
//! writer owns the spec it sent too. A CustomResourceDefinition's names the metadata among
//! its reset fields but keeps it: its writer owns none of it.

use serde_json::Value;

use crate::registry::schema;
use crate::support::resource::ResourceDef;
use crate::support::status_metadata::{
    credited_status_metadata, credits_status_spec, status_metadata,
};

/// Whether the field manager sees a status write of `def` otherwise than its strategy writes
/// it.
pub(super) fn differs(def: &ResourceDef) -> bool {
    let custom = def.custom.is_some();
    custom
        || credits_status_spec(&def.group, &def.kind)
        || credited_status_metadata(&def.group, &def.kind, custom)
            != status_metadata(&def.group, &def.kind, custom)
}

/// `view` (the object as the status strategy writes it) as the field manager compares it:
/// with the metadata of `sent` (the object the write sent) it credits, over the metadata of
/// `old` (the stored object), and for a custom resource the top-level fields of `sent`
/// besides the spec, pruned by its schema as the custom resource's decoding prunes them.
pub(super) fn view(def: &ResourceDef, old: &Value, sent: &Value, mut view: Value) -> Value {
    let custom = def.custom.is_some();
    let credited = credited_status_metadata(&def.group, &def.kind, custom);
    let mut metadata = credited.metadata(&old["metadata"], sent["metadata"].clone());
    if let Some(m) = metadata.as_object_mut() {
        // The server-set fields are the object's, whatever was sent.
        for field in server_set() {
            match view["metadata"].get(field) {
                Some(v) => m.insert(field.into(), v.clone()),
                None => m.remove(field),
            };
        }
        if m.get("finalizers")
            .is_some_and(|f| f.is_null() || f.as_array().is_some_and(Vec::is_empty))
        {
            m.remove("finalizers");
        }
    }
    view["metadata"] = metadata;
    if def.custom.is_none()
        && credits_status_spec(&def.group, &def.kind)
        && let Some(out) = view.as_object_mut()
    {
        match sent.get("spec") {
            Some(spec) => out.insert("spec".into(), spec.clone()),
            None => out.remove("spec"),
        };
    }
    if let Some(custom) = &def.custom {
        let mut sent = sent.clone();
        if let Some(openapi) = &custom.schema {
            schema::prune(&mut sent, openapi);
        }
        let (Some(out), Some(sent)) = (view.as_object_mut(), sent.as_object()) else {
            return view;
        };
        out.retain(|k, _| !is_other(k) || sent.contains_key(k));
        for (k, v) in sent.iter().filter(|(k, _)| is_other(k)) {
            out.insert(k.clone(), v.clone());
        }
    }
    view
}

/// `warnings` (admission's, of the object the status strategy leaves) with kube-apiserver's
/// unknown-field warnings of a custom resource's status write under `fieldValidation=Warn`: it
/// prunes the whole object `sent` before the strategy, so it warns of the fields its schema
/// does not declare outside the status too, all in path order after the others.
pub(super) fn undeclared_warnings(
    def: &ResourceDef,
    sent: &Value,
    warn: bool,
    warnings: Vec<String>,
) -> Vec<String> {
    let Some(openapi) = def.custom.as_ref().and_then(|c| c.schema.as_ref()) else {
        return warnings;
    };
    if !warn {
        return warnings;
    }
    let unknown: Vec<String> = schema::prune(&mut sent.clone(), openapi)
        .iter()
        .map(|path| schema::unknown_field_message(path))
        .collect();
    let mut out: Vec<String> = warnings
        .into_iter()
        .filter(|w| !unknown.contains(w))
        .collect();
    out.extend(unknown);
    out
}

/// The immutable and server-owned metadata an update keeps from the stored object.
pub(super) const KEPT_METADATA: [&str; 7] = [
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "namespace",
    "name",
];

/// The metadata fields the server sets (or keeps) whatever a write sends: the kept ones, the
/// resourceVersion and the managed fields.
fn server_set() -> impl Iterator<Item = &'static str> {
    KEPT_METADATA
        .into_iter()
        .chain(["resourceVersion", "managedFields"])
}

/// A top-level field of a custom resource besides those the status strategy resets or the
/// field manager strips.
fn is_other(key: &str) -> bool {
    !matches!(key, "apiVersion" | "kind" | "metadata" | "spec" | "status")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def(group: &str, kind: &str) -> ResourceDef {
        let mut def = ResourceDef::named(group, "v1", kind, &format!("{}s", kind.to_lowercase()));
        def.status_subresource = true;
        def
    }

    #[test]
    fn a_claims_writer_is_credited_with_the_labels_it_sent() {
        let claim = def("resource.k8s.io", "ResourceClaim");
        assert!(differs(&claim));
        assert!(!differs(&def("", "Service")));
        let old = json!({"metadata": {"name": "c", "uid": "u", "labels": {"a": "1"}},
            "spec": {"x": 1}, "status": {}});
        let sent = json!({"metadata": {"name": "c", "labels": {"b": "2"}, "finalizers": []},
            "spec": {"x": 2}, "status": {"y": 1}});
        let written = json!({"metadata": {"name": "c", "uid": "u", "labels": {"a": "1"},
            "resourceVersion": "5"}, "spec": {"x": 1}, "status": {"y": 1}});
        assert_eq!(
            view(&claim, &old, &sent, written),
            json!({"metadata": {"name": "c", "uid": "u", "labels": {"b": "2"},
                "resourceVersion": "5"}, "spec": {"x": 1}, "status": {"y": 1}})
        );
    }

    #[test]
    fn a_service_cidrs_writer_is_credited_with_the_spec_it_sent() {
        let cidr = def("networking.k8s.io", "ServiceCIDR");
        assert!(differs(&cidr));
        let old = json!({"metadata": {"name": "c"}, "spec": {"cidrs": ["10.0.0.0/24"]}});
        let sent = json!({"metadata": {"name": "c"}, "spec": {"cidrs": ["bad"]}, "status": {}});
        let written = json!({"metadata": {"name": "c"}, "spec": {"cidrs": ["10.0.0.0/24"]},
            "status": {}});
        assert_eq!(
            view(&cidr, &old, &sent, written)["spec"],
            json!({"cidrs": ["bad"]})
        );
    }

    #[test]
    fn a_custom_resources_status_write_warns_of_every_undeclared_field_it_sent() {
        let mut widget = def("example.com", "Widget");
        widget.custom = Some(crate::support::resource::CustomVersion {
            schema: Some(json!({"type": "object", "properties": {
                "spec": {"type": "object"}, "status": {"type": "object", "properties": {"a": {"type": "integer"}}},
                "extra": {"type": "string"}}})),
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            deprecated: None,
            list_kind: "WidgetList".into(),
            forms: Default::default(),
        });
        let sent = json!({"metadata": {"name": "w"}, "extra": "x", "more": 1,
            "status": {"a": 1, "b": 2}});
        let admitted = vec![
            "duplicate field \"x\"".to_string(),
            "unknown field \"status.b\"".to_string(),
        ];
        assert_eq!(
            undeclared_warnings(&widget, &sent, true, admitted.clone()),
            [
                "duplicate field \"x\"",
                "unknown field \"more\"",
                "unknown field \"status.b\""
            ]
        );
        assert_eq!(
            undeclared_warnings(&widget, &sent, false, admitted.clone()),
            admitted
        );
    }

    #[test]
    fn a_definitions_writer_is_credited_with_none_of_the_metadata_it_keeps() {
        let crd = def("apiextensions.k8s.io", "CustomResourceDefinition");
        assert!(differs(&crd));
        let old = json!({"metadata": {"name": "c", "labels": {"a": "1"}}, "status": {}});
        let sent = json!({"metadata": {"name": "c", "labels": {"b": "2"}}, "status": {"y": 1}});
        let written = json!({"metadata": {"name": "c", "labels": {"b": "2"}}, "status": {"y": 1}});
        assert_eq!(
            view(&crd, &old, &sent, written)["metadata"],
            json!({"name": "c", "labels": {"a": "1"}})
        );
    }
}
