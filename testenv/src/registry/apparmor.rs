//! The AppArmor version skew of a created Pod (the Pod strategy's `PrepareForCreate`): a
//! container named in a deprecated `container.apparmor.security.beta.kubernetes.io/<name>`
//! annotation, without an `appArmorProfile` of its own, gets the profile the annotation names
//! in its `securityContext`, so that nodes which read only the field enforce it. Done after
//! the field manager has recorded the creator's fields (the copied field is nobody's), and
//! never on updates. The fields are not written back into annotations.

use serde_json::{Map, Value, json};

/// The prefix of the deprecated per-container annotation.
const ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";
/// The longest localhost profile name a field may hold (`PATH_MAX - 1`).
const MAX_LOCALHOST_PROFILE: usize = 4095;
/// The container lists of a pod spec, in the order the real strategy visits them.
const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

/// Copies each container's AppArmor annotation of a created Pod (`group`/`plural` naming
/// the resource; other resources are left alone) into the container's
/// `securityContext.appArmorProfile`, when the container has no profile, the annotation
/// names a valid one, and it differs from the pod's own profile. Windows pods are left alone.
pub fn apply_version_skew(group: &str, plural: &str, pod: &mut Value) {
    if (group, plural) != ("", "pods") || pod["spec"]["os"]["name"] == "windows" {
        return;
    }
    let Some(annotations) = pod["metadata"]["annotations"].as_object().cloned() else {
        return;
    };
    let pod_profile = pod["spec"]["securityContext"]["appArmorProfile"].clone();
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    for list in CONTAINER_LISTS {
        let Some(containers) = spec.get_mut(list).and_then(Value::as_array_mut) else {
            continue;
        };
        for container in containers {
            copy_annotation(container, &annotations, &pod_profile);
        }
    }
}

/// Gives `container` the profile of its annotation among `annotations`, if it has none and
/// the annotation's differs from the pod's (`pod_profile`).
fn copy_annotation(container: &mut Value, annotations: &Map<String, Value>, pod_profile: &Value) {
    let name = container["name"].as_str().unwrap_or_default();
    let Some(annotation) = annotations
        .get(&format!("{ANNOTATION_PREFIX}{name}"))
        .and_then(Value::as_str)
    else {
        return;
    };
    if !container["securityContext"]["appArmorProfile"].is_null() {
        return;
    }
    let Some(profile) = profile_of(annotation) else {
        return;
    };
    if profile == *pod_profile {
        return;
    }
    let Some(object) = container.as_object_mut() else {
        return;
    };
    let context = object.entry("securityContext").or_insert_with(|| json!({}));
    if !context.is_object() {
        *context = json!({});
    }
    context["appArmorProfile"] = profile;
}

/// The `appArmorProfile` an annotation value names, when it names one the field accepts:
/// `runtime/default`, `unconfined`, or `localhost/<profile>` with a profile that is not
/// empty, not padded with whitespace and at most 4095 bytes long.
fn profile_of(annotation: &str) -> Option<Value> {
    match annotation {
        "runtime/default" => Some(json!({"type": "RuntimeDefault"})),
        "unconfined" => Some(json!({"type": "Unconfined"})),
        other => {
            let profile = other.strip_prefix("localhost/")?;
            let valid = !profile.is_empty()
                && profile.trim() == profile
                && profile.len() <= MAX_LOCALHOST_PROFILE;
            valid.then(|| json!({"type": "Localhost", "localhostProfile": profile}))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(annotations: Value, spec: Value) -> Value {
        json!({"metadata": {"annotations": annotations}, "spec": spec})
    }

    fn profiles(pod: &Value, list: &str) -> Vec<Value> {
        pod["spec"][list]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c["securityContext"]["appArmorProfile"].clone())
            .collect()
    }

    #[test]
    fn annotations_become_container_fields() {
        let long = "p".repeat(4096);
        let mut p = pod(
            json!({
                "container.apparmor.security.beta.kubernetes.io/i": "runtime/default",
                "container.apparmor.security.beta.kubernetes.io/c": "localhost/prof",
                "container.apparmor.security.beta.kubernetes.io/d": "unconfined",
                "container.apparmor.security.beta.kubernetes.io/e": "localhost/",
                "container.apparmor.security.beta.kubernetes.io/f": "localhost/ x",
                "container.apparmor.security.beta.kubernetes.io/g": format!("localhost/{long}"),
                "container.apparmor.security.beta.kubernetes.io/h": "localhost/other",
            }),
            json!({
                "initContainers": [{"name": "i"}],
                "containers": [
                    {"name": "c", "securityContext": {"runAsUser": 1}},
                    {"name": "d"}, {"name": "e"}, {"name": "f"}, {"name": "g"},
                    {"name": "h", "securityContext": {"appArmorProfile": {"type": "Unconfined"}}},
                    {"name": "none"},
                ],
            }),
        );
        apply_version_skew("", "pods", &mut p);
        assert_eq!(
            profiles(&p, "initContainers"),
            [json!({"type": "RuntimeDefault"})]
        );
        assert_eq!(
            profiles(&p, "containers"),
            [
                json!({"type": "Localhost", "localhostProfile": "prof"}),
                json!({"type": "Unconfined"}),
                Value::Null,
                Value::Null,
                Value::Null,
                json!({"type": "Unconfined"}),
                Value::Null,
            ]
        );
        assert_eq!(
            p["spec"]["containers"][0]["securityContext"]["runAsUser"],
            1
        );
        assert!(p["spec"]["containers"][2].get("securityContext").is_none());
    }

    #[test]
    fn the_pod_profile_windows_and_other_resources_keep_the_annotation_alone() {
        let annotations =
            json!({"container.apparmor.security.beta.kubernetes.io/c": "runtime/default"});
        let mut same = pod(
            annotations.clone(),
            json!({"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
                "containers": [{"name": "c"}]}),
        );
        apply_version_skew("", "pods", &mut same);
        assert_eq!(profiles(&same, "containers"), [Value::Null]);
        let mut windows = pod(
            annotations.clone(),
            json!({"os": {"name": "windows"}, "containers": [{"name": "c"}]}),
        );
        apply_version_skew("", "pods", &mut windows);
        assert_eq!(profiles(&windows, "containers"), [Value::Null]);
        let mut template = pod(annotations, json!({"containers": [{"name": "c"}]}));
        apply_version_skew("", "podtemplates", &mut template);
        assert_eq!(profiles(&template, "containers"), [Value::Null]);
    }
}
