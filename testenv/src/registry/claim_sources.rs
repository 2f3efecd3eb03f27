//! A PersistentVolumeClaim's two data source fields (`spec.dataSource`, the claim or snapshot
//! of old clients, and `spec.dataSourceRef`, any kind) as its registry prepares them before
//! validation (KEP 1495; `pkg/api/persistentvolumeclaim` of kube-apiserver v1.34), on create
//! and update alike, after the field manager has recorded the writer's fields (the managed
//! fields name what the writer sent, see [`as_sent`]):
//!
//! 1. a `dataSourceRef` naming a namespace is dropped (`CrossNamespaceVolumeDataSource` is
//!    off) unless the stored claim has a `dataSourceRef`;
//! 2. unless the stored claim has a data source, or `dataSourceRef` is set, a `dataSource`
//!    other than a claim (core group) or a `snapshot.storage.k8s.io` VolumeSnapshot is
//!    dropped, as clients before the field relied on;
//! 3. the one set alone is copied into the other (a `dataSourceRef` naming a namespace is
//!    not).
//!
//! Claim templates (a StatefulSet's, an ephemeral volume's) are not prepared.

use serde_json::{Map, Value, json};

/// The spec fields this module prepares.
const FIELDS: [&str; 2] = ["dataSource", "dataSourceRef"];

/// Whether `group`/`plural` is the PersistentVolumeClaim resource.
pub fn is_claim(group: &str, plural: &str) -> bool {
    (group, plural) == ("", "persistentvolumeclaims")
}

fn is_set(spec: &Value, field: &str) -> bool {
    spec[field].is_object()
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// A claim or a VolumeSnapshot, the kinds `dataSource` took before `dataSourceRef` existed.
fn is_claim_or_snapshot(source: &Value) -> bool {
    matches!(
        (text(source, "apiGroup"), text(source, "kind")),
        ("", "PersistentVolumeClaim") | ("snapshot.storage.k8s.io", "VolumeSnapshot")
    )
}

/// The kind, name and API group (when it is set) of `source`: what is copied between the two
/// fields.
fn copy_of(source: &Value) -> Value {
    let mut out = Map::new();
    if let Some(group) = source["apiGroup"].as_str() {
        out.insert("apiGroup".into(), json!(group));
    }
    out.insert("kind".into(), json!(text(source, "kind")));
    out.insert("name".into(), json!(text(source, "name")));
    Value::Object(out)
}

/// Prepares the data source fields of a claim being created.
pub fn prepare_create(object: &mut Value) {
    prepare(object, &Value::Null);
}

/// Prepares the data source fields of a claim written over `old`.
pub fn prepare_update(object: &mut Value, old: &Value) {
    prepare(object, &old["spec"]);
}

fn prepare(object: &mut Value, old_spec: &Value) {
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    // 1. A reference to another namespace (`DropDisabledFields`).
    let elsewhere = !text(&spec["dataSourceRef"], "namespace").is_empty();
    if elsewhere && !is_set(old_spec, "dataSourceRef") {
        remove(spec, "dataSourceRef");
    }
    // 2. Old clients' ignored kinds (`EnforceDataSourceBackwardsCompatibility`).
    let in_use = FIELDS.iter().any(|f| is_set(old_spec, f));
    if !in_use && !is_set(spec, "dataSourceRef") && !is_claim_or_snapshot(&spec["dataSource"]) {
        remove(spec, "dataSource");
    }
    // 3. One field alone fills in the other (`NormalizeDataSources`).
    match (is_set(spec, "dataSource"), is_set(spec, "dataSourceRef")) {
        (true, false) => spec["dataSourceRef"] = copy_of(&spec["dataSource"]),
        (false, true) if text(&spec["dataSourceRef"], "namespace").is_empty() => {
            spec["dataSource"] = copy_of(&spec["dataSourceRef"]);
        }
        _ => {}
    }
}

fn remove(spec: &mut Value, field: &str) {
    if let Some(spec) = spec.as_object_mut() {
        spec.remove(field);
    }
}

/// What the field manager credits to the writer of `prepared`, the claim after
/// [`prepare_create`] or [`prepare_update`]: its data source fields as `sent`, the request as
/// decoded. `None` when they are the same.
pub fn as_sent(prepared: &Value, sent: &Value) -> Option<Value> {
    let same = FIELDS
        .iter()
        .all(|f| prepared["spec"][f] == sent["spec"][f]);
    if same || !prepared["spec"].is_object() {
        return None;
    }
    let mut view = prepared.clone();
    for field in FIELDS {
        match sent["spec"].get(field) {
            Some(value) => view["spec"][field] = value.clone(),
            None => remove(&mut view["spec"], field),
        }
    }
    Some(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_after(spec: Value, old: Option<Value>) -> Value {
        let mut claim = json!({ "spec": spec });
        match old {
            Some(old) => prepare_update(&mut claim, &json!({ "spec": old })),
            None => prepare_create(&mut claim),
        }
        claim["spec"].take()
    }

    #[test]
    fn one_field_alone_fills_in_the_other() {
        let claim = json!({"kind": "PersistentVolumeClaim", "name": "a"});
        assert_eq!(
            spec_after(json!({ "dataSource": claim }), None),
            json!({"dataSource": claim, "dataSourceRef": claim})
        );
        let foo = json!({"apiGroup": "example.com", "kind": "Foo", "name": "f"});
        assert_eq!(
            spec_after(json!({ "dataSourceRef": foo }), None),
            json!({"dataSource": foo, "dataSourceRef": foo})
        );
        let with_ns = json!({"kind": "Foo", "name": "f", "namespace": ""});
        assert_eq!(
            spec_after(json!({ "dataSourceRef": with_ns }), None)["dataSource"],
            json!({"kind": "Foo", "name": "f"})
        );
    }

    #[test]
    fn old_clients_kinds_and_other_namespaces_are_dropped_unless_stored() {
        let foo = json!({"apiGroup": "example.com", "kind": "Foo", "name": "f"});
        assert_eq!(spec_after(json!({ "dataSource": foo }), None), json!({}));
        // With a reference, the source is the client's choice: validation compares them.
        let both = json!({"dataSource": foo, "dataSourceRef": {"kind": "Bar", "name": "b"}});
        assert_eq!(spec_after(both.clone(), None), both);
        let elsewhere = json!({"kind": "PersistentVolumeClaim", "name": "b", "namespace": "x"});
        assert_eq!(
            spec_after(json!({ "dataSourceRef": elsewhere }), None),
            json!({})
        );
        let claim = json!({"kind": "PersistentVolumeClaim", "name": "a"});
        assert_eq!(
            spec_after(
                json!({"dataSource": claim, "dataSourceRef": elsewhere}),
                None
            ),
            json!({"dataSource": claim, "dataSourceRef": claim})
        );
        let stored = json!({"dataSource": claim, "dataSourceRef": claim});
        assert_eq!(
            spec_after(json!({ "dataSource": foo }), Some(stored.clone())),
            json!({"dataSource": foo, "dataSourceRef": {"apiGroup": "example.com", "kind": "Foo", "name": "f"}})
        );
        assert_eq!(
            spec_after(json!({ "dataSourceRef": elsewhere }), Some(stored))["dataSourceRef"],
            elsewhere
        );
    }

    #[test]
    fn the_writer_is_credited_with_what_it_sent() {
        let claim = json!({"kind": "PersistentVolumeClaim", "name": "a"});
        let sent = json!({"spec": {"dataSource": claim, "x": 1}});
        let mut prepared = sent.clone();
        prepare_create(&mut prepared);
        assert_eq!(as_sent(&prepared, &sent), Some(sent.clone()));
        assert_eq!(as_sent(&sent, &sent), None);
    }
}
