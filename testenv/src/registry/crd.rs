//! Turning a CustomResourceDefinition object into the resources it serves.

use std::sync::Arc;

use serde_json::Value;

use super::Registry;
use crate::support::resource::{
    CUSTOM_VERBS, CustomVersion, GET_PATCH_UPDATE, ResourceDef, ScaleSpec, StoredForms,
    SubresourceDef, storage_version_hash,
};
use crate::support::status::{ApiError, Cause};

/// The `<plural>.<group>` storage key of a CRD, which is also its required name.
pub fn storage_key(group: &str, plural: &str) -> String {
    format!("{group}/{plural}")
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str()
}

/// One [`ResourceDef`] per served version of the CRD (`crd` is the whole object as JSON).
///
/// The CRD is assumed to have passed structural validation already.
pub fn resources_of(crd: &Value) -> Vec<ResourceDef> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default().to_string();
    let names = &spec["names"];
    let plural = names["plural"].as_str().unwrap_or_default().to_string();
    let kind = names["kind"].as_str().unwrap_or_default().to_string();
    let singular = names["singular"]
        .as_str()
        .map_or_else(|| kind.to_ascii_lowercase(), str::to_string);
    let list_strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let list_kind = [&crd["status"]["acceptedNames"], names]
        .iter()
        .find_map(|n| n["listKind"].as_str().filter(|l| !l.is_empty()))
        .map_or_else(|| format!("{kind}List"), str::to_string);
    let short_names = list_strings(&names["shortNames"]);
    let categories = list_strings(&names["categories"]);
    let namespaced = spec["scope"].as_str() != Some("Cluster");
    let hash = storage_version(crd).map(|v| storage_version_hash(&group, &v, &kind));
    let forms = Arc::new(stored_forms(crd));
    let mut out = Vec::new();
    for version in spec["versions"].as_array().into_iter().flatten() {
        if version["served"].as_bool() != Some(true) {
            continue;
        }
        let subresources = &version["subresources"];
        let scale = subresources
            .get("scale")
            .filter(|s| s.is_object())
            .map(|s| ScaleSpec {
                spec_replicas_path: s["specReplicasPath"]
                    .as_str()
                    .unwrap_or(".spec.replicas")
                    .to_string(),
                status_replicas_path: s["statusReplicasPath"]
                    .as_str()
                    .unwrap_or(".status.replicas")
                    .to_string(),
                label_selector_path: s["labelSelectorPath"].as_str().map(str::to_string),
            });
        let selectable_fields = version["selectableFields"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["jsonPath"].as_str().map(str::to_string))
            .collect();
        let version_name = version["name"].as_str().unwrap_or_default().to_string();
        let status = subresources
            .get("status")
            .is_some_and(serde_json::Value::is_object);
        // Discovery lists a custom kind's status before its scale, with full kinds.
        let mut listed = Vec::new();
        if status {
            listed.push(SubresourceDef {
                name: "status".into(),
                group: group.clone(),
                version: version_name.clone(),
                kind: kind.clone(),
                verbs: GET_PATCH_UPDATE,
            });
        }
        if scale.is_some() {
            listed.push(SubresourceDef {
                name: "scale".into(),
                group: "autoscaling".into(),
                version: "v1".into(),
                kind: "Scale".into(),
                verbs: GET_PATCH_UPDATE,
            });
        }
        out.push(ResourceDef {
            group: group.clone(),
            version: version_name,
            kind: kind.clone(),
            plural: plural.clone(),
            singular: singular.clone(),
            short_names: short_names.clone(),
            categories: categories.clone(),
            namespaced,
            status_subresource: status,
            scale,
            tracks_generation: true,
            allow_unconditional_update: false,
            create_only: false,
            verbs: CUSTOM_VERBS,
            subresources: listed,
            storage_version_hash: hash.clone(),
            returns_deleted_object: false,
            storage_key: storage_key(&group, &plural),
            custom: Some(CustomVersion {
                schema: version
                    .get("schema")
                    .and_then(|s| s.get("openAPIV3Schema"))
                    .cloned(),
                printer_columns: version["additionalPrinterColumns"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
                selectable_fields,
                deprecated: (version["deprecated"] == true)
                    .then(|| version["deprecationWarning"].as_str().map(str::to_string)),
                list_kind: list_kind.clone(),
                forms: forms.clone(),
            }),
        });
    }
    out
}

/// How the CRD stores its objects: its storage version, whether a webhook converts, and
/// the schema of every version it lists (served or not).
fn stored_forms(crd: &Value) -> StoredForms {
    let spec = &crd["spec"];
    StoredForms {
        storage: storage_version(crd).unwrap_or_default(),
        webhook: spec["conversion"]["strategy"].as_str() == Some("Webhook"),
        schemas: spec["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| {
                let name = v["name"].as_str().unwrap_or_default().to_string();
                let schema = v.get("schema").and_then(|s| s.get("openAPIV3Schema"));
                (name, schema.cloned())
            })
            .collect(),
    }
}

/// A CRD established at creation as the naming controller writes it before the
/// establishing controller does: `Established` still `False`, `Installing`. None when the
/// CRD is not established.
pub fn installing(crd: &Value) -> Option<Value> {
    let mut installing = crd.clone();
    let conditions = installing["status"]["conditions"].as_array_mut()?;
    let established = conditions
        .iter_mut()
        .find(|c| c["type"] == "Established" && c["status"] == "True")?;
    established["status"] = Value::from("False");
    established["reason"] = Value::from("Installing");
    established["message"] = Value::from("the initial names have been accepted");
    Some(installing)
}

/// The name of the storage version (the one with `storage: true`).
pub fn storage_version(crd: &Value) -> Option<String> {
    crd["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["storage"].as_bool() == Some(true))
        .and_then(|v| v["name"].as_str().map(str::to_string))
}

/// The group and plural a CRD declares.
pub fn group_plural(crd: &Value) -> (String, String) {
    (
        str_at(crd, &["spec", "group"])
            .unwrap_or_default()
            .to_string(),
        str_at(crd, &["spec", "names", "plural"])
            .unwrap_or_default()
            .to_string(),
    )
}

/// The key under which CRDs are stored.
const CRDS_KEY: &str = "apiextensions.k8s.io/customresourcedefinitions";

/// Every stored CRD.
pub fn stored_crds(store: &crate::storage::Store) -> Vec<Arc<Value>> {
    store
        .bucket(CRDS_KEY)
        .map(|b| b.values().cloned().collect())
        .unwrap_or_default()
}

/// Fills `status` as the apiextensions controllers do once names are accepted:
/// `NamesAccepted` and `Established` true, `acceptedNames`, `storedVersions`. When another
/// of the stored CRDs (`crds`) of its group has accepted a name it asks for, the naming
/// controller's refusal instead: the names it could accept, `NamesAccepted` false with the
/// last conflict, `Established` false.
pub fn establish(crd: &mut Value, now: &str, crds: &[Arc<Value>]) {
    let names = crd["spec"]["names"].clone();
    let mut accepted = names.clone();
    if accepted.get("singular").is_none()
        && let Some(kind) = names["kind"].as_str()
    {
        accepted["singular"] = Value::String(kind.to_ascii_lowercase());
    }
    if accepted.get("listKind").is_none()
        && let Some(kind) = names["kind"].as_str()
    {
        accepted["listKind"] = Value::String(format!("{kind}List"));
    }
    let mut stored: Vec<Value> = crd["status"]["storedVersions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(v) = storage_version(crd)
        && !stored.iter().any(|s| s.as_str() == Some(&v))
    {
        stored.push(Value::String(v));
    }
    let mut fresh = crd.clone();
    fresh["status"] = initial_status(crd);
    let (names, mut names_accepted, _) = names_and_conditions(&fresh, crds);
    if names_accepted["status"] != "True" {
        let mut established = condition(
            "Established",
            "False",
            "NotAccepted",
            "not all names are accepted",
        );
        names_accepted["lastTransitionTime"] = Value::String(now.to_string());
        established["lastTransitionTime"] = Value::String(now.to_string());
        crd["status"] = serde_json::json!({
            "conditions": [names_accepted, established],
            "acceptedNames": names,
            "storedVersions": stored,
        });
        return;
    }
    let condition = |type_: &str, reason: &str, message: &str| {
        serde_json::json!({
            "type": type_, "status": "True", "lastTransitionTime": now,
            "reason": reason, "message": message,
        })
    };
    crd["status"] = serde_json::json!({
        "conditions": [
            condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ],
        "acceptedNames": accepted,
        "storedVersions": stored,
    });
}

/// The status a CRD is created with, before the apiextensions controllers accept its names
/// and establish it (the real server answers a create with it): no accepted names, no
/// conditions, the storage version stored.
pub fn initial_status(crd: &Value) -> Value {
    let stored: Vec<Value> = storage_version(crd)
        .map(Value::String)
        .into_iter()
        .collect();
    serde_json::json!({
        "acceptedNames": {"kind": "", "plural": ""},
        "conditions": null,
        "storedVersions": stored,
    })
}

/// Whether `def` is the CustomResourceDefinition resource itself.
pub fn is_crd(def: &ResourceDef) -> bool {
    def.group == "apiextensions.k8s.io" && def.plural == "customresourcedefinitions"
}

/// The checks of a CRD write that need the served resources (its name, one storage version,
/// no built-in group/plural), then its status as established against the other stored
/// CRDs `crds` (see [`establish`]).
pub fn check_install(
    registry: &Registry,
    def: &ResourceDef,
    name: &str,
    crd_obj: &mut Value,
    now: &str,
    crds: &[Arc<Value>],
) -> Result<(), ApiError> {
    let (group, plural) = group_plural(crd_obj);
    let expected = format!("{plural}.{group}");
    if name != expected {
        return Err(ApiError::invalid(
            def,
            name,
            vec![Cause {
                reason: "FieldValueInvalid".into(),
                message: format!(
                    "Invalid value: \"{name}\": must be spec.names.plural+\".\"+spec.group"
                ),
                field: "metadata.name".into(),
            }],
        ));
    }
    if storage_version(crd_obj).is_none() {
        return Err(ApiError::invalid(def, name, vec![Cause {
            reason: "FieldValueInvalid".into(),
            message: "Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage version".into(),
            field: "spec.versions".into(),
        }]));
    }
    let builtin_clash = registry
        .all()
        .any(|d| d.custom.is_none() && d.group == group && d.plural == plural);
    if builtin_clash {
        return Err(ApiError::invalid(
            def,
            name,
            vec![Cause {
                reason: "FieldValueInvalid".into(),
                message: format!("Invalid value: \"{group}\": is a built-in API group"),
                field: "spec.group".into(),
            }],
        ));
    }
    establish(crd_obj, now, crds);
    Ok(())
}

/// Whether the apiextensions server refuses to serve a CRD's resources: its status has
/// conditions and neither `NamesAccepted` nor `Established` is true (its names are in use by
/// another CRD of its group). A CRD with no conditions yet is served.
fn refused(crd_obj: &Value) -> bool {
    let is_true =
        |type_: &str| find_condition(crd_obj, type_).is_some_and(|c| c["status"] == "True");
    crd_obj["status"]["conditions"]
        .as_array()
        .is_some_and(|c| !c.is_empty())
        && !is_true("NamesAccepted")
        && !is_true("Established")
}

/// Makes a stored CRD's versions servable (replacing what an older revision served), unless
/// its names are refused.
pub fn register(registry: &mut Registry, crd_obj: &Value) {
    let (group, plural) = group_plural(crd_obj);
    registry.remove_resource(&group, &plural);
    if refused(crd_obj) {
        return;
    }
    for def in resources_of(crd_obj) {
        registry.insert(def);
    }
}

/// The finalizer a CRD being deleted carries until every object of its kind is gone.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// What the CRD registry's DELETE does to the CRD it marks: the clean-up finalizer joins
/// `finalizers` and the status gets the `Terminating` condition.
pub fn mark_terminating(crd: &mut Value, finalizers: &mut Vec<String>) {
    if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
        finalizers.push(CLEANUP_FINALIZER.to_string());
    }
    let condition = serde_json::json!({
        "type": "Terminating",
        "status": "True",
        "lastTransitionTime": crate::support::meta::now(),
        "reason": "InstanceDeletionPending",
        "message": "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    });
    let conditions = &mut crd["status"]["conditions"];
    if !conditions.is_array() {
        *conditions = Value::Array(Vec::new());
    }
    if let Some(list) = conditions.as_array_mut() {
        list.retain(|c| c["type"] != "Terminating");
        list.push(condition);
    }
}

/// The name fields of `CustomResourceDefinitionNames` that hold one name.
const NAME_FIELDS: [&str; 4] = ["plural", "singular", "kind", "listKind"];

/// A name field (`""` when unset), as Go reads it.
fn name_of<'a>(names: &'a Value, field: &str) -> &'a str {
    names[field].as_str().unwrap_or_default()
}

/// A list of names (empty when unset).
fn list_of(names: &Value, field: &str) -> Vec<String> {
    names[field]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

/// Whether two `CustomResourceDefinitionNames` are alike as Go's semantic equality has
/// them (an unset list is an empty one).
pub fn same_names(a: &Value, b: &Value) -> bool {
    NAME_FIELDS.iter().all(|f| name_of(a, f) == name_of(b, f))
        && ["shortNames", "categories"]
            .iter()
            .all(|f| list_of(a, f) == list_of(b, f))
}

/// The names as the API writes them (empty lists left out).
fn names_value(single: &[(&str, String)], short: Vec<String>, categories: Vec<String>) -> Value {
    let mut out = serde_json::Map::new();
    for (field, value) in single {
        if !value.is_empty() || matches!(*field, "plural" | "kind") {
            out.insert((*field).into(), Value::String(value.clone()));
        }
    }
    if !short.is_empty() {
        out.insert("shortNames".into(), short.into());
    }
    if !categories.is_empty() {
        out.insert("categories".into(), categories.into());
    }
    Value::Object(out)
}

/// The names the CRDs of `group` have accepted: resource names (plurals, singulars, short
/// names) and kinds (kinds, list kinds).
fn accepted_in_group(crds: &[Arc<Value>], group: &str) -> (Vec<String>, Vec<String>) {
    let mut resources = Vec::new();
    let mut kinds = Vec::new();
    for crd_obj in crds {
        if crd_obj["spec"]["group"].as_str() != Some(group) {
            continue;
        }
        let names = &crd_obj["status"]["acceptedNames"];
        resources.push(name_of(names, "plural").to_string());
        resources.push(name_of(names, "singular").to_string());
        resources.extend(list_of(names, "shortNames"));
        kinds.push(name_of(names, "kind").to_string());
        kinds.push(name_of(names, "listKind").to_string());
    }
    (resources, kinds)
}

/// `equalToAcceptedOrFresh`: a requested name is taken when it is the one already accepted
/// or nobody in the group has accepted it.
fn conflict(requested: &str, accepted: &str, used: &[String]) -> Option<String> {
    (requested != accepted && used.iter().any(|u| u == requested))
        .then(|| format!("{requested:?} is already in use"))
}

/// A condition of a CRD's status.
pub fn condition(type_: &str, status: &str, reason: &str, message: &str) -> Value {
    serde_json::json!({"type": type_, "status": status, "reason": reason, "message": message})
}

/// The CRD's condition of `type_`, if it has one.
pub fn find_condition<'a>(crd_obj: &'a Value, type_: &str) -> Option<&'a Value> {
    crd_obj["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

/// `SetCRDCondition`: the condition replaces the one of its type (appended when there is
/// none), its transition time moving only when its status changes.
pub fn set_condition(crd_obj: &mut Value, mut new: Value, now: &str) {
    let conditions = &mut crd_obj["status"]["conditions"];
    if !conditions.is_array() {
        *conditions = Value::Array(Vec::new());
    }
    let Some(list) = conditions.as_array_mut() else {
        return;
    };
    match list.iter_mut().find(|c| c["type"] == new["type"]) {
        Some(existing) => {
            let unset = existing["lastTransitionTime"]
                .as_str()
                .is_none_or(str::is_empty);
            if existing["status"] != new["status"] || unset {
                existing["lastTransitionTime"] = Value::String(now.to_string());
            }
            for field in ["status", "reason", "message"] {
                existing[field] = new[field].take();
            }
        }
        None => {
            new["lastTransitionTime"] = Value::String(now.to_string());
            list.push(new);
        }
    }
}

/// What the naming controller computes for a CRD (`crds` are all the stored CRDs, itself
/// among them once stored): the accepted names, the `NamesAccepted` condition (the last
/// conflict found, or none) and the `Established` one.
pub fn names_and_conditions(crd_obj: &Value, crds: &[Arc<Value>]) -> (Value, Value, Value) {
    let group = crd_obj["spec"]["group"].as_str().unwrap_or_default();
    let (resources, kinds) = accepted_in_group(crds, group);
    let requested = &crd_obj["spec"]["names"];
    let accepted = &crd_obj["status"]["acceptedNames"];
    let mut refused: Option<(&str, String)> = None;
    let mut single: Vec<(&str, String)> = Vec::new();
    for (field, used, reason) in [
        ("plural", &resources, "PluralConflict"),
        ("singular", &resources, "SingularConflict"),
    ] {
        let wanted = name_of(requested, field);
        match conflict(wanted, name_of(accepted, field), used) {
            Some(message) => {
                refused = Some((reason, message));
                single.push((field, name_of(accepted, field).to_string()));
            }
            None => single.push((field, wanted.to_string())),
        }
    }
    let mut short = list_of(accepted, "shortNames");
    let wanted_short = list_of(requested, "shortNames");
    if wanted_short != short {
        let errors: Vec<String> = wanted_short
            .iter()
            .filter(|s| !short.contains(s))
            .filter_map(|s| conflict(s, "", &resources))
            .collect();
        match errors.len() {
            0 => short = wanted_short,
            1 => refused = Some(("ShortNamesConflict", errors[0].clone())),
            _ => refused = Some(("ShortNamesConflict", format!("[{}]", errors.join(", ")))),
        }
    }
    for (field, reason) in [("kind", "KindConflict"), ("listKind", "ListKindConflict")] {
        let wanted = name_of(requested, field);
        match conflict(wanted, name_of(accepted, field), &kinds) {
            Some(message) => {
                refused = Some((reason, message));
                single.push((field, name_of(accepted, field).to_string()));
            }
            None => single.push((field, wanted.to_string())),
        }
    }
    let names = names_value(&single, short, list_of(requested, "categories"));
    let names_accepted = match &refused {
        Some((reason, message)) => condition("NamesAccepted", "False", reason, message),
        None => condition("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
    };
    let mut established = find_condition(crd_obj, "Established")
        .cloned()
        .unwrap_or_else(|| {
            condition(
                "Established",
                "False",
                "NotAccepted",
                "not all names are accepted",
            )
        });
    if established["status"] != "True" && refused.is_none() {
        established = condition(
            "Established",
            "False",
            "Installing",
            "the initial names have been accepted",
        );
    }
    (names, names_accepted, established)
}

/// Whether two conditions say the same (`IsCRDConditionEquivalent`: the transition time
/// aside).
pub fn equivalent(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => ["type", "status", "reason", "message"]
            .iter()
            .all(|f| a[*f] == b[*f]),
        (a, b) => a.is_none() && b.is_none(),
    }
}

#[cfg(test)]
mod naming_tests {
    use serde_json::json;

    use super::*;

    fn crd(plural: &str, kind: &str, short: &[&str], accepted: Value) -> Arc<Value> {
        Arc::new(json!({
            "metadata": {"name": format!("{plural}.g.example.com")},
            "spec": {"group": "g.example.com", "names": {"plural": plural,
                "singular": kind.to_ascii_lowercase(), "kind": kind,
                "listKind": format!("{plural}List"), "shortNames": short}},
            "status": {"acceptedNames": accepted},
        }))
    }

    #[test]
    fn names_another_crd_of_the_group_accepted_are_refused_the_last_conflict_named() {
        let first = crd(
            "gizmos",
            "Gizmo",
            &["gz"],
            json!({"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo",
                "listKind": "gizmosList", "shortNames": ["gz"]}),
        );
        let second = crd(
            "widgets",
            "Gizmo",
            &["gz", "wd"],
            initial_status(&json!({}))["acceptedNames"].clone(),
        );
        let (names, accepted, established) =
            names_and_conditions(&second, &[first.clone(), second.clone()]);
        assert_eq!(names["plural"], "widgets");
        assert_eq!(names["kind"], "");
        assert_eq!(names.get("shortNames"), None);
        assert_eq!(
            accepted,
            condition(
                "NamesAccepted",
                "False",
                "KindConflict",
                "\"Gizmo\" is already in use"
            )
        );
        assert_eq!(
            established,
            condition(
                "Established",
                "False",
                "NotAccepted",
                "not all names are accepted"
            )
        );
        let (names, accepted, established) =
            names_and_conditions(&second, std::slice::from_ref(&second));
        assert_eq!(names["kind"], "Gizmo");
        assert_eq!(names["shortNames"], json!(["gz", "wd"]));
        assert_eq!(accepted["reason"], "NoConflicts");
        assert_eq!(established["reason"], "Installing");
    }

    #[test]
    fn a_condition_moves_its_transition_time_only_when_its_status_changes() {
        let mut crd_obj = json!({"status": {"conditions": [
            {"type": "Established", "status": "True", "reason": "A", "message": "a",
             "lastTransitionTime": "2020-01-01T00:00:00Z"}]}});
        set_condition(
            &mut crd_obj,
            condition("Established", "True", "B", "b"),
            "now",
        );
        let first = &crd_obj["status"]["conditions"][0];
        assert_eq!(first["lastTransitionTime"], "2020-01-01T00:00:00Z");
        assert_eq!(first["reason"], "B");
        set_condition(
            &mut crd_obj,
            condition("Established", "False", "C", "c"),
            "now",
        );
        assert_eq!(
            crd_obj["status"]["conditions"][0]["lastTransitionTime"],
            "now"
        );
        set_condition(
            &mut crd_obj,
            condition("NamesAccepted", "True", "D", "d"),
            "later",
        );
        assert_eq!(
            crd_obj["status"]["conditions"][1]["lastTransitionTime"],
            "later"
        );
    }
}
