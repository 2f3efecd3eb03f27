//! Unit tests of the field manager on plain JSON (custom-resource schema and built-in rules).

use serde_json::{Value, json};

use super::*;
use crate::support::resource::{CustomVersion, ResourceDef};

fn crd_def() -> ResourceDef {
    let schema = json!({"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "x": {"type": "string"}, "y": {"type": "string"},
                        "items": {"type": "array", "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["name"],
                            "items": {"type": "object", "properties": {
                                "name": {"type": "string"}, "value": {"type": "string"}}}},
                        "tags": {"type": "array", "x-kubernetes-list-type": "set",
                            "items": {"type": "string"}},
                        "args": {"type": "array", "items": {"type": "string"}},
                        "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                            "additionalProperties": {"type": "string"}}}}}});
    ResourceDef {
        custom: Some(CustomVersion {
            schema: Some(schema),
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            deprecated: None,
            list_kind: String::new(),
            forms: Default::default(),
        }),
        ..ResourceDef::named("example.com", "v1", "Probe", "probes")
    }
}

fn owner(manager: &str, operation: Operation) -> Owner {
    Owner {
        manager: manager.into(),
        operation,
        api_version: "example.com/v1".into(),
        subresource: String::new(),
    }
}

fn apply_as(
    def: &ResourceDef,
    live: Option<&Value>,
    managed: ManagedFields,
    manager: &str,
    config: Value,
    force: bool,
) -> Result<(Value, ManagedFields), ApplyError> {
    let request = ApplyRequest {
        owner: owner(manager, Operation::Apply),
        force,
        scope: Scope::Whole,
    };
    apply(
        Types::of(def),
        live,
        managed,
        &config,
        &request,
        "2026-01-01T00:00:00Z",
    )
}

fn fields_of(managed: &ManagedFields, manager: &str) -> Value {
    managed
        .entries
        .iter()
        .find(|e| e.owner.manager == manager)
        .map_or(Value::Null, |e| e.fields.to_fields_v1())
}

fn probe(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Probe", "metadata": {"name": "p"}, "spec": spec})
}

#[test]
fn apply_records_fields_in_the_real_format() {
    let def = crd_def();
    let config = probe(json!({"x": "1", "items": [{"name": "a", "value": "v"}],
        "tags": ["t"], "args": ["--v"], "selector": {"app": "w"}}));
    let (object, managed) = apply_as(
        &def,
        None,
        ManagedFields::default(),
        "m",
        config.clone(),
        false,
    )
    .unwrap();
    assert_eq!(object["spec"], config["spec"]);
    assert_eq!(
        fields_of(&managed, "m"),
        json!({"f:spec": {
            "f:x": {}, "f:args": {}, "f:selector": {}, "f:tags": {"v:\"t\"": {}},
            "f:items": {"k:{\"name\":\"a\"}": {".": {}, "f:name": {}, "f:value": {}}}}})
    );
    let encoded = managed.encode();
    assert_eq!(encoded[0]["operation"], "Apply");
    assert_eq!(encoded[0]["fieldsType"], "FieldsV1");
    assert_eq!(encoded[0]["time"], "2026-01-01T00:00:00Z");
    assert_eq!(ManagedFields::decode(&encoded).unwrap(), managed);
}

#[test]
fn two_appliers_merge_map_lists_and_sets_and_removal_spares_the_other() {
    let def = crd_def();
    let (o1, m1) = apply_as(
        &def,
        None,
        ManagedFields::default(),
        "a",
        probe(json!({"items": [{"name": "a", "value": "1"}], "tags": ["x"], "y": "a"})),
        false,
    )
    .unwrap();
    let (o2, m2) = apply_as(
        &def,
        Some(&o1),
        m1,
        "b",
        probe(json!({"items": [{"name": "b", "value": "2"}], "tags": ["z"]})),
        false,
    )
    .unwrap();
    assert_eq!(
        o2["spec"]["items"],
        json!([{"name": "a", "value": "1"}, {"name": "b", "value": "2"}])
    );
    assert_eq!(o2["spec"]["tags"], json!(["x", "z"]));
    // "a" drops its item, tag and y: they go; b's stay.
    let bare = json!({"apiVersion": "example.com/v1", "kind": "Probe", "metadata": {"name": "p"}});
    let (o3, m3) = apply_as(&def, Some(&o2), m2, "a", bare.clone(), false).unwrap();
    assert_eq!(
        o3["spec"],
        json!({"items": [{"name": "b", "value": "2"}], "tags": ["z"]})
    );
    assert_eq!(
        fields_of(&m3, "a"),
        Value::Null,
        "an empty entry disappears"
    );
    // b drops everything: spec is left empty and removed.
    let (o4, m4) = apply_as(&def, Some(&o3), m3, "b", bare, false).unwrap();
    assert!(o4.get("spec").is_none(), "{o4}");
    assert!(m4.entries.is_empty());
    // An empty map in a configuration is owned itself (as on the real server).
    let (o5, m5) = apply_as(&def, Some(&o4), m4, "c", probe(json!({})), false).unwrap();
    assert_eq!(o5["spec"], json!({}));
    assert_eq!(fields_of(&m5, "c"), json!({"f:spec": {}}));
}

#[test]
fn conflicts_sharing_and_force() {
    let def = crd_def();
    let created = probe(json!({"x": "1", "y": "1"}));
    let managed = update(
        Types::of(&def),
        Some(&json!({"metadata": {}})),
        &created,
        ManagedFields::default(),
        &owner("editor", Operation::Update),
        Scope::Whole,
        "2026-01-01T00:00:00Z",
    );
    assert_eq!(
        fields_of(&managed, "editor"),
        json!({"f:spec": {".": {}, "f:x": {}, "f:y": {}}})
    );
    // Same value: shared, no conflict.
    let (same, shared) = apply_as(
        &def,
        Some(&created),
        managed.clone(),
        "ssa",
        probe(json!({"x": "1"})),
        false,
    )
    .unwrap();
    assert_eq!(same["spec"], created["spec"]);
    assert_eq!(fields_of(&shared, "ssa"), json!({"f:spec": {"f:x": {}}}));
    assert_eq!(fields_of(&shared, "editor"), fields_of(&managed, "editor"));
    // Another value: conflict.
    let err = apply_as(
        &def,
        Some(&created),
        managed.clone(),
        "ssa",
        probe(json!({"x": "2", "y": "2"})),
        false,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Apply failed with 2 conflicts: conflicts with \"editor\" using example.com/v1:\n- .spec.x\n- .spec.y"
    );
    let ApplyError::Conflicts(c) = err else {
        panic!("conflicts expected")
    };
    assert_eq!(c[0].field(), ".spec.x");
    assert_eq!(c[0].owner.describe(), "\"editor\" using example.com/v1");
    // Forced: the applier takes the field.
    let (forced, taken) = apply_as(
        &def,
        Some(&created),
        managed,
        "ssa",
        probe(json!({"x": "2"})),
        true,
    )
    .unwrap();
    assert_eq!(forced["spec"], json!({"x": "2", "y": "1"}));
    assert_eq!(
        fields_of(&taken, "editor"),
        json!({"f:spec": {".": {}, "f:y": {}}})
    );
}

#[test]
fn updates_move_changed_fields_to_their_manager() {
    let def = crd_def();
    let (live, managed) = apply_as(
        &def,
        None,
        ManagedFields::default(),
        "ssa",
        probe(json!({"x": "1", "y": "1"})),
        false,
    )
    .unwrap();
    let mut edited = live.clone();
    edited["spec"]["x"] = json!("2");
    edited["spec"].as_object_mut().unwrap().remove("y");
    let after = update(
        Types::of(&def),
        Some(&live),
        &edited,
        managed,
        &owner("editor", Operation::Update),
        Scope::Whole,
        "2026-01-01T00:00:01Z",
    );
    assert_eq!(fields_of(&after, "editor"), json!({"f:spec": {"f:x": {}}}));
    assert_eq!(fields_of(&after, "ssa"), Value::Null);
    let encoded = after.encode();
    assert_eq!(encoded.as_array().unwrap().len(), 1);
    assert_eq!(encoded[0]["operation"], "Update");
    assert_eq!(encoded[0]["apiVersion"], "example.com/v1");
}

#[test]
fn builtin_kinds_use_the_list_types_of_their_openapi() {
    let def = ResourceDef::named("apps", "v1", "Deployment", "deployments");
    let config = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d", "labels": {"app": "d"}, "finalizers": ["f"]},
        "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {"spec": {"containers": [
            {"name": "c", "image": "i", "env": [{"name": "E", "value": "1"}], "args": ["a"], "ports": [{"containerPort": 80}]}]}}}});
    let request = ApplyRequest {
        owner: Owner {
            manager: "m".into(),
            operation: Operation::Apply,
            api_version: "apps/v1".into(),
            subresource: String::new(),
        },
        force: false,
        scope: Scope::WithoutStatus,
    };
    let (_, managed) = apply(
        Types::of(&def),
        None,
        ManagedFields::default(),
        &config,
        &request,
        "t",
    )
    .unwrap();
    assert_eq!(
        fields_of(&managed, "m"),
        json!({
            "f:metadata": {"f:labels": {"f:app": {}}, "f:finalizers": {"v:\"f\"": {}}},
            "f:spec": {"f:selector": {}, "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {
                ".": {}, "f:name": {}, "f:image": {}, "f:args": {},
                "f:env": {"k:{\"name\":\"E\"}": {".": {}, "f:name": {}, "f:value": {}}},
                "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}}}}}}}})
    );
    // A container without a name is keyed by the name's schema default, "" (the real server
    // then refuses it in validation, not while typing it).
    let unnamed = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"template": {"spec": {"containers": [{"image": "i"}]}}}});
    let (_, managed) = apply(
        Types::of(&def),
        None,
        ManagedFields::default(),
        &unnamed,
        &request,
        "t",
    )
    .unwrap();
    assert_eq!(
        fields_of(&managed, "m"),
        json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {
            "k:{\"name\":\"\"}": {".": {}, "f:image": {}}}}}}})
    );
    // A key field without a default must be there: a ServiceAccount's secrets by name.
    let sa = ResourceDef::named("", "v1", "ServiceAccount", "serviceaccounts");
    let missing = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "s"},
        "secrets": [{"namespace": "n"}]});
    let request = ApplyRequest {
        owner: Owner {
            api_version: "v1".into(),
            ..request.owner
        },
        scope: Scope::Whole,
        ..request
    };
    let err = apply(
        Types::of(&sa),
        None,
        ManagedFields::default(),
        &missing,
        &request,
        "t",
    )
    .unwrap_err();
    assert!(
        // The real server's words for an item without any of the list's keys.
        err.to_string().contains(
            "omits all key fields [\"name\"] (and doesn't have default values for any key fields)"
        ),
        "{err}"
    );
}

#[test]
fn update_bodies_with_managed_fields_keep_them() {
    let stored = json!({"metadata": {"managedFields": [
        {"manager": "a", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}}}}]}});
    let sent = json!([
        {"manager": "b", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:y": {}}}}]);
    let kept = ManagedFields::for_update(Some(&sent), &stored);
    assert_eq!(kept.entries[0].owner.manager, "b");
    assert!(
        ManagedFields::for_update(Some(&json!([{}])), &stored)
            .entries
            .is_empty()
    );
    // An empty list resets them too (kube-apiserver 1.34); absent keeps the stored ones.
    assert!(
        ManagedFields::for_update(Some(&json!([])), &stored)
            .entries
            .is_empty()
    );
    assert_eq!(
        ManagedFields::for_update(None, &stored).entries[0]
            .owner
            .manager,
        "a"
    );
    assert_eq!(
        default_manager(None, "kubectl/v1.35.0 (linux/amd64)"),
        "kubectl"
    );
    assert_eq!(default_manager(Some("mine"), "kubectl/v1"), "mine");
    assert_eq!(default_manager(None, ""), "unknown");
}

#[test]
fn a_shared_item_stays_but_loses_the_fields_only_the_dropper_owned() {
    let def = crd_def();
    let (o1, m1) = apply_as(
        &def,
        None,
        ManagedFields::default(),
        "a",
        probe(json!({"items": [{"name": "one", "value": "1"}]})),
        false,
    )
    .unwrap();
    let (o2, m2) = apply_as(
        &def,
        Some(&o1),
        m1,
        "b",
        probe(json!({"items": [{"name": "one"}]})),
        false,
    )
    .unwrap();
    assert_eq!(o2["spec"]["items"], json!([{"name": "one", "value": "1"}]));
    let (o3, m3) = apply_as(&def, Some(&o2), m2, "a", probe(json!({"x": "k"})), false).unwrap();
    assert_eq!(o3["spec"], json!({"x": "k", "items": [{"name": "one"}]}));
    assert_eq!(fields_of(&m3, "a"), json!({"f:spec": {"f:x": {}}}));
}

#[test]
fn entries_of_other_versions_are_compared_in_their_own_version() {
    let def = crd_def();
    // v1beta1 calls the field `y` that v1 calls `x`: the write changes it in both.
    let beta = Owner {
        api_version: "example.com/v1beta1".into(),
        ..owner("writer", Operation::Update)
    };
    let created = update(
        Types::of(&def),
        Some(&json!({"metadata": {}})),
        &probe(json!({"y": "1"})),
        ManagedFields::default(),
        &beta,
        Scope::Whole,
        "2026-01-01T00:00:00Z",
    );
    let old_v1 = probe(json!({"x": "1"}));
    let new_v1 = probe(json!({"x": "2"}));
    let seen_in_beta = Changes::between(
        Types::of(&def),
        Some(&probe(json!({"y": "1"}))),
        &probe(json!({"y": "2"})),
    );
    let elsewhere = BTreeMap::from([("example.com/v1beta1".to_string(), seen_in_beta)]);
    let v1 = owner("writer", Operation::Update);
    let after = update_across_versions(
        Types::of(&def),
        Some(&old_v1),
        &new_v1,
        created.clone(),
        &v1,
        Scope::Whole,
        "2026-01-01T00:00:01Z",
        &elsewhere,
    );
    // The same manager writing through another version gets an entry of its own, and its
    // v1beta1 entry lost `y`, changed as seen in v1beta1: only `spec` itself is left.
    let encoded = after.encode();
    let by_version = |v: &str| {
        encoded
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["apiVersion"] == v)
            .map(|e| e["fieldsV1"].clone())
    };
    assert_eq!(
        by_version("example.com/v1"),
        Some(json!({"f:spec": {"f:x": {}}}))
    );
    assert_eq!(
        by_version("example.com/v1beta1"),
        Some(json!({"f:spec": {}}))
    );
    // Compared in the request's version instead, `y` would have stayed with v1beta1.
    let naive = update(
        Types::of(&def),
        Some(&old_v1),
        &new_v1,
        created,
        &v1,
        Scope::Whole,
        "2026-01-01T00:00:01Z",
    );
    let naive = naive.encode();
    let beta_fields = naive
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["apiVersion"] == "example.com/v1beta1")
        .map(|e| e["fieldsV1"].clone());
    assert_eq!(beta_fields, Some(json!({"f:spec": {".": {}, "f:y": {}}})));
}

#[test]
fn map_list_items_are_keyed_by_the_key_fields_they_have() {
    use super::path::key_of;
    use super::schema::MapKey;
    // A ResourceClaim's device statuses: driver, device, pool and the optional shareID.
    let keys: Vec<MapKey> = ["driver", "device", "pool", "shareID"]
        .into_iter()
        .map(|name| MapKey {
            name: name.into(),
            default: None,
        })
        .collect();
    let item = json!({"driver": "d.example.com", "pool": "p", "device": "d", "conditions": null});
    assert_eq!(
        key_of(&item, &keys).map(|k| k.to_key()),
        Some(r#"k:{"device":"d","driver":"d.example.com","pool":"p"}"#.to_string())
    );
    // A null key field is no key field; an item with none of them has no identity.
    assert_eq!(
        key_of(&json!({"driver": "x", "shareID": null}), &keys).map(|k| k.to_key()),
        Some(r#"k:{"driver":"x"}"#.to_string())
    );
    assert_eq!(key_of(&json!({"conditions": []}), &keys), None);
}
