//! Turning a CustomResourceDefinition object into the resources it serves.

use serde_json::Value;

use super::Registry;
use crate::support::resource::{
    CUSTOM_VERBS, CustomVersion, GET_PATCH_UPDATE, ResourceDef, ScaleSpec, SubresourceDef,
    storage_version_hash,
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
    let short_names = list_strings(&names["shortNames"]);
    let categories = list_strings(&names["categories"]);
    let namespaced = spec["scope"].as_str() != Some("Cluster");
    let hash = storage_version(crd).map(|v| storage_version_hash(&group, &v, &kind));
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
            }),
        });
    }
    out
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

/// Fills `status` as the apiextensions controllers do once names are accepted:
/// `NamesAccepted` and `Established` true, `acceptedNames`, `storedVersions`.
pub fn establish(crd: &mut Value, now: &str) {
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
/// no built-in group/plural), then its status as established (see [`establish`]).
pub fn check_install(
    registry: &Registry,
    def: &ResourceDef,
    name: &str,
    crd_obj: &mut Value,
    now: &str,
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
    establish(crd_obj, now);
    Ok(())
}

/// Makes a stored CRD's versions servable (replacing what an older revision served).
pub fn register(registry: &mut Registry, crd_obj: &Value) {
    let (group, plural) = group_plural(crd_obj);
    registry.remove_resource(&group, &plural);
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
