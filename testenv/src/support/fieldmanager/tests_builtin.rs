//! Unit tests of the field manager on built-in kinds, typed by the recorded OpenAPI, and of
//! the rules that are the same for every kind: `null` in an applied configuration and the
//! cap on Update entries. The expected field sets are what kube-apiserver v1.34.9 recorded
//! for the same requests.

use serde_json::{Value, json};

use super::*;
use crate::support::resource::{CustomVersion, ResourceDef};

const NOW: &str = "2026-01-01T00:00:00Z";

fn owner(manager: &str, operation: Operation, api_version: &str) -> Owner {
    Owner {
        manager: manager.into(),
        operation,
        api_version: api_version.into(),
        subresource: String::new(),
    }
}

/// The fields `manager` owns after a create of `object` by it.
fn created_by(def: &ResourceDef, object: &Value) -> Value {
    let managed = update(
        Types::of(def),
        Some(&json!({"metadata": {}})),
        object,
        ManagedFields::default(),
        &owner("creator", Operation::Update, &def.api_version()),
        Scope::Whole,
        NOW,
    );
    managed.entries[0].fields.to_fields_v1()
}

fn apply_by(
    def: &ResourceDef,
    live: Option<&Value>,
    managed: ManagedFields,
    manager: &str,
    config: &Value,
    force: bool,
) -> Result<(Value, ManagedFields), ApplyError> {
    let request = ApplyRequest {
        owner: owner(manager, Operation::Apply, &def.api_version()),
        force,
        scope: Scope::Whole,
    };
    apply(Types::of(def), live, managed, config, &request, NOW)
}

fn fields_of(managed: &ManagedFields, manager: &str) -> Value {
    managed
        .entries
        .iter()
        .find(|e| e.owner.manager == manager)
        .map_or(Value::Null, |e| e.fields.to_fields_v1())
}

#[test]
fn pod_specs_are_typed_by_the_openapi() {
    let def = ResourceDef::named("apps", "v1", "Deployment", "deployments");
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"strategy": {"type": "Recreate"}, "template": {"spec": {
            "securityContext": {},
            "topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}],
            "volumes": [{"name": "v", "hostPath": {"path": "/tmp", "type": ""}}],
            "containers": [{"name": "c", "image": "nginx", "resources": {"limits": {"cpu": "1"}},
                "env": [{"name": "E", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}]}}}});
    let tsc = |w: &str| format!("k:{{\"topologyKey\":\"zone\",\"whenUnsatisfiable\":\"{w}\"}}");
    let item = json!({".": {}, "f:maxSkew": {}, "f:topologyKey": {}, "f:whenUnsatisfiable": {}});
    // `strategy`, `template` and the pod spec are structs Go always writes: owned through
    // their fields; `securityContext` and `hostPath` are pointers, owned themselves;
    // `secretKeyRef` is an atomic struct.
    assert_eq!(
        created_by(&def, &deployment),
        json!({"f:spec": {"f:strategy": {"f:type": {}}, "f:template": {"f:spec": {
            "f:securityContext": {},
            "f:topologySpreadConstraints": {".": {}, tsc("DoNotSchedule"): item.clone(),
                tsc("ScheduleAnyway"): item},
            "f:volumes": {".": {}, "k:{\"name\":\"v\"}": {".": {}, "f:name": {},
                "f:hostPath": {".": {}, "f:path": {}, "f:type": {}}}},
            "f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:name": {}, "f:image": {},
                "f:resources": {".": {}, "f:limits": {".": {}, "f:cpu": {}}},
                "f:env": {".": {}, "k:{\"name\":\"E\"}": {".": {}, "f:name": {},
                    "f:valueFrom": {".": {}, "f:secretKeyRef": {}}}}}}}}}})
    );
}

#[test]
fn repeated_items_of_a_map_list_are_owned_whole() {
    // An env var named twice is one atomic member (structured-merge-diff's duplicates):
    // owned without its fields, modified when the repeated items change, given its fields
    // again once it is no longer repeated.
    let def = ResourceDef::named("", "v1", "PodTemplate", "podtemplates");
    let with_env = |env: Value| {
        json!({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
            "template": {"spec": {"containers": [{"name": "c", "image": "i", "env": env}]}}})
    };
    let env_of = |managed: &ManagedFields, manager: &str| {
        fields_of(managed, manager)["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"c\"}"]
            ["f:env"]
            .clone()
    };
    let (a, b) = ("k:{\"name\":\"A\"}", "k:{\"name\":\"B\"}");
    let step = |old: &Value, new: &Value, managed: ManagedFields, manager: &str| {
        update(
            Types::of(&def),
            Some(old),
            new,
            managed,
            &owner(manager, Operation::Update, "v1"),
            Scope::Whole,
            NOW,
        )
    };
    let v0 = with_env(
        json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"},
        {"name": "A", "value": "3"}]),
    );
    let managed = step(
        &json!({"metadata": {}}),
        &v0,
        ManagedFields::default(),
        "creator",
    );
    assert_eq!(
        env_of(&managed, "creator"),
        json!({".": {}, a: {}, b: {".": {}, "f:name": {}, "f:value": {}}})
    );
    let v1 = with_env(
        json!([{"name": "A", "value": "1"}, {"name": "B", "value": "5"},
        {"name": "A", "value": "4"}]),
    );
    let managed = step(&v0, &v1, managed, "p1");
    assert_eq!(
        env_of(&managed, "creator"),
        json!({".": {}, b: {".": {}, "f:name": {}}})
    );
    assert_eq!(env_of(&managed, "p1"), json!({a: {}, b: {"f:value": {}}}));
    let v2 = with_env(json!([{"name": "A", "value": "1"}, {"name": "B", "value": "5"}]));
    let managed = step(&v1, &v2, managed, "p2");
    assert_eq!(env_of(&managed, "p1"), json!({b: {"f:value": {}}}));
    assert_eq!(
        env_of(&managed, "p2"),
        json!({a: {".": {}, "f:name": {}, "f:value": {}}})
    );
    let v3 = with_env(
        json!([{"name": "A", "value": "1"}, {"name": "B", "value": "5"},
        {"name": "B", "value": "9"}]),
    );
    let managed = step(&v2, &v3, managed, "p3");
    assert_eq!(env_of(&managed, "creator"), json!({}));
    assert_eq!(env_of(&managed, "p1"), Value::Null);
    assert_eq!(env_of(&managed, "p3"), json!({b: {}}));
}

#[test]
fn a_null_go_writes_leaves_with_its_list_item() {
    // A pod condition's `lastProbeTime` (a struct Go writes as `null` when zero) is owned
    // by the writer of the condition, and removed with it.
    let def = ResourceDef::named("", "v1", "Pod", "pods");
    let with_conditions = |conditions: Value| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
            "status": {"conditions": conditions}})
    };
    let ready = json!({"type": "Ready", "status": "True", "lastProbeTime": null,
        "lastTransitionTime": null});
    let gate = json!({"type": "example.com/gate", "status": "False", "lastProbeTime": null,
        "lastTransitionTime": null});
    let before = with_conditions(json!([ready.clone(), gate]));
    let step = |old: &Value, new: &Value, managed: ManagedFields| {
        update(
            Types::of(&def),
            Some(old),
            new,
            managed,
            &owner("s", Operation::Update, "v1"),
            Scope::Whole,
            NOW,
        )
    };
    let empty = with_conditions(json!([]));
    let managed = step(&empty, &before, ManagedFields::default());
    let gate_key = "k:{\"type\":\"example.com/gate\"}";
    let conditions =
        |managed: &ManagedFields| fields_of(managed, "s")["f:status"]["f:conditions"].clone();
    assert_eq!(
        conditions(&managed)[gate_key],
        json!({".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {},
            "f:type": {}})
    );
    let managed = step(&before, &with_conditions(json!([ready])), managed);
    assert_eq!(conditions(&managed)[gate_key], Value::Null);
}

#[test]
fn a_null_list_go_writes_is_owned_in_a_new_item() {
    // A CSINode driver's `topologyKeys` is a slice without `omitempty`: Go writes it `null`
    // and the real field manager owns it with the driver.
    let def = ResourceDef::named("storage.k8s.io", "v1", "CSINode", "csinodes");
    let node = json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
        "metadata": {"name": "n"},
        "spec": {"drivers": [{"name": "a", "nodeID": "x", "topologyKeys": null}]}});
    assert_eq!(
        created_by(&def, &node),
        json!({"f:spec": {"f:drivers": {"k:{\"name\":\"a\"}": {".": {}, "f:name": {},
            "f:nodeID": {}, "f:topologyKeys": {}}}}})
    );
}

#[test]
fn an_item_without_its_key_leaves_no_managed_fields() {
    // The real field manager cannot type the object and drops every entry.
    let def = ResourceDef::named("", "v1", "ServiceAccount", "serviceaccounts");
    let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "s"},
        "automountServiceAccountToken": false, "secrets": [{}]});
    let managed = update(
        Types::of(&def),
        Some(&json!({"metadata": {}})),
        &sa,
        ManagedFields::default(),
        &owner("creator", Operation::Update, "v1"),
        Scope::Whole,
        NOW,
    );
    assert!(managed.entries.is_empty());
}

#[test]
fn pointer_structs_of_the_object_are_owned_themselves() {
    let def = ResourceDef::named("events.k8s.io", "v1", "Event", "events");
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"},
        "reason": "R", "regarding": {"kind": "Pod", "name": "p"},
        "series": {"count": 2, "lastObservedTime": "2026-01-01T00:00:00.000000Z"}});
    assert_eq!(
        created_by(&def, &event),
        json!({"f:reason": {}, "f:regarding": {},
            "f:series": {".": {}, "f:count": {}, "f:lastObservedTime": {}}})
    );
}

#[test]
fn storage_lists_are_sets_and_keyed_lists() {
    let driver = ResourceDef::named("storage.k8s.io", "v1", "CSIDriver", "csidrivers");
    let config = json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
        "metadata": {"name": "d"}, "spec": {"volumeLifecycleModes": ["Persistent", "Ephemeral"]}});
    let (_, managed) =
        apply_by(&driver, None, ManagedFields::default(), "m", &config, false).expect("applied");
    assert_eq!(
        fields_of(&managed, "m"),
        json!({"f:spec": {"f:volumeLifecycleModes": {"v:\"Persistent\"": {}, "v:\"Ephemeral\"": {}}}})
    );
    let node = ResourceDef::named("storage.k8s.io", "v1", "CSINode", "csinodes");
    let config = json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
        "metadata": {"name": "n"}, "spec": {"drivers": [{"name": "a", "nodeID": "x"}]}});
    let (live, managed) =
        apply_by(&node, None, ManagedFields::default(), "m", &config, false).expect("applied");
    assert_eq!(
        fields_of(&managed, "m"),
        json!({"f:spec": {"f:drivers": {"k:{\"name\":\"a\"}": {".": {}, "f:name": {}, "f:nodeID": {}}}}})
    );
    // Another applier adds a driver of its own beside it.
    let other = json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
        "metadata": {"name": "n"}, "spec": {"drivers": [{"name": "b", "nodeID": "y"}]}});
    let (merged, _) = apply_by(&node, Some(&live), managed, "o", &other, false).expect("applied");
    assert_eq!(
        merged["spec"]["drivers"],
        json!([{"name": "a", "nodeID": "x"}, {"name": "b", "nodeID": "y"}])
    );
}

#[test]
fn custom_resource_metadata_is_object_meta() {
    let def = ResourceDef {
        custom: Some(CustomVersion {
            schema: Some(json!({"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"x": {"type": "string"}}}}})),
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            deprecated: None,
            list_kind: String::new(),
            forms: Default::default(),
        }),
        ..ResourceDef::named("example.com", "v1", "Probe", "probes")
    };
    let config = json!({"apiVersion": "example.com/v1", "kind": "Probe", "metadata": {"name": "p",
        "finalizers": ["f"], "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap",
            "name": "c", "uid": "u"}]}, "spec": {"x": "1"}});
    let (_, managed) =
        apply_by(&def, None, ManagedFields::default(), "m", &config, false).expect("applied");
    assert_eq!(
        fields_of(&managed, "m"),
        json!({"f:metadata": {"f:finalizers": {"v:\"f\"": {}},
            "f:ownerReferences": {"k:{\"uid\":\"u\"}": {}}}, "f:spec": {"f:x": {}}})
    );
}

fn config_map(data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data})
}

#[test]
fn a_null_is_owned_and_set_to_the_go_zero_value() {
    let cm = ResourceDef::named("", "v1", "ConfigMap", "configmaps");
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "labels": {"a": "1", "b": null}}, "data": {"p": "1", "q": null}});
    let (object, managed) =
        apply_by(&cm, None, ManagedFields::default(), "m", &config, false).expect("applied");
    // A map of strings holds "" where the configuration said null, and the applier owns it.
    assert_eq!(object["data"], json!({"p": "1", "q": ""}));
    assert_eq!(object["metadata"]["labels"], json!({"a": "1", "b": ""}));
    assert_eq!(
        fields_of(&managed, "m"),
        json!({"f:data": {"f:p": {}, "f:q": {}},
            "f:metadata": {"f:labels": {"f:a": {}, "f:b": {}}}})
    );
    // A null over another manager's value changes it: a conflict.
    let live = config_map(json!({"p": "1", "q": "2"}));
    let managers = update(
        Types::of(&cm),
        Some(&json!({"metadata": {}})),
        &live,
        ManagedFields::default(),
        &owner("creator", Operation::Update, "v1"),
        Scope::Whole,
        NOW,
    );
    let nulled = config_map(json!({"p": "1", "q": null}));
    let Err(ApplyError::Conflicts(conflicts)) =
        apply_by(&cm, Some(&live), managers.clone(), "m", &nulled, false)
    else {
        panic!("a null over another manager's value conflicts");
    };
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].field(), ".data.q");
    let (object, managed) =
        apply_by(&cm, Some(&live), managers, "m", &nulled, true).expect("forced");
    assert_eq!(object["data"]["q"], "");
    assert_eq!(
        fields_of(&managed, "creator"),
        json!({"f:data": {".": {}, "f:p": {}}})
    );

    // Pointers are left out, structs Go always writes are empty; both are owned.
    let def = ResourceDef::named("apps", "v1", "Deployment", "deployments");
    let config = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"replicas": null, "template": {"spec": {"nodeSelector": null, "containers": [
            {"name": "c", "image": "i", "resources": null, "env": null, "securityContext": null}]}}}});
    let (object, managed) =
        apply_by(&def, None, ManagedFields::default(), "m", &config, false).expect("applied");
    assert_eq!(object["spec"].get("replicas"), None);
    assert_eq!(
        object["spec"]["template"]["spec"],
        json!({"containers": [{"name": "c", "image": "i", "resources": {}}]})
    );
    assert_eq!(
        fields_of(&managed, "m"),
        json!({"f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:nodeSelector": {},
            "f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:name": {}, "f:image": {},
                "f:resources": {}, "f:env": {}, "f:securityContext": {}}}}}}})
    );
}

#[test]
fn update_managers_beyond_ten_merge_into_ancient_changes() {
    let cm = ResourceDef::named("", "v1", "ConfigMap", "configmaps");
    let mut live = config_map(json!({"k00": "v"}));
    let mut managed = update(
        Types::of(&cm),
        Some(&json!({"metadata": {}})),
        &live,
        ManagedFields::default(),
        &owner("m00", Operation::Update, "v1"),
        Scope::Whole,
        "2026-01-01T00:00:00Z",
    );
    let (applied, with_apply) = apply_by(
        &cm,
        Some(&live),
        managed,
        "applier",
        &config_map(json!({"a": "v"})),
        false,
    )
    .expect("applied");
    (live, managed) = (applied, with_apply);
    for i in 1..=12 {
        let mut new = live.clone();
        new["data"][format!("k{i:02}")] = json!("v");
        managed = update(
            Types::of(&cm),
            Some(&live),
            &new,
            managed,
            &owner(&format!("m{i:02}"), Operation::Update, "v1"),
            Scope::Whole,
            &format!("2026-01-01T00:00:{i:02}Z"),
        );
        live = new;
    }
    let updates: Vec<&managed::Entry> = managed
        .entries
        .iter()
        .filter(|e| e.owner.operation == Operation::Update)
        .collect();
    assert_eq!(updates.len(), managed::MAX_UPDATE_MANAGERS);
    let names: Vec<&str> = updates.iter().map(|e| e.owner.manager.as_str()).collect();
    assert!(names.contains(&managed::ANCIENT_CHANGES) && !names.contains(&"m03"));
    assert!(names.contains(&"m04") && names.contains(&"m12"));
    assert_eq!(
        fields_of(&managed, managed::ANCIENT_CHANGES),
        json!({"f:data": {".": {}, "f:k00": {}, "f:k01": {}, "f:k02": {}, "f:k03": {}}})
    );
    let bucket = managed.find(&owner(managed::ANCIENT_CHANGES, Operation::Update, "v1"));
    assert_eq!(
        bucket.and_then(|b| b.time.as_deref()),
        Some("2026-01-01T00:00:03Z")
    );
    // The Apply entry is never merged.
    assert_eq!(
        fields_of(&managed, "applier"),
        json!({"f:data": {"f:a": {}}})
    );
}

#[test]
fn nulls_go_writes_in_a_new_item_are_owned() {
    let def = ResourceDef {
        status_subresource: true,
        ..ResourceDef::named("", "v1", "Pod", "pods")
    };
    let old = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Pending"}});
    let mut new = old.clone();
    new["status"]["conditions"] = json!([{"type": "Ready", "status": "True",
        "lastProbeTime": null, "lastTransitionTime": null}]);
    let base = update(
        Types::of(&def),
        Some(&json!({"metadata": {}})),
        &old,
        ManagedFields::default(),
        &owner("creator", Operation::Update, "v1"),
        Scope::WithoutStatus,
        NOW,
    );
    let status = Owner {
        subresource: "status".into(),
        ..owner("st", Operation::Update, "v1")
    };
    let after = update(
        Types::of(&def),
        Some(&old),
        &new,
        base,
        &status,
        Scope::OnlyStatus,
        NOW,
    );
    assert_eq!(
        fields_of(&after, "st"),
        json!({"f:status": {"f:conditions": {".": {}, "k:{\"type\":\"Ready\"}": {".": {},
            "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}}}})
    );
    // The same nulls on both sides change nothing.
    let again = update(
        Types::of(&def),
        Some(&new),
        &new,
        after.clone(),
        &owner("other", Operation::Update, "v1"),
        Scope::OnlyStatus,
        NOW,
    );
    assert_eq!(again, after);
}

#[test]
fn a_null_go_leaves_out_is_no_field() {
    // An ExternalName Service replaced without ports: a `null` for its optional list (or
    // selector map) is what Go leaves out, not a field its updater owns (a pod condition's
    // `lastProbeTime`, a time Go writes as `null`, is one: see above).
    let def = ResourceDef::named("", "v1", "Service", "services");
    let old = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
        "spec": {"type": "ExternalName", "externalName": "a.example.com"}});
    let mut new = old.clone();
    new["spec"]["externalName"] = json!("b.example.com");
    new["spec"]["ports"] = Value::Null;
    new["spec"]["selector"] = Value::Null;
    let managed = update(
        Types::of(&def),
        Some(&old),
        &new,
        ManagedFields::default(),
        &owner("putter", Operation::Update, "v1"),
        Scope::Whole,
        NOW,
    );
    let fields = fields_of(&managed, "putter");
    assert_eq!(fields, json!({"f:spec": {"f:externalName": {}}}));
}
