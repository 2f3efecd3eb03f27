//! The warnings a valid write of a built-in kind gets (the registry strategies' `WarningsOnCreate`
//! and `WarningsOnUpdate`): for a PersistentVolume and a PersistentVolumeClaim what [`volumes`]
//! finds (the deprecated storage-class annotation first); for a Service, an
//! `externalName` its type ignores; for a RuntimeClass, deprecated node labels in its scheduling
//! node selector; for a Pod and the pod template of every workload, what [`pod`] finds in the pod
//! spec, after a name that is no DNS label where the name becomes pods' hostnames (and a Pod's
//! AppArmor annotations first, an Indexed Job's too many completions before its template). A Pod's
//! update warns of nothing; a workload's update warns of its template only when the update bumps
//! its generation (a change of the spec, or of a Deployment's annotations), a PodTemplate's when
//! its template changed.

mod containers;
mod core_objects;
mod node_labels;
mod pod;
mod pod_fields;
mod volume_paths;
mod volumes;

use serde_json::Value;

/// The warnings of a valid `kind` of `group` as written, over `old` on an update.
pub fn warnings(group: &str, kind: &str, object: &Value, old: Option<&Value>) -> Vec<String> {
    match (group, kind) {
        ("", "PersistentVolume") => volumes::volume(object),
        ("", "PersistentVolumeClaim") => volumes::claim(object),
        ("", "Service") => service(&object["spec"]),
        ("node.k8s.io", "RuntimeClass") => runtime_class(object),
        ("", "Node" | "Endpoints" | "ServiceAccount" | "Secret") => {
            core_objects::warnings(kind, object, old)
        }
        ("networking.k8s.io", "Ingress") => super::ingress::warnings(object, old),
        ("", "Pod") if old.is_none() => pod_warnings(object),
        ("", "PodTemplate") => match old {
            Some(old) if old["template"] == object["template"] => Vec::new(),
            _ => pod::spec("template.", &object["template"]),
        },
        _ => match template_path(group, kind) {
            Some((path, names_pods)) => workload(kind, object, old, path, names_pods),
            None => Vec::new(),
        },
    }
}

/// Where a workload kind keeps its pod template, and whether its name becomes its pods'
/// names and hostnames (it is then warned of when it is no DNS label).
fn template_path(group: &str, kind: &str) -> Option<(&'static [&'static str], bool)> {
    const TEMPLATE: &[&str] = &["spec", "template"];
    match (group, kind) {
        ("apps", "Deployment" | "ReplicaSet")
        | ("batch", "Job")
        | ("", "ReplicationController") => Some((TEMPLATE, true)),
        ("apps", "StatefulSet" | "DaemonSet") => Some((TEMPLATE, false)),
        ("batch", "CronJob") => Some((&["spec", "jobTemplate", "spec", "template"], true)),
        _ => None,
    }
}

/// A workload's warnings: on create its name's, then (on create, or on an update that bumps
/// the generation) an Indexed Job's and its template's.
fn workload(
    kind: &str,
    object: &Value,
    old: Option<&Value>,
    path: &[&str],
    names_pods: bool,
) -> Vec<String> {
    if let Some(old) = old {
        let annotations = |o: &Value| o["metadata"]["annotations"].clone();
        let bumped = old["spec"] != object["spec"]
            || kind == "Deployment" && annotations(old) != annotations(object);
        if !bumped {
            return Vec::new();
        }
    }
    let template = path.iter().fold(object, |v, key| &v[*key]);
    let prefix: String = path.iter().map(|key| format!("{key}.")).collect();
    let mut out = Vec::new();
    if old.is_none() && names_pods {
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        out.extend(pod::name(name, false));
    }
    if let Some(job) = prefix
        .strip_suffix("template.")
        .filter(|_| matches!(kind, "Job" | "CronJob"))
    {
        out.extend(indexed_job(job, &object[path[0]], path.len() > 2));
    }
    out.extend(pod::spec(&prefix, template));
    out
}

/// The warning of an Indexed Job (or a CronJob's job template, whose spec is `spec`) with
/// more completions and parallelism than the Job controller tracks well.
fn indexed_job(path: &str, spec: &Value, cron: bool) -> Option<String> {
    let spec = if cron {
        &spec["jobTemplate"]["spec"]
    } else {
        spec
    };
    let over = |field: &str, limit: i64| spec[field].as_i64().is_some_and(|n| n > limit);
    (spec["completionMode"] == "Indexed" && over("completions", 100_000) && over("parallelism", 10_000)).then(|| {
        format!(
            "{}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail",
            path.trim_end_matches('.')
        )
    })
}

/// A created Pod's warnings: its AppArmor annotations (sent while it is prepared, before
/// the others), its name when that is no DNS label, then its spec's.
/// The warnings a created object earns before its validation, sent even when it is refused:
/// a Pod's AppArmor annotations (the strategy warns while it copies them into the fields).
pub fn before_validation(
    group: &str,
    kind: &str,
    object: &Value,
    old: Option<&Value>,
) -> Vec<String> {
    match (group, kind, old) {
        ("", "Pod", None) => containers::pod_app_armor(object),
        _ => Vec::new(),
    }
}

fn pod_warnings(pod: &Value) -> Vec<String> {
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let mut out = containers::pod_app_armor(pod);
    out.extend(pod::name(name, true));
    out.extend(pod::spec("", pod));
    out
}

/// A RuntimeClass's deprecated node labels in `scheduling.nodeSelector` (on create and on
/// every update), named by the selector only.
fn runtime_class(object: &Value) -> Vec<String> {
    let selector = object["scheduling"]["nodeSelector"].as_object();
    selector
        .into_iter()
        .flatten()
        .filter_map(|(key, _)| node_labels::deprecated(key))
        .map(|message| format!("scheduling.nodeSelector: {message}"))
        .collect()
}

/// A Service that is not of type ExternalName keeps an `externalName` it does not use.
fn service(spec: &Value) -> Vec<String> {
    let name = spec["externalName"].as_str().unwrap_or_default();
    if spec["type"] != "ExternalName" && !name.is_empty() {
        return vec!["spec.externalName is ignored when spec.type is not \"ExternalName\"".into()];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn external_name_ignored_by_other_types() {
        let ignored = json!({"spec": {"type": "ClusterIP", "externalName": "a.example.com"}});
        assert_eq!(
            warnings("", "Service", &ignored, None),
            ["spec.externalName is ignored when spec.type is not \"ExternalName\""]
        );
        let used = json!({"spec": {"type": "ExternalName", "externalName": "a.example.com"}});
        assert!(warnings("", "Service", &used, None).is_empty());
        let empty = json!({"spec": {"type": "NodePort", "externalName": ""}});
        assert!(warnings("", "Service", &empty, None).is_empty());
    }
}
