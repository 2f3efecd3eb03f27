//! The annotations kube-apiserver v1.34 checks on a Pod and on every pod template
//! (`ValidatePodSpecificAnnotations`), in its order: a mirror pod names its node, the
//! tolerations annotation holds valid tolerations, a pod deletion cost is a 32-bit integer,
//! the deprecated seccomp annotations name valid profiles, then the AppArmor ones
//! ([`super::apparmor`]). On a Pod's create and on every write of a template, a seccomp
//! annotation must also agree with the `seccompProfile` field it stands beside
//! (`validateSeccompAnnotationsAndFields`), before the AppArmor annotations and fields do.

use serde_json::{Map, Value};

use super::errors::{Errors, child, forbidden, index, invalid_str, key};
use super::toleration_annotation;
use super::tolerations::tolerations;

/// The annotation a static pod's mirror carries.
const MIRROR: &str = "kubernetes.io/config.mirror";
/// The tolerations annotation of the first scheduler.
const TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/tolerations";
/// The annotation ordering a ReplicaSet's pods for scale down.
const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";
/// The deprecated seccomp annotation of the whole pod.
const SECCOMP_POD: &str = "seccomp.security.alpha.kubernetes.io/pod";
/// The prefix of the deprecated per-container seccomp annotation.
const SECCOMP_CONTAINER: &str = "container.seccomp.security.alpha.kubernetes.io/";
/// The prefix of a seccomp annotation naming a profile on the node.
const LOCALHOST: &str = "localhost/";
/// The container lists of a pod spec, in the order the real server visits them.
const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

fn annotations(metadata: &Value) -> Map<String, Value> {
    metadata["annotations"]
        .as_object()
        .cloned()
        .unwrap_or_default()
}

fn text<'a>(map: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    map.get(k).map(|v| v.as_str().unwrap_or_default())
}

/// `ValidatePodSpecificAnnotations` of `metadata`'s annotations (at `path`) beside `spec`.
pub fn specific(metadata: &Value, spec: &Value, path: &str) -> Errors {
    let map = annotations(metadata);
    let mut out = Vec::new();
    if let Some(value) = text(&map, MIRROR)
        && spec["nodeName"].as_str().unwrap_or_default().is_empty()
    {
        out.push(invalid_str(
            &key(path, MIRROR),
            value,
            "must set spec.nodeName if mirror pod annotation is set",
        ));
    }
    if let Some(value) = text(&map, TOLERATIONS).filter(|v| !v.is_empty()) {
        match toleration_annotation::decode(value) {
            Ok(list) => out.extend(tolerations(&Value::Array(list), &child(path, TOLERATIONS))),
            Err(why) => out.push(invalid_str(path, TOLERATIONS, &why)),
        }
    }
    if let Some(value) = text(&map, DELETION_COST)
        && !is_deletion_cost(value)
    {
        out.push(invalid_str(
            &key(path, DELETION_COST),
            value,
            "must be a 32bit integer",
        ));
    }
    if let Some(value) = text(&map, SECCOMP_POD) {
        out.extend(seccomp_profile(value, &child(path, SECCOMP_POD)));
    }
    for (k, value) in &map {
        if k.starts_with(SECCOMP_CONTAINER) {
            out.extend(seccomp_profile(
                value.as_str().unwrap_or_default(),
                &child(path, k),
            ));
        }
    }
    out.extend(super::apparmor::annotations(metadata, spec, path));
    out
}

/// Whether a pod deletion cost parses as Go's `GetDeletionCostFromPodAnnotations` does: no
/// sign but `-`, no leading zero, a 32-bit integer.
fn is_deletion_cost(value: &str) -> bool {
    let first_ok = match value.as_bytes().first() {
        Some(b'-' | b'1'..=b'9') => true,
        Some(b'0') => value == "0",
        _ => false,
    };
    first_ok && value.parse::<i32>().is_ok()
}

/// `ValidateSeccompProfile` of an annotation's `value` at `path`: a known profile name, or a
/// `localhost/` profile whose path is relative and never steps back.
fn seccomp_profile(value: &str, path: &str) -> Errors {
    if matches!(value, "runtime/default" | "docker/default" | "unconfined") {
        return Vec::new();
    }
    let Some(local) = value.strip_prefix(LOCALHOST) else {
        return vec![invalid_str(path, value, "must be a valid seccomp profile")];
    };
    let mut out = Vec::new();
    if local.starts_with('/') {
        out.push(invalid_str(path, local, "must be a relative path"));
    }
    if local.split('/').any(|part| part == "..") {
        out.push(invalid_str(path, local, "must not contain '..'"));
    }
    out
}

/// `validateSeccompAnnotationsAndFields` of `spec` (at `path`) under `metadata`: the pod's
/// `seccompProfile` and its annotation agree, then each container's own profile and its
/// container's annotation.
pub fn seccomp_fields_match(metadata: &Value, spec: &Value, path: &str) -> Errors {
    let map = annotations(metadata);
    let mut out = Vec::new();
    let pod_profile = &spec["securityContext"]["seccompProfile"];
    if let Some(annotation) = text(&map, SECCOMP_POD)
        && !pod_profile.is_null()
    {
        let at = child(&child(path, "securityContext"), "seccompProfile");
        out.extend(seccomp_disagreement(pod_profile, annotation, &at));
    }
    for list in CONTAINER_LISTS {
        for (i, c) in spec[list].as_array().into_iter().flatten().enumerate() {
            let profile = &c["securityContext"]["seccompProfile"];
            let name = c["name"].as_str().unwrap_or_default();
            let annotation = text(&map, &format!("{SECCOMP_CONTAINER}{name}"));
            if let Some(annotation) = annotation.filter(|_| !profile.is_null()) {
                let at = child(
                    &child(&index(&child(path, list), i), "securityContext"),
                    "seccompProfile",
                );
                out.extend(seccomp_disagreement(profile, annotation, &at));
            }
        }
    }
    out
}

/// The error of a seccomp `profile` field (at `path`) that its `annotation` contradicts.
fn seccomp_disagreement(
    profile: &Value,
    annotation: &str,
    path: &str,
) -> Option<crate::support::status::Cause> {
    let type_differs = || {
        forbidden(
            &child(path, "type"),
            "seccomp type in annotation and field must match",
        )
    };
    match profile["type"].as_str().unwrap_or_default() {
        "Unconfined" => (annotation != "unconfined").then(type_differs),
        "RuntimeDefault" => {
            (!matches!(annotation, "runtime/default" | "docker/default")).then(type_differs)
        }
        "Localhost" => match annotation.strip_prefix(LOCALHOST) {
            None => Some(type_differs()),
            Some(name) => (profile["localhostProfile"].as_str() != Some(name)).then(|| {
                forbidden(
                    &child(path, "localhostProfile"),
                    "seccomp profile in annotation and field must match",
                )
            }),
        },
        _ => None,
    }
}

/// The checks of a Pod's create after its own validation: the seccomp annotations and fields
/// agree, then the AppArmor ones.
pub fn pod_create(pod: &Value) -> Errors {
    let mut out = seccomp_fields_match(&pod["metadata"], &pod["spec"], "spec");
    out.extend(super::apparmor::pod_create(pod));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(errors: Errors) -> Vec<String> {
        errors
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn annotations_are_checked_in_the_real_order() {
        let metadata = json!({"annotations": {
            MIRROR: "m",
            TOLERATIONS: "[{\"key\": \"k\", \"operator\": \"Foo\"}]",
            DELETION_COST: "007",
            SECCOMP_POD: "localhost//../x",
            "container.seccomp.security.alpha.kubernetes.io/c": "bogus",
        }});
        let p = "metadata.annotations";
        assert_eq!(
            shown(specific(&metadata, &json!({}), p)),
            [
                format!(
                    "{p}[{MIRROR}]: Invalid value: \"m\": must set spec.nodeName if mirror pod annotation is set"
                ),
                format!(
                    "{p}.{TOLERATIONS}[0].operator: Unsupported value: \"Foo\": supported values: \"Equal\", \"Exists\""
                ),
                format!("{p}[{DELETION_COST}]: Invalid value: \"007\": must be a 32bit integer"),
                format!("{p}.{SECCOMP_POD}: Invalid value: \"/../x\": must be a relative path"),
                format!("{p}.{SECCOMP_POD}: Invalid value: \"/../x\": must not contain '..'"),
                format!(
                    "{p}.container.seccomp.security.alpha.kubernetes.io/c: Invalid value: \"bogus\": must be a valid seccomp profile"
                ),
            ]
        );
        let broken = json!({"annotations": {TOLERATIONS: "[1]"}});
        assert_eq!(
            shown(specific(&broken, &json!({}), p)),
            [format!(
                "{p}: Invalid value: \"{TOLERATIONS}\": json: cannot unmarshal number into .0 of type core.Toleration"
            )]
        );
    }

    #[test]
    fn deletion_costs_are_32_bit_integers_without_plus_or_leading_zeros() {
        for ok in ["0", "-0", "-08", "2147483647", "-2147483648"] {
            assert!(is_deletion_cost(ok), "{ok}");
        }
        for bad in ["", "+1", "007", " 1", "2147483648", "-", "1_0"] {
            assert!(!is_deletion_cost(bad), "{bad}");
        }
    }

    #[test]
    fn seccomp_annotations_and_fields_must_agree() {
        let metadata = json!({"annotations": {
            SECCOMP_POD: "unconfined",
            "container.seccomp.security.alpha.kubernetes.io/i": "docker/default",
            "container.seccomp.security.alpha.kubernetes.io/c": "localhost/a",
            "container.seccomp.security.alpha.kubernetes.io/d": "runtime/default",
        }});
        let local = json!({"seccompProfile": {"type": "Localhost", "localhostProfile": "b"}});
        let spec = json!({
            "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
            "initContainers": [{"name": "i", "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}],
            "containers": [{"name": "c", "securityContext": local}, {"name": "d", "securityContext": local}],
        });
        let s = "securityContext.seccompProfile";
        assert_eq!(
            shown(seccomp_fields_match(&metadata, &spec, "spec")),
            [
                format!(
                    "spec.{s}.type: Forbidden: seccomp type in annotation and field must match"
                ),
                format!(
                    "spec.containers[0].{s}.localhostProfile: Forbidden: seccomp profile in annotation and field must match"
                ),
                format!(
                    "spec.containers[1].{s}.type: Forbidden: seccomp type in annotation and field must match"
                ),
            ]
        );
    }
}
