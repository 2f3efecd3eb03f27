//! How an object read from storage is seen in a served version, and how a written object is
//! stored, as kube-apiserver's codecs do it for custom resources.
//!
//! A custom resource is stored in the version its CRD stored at the time of the write, which
//! may be an earlier storage version. Read in a served version, it is pruned and defaulted
//! with the schema of the version it was written in (apiextensions' `schemaCoercingDecoder`
//! and `unstructuredDefaulter`), then converted: with the `None` strategy only `apiVersion`
//! changes and the result is pruned with the served version's schema (`nopConverter` behind
//! `schemaCoercingConverter`); with `Webhook` it keeps the version it was written in, and the
//! conversion layer (`crate::storage::conversion::Codec`) sends it to the CRD's webhook.
//! Writes with the `None` strategy are stored in the storage version, pruned with its schema.
//! Built-in kinds are read through [`builtin::as_version`].

use std::sync::Arc;

use serde_json::Value;

use super::schema::{apply_defaults, prune};
use crate::storage::conversion::builtin;
use crate::support::resource::ResourceDef;

/// The version (without the group) an object was stored in, if it is one of `def`'s group.
fn stored_version<'a>(def: &ResourceDef, object: &'a Value) -> Option<&'a str> {
    let api_version = object["apiVersion"].as_str()?;
    let (group, version) = api_version.rsplit_once('/')?;
    (group == def.group).then_some(version)
}

/// `stored` as served by `def`: for a custom resource pruned and defaulted in the version it
/// was written in, then in `def`'s version (or, when a webhook converts, still in the version
/// it was written in, for the webhook to convert); for a built-in kind as
/// [`builtin::as_version`] makes it.
pub fn as_served(def: &ResourceDef, stored: &Value) -> Value {
    let Some(custom) = &def.custom else {
        return builtin::as_version(def, stored);
    };
    let forms = &custom.forms;
    let written_in = stored_version(def, stored).unwrap_or(&def.version);
    let mut out = stored.clone();
    if let Some(schema) = forms.schema_of(written_in) {
        prune(&mut out, schema);
        apply_defaults(&mut out, schema);
    }
    if needs_webhook(def, stored) {
        return out;
    }
    let converted = written_in != def.version;
    out["apiVersion"] = Value::String(def.api_version());
    out["kind"] = Value::String(def.kind.clone());
    if converted && let Some(schema) = &custom.schema {
        prune(&mut out, schema);
    }
    out
}

/// The stored object as an update through `def` sees it: a custom resource as read in
/// `def`'s version, or as the CRD's webhook converted it for this write (`converted`,
/// carried by the write's inner request, when its resourceVersion is still the stored
/// one); a built-in kind as stored.
pub fn old_as_served(
    def: &ResourceDef,
    stored_old: &Arc<Value>,
    converted: Option<&Arc<Value>>,
) -> Arc<Value> {
    if def.custom.is_none() {
        return stored_old.clone();
    }
    let rv = |o: &Value| o["metadata"]["resourceVersion"].clone();
    match converted {
        Some(converted) if rv(converted) == rv(stored_old) => converted.clone(),
        _ => Arc::new(as_served(def, stored_old)),
    }
}

/// Whether `stored` was written in another version of `def`'s kind that only the CRD's
/// webhook converts to `def`'s version.
pub fn needs_webhook(def: &ResourceDef, stored: &Value) -> bool {
    let Some(custom) = &def.custom else {
        return false;
    };
    let written_in = stored_version(def, stored).filter(|v| *v != def.version);
    custom.forms.webhook && written_in.is_some_and(|v| custom.forms.schema_of(v).is_some())
}

/// The form `object`, written through `def`, is stored in: with the `None` strategy, the
/// storage version (pruned with its schema); otherwise as it is (a webhook-converted kind
/// reaches the store already in its storage version).
pub fn to_stored(def: &ResourceDef, mut object: Value) -> Value {
    let Some(custom) = &def.custom else {
        return object;
    };
    let forms = &custom.forms;
    if forms.webhook || forms.storage.is_empty() || forms.storage == def.version {
        return object;
    }
    object["apiVersion"] = Value::String(format!("{}/{}", def.group, forms.storage));
    if let Some(schema) = forms.schema_of(&forms.storage) {
        prune(&mut object, schema);
    }
    object
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::support::resource::{CustomVersion, StoredForms};

    fn spec_schema(properties: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}})
    }

    /// `version` of a kind with v1alpha1 (`a`, `b` defaulting to 7) and v1 (`a`, `c`
    /// defaulting to "dc"), stored in `storage`.
    fn def(version: &str, storage: &str, webhook: bool) -> ResourceDef {
        let alpha = spec_schema(json!({"a": {"type": "integer"},
            "b": {"type": "integer", "default": 7}}));
        let v1 = spec_schema(json!({"a": {"type": "integer"},
            "c": {"type": "string", "default": "dc"}}));
        let forms = StoredForms {
            storage: storage.into(),
            webhook,
            schemas: vec![
                ("v1alpha1".into(), Some(alpha.clone())),
                ("v1".into(), Some(v1.clone())),
            ],
        };
        ResourceDef {
            custom: Some(CustomVersion {
                schema: Some(if version == "v1" { v1 } else { alpha }),
                printer_columns: Vec::new(),
                selectable_fields: Vec::new(),
                deprecated: None,
                list_kind: "DriftList".into(),
                forms: Arc::new(forms),
            }),
            ..ResourceDef::named("example.dev", version, "Drift", "drifts")
        }
    }

    fn drift(version: &str, spec: Value) -> Value {
        json!({"apiVersion": format!("example.dev/{version}"), "kind": "Drift",
            "metadata": {"name": "d"}, "spec": spec})
    }

    #[test]
    fn read_in_the_version_written_then_in_the_served_one() {
        let stored = drift("v1alpha1", json!({"a": 1}));
        // Defaulted with the schema it was written in, pruned with the one it is read in.
        let alpha = as_served(&def("v1alpha1", "v1", false), &stored);
        assert_eq!(alpha["spec"], json!({"a": 1, "b": 7}));
        let v1 = as_served(&def("v1", "v1", false), &stored);
        assert_eq!(v1["apiVersion"], "example.dev/v1");
        assert_eq!(
            v1["spec"],
            json!({"a": 1}),
            "no defaulting after conversion"
        );
    }

    #[test]
    fn a_webhook_kind_keeps_the_version_it_was_written_in() {
        let stored = drift("v1alpha1", json!({"a": 1, "zz": 2}));
        let def = def("v1", "v1", true);
        assert!(needs_webhook(&def, &stored));
        let read = as_served(&def, &stored);
        assert_eq!(read["apiVersion"], "example.dev/v1alpha1");
        assert_eq!(read["spec"], json!({"a": 1, "b": 7}));
        assert!(!needs_webhook(&def, &drift("v1", json!({}))));
    }

    #[test]
    fn none_strategy_writes_are_stored_in_the_storage_version() {
        let written = drift("v1", json!({"a": 3, "c": "dc"}));
        let stored = to_stored(&def("v1", "v1alpha1", false), written.clone());
        assert_eq!(stored["apiVersion"], "example.dev/v1alpha1");
        assert_eq!(stored["spec"], json!({"a": 3}));
        assert_eq!(to_stored(&def("v1", "v1", false), written.clone()), written);
        assert_eq!(
            to_stored(&def("v1", "v1alpha1", true), written.clone()),
            written
        );
    }
}
