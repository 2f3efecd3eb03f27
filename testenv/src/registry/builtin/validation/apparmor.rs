//! The AppArmor checks of pods and pod templates, as kube-apiserver v1.34 makes them: an
//! `appArmorProfile` field of a pod or container security context (its type, and a
//! `localhostProfile` only with, and always with, the `Localhost` type: set, not padded with
//! whitespace, at most 4095 bytes); the deprecated per-container annotations
//! `container.apparmor.security.beta.kubernetes.io/<name>` (naming a container of the spec,
//! with a profile name of a known form); and, on a Pod's create and on every write of a pod
//! template, an annotation that disagrees with the profile its container has.

use serde_json::{Map, Value};

use super::errors::{
    Errors, child, forbidden, go_value, index, invalid_str, key, not_supported, required_because,
};
use crate::support::status::Cause;

/// The prefix of the deprecated per-container annotation.
const ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";
/// The prefix of an annotation naming a profile loaded on the node.
const LOCALHOST_PREFIX: &str = "localhost/";
/// The profile types of the field.
const TYPES: &[&str] = &["Localhost", "RuntimeDefault", "Unconfined"];
/// The longest localhost profile name a field may hold (`PATH_MAX - 1`).
const MAX_LOCALHOST_PROFILE: usize = 4095;
/// The container lists of a pod spec, in the order the real server visits them.
const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// The `securityContext.appArmorProfile` of `holder` (a pod spec or a container at `path`),
/// checked as `ValidateAppArmorProfileField` does.
pub fn security_context(holder: &Value, path: &str) -> Errors {
    let at = child(&child(path, "securityContext"), "appArmorProfile");
    profile_field(&holder["securityContext"]["appArmorProfile"], &at)
}

/// `ValidateAppArmorProfileField` of the profile at `path` (nothing when it is unset).
fn profile_field(profile: &Value, path: &str) -> Errors {
    if profile.is_null() {
        return Vec::new();
    }
    let local_path = child(path, "localhostProfile");
    let local = profile["localhostProfile"].as_str();
    let kind = profile["type"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    match (kind, local) {
        ("Localhost", None) => out.push(local_required(&local_path)),
        ("Localhost", Some(name)) => {
            if name.trim() != name {
                out.push(invalid_str(
                    &local_path,
                    name,
                    "must not be padded with whitespace",
                ));
            } else if name.is_empty() {
                out.push(local_required(&local_path));
            }
            if name.len() > MAX_LOCALHOST_PROFILE {
                out.push(Cause {
                    reason: "FieldValueTooLong".into(),
                    message: format!(
                        "Too long: may not be more than {MAX_LOCALHOST_PROFILE} bytes"
                    ),
                    field: local_path,
                });
            }
        }
        ("RuntimeDefault" | "Unconfined", Some(name)) => out.push(invalid_str(
            &local_path,
            name,
            "can only be set when AppArmor type is Localhost",
        )),
        ("RuntimeDefault" | "Unconfined", None) => {}
        ("", _) => out.push(required_because(
            &child(path, "type"),
            "type is required when appArmorProfile is set",
        )),
        (other, _) => out.push(not_supported(&child(path, "type"), other, TYPES)),
    }
    out
}

fn local_required(path: &str) -> Cause {
    required_because(path, "must be set when AppArmor type is Localhost")
}

/// `ValidateAppArmorPodAnnotations`: each AppArmor annotation of `metadata` (its
/// annotations at `path`) names a container of `spec`, and a profile that is empty,
/// `runtime/default`, `unconfined` or `localhost/...`.
pub fn annotations(metadata: &Value, spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for (k, value) in &annotation_map(metadata) {
        let Some(name) = k.strip_prefix(ANNOTATION_PREFIX) else {
            continue;
        };
        let at = key(path, k);
        let known = CONTAINER_LISTS
            .iter()
            .flat_map(|list| items(&spec[*list]))
            .any(|c| c["name"].as_str().unwrap_or_default() == name);
        if !known {
            out.push(invalid_str(&at, name, "container not found"));
        }
        let profile = value.as_str().unwrap_or_default();
        if !matches!(profile, "" | "runtime/default" | "unconfined")
            && !profile.starts_with(LOCALHOST_PREFIX)
        {
            let why = format!(
                "invalid AppArmor profile name: {}",
                go_value(&Value::String(profile.into()))
            );
            out.push(invalid_str(&at, profile, &why));
        }
    }
    out
}

fn annotation_map(metadata: &Value) -> Map<String, Value> {
    metadata["annotations"]
        .as_object()
        .cloned()
        .unwrap_or_default()
}

/// The agreement of a created Pod's annotations and fields (see [`fields_match`]), seen
/// after the Pod strategy has copied each valid annotation into its container's empty
/// `appArmorProfile` (`registry::apparmor`), so that a copied annotation agrees.
pub fn pod_create(pod: &Value) -> Errors {
    fields_match(&pod["metadata"], &pod["spec"], "spec", true)
}

/// `validateAppArmorAnnotationsAndFieldsMatchOnCreate` of `spec` (at `path`) under
/// `metadata`: a container's profile (its own, else the pod's) and its annotation agree in
/// type, and a localhost profile in name. Windows pods are not checked. With `copied`, a
/// container without a profile of its own whose annotation names a valid one has it.
pub fn fields_match(metadata: &Value, spec: &Value, path: &str, copied: bool) -> Errors {
    if spec["os"]["name"] == "windows" {
        return Vec::new();
    }
    let annotations = annotation_map(metadata);
    let pod_profile = &spec["securityContext"]["appArmorProfile"];
    let mut out = Vec::new();
    for list in CONTAINER_LISTS {
        for (i, c) in items(&spec[list]).iter().enumerate() {
            let own = &c["securityContext"]["appArmorProfile"];
            let profile = if own.is_null() { pod_profile } else { own };
            let name = c["name"].as_str().unwrap_or_default();
            let key = format!("{ANNOTATION_PREFIX}{name}");
            let Some(annotation) = annotations.get(&key).filter(|_| !profile.is_null()) else {
                continue;
            };
            let annotation = annotation.as_str().unwrap_or_default();
            if copied && own.is_null() && copyable(annotation) {
                continue;
            }
            let at = child(
                &child(&index(&child(path, list), i), "securityContext"),
                "appArmorProfile",
            );
            out.extend(disagreement(profile, annotation, &at));
        }
    }
    out
}

/// Whether the strategy copies an `annotation` into a container's field: it names
/// `runtime/default`, `unconfined`, or a localhost profile the field accepts.
fn copyable(annotation: &str) -> bool {
    match annotation.strip_prefix(LOCALHOST_PREFIX) {
        Some(name) => {
            !name.is_empty() && name.trim() == name && name.len() <= MAX_LOCALHOST_PROFILE
        }
        None => matches!(annotation, "runtime/default" | "unconfined"),
    }
}

/// The error of a `profile` (at `path`) that its `annotation` contradicts, if it does.
fn disagreement(profile: &Value, annotation: &str, path: &str) -> Option<Cause> {
    let type_differs = || {
        forbidden(
            &child(path, "type"),
            "apparmor type in annotation and field must match",
        )
    };
    match profile["type"].as_str().unwrap_or_default() {
        "Unconfined" => (annotation != "unconfined").then(type_differs),
        "RuntimeDefault" => (annotation != "runtime/default").then(type_differs),
        "Localhost" => match annotation.strip_prefix(LOCALHOST_PREFIX) {
            None => Some(type_differs()),
            Some(name) => (profile["localhostProfile"].as_str() != Some(name)).then(|| {
                forbidden(
                    &child(path, "localhostProfile"),
                    "apparmor profile in annotation and field must match",
                )
            }),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(errors: Errors) -> Vec<String> {
        errors
            .into_iter()
            .map(|c| format!("{} | {} | {}", c.field, c.reason, c.message))
            .collect()
    }

    fn field(profile: Value) -> Vec<String> {
        shown(security_context(
            &json!({"securityContext": {"appArmorProfile": profile}}),
            "c",
        ))
    }

    #[test]
    fn a_profile_field_is_checked_by_its_type() {
        let p = "c.securityContext.appArmorProfile";
        assert!(field(json!({"type": "Localhost", "localhostProfile": "x"})).is_empty());
        assert!(field(json!({"type": "RuntimeDefault"})).is_empty());
        assert!(field(Value::Null).is_empty());
        assert_eq!(
            field(json!({"type": "Localhost"})),
            [format!(
                "{p}.localhostProfile | FieldValueRequired | Required value: must be set when AppArmor type is Localhost"
            )]
        );
        assert_eq!(
            field(json!({"type": "Localhost", "localhostProfile": ""})),
            field(json!({"type": "Localhost"}))
        );
        let long = format!(" {}", "p".repeat(4095));
        let padded = field(json!({"type": "Localhost", "localhostProfile": long}));
        assert_eq!(padded.len(), 2);
        assert!(padded[0].ends_with("\": must not be padded with whitespace"));
        assert_eq!(
            padded[1],
            format!(
                "{p}.localhostProfile | FieldValueTooLong | Too long: may not be more than 4095 bytes"
            )
        );
        assert_eq!(
            field(json!({"type": "Unconfined", "localhostProfile": ""})),
            [format!(
                "{p}.localhostProfile | FieldValueInvalid | Invalid value: \"\": can only be set when AppArmor type is Localhost"
            )]
        );
        assert_eq!(
            field(json!({"localhostProfile": "x"})),
            [format!(
                "{p}.type | FieldValueRequired | Required value: type is required when appArmorProfile is set"
            )]
        );
        assert_eq!(
            field(json!({"type": "Foo"})),
            [format!(
                "{p}.type | FieldValueNotSupported | Unsupported value: \"Foo\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\""
            )]
        );
    }

    #[test]
    fn annotations_name_a_container_and_a_known_profile_form() {
        let metadata = json!({"annotations": {
            "container.apparmor.security.beta.kubernetes.io/zz": "foo",
            "container.apparmor.security.beta.kubernetes.io/i": "localhost/",
            "container.apparmor.security.beta.kubernetes.io/c": "",
            "other": "foo",
        }});
        let spec = json!({"initContainers": [{"name": "i"}], "containers": [{"name": "c"}]});
        let k = "metadata.annotations[container.apparmor.security.beta.kubernetes.io/zz]";
        assert_eq!(
            shown(annotations(&metadata, &spec, "metadata.annotations")),
            [
                format!("{k} | FieldValueInvalid | Invalid value: \"zz\": container not found"),
                format!(
                    "{k} | FieldValueInvalid | Invalid value: \"foo\": invalid AppArmor profile name: \"foo\""
                ),
            ]
        );
    }

    #[test]
    fn annotations_and_fields_must_agree() {
        let metadata = json!({"annotations": {
            "container.apparmor.security.beta.kubernetes.io/i": "unconfined",
            "container.apparmor.security.beta.kubernetes.io/a": "runtime/default",
            "container.apparmor.security.beta.kubernetes.io/b": "localhost/x",
            "container.apparmor.security.beta.kubernetes.io/c": "localhost/y",
            "container.apparmor.security.beta.kubernetes.io/d": "unconfined",
            "container.apparmor.security.beta.kubernetes.io/e": "runtime/default",
        }});
        let localhost = json!({"appArmorProfile": {"type": "Localhost", "localhostProfile": "x"}});
        let spec = json!({
            "securityContext": {"appArmorProfile": {"type": "Unconfined"}},
            "initContainers": [{"name": "i", "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}}],
            "containers": [
                {"name": "a"}, {"name": "b", "securityContext": localhost},
                {"name": "c", "securityContext": localhost}, {"name": "d"},
                {"name": "e", "securityContext": {"appArmorProfile": {"type": "Bogus"}}},
            ],
        });
        let found: Vec<String> = fields_match(&metadata, &spec, "spec", false)
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        let s = "securityContext.appArmorProfile";
        assert_eq!(
            found,
            [
                format!(
                    "spec.initContainers[0].{s}.type: Forbidden: apparmor type in annotation and field must match"
                ),
                format!(
                    "spec.containers[0].{s}.type: Forbidden: apparmor type in annotation and field must match"
                ),
                format!(
                    "spec.containers[2].{s}.localhostProfile: Forbidden: apparmor profile in annotation and field must match"
                ),
            ]
        );
        // A created Pod's container `a` got the profile of its annotation.
        let pod = json!({"metadata": metadata, "spec": spec});
        let fields: Vec<String> = pod_create(&pod).into_iter().map(|c| c.field).collect();
        assert_eq!(
            fields,
            [
                format!("spec.initContainers[0].{s}.type"),
                format!("spec.containers[2].{s}.localhostProfile"),
            ]
        );
        let mut windows = spec;
        windows["os"] = json!({"name": "windows"});
        assert!(fields_match(&metadata, &windows, "spec", false).is_empty());
    }
}
