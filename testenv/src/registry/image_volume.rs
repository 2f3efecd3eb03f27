//! Image volumes (`volumes[].image`, the `ImageVolume` feature, beta and off by default in
//! kube-apiserver v1.34). A registry given a Pod or a pod template with such volumes drops
//! them (`dropImageVolumes` of the strategy's `PrepareForCreate`), with every container's
//! mounts of them, unless the stored object already uses one. Done after the field manager
//! has recorded the writer's fields: the managed fields still name the dropped volumes (on
//! update, see [`restore_sent`]).

use std::collections::HashSet;

use serde_json::Value;

/// The container lists of a pod spec.
const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

/// Where a resource of `group`/`plural` keeps its pod spec.
pub(super) fn spec_path(group: &str, plural: &str) -> Option<&'static [&'static str]> {
    match (group, plural) {
        ("", "pods") => Some(&["spec"]),
        ("", "podtemplates") => Some(&["template", "spec"]),
        ("", "replicationcontrollers")
        | ("apps", "deployments" | "replicasets" | "statefulsets" | "daemonsets")
        | ("batch", "jobs") => Some(&["spec", "template", "spec"]),
        ("batch", "cronjobs") => Some(&["spec", "jobTemplate", "spec", "template", "spec"]),
        _ => None,
    }
}

pub(super) fn spec_of<'a>(object: &'a Value, path: &[&str]) -> &'a Value {
    path.iter().fold(object, |v, k| &v[*k])
}

fn is_image_volume(volume: &Value) -> bool {
    !volume["image"].is_null()
}

/// Drops the image volumes of `object`, a `group`/`plural` being written over `old` (none on
/// a create), and their mounts, unless `old`'s spec has an image volume.
pub fn drop_disabled(group: &str, plural: &str, object: &mut Value, old: Option<&Value>) {
    let Some(path) = spec_path(group, plural) else {
        return;
    };
    let in_use = old.is_some_and(|old| {
        spec_of(old, path)["volumes"]
            .as_array()
            .is_some_and(|v| v.iter().any(is_image_volume))
    });
    if in_use {
        return;
    }
    let spec = path.iter().try_fold(&mut *object, |v, k| v.get_mut(*k));
    let Some(spec) = spec.and_then(Value::as_object_mut) else {
        return;
    };
    let Some(volumes) = spec.get_mut("volumes").and_then(Value::as_array_mut) else {
        return;
    };
    let dropped: HashSet<String> = volumes
        .iter()
        .filter(|v| is_image_volume(v))
        .map(|v| v["name"].as_str().unwrap_or_default().to_string())
        .collect();
    if dropped.is_empty() {
        return;
    }
    volumes.retain(|v| !is_image_volume(v));
    if volumes.is_empty() {
        spec.remove("volumes");
    }
    for list in CONTAINER_LISTS {
        let containers = spec.get_mut(list).and_then(Value::as_array_mut);
        for container in containers.into_iter().flatten() {
            let Some(container) = container.as_object_mut() else {
                continue;
            };
            let Some(mounts) = container
                .get_mut("volumeMounts")
                .and_then(Value::as_array_mut)
            else {
                continue;
            };
            mounts.retain(|m| !dropped.contains(m["name"].as_str().unwrap_or_default()));
            if mounts.is_empty() {
                container.remove("volumeMounts");
            }
        }
    }
}

/// Whether the pod spec of `object`, a `group`/`plural`, has an image volume.
pub(super) fn has_image_volume(group: &str, plural: &str, object: &Value) -> bool {
    spec_path(group, plural).is_some_and(|path| {
        spec_of(object, path)["volumes"]
            .as_array()
            .is_some_and(|v| v.iter().any(is_image_volume))
    })
}

/// Puts back into `view`, a `group`/`plural` after [`drop_disabled`], the image volumes of
/// `sent` (the request as decoded) it lacks, with their mounts: what the field manager
/// credits to the writer of an update, recorded before the drop. Whether it put any back.
pub(super) fn restore_sent(group: &str, plural: &str, view: &mut Value, sent: &Value) -> bool {
    let Some(path) = spec_path(group, plural) else {
        return false;
    };
    let sent_spec = spec_of(sent, path);
    let Some(spec) = path.iter().try_fold(&mut *view, |v, k| v.get_mut(*k)) else {
        return false;
    };
    let kept: HashSet<String> = names(&spec["volumes"]).collect();
    let restored: Vec<&Value> = sent_spec["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| is_image_volume(v) && !kept.contains(v["name"].as_str().unwrap_or_default()))
        .collect();
    if restored.is_empty() {
        return false;
    }
    let restored_names: HashSet<&str> = restored
        .iter()
        .map(|v| v["name"].as_str().unwrap_or_default())
        .collect();
    append(spec, "volumes", restored.into_iter().cloned());
    for list in CONTAINER_LISTS {
        for sent_container in sent_spec[list].as_array().into_iter().flatten() {
            let mounts = sent_container["volumeMounts"]
                .as_array()
                .into_iter()
                .flatten();
            let mounts: Vec<Value> = mounts
                .filter(|m| restored_names.contains(m["name"].as_str().unwrap_or_default()))
                .cloned()
                .collect();
            let containers = spec.get_mut(list).and_then(Value::as_array_mut);
            let container = containers
                .into_iter()
                .flatten()
                .find(|c| c["name"] == sent_container["name"]);
            if let Some(container) = container.filter(|_| !mounts.is_empty()) {
                append(container, "volumeMounts", mounts.into_iter());
            }
        }
    }
    true
}

/// The names of a list of named entries.
fn names(list: &Value) -> impl Iterator<Item = String> + '_ {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|v| v["name"].as_str().unwrap_or_default().to_string())
}

/// Appends `items` to the list `field` of `object`, made when absent.
fn append(object: &mut Value, field: &str, items: impl Iterator<Item = Value>) {
    if !object[field].is_array() {
        object[field] = Value::Array(Vec::new());
    }
    if let Some(list) = object[field].as_array_mut() {
        list.extend(items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn image_volumes_and_their_mounts_go_unless_the_old_object_had_one() {
        let spec = json!({
            "volumes": [{"name": "img", "image": {"reference": "x"}}, {"name": "e", "emptyDir": {}}],
            "initContainers": [{"name": "i", "volumeMounts": [{"name": "img", "mountPath": "/i"}]}],
            "containers": [{"name": "c", "volumeMounts": [
                {"name": "img", "mountPath": "/i"}, {"name": "e", "mountPath": "/e"}]}],
        });
        let mut deployment = json!({"spec": {"template": {"spec": spec.clone()}}});
        drop_disabled("apps", "deployments", &mut deployment, None);
        assert_eq!(
            deployment["spec"]["template"]["spec"],
            json!({
                "volumes": [{"name": "e", "emptyDir": {}}],
                "initContainers": [{"name": "i"}],
                "containers": [{"name": "c", "volumeMounts": [{"name": "e", "mountPath": "/e"}]}],
            })
        );
        let old = json!({"spec": spec.clone()});
        let mut pod = json!({"spec": spec.clone()});
        drop_disabled("", "pods", &mut pod, Some(&old));
        assert_eq!(pod["spec"], spec);
        let mut only = json!({"spec": {"volumes": [{"name": "img", "image": {}}]}});
        drop_disabled("", "pods", &mut only, None);
        assert_eq!(only, json!({"spec": {}}));
    }

    #[test]
    fn the_writer_is_credited_with_the_image_volumes_it_sent() {
        let sent = json!({"spec": {
            "volumes": [{"name": "e", "emptyDir": {}}, {"name": "img", "image": {"reference": "x"}}],
            "containers": [{"name": "c", "volumeMounts": [
                {"name": "e", "mountPath": "/e"}, {"name": "img", "mountPath": "/i"}]},
                {"name": "d", "volumeMounts": [{"name": "img", "mountPath": "/j"}]}],
        }});
        let mut view = sent.clone();
        drop_disabled("", "pods", &mut view, Some(&json!({})));
        assert!(has_image_volume("", "pods", &sent) && !has_image_volume("", "pods", &view));
        assert!(restore_sent("", "pods", &mut view, &sent));
        assert_eq!(view, sent);
        assert!(!restore_sent("", "pods", &mut view, &sent));
    }
}
