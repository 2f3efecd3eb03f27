//! Unit tests of applies to a kind whose versions name a field differently: each manager's
//! fields are compared, and an applier's last fields pruned, in the version they were
//! recorded in.

use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::support::resource::{CustomVersion, ResourceDef};

/// `spec.x` in `example.com/v1` is `spec.y` in `example.com/v1beta1`.
fn def(version: &str) -> ResourceDef {
    let field = if version == "v1" { "x" } else { "y" };
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {field: {"type": "string"}, "port": {"type": "integer"}}}}});
    ResourceDef {
        custom: Some(CustomVersion {
            schema: Some(schema),
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            deprecated: None,
            list_kind: String::new(),
            forms: Default::default(),
        }),
        ..ResourceDef::named("example.com", version, "Probe", "probes")
    }
}

/// Converts by renaming, as a conversion webhook would.
struct Renaming;

impl Versions for Renaming {
    fn def(&self, api_version: &str) -> Option<Arc<ResourceDef>> {
        match api_version {
            "example.com/v1" => Some(Arc::new(def("v1"))),
            "example.com/v1beta1" => Some(Arc::new(def("v1beta1"))),
            _ => None,
        }
    }

    fn convert(&self, object: &Value, api_version: &str) -> Result<Value, Pending> {
        let (from, to) = if api_version == "example.com/v1" {
            ("y", "x")
        } else {
            ("x", "y")
        };
        let mut out = object.clone();
        if let Some(spec) = out["spec"].as_object_mut()
            && let Some(v) = spec.remove(from)
        {
            spec.insert(to.into(), v);
        }
        out["apiVersion"] = json!(api_version);
        Ok(out)
    }
}

fn probe(version: &str, spec: Value) -> Value {
    json!({"apiVersion": format!("example.com/{version}"), "kind": "Probe",
        "metadata": {"name": "p"}, "spec": spec})
}

/// An apply of `spec` in `version` by `manager` to `live` (with its managers).
fn apply_in(
    versions: &dyn Versions,
    live: Option<&(Value, ManagedFields)>,
    manager: &str,
    version: &str,
    spec: Value,
    force: bool,
) -> Result<(Value, ManagedFields), ApplyError> {
    let def = def(version);
    let request = ApplyRequest {
        owner: Owner {
            manager: manager.into(),
            operation: Operation::Apply,
            api_version: def.api_version(),
            subresource: String::new(),
        },
        force,
        scope: Scope::Whole,
    };
    // The live object as the request's version sees it.
    let live_here = live.map(|(o, _)| Renaming.convert(o, &def.api_version()).unwrap());
    apply_in_versions(
        Types::of(&def),
        live_here.as_ref(),
        live.map(|(_, m)| m.clone()).unwrap_or_default(),
        &probe(version, spec),
        &request,
        "2026-01-01T00:00:00Z",
        versions,
    )
}

fn fields_of(managed: &ManagedFields, manager: &str) -> Value {
    managed
        .entries
        .iter()
        .find(|e| e.owner.manager == manager)
        .map_or(Value::Null, |e| e.fields.to_fields_v1())
}

#[test]
fn conflicts_are_found_and_named_in_the_owners_version() {
    let beta = apply_in(&Renaming, None, "beta", "v1beta1", json!({"y": "a"}), false).unwrap();
    let Err(ApplyError::Conflicts(conflicts)) = apply_in(
        &Renaming,
        Some(&beta),
        "one",
        "v1",
        json!({"x": "b"}),
        false,
    ) else {
        panic!("the renamed field is beta's");
    };
    assert_eq!(
        conflict_message(&conflicts),
        "Apply failed with 1 conflict: conflict with \"beta\": .spec.y"
    );
    // Compared in the request's version only, nothing would conflict.
    assert!(
        apply_in(
            &OneVersion,
            Some(&beta),
            "one",
            "v1",
            json!({"x": "b"}),
            false
        )
        .is_ok()
    );
    // The same value is shared.
    let shared = apply_in(
        &Renaming,
        Some(&beta),
        "same",
        "v1",
        json!({"x": "a"}),
        false,
    )
    .unwrap();
    assert_eq!(fields_of(&shared.1, "beta"), json!({"f:spec": {"f:y": {}}}));
    assert_eq!(fields_of(&shared.1, "same"), json!({"f:spec": {"f:x": {}}}));
    // Forced, the field leaves its owner.
    let (object, managed) =
        apply_in(&Renaming, Some(&beta), "one", "v1", json!({"x": "b"}), true).unwrap();
    assert_eq!(object["spec"], json!({"x": "b"}));
    assert_eq!(fields_of(&managed, "beta"), Value::Null);
    assert_eq!(fields_of(&managed, "one"), json!({"f:spec": {"f:x": {}}}));
}

#[test]
fn a_field_another_version_owns_is_not_pruned() {
    // `one` owns x in v1, `beta` stops applying y (the same field) in v1beta1: it stays.
    let beta = apply_in(
        &Renaming,
        None,
        "beta",
        "v1beta1",
        json!({"y": "a", "port": 1}),
        false,
    )
    .unwrap();
    let both = apply_in(
        &Renaming,
        Some(&beta),
        "one",
        "v1",
        json!({"x": "a"}),
        false,
    )
    .unwrap();
    let (object, managed) = apply_in(
        &Renaming,
        Some(&both),
        "beta",
        "v1beta1",
        json!({"port": 1}),
        false,
    )
    .unwrap();
    assert_eq!(object["spec"], json!({"y": "a", "port": 1}));
    assert_eq!(
        fields_of(&managed, "beta"),
        json!({"f:spec": {"f:port": {}}})
    );
    // Without conversions the field would be taken away from `one` too.
    let (naive, _) = apply_in(
        &OneVersion,
        Some(&both),
        "beta",
        "v1beta1",
        json!({"port": 1}),
        false,
    )
    .unwrap();
    assert_eq!(naive["spec"], json!({"port": 1}));
}

#[test]
fn an_applier_switching_versions_is_pruned_in_its_last_version() {
    let one = apply_in(
        &Renaming,
        None,
        "one",
        "v1",
        json!({"x": "a", "port": 1}),
        false,
    )
    .unwrap();
    // Now in v1beta1 without y (x in v1): removed, as v1 has it.
    let (object, managed) = apply_in(
        &Renaming,
        Some(&one),
        "one",
        "v1beta1",
        json!({"port": 2}),
        false,
    )
    .unwrap();
    assert_eq!(object["spec"], json!({"port": 2}));
    let entry = managed.entries.iter().find(|e| e.owner.manager == "one");
    assert_eq!(
        entry.map(|e| e.owner.api_version.as_str()),
        Some("example.com/v1beta1")
    );
}

#[test]
fn conversions_made_later_are_asked_for_until_the_apply_is_done() {
    let beta = apply_in(&Renaming, None, "beta", "v1beta1", json!({"y": "a"}), false).unwrap();
    let mut converted = Converted::new([Arc::new(def("v1")), Arc::new(def("v1beta1"))]);
    let mut asked = 0;
    let outcome = loop {
        match apply_in(
            &converted,
            Some(&beta),
            "one",
            "v1",
            json!({"x": "b"}),
            false,
        ) {
            Err(ApplyError::Pending(p)) => {
                asked += 1;
                let out = Renaming.convert(&p.object, &p.api_version).unwrap();
                converted.insert(&p.object, &p.api_version, out);
            }
            other => break other,
        }
    };
    // The live and the merged object, to v1beta1.
    assert_eq!(asked, 2);
    assert!(matches!(outcome, Err(ApplyError::Conflicts(c)) if c.len() == 1));
}

/// Managers of `beta` applied in v1beta1, and an Update entry recorded in `version`.
fn with_entry_in(version: &str) -> (Value, ManagedFields) {
    let (object, mut managed) =
        apply_in(&Renaming, None, "beta", "v1beta1", json!({"y": "a"}), false).unwrap();
    let fields = FieldSet::from_fields_v1(&json!({"f:spec": {"f:port": {}}})).unwrap();
    managed.entries.push(managed::Entry {
        owner: Owner {
            manager: "old".into(),
            operation: Operation::Update,
            api_version: version.into(),
            subresource: String::new(),
        },
        fields,
        time: None,
    });
    (object, managed)
}

#[test]
fn entries_of_versions_a_builtin_kind_has_not_are_dropped() {
    let live = with_entry_in("example.com/v0");
    let known = KindVersions::builtin(["example.com/v1".into(), "example.com/v1beta1".into()]);
    let (_, managed) = apply_in(&known, Some(&live), "one", "v1", json!({"port": 3}), false)
        .expect("the entry of v0 is dropped, not in conflict");
    let managers: Vec<&str> = managed
        .entries
        .iter()
        .map(|e| e.owner.manager.as_str())
        .collect();
    assert_eq!(managers.len(), 2, "{managers:?}");
    assert!(!managers.contains(&"old"), "{managers:?}");
}

#[test]
fn entries_of_versions_a_crd_does_not_list_fail_the_apply() {
    let live = with_entry_in("example.com/v0");
    let listed = KindVersions::custom(["example.com/v1".into(), "example.com/v1beta1".into()]);
    let Err(ApplyError::Unconvertible(e)) =
        apply_in(&listed, Some(&live), "one", "v1", json!({"port": 3}), false)
    else {
        panic!("the apply must fail");
    };
    assert_eq!(
        e.to_string(),
        "request to convert CR to an invalid group/version: example.com/v0"
    );
    let converted = Converted::new([Arc::new(def("v1")), Arc::new(def("v1beta1"))]);
    assert_eq!(converted.reach("example.com/v1beta1"), Reach::Known);
    assert!(matches!(
        converted.reach("example.com/v0"),
        Reach::Refused(_)
    ));
}

#[test]
fn reconcile_keeps_known_entries_only() {
    let (_, managed) = with_entry_in("other.example/v1");
    let kept = reconcile(managed.clone(), &OneVersion).unwrap();
    assert_eq!(kept.entries.len(), 2);
    let known = KindVersions::builtin(["example.com/v1beta1".into()]);
    let kept = reconcile(managed.clone(), &known).unwrap();
    assert_eq!(kept.entries.len(), 1);
    assert_eq!(kept.entries[0].owner.manager, "beta");
    let listed = KindVersions::custom(["example.com/v1beta1".into()]);
    assert!(reconcile(managed, &listed).is_err());
}
