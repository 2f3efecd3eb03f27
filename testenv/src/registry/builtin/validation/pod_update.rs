//! What a Pod update may change (`ValidatePodUpdate` of kube-apiserver v1.34), after the
//! new pod's own validation: its AppArmor and mirror pod annotations not at all, the
//! number of containers not at all, images (not to empty), `activeDeadlineSeconds` only
//! from unset or downwards, tolerations only by additions (an existing one may change its
//! `tolerationSeconds`), scheduling gates only by removals, and a gated pod's node selector
//! and required node affinity only by additions. Anything else is refused with the fields
//! it may change and the diff of the old internal spec and the new one with those fields
//! put back (`go_diff`, as apimachinery's `diff.Diff` prints it).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::errors::{Errors, child, forbidden, index, invalid, invalid_text, key, required};
use super::go_diff::{diff, marshal};
use super::pod_go::{node_selector_term, node_selector_terms, pod_spec};
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};

/// The annotation a static pod's mirror carries.
const MIRROR: &str = "kubernetes.io/config.mirror";
/// The prefix of the deprecated per-container AppArmor annotations.
const APPARMOR: &str = "container.apparmor.security.beta.kubernetes.io/";
/// The fields the real message lists as those an update may change.
const UPDATABLE: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";
/// The largest `activeDeadlineSeconds` (`math.MaxInt32`).
const MAX_DEADLINE: i64 = 2_147_483_647;

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// `ValidatePodSpecificAnnotationUpdates`: the AppArmor and mirror pod annotations may be
/// neither added, changed nor removed; then the new pod's specific annotations are checked
/// once more.
fn annotations(pod: &Value, old: &Value) -> Errors {
    let empty = Map::new();
    let of = |o: &'_ Value| -> Map<String, Value> {
        o["metadata"]["annotations"]
            .as_object()
            .unwrap_or(&empty)
            .clone()
    };
    let (new, old) = (of(pod), of(old));
    let path = "metadata.annotations";
    let mut out = Vec::new();
    for (k, v) in &old {
        if new.get(k) == Some(v) {
            continue;
        }
        if k.starts_with(APPARMOR) {
            out.push(forbidden(
                &key(path, k),
                "may not remove or update AppArmor annotations",
            ));
        }
        if k == MIRROR {
            out.push(forbidden(
                &key(path, k),
                "may not remove or update mirror pod annotation",
            ));
        }
    }
    for k in new.keys().filter(|k| !old.contains_key(*k)) {
        if k.starts_with(APPARMOR) {
            out.push(forbidden(&key(path, k), "may not add AppArmor annotations"));
        }
        if k == MIRROR {
            out.push(forbidden(
                &key(path, k),
                "may not add mirror pod annotation",
            ));
        }
    }
    out.extend(super::pod::specific_annotations(pod));
    out
}

/// `ValidateContainerUpdates`: the same number of containers (else the check stops), each
/// with an image without surrounding whitespace.
fn containers(new: &Value, old: &Value, path: &str) -> Result<Errors, Errors> {
    let (new, old) = (items(new), items(old));
    if new.len() != old.len() {
        return Err(vec![forbidden(
            path,
            "pod updates may not add or remove containers",
        )]);
    }
    let mut out = Vec::new();
    for (i, c) in new.iter().enumerate() {
        let image = c["image"].as_str().unwrap_or_default();
        let at = child(&index(path, i), "image");
        if image.is_empty() {
            out.push(required(&at));
        }
        if image.trim() != image {
            out.push(invalid(
                &at,
                &Value::from(image),
                "must not have leading or trailing whitespace",
            ));
        }
    }
    Ok(out)
}

/// `activeDeadlineSeconds` may be set, or lowered, not raised nor unset; an out of range
/// or raised value stops the check.
fn deadline(new: &Value, old: &Value) -> Result<Errors, Errors> {
    let path = "spec.activeDeadlineSeconds";
    let (new, old) = (&new["activeDeadlineSeconds"], &old["activeDeadlineSeconds"]);
    match (new.as_i64(), old.as_i64()) {
        (Some(n), _) if !(0..=MAX_DEADLINE).contains(&n) => Err(vec![invalid(
            path,
            new,
            &format!("must be between 0 and {MAX_DEADLINE}, inclusive"),
        )]),
        (Some(n), Some(o)) if o < n => Err(vec![invalid(
            path,
            new,
            "must be less than or equal to previous value",
        )]),
        (None, Some(_)) => Ok(vec![invalid(
            path,
            &Value::Null,
            "must not update from a positive integer to nil value",
        )]),
        _ => Ok(Vec::new()),
    }
}

/// `validateOnlyAddedTolerations`: every old toleration is still there, up to its
/// `tolerationSeconds` (compared as the internal struct, an absent string being empty);
/// then the new list is validated once more.
fn tolerations(new: &Value, old: &Value) -> Errors {
    let strip = |t: &Value| {
        ["key", "operator", "value", "effect"]
            .map(|f| t[f].as_str().unwrap_or_default().to_string())
    };
    let kept: Vec<[String; 4]> = items(&new["tolerations"]).iter().map(strip).collect();
    let lost = items(&old["tolerations"])
        .iter()
        .any(|t| !kept.contains(&strip(t)));
    if lost {
        return vec![forbidden(
            "spec.tolerations",
            "existing toleration can not be modified except its tolerationSeconds",
        )];
    }
    super::pod::tolerations(&new["tolerations"], "spec.tolerations")
}

/// `validateOnlyDeletedSchedulingGates`: no gate the old pod did not have (each new name
/// reported at its last index).
fn scheduling_gates(new: &Value, old: &Value) -> Errors {
    let mut added: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, gate) in items(&new["schedulingGates"]).iter().enumerate() {
        added.insert(gate["name"].as_str().unwrap_or_default(), i);
    }
    for gate in items(&old["schedulingGates"]) {
        added.remove(gate["name"].as_str().unwrap_or_default());
    }
    added
        .into_iter()
        .map(|(name, i)| {
            forbidden(
                &child(&index("spec.schedulingGates", i), "name"),
                &format!("only deletion is allowed, but found new scheduling gate '{name}'"),
            )
        })
        .collect()
}

/// A gated pod's node selector may gain entries, not change or lose them.
fn node_selector(munged: &Value, old: &Value) -> Errors {
    let empty = Map::new();
    let new_map = munged["nodeSelector"].as_object().unwrap_or(&empty);
    let lost = old["nodeSelector"]
        .as_object()
        .unwrap_or(&empty)
        .iter()
        .any(|(k, v)| new_map.get(k) != Some(v));
    if !lost {
        return Vec::new();
    }
    let shown = match &munged["nodeSelector"] {
        Value::Object(m) if !m.is_empty() => Value::Object(m.clone()),
        _ => Value::Null,
    };
    vec![invalid_text(
        "spec.nodeSelector",
        &shown.to_string(),
        "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
    )]
}

/// A gated pod's required node affinity terms may each gain requirements (after the old
/// ones, which stay as they were), not be added, removed or changed.
fn node_affinity(munged: &Value, old: &Value) -> Errors {
    let required = "requiredDuringSchedulingIgnoredDuringExecution";
    let old_terms = items(&old["affinity"]["nodeAffinity"][required]["nodeSelectorTerms"]);
    if old_terms.is_empty() {
        return Vec::new();
    }
    let new_terms_value = &munged["affinity"]["nodeAffinity"][required]["nodeSelectorTerms"];
    let new_terms = items(new_terms_value);
    let path = format!("spec.affinity.nodeAffinity.{required}.nodeSelectorTerms");
    if new_terms.len() != old_terms.len() {
        return vec![invalid_text(
            &path,
            &marshal(&node_selector_terms(new_terms_value)),
            "no additions/deletions to non-empty NodeSelectorTerms list are allowed",
        )];
    }
    let only_added = |new: &Value, old: &Value| {
        ["matchExpressions", "matchFields"].iter().all(|list| {
            let (n, o) = (items(&new[*list]), items(&old[*list]));
            n.len() >= o.len() && n[..o.len()] == *o
        })
    };
    new_terms
        .iter()
        .zip(old_terms)
        .enumerate()
        .filter(|(_, (n, o))| !only_added(n, o))
        .map(|(i, (n, _))| {
            invalid_text(
                &index(&path, i),
                &marshal(&node_selector_term(n)),
                "only additions are allowed (no mutations or deletions)",
            )
        })
        .collect()
}

/// Sets `field` of `spec` to `value`, or removes it when absent.
fn put(spec: &mut Value, field: &str, value: Option<&Value>) {
    let Some(object) = spec.as_object_mut() else {
        return;
    };
    match value.filter(|v| !v.is_null()) {
        Some(v) => object.insert(field.into(), v.clone()),
        None => object.remove(field),
    };
}

/// The new spec with what an update may change taken from the old one; a gated pod's
/// node selector and node affinity too, once checked (their errors in `out`).
fn munge(new: &Value, old: &Value, out: &mut Errors) -> Value {
    let mut munged = new.clone();
    for list in ["containers", "initContainers"] {
        if let Some(mine) = munged.get_mut(list).and_then(Value::as_array_mut) {
            for (m, o) in mine.iter_mut().zip(items(&old[list])) {
                put(m, "image", o.get("image"));
            }
        }
    }
    for field in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
        put(&mut munged, field, old.get(field));
    }
    let was_negative = old["terminationGracePeriodSeconds"]
        .as_i64()
        .is_some_and(|s| s < 0);
    if was_negative && munged["terminationGracePeriodSeconds"] == 1 {
        put(
            &mut munged,
            "terminationGracePeriodSeconds",
            old.get("terminationGracePeriodSeconds"),
        );
    }
    if !items(&old["schedulingGates"]).is_empty() {
        if munged.get("nodeSelector") != old.get("nodeSelector") {
            out.extend(node_selector(&munged, old));
            put(&mut munged, "nodeSelector", old.get("nodeSelector"));
        }
        let old_node = &old["affinity"]["nodeAffinity"];
        if munged["affinity"]["nodeAffinity"] != *old_node {
            out.extend(node_affinity(&munged, old));
            let others_unset = munged["affinity"]["podAffinity"].is_null()
                && munged["affinity"]["podAntiAffinity"].is_null();
            if old["affinity"].is_null() && others_unset {
                put(&mut munged, "affinity", None);
            } else if let Some(affinity) = munged["affinity"].as_object_mut() {
                match old_node {
                    Value::Null => affinity.remove("nodeAffinity"),
                    node => affinity.insert("nodeAffinity".into(), node.clone()),
                };
            } else {
                munged["affinity"] = serde_json::json!({"nodeAffinity": old_node});
            }
        }
    }
    munged
}

/// The errors of a Pod update (`new` and `old` whole pods) that follow the new pod's own
/// validation, in the real server's order.
pub fn pod_update(new: &Value, old: &Value) -> Errors {
    let mut out = annotations(new, old);
    let (new_spec, old_spec) = (&new["spec"], &old["spec"]);
    for (list, path) in [
        ("containers", "spec.containers"),
        ("initContainers", "spec.initContainers"),
    ] {
        match containers(&new_spec[list], &old_spec[list], path) {
            Ok(errors) => out.extend(errors),
            Err(errors) => {
                out.extend(errors);
                return out;
            }
        }
    }
    match deadline(new_spec, old_spec) {
        Ok(errors) => out.extend(errors),
        Err(errors) => {
            out.extend(errors);
            return out;
        }
    }
    out.extend(tolerations(new_spec, old_spec));
    out.extend(scheduling_gates(new_spec, old_spec));
    if new_spec == old_spec {
        return out;
    }
    let munged = munge(new_spec, old_spec, &mut out);
    if munged != *old_spec {
        let shown = diff(&pod_spec(old_spec), &pod_spec(&munged));
        out.push(forbidden(
            "spec",
            &format!("pod updates may not change fields other than {UPDATABLE}\n{shown}"),
        ));
    }
    out
}

/// The 422 of a Pod update whose new pod is itself invalid (`error`, from its own
/// validation) with the errors of the update listed after those, as the real server's
/// `ValidatePodUpdate` reports them together; any other error is returned as it is.
pub fn after_own_errors(error: ApiError, def: &ResourceDef, new: &Value, old: &Value) -> ApiError {
    let Some(causes) = error.details["causes"]
        .as_array()
        .filter(|_| error.code == 422)
    else {
        return error;
    };
    let mut all: Errors = causes
        .iter()
        .map(|c| Cause {
            reason: c["reason"].as_str().unwrap_or_default().into(),
            message: c["message"].as_str().unwrap_or_default().into(),
            field: c["field"].as_str().unwrap_or_default().into(),
        })
        .collect();
    let more = pod_update(new, old);
    if more.is_empty() {
        return error;
    }
    all.extend(more);
    let name = error.details["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut merged = ApiError::invalid(def, &name, all);
    merged.warnings = error.warnings;
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(spec: Value) -> Value {
        json!({"metadata": {"name": "p"}, "spec": spec})
    }

    #[test]
    fn the_deadline_only_goes_down() {
        let old = pod(json!({"activeDeadlineSeconds": 100, "containers": [{"image": "a"}]}));
        let up = pod(json!({"activeDeadlineSeconds": 200, "containers": [{"image": "a"}]}));
        let errors = pod_update(&up, &old);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].message,
            "Invalid value: 200: must be less than or equal to previous value"
        );
        let unset = pod(json!({"containers": [{"image": "a"}]}));
        assert_eq!(
            pod_update(&unset, &old)[0].message,
            "Invalid value: null: must not update from a positive integer to nil value"
        );
        let down = pod(json!({"activeDeadlineSeconds": 5, "containers": [{"image": "b"}]}));
        assert_eq!(pod_update(&down, &old), Vec::new());
    }

    #[test]
    fn tolerations_are_kept_and_gates_only_removed() {
        let old = pod(
            json!({"containers": [{"image": "a"}], "schedulingGates": [{"name": "g"}],
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}]}),
        );
        let new = pod(
            json!({"containers": [{"image": "a"}], "schedulingGates": [{"name": "h"}],
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 9}, {"key": "x"}]}),
        );
        let errors = pod_update(&new, &old);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "spec.schedulingGates[0].name");
        let dropped =
            pod(json!({"containers": [{"image": "a"}], "schedulingGates": [{"name": "g"}]}));
        assert_eq!(pod_update(&dropped, &old)[0].field, "spec.tolerations");
    }

    #[test]
    fn other_changes_are_shown_as_a_diff_of_the_internal_spec() {
        let old = pod(json!({"containers": [{"name": "c", "image": "a"}], "hostname": ""}));
        let new = pod(json!({"containers": [{"name": "c", "image": "b"}], "hostname": "h"}));
        let errors = pod_update(&new, &old);
        assert_eq!(errors.len(), 1);
        let message = &errors[0].message;
        assert!(message.starts_with(
            "Forbidden: pod updates may not change fields other than `spec.containers[*].image`"
        ));
        assert!(message.contains("\n@@ -"));
        assert!(message.contains("\n- \"Hostname\": \"\",\n+ \"Hostname\": \"h\",\n"));
        assert!(!message.contains("\"Image\": \"b\""));
    }

    #[test]
    fn a_gated_pod_may_gain_node_selector_entries() {
        let old = pod(
            json!({"containers": [{"image": "a"}], "schedulingGates": [{"name": "g"}], "nodeSelector": {"k": "v"}}),
        );
        let added = pod(
            json!({"containers": [{"image": "a"}], "schedulingGates": [{"name": "g"}], "nodeSelector": {"k": "v", "l": "w"}}),
        );
        assert!(pod_update(&added, &old).is_empty());
        let changed = pod(
            json!({"containers": [{"image": "a"}], "schedulingGates": [{"name": "g"}], "nodeSelector": {"k": "w"}}),
        );
        assert_eq!(
            pod_update(&changed, &old)[0].message,
            "Invalid value: {\"k\":\"w\"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)"
        );
    }
}
