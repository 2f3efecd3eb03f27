//! The validation of a status update by the kind's status strategy, which checks the
//! metadata and the status only (not the whole object, as an update of the main resource
//! is checked) and warns of nothing: the dispatch to each kind's status rules
//! (`status_apps`, `status_batch`, `status_control_plane`, `status_core`, `status_extensions`,
//! `status_networking`, `status_policy`, `status_resource`, and a Service's load balancer),
//! with the metadata checked as many times as the real server checks it.

use serde_json::Value;

use super::errors::Errors;
use super::meta::{accessor_after_labels, object_meta};
use super::{
    service, status_apps, status_batch, status_control_plane, status_core, status_extensions,
    status_networking, status_policy, status_resource,
};

/// How a status strategy's validation checks the metadata, besides the two checks of the
/// generic registry (the object meta as it is, then as an update).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MetaCheck {
    /// Not again: only the status is checked.
    None,
    /// Once more as an update (`ValidateObjectMetaUpdate`, with the finalizer names), before
    /// the status.
    Before,
    /// Once more as apimachinery checks an update (`ValidateObjectMetaUpdate` of
    /// apiextensions: the finalizer names are not checked), before the status.
    BeforeWithoutFinalizers,
    /// Once more as an update, after the status (a StatefulSet's).
    After,
}

/// The metadata check of the strategy of `kind` of `group`, or `None` when the kind has no
/// status strategy written here.
fn meta_check(group: &str, kind: &str) -> Option<MetaCheck> {
    Some(match (group, kind) {
        (
            "",
            "PersistentVolume"
            | "Service"
            | "Pod"
            | "Namespace"
            | "Node"
            | "PersistentVolumeClaim"
            | "ResourceQuota"
            | "ReplicationController",
        )
        | ("apps", "Deployment" | "ReplicaSet" | "DaemonSet")
        | ("batch", "Job")
        | ("networking.k8s.io", "Ingress")
        | ("autoscaling", "HorizontalPodAutoscaler") => MetaCheck::Before,
        ("apps", "StatefulSet") => MetaCheck::After,
        ("apiextensions.k8s.io", "CustomResourceDefinition") => MetaCheck::BeforeWithoutFinalizers,
        // These strategies keep the stored metadata (or check none of it, as a CronJob's and a
        // budget's do): only the generic registry's two checks find anything.
        ("batch", "CronJob")
        | ("policy", "PodDisruptionBudget")
        | ("flowcontrol.apiserver.k8s.io", "FlowSchema" | "PriorityLevelConfiguration")
        | ("apiregistration.k8s.io", "APIService")
        | ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy")
        | ("networking.k8s.io", "ServiceCIDR")
        | ("resource.k8s.io", "ResourceClaim") => MetaCheck::None,
        _ => return None,
    })
}

/// Whether a status update of `kind` of `group` is validated by [`status_update`] instead of
/// as an update of the whole object.
pub fn validates_status_alone(group: &str, kind: &str) -> bool {
    meta_check(group, kind).is_some()
}

/// The metadata errors of the status strategy's own check (the core API's
/// `ValidateObjectMetaUpdate`): the labels, annotations and owner references, then the
/// finalizers without a domain that are not standard ones.
fn strategy_meta(object: &Value) -> Errors {
    let mut out = object_meta(object);
    out.extend(crate::support::meta::kube_finalizer_name_errors(object));
    out
}

/// The status's own errors (`old` is the stored object).
fn status_causes(group: &str, kind: &str, object: &Value, old: &Value) -> Errors {
    match (group, kind) {
        ("", "Service") => service::status(object),
        ("", "Pod") => status_core::pod(object, old),
        ("", "Namespace") => status_core::namespace(object),
        ("", "Node") => status_core::node(object),
        ("", "PersistentVolumeClaim") => status_core::persistent_volume_claim(object),
        ("", "ResourceQuota") => status_core::resource_quota(object),
        ("", "ReplicationController") | ("apps", "ReplicaSet") => status_apps::replica_set(object),
        ("apps", "Deployment") => status_apps::deployment(object, old),
        ("apps", "StatefulSet") => status_apps::stateful_set(object),
        ("apps", "DaemonSet") => status_apps::daemon_set(object, old),
        ("batch", "Job") => status_batch::job(object, old),
        ("policy", "PodDisruptionBudget") => status_policy::pod_disruption_budget(object),
        ("autoscaling", "HorizontalPodAutoscaler") => {
            status_policy::horizontal_pod_autoscaler(object)
        }
        ("networking.k8s.io", "Ingress") => status_networking::ingress(object),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema" | "PriorityLevelConfiguration") => {
            status_control_plane::flow_conditions(object)
        }
        ("apiregistration.k8s.io", "APIService") => status_control_plane::api_service(object),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy") => {
            status_control_plane::validating_admission_policy(object)
        }
        ("apiextensions.k8s.io", "CustomResourceDefinition") => {
            status_extensions::custom_resource_definition(object)
        }
        ("resource.k8s.io", "ResourceClaim") => status_resource::resource_claim(object, old),
        _ => Vec::new(),
    }
}

/// Every validation error of a status update of a kind [`validates_status_alone`] names
/// (`old` is the stored object), in the real server's order: the `generateName` as a path
/// segment's prefix, the metadata's errors twice
/// (the generic registry checks the object meta as it is, with its finalizer names and
/// their conflict, and as an update), the strategy's
/// own check of the metadata before or after the status's errors, or none.
pub fn status_update(group: &str, kind: &str, object: &Value, old: &Value) -> Errors {
    let check = meta_check(group, kind).unwrap_or(MetaCheck::None);
    let mut out = crate::support::meta::generate_name_update_errors(object);
    out.extend(crate::support::meta::validate_labels_and_annotations(
        object,
    ));
    out.extend(accessor_after_labels(object));
    out.extend(object_meta(object));
    match check {
        MetaCheck::Before => out.extend(strategy_meta(object)),
        MetaCheck::BeforeWithoutFinalizers => out.extend(object_meta(object)),
        MetaCheck::None | MetaCheck::After => {}
    }
    out.extend(status_causes(group, kind, object, old));
    if check == MetaCheck::After {
        out.extend(strategy_meta(object));
        out.extend(status_apps::collision_count_decremented(object, old));
    }
    out
}

/// What a status update changes before it is validated: the fields of features a v1.34
/// server has disabled are dropped (a Deployment's or ReplicaSet's `terminatingReplicas`); a
/// Pod's `podIP` and `podIPs` agree as the v1 conversion makes them agree (the single one
/// wins; host IPs are not converted but checked); a Node's allocatable amounts default to its
/// capacity; a ResourceClaim loses the fields of disabled features and the statuses of the
/// devices its stored status (`old`'s) allocated and it no longer does.
pub fn prepare_status_update(group: &str, kind: &str, object: &mut Value, old: &Value) {
    if (group, kind) == ("resource.k8s.io", "ResourceClaim")
        && let Some(status) = object.get_mut("status")
    {
        status_resource::drop_deallocated(status, &old["status"]);
    }
    let Some(status) = object.get_mut("status").and_then(Value::as_object_mut) else {
        return;
    };
    match (group, kind) {
        ("apps", "Deployment" | "ReplicaSet") => {
            status.remove("terminatingReplicas");
        }
        ("", "Pod") => agree_ips(status, "podIP", "podIPs"),
        ("resource.k8s.io", "ResourceClaim") => status_resource::drop_disabled(status),
        ("", "Node") => {
            if status.get("allocatable").is_none_or(Value::is_null)
                && let Some(capacity) = status.get("capacity").cloned()
            {
                status.insert("allocatable".into(), capacity);
            }
        }
        _ => {}
    }
}

/// A pod's `single` IP and its `list` of IPs made to agree: a single IP that is not the
/// first of the list replaces the list; the first of the list is the single IP.
fn agree_ips(status: &mut serde_json::Map<String, Value>, single: &str, list: &str) {
    let one = status
        .get(single)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let first = status
        .get(list)
        .and_then(|l| l[0]["ip"].as_str())
        .map(str::to_string);
    if !one.is_empty() && first.as_deref() != Some(one.as_str()) {
        status.insert(list.into(), serde_json::json!([{"ip": one}]));
    } else if one.is_empty()
        && let Some(first) = first
    {
        status.insert(single.into(), Value::String(first));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(group: &str, kind: &str, object: &Value, old: &Value) -> Vec<String> {
        status_update(group, kind, object, old)
            .into_iter()
            .map(|c| c.field)
            .collect()
    }

    #[test]
    fn metadata_three_times_then_the_status() {
        let svc = json!({"metadata": {"labels": {"bad key!": "v"}},
            "spec": {"type": "ClusterIP"},
            "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}});
        assert_eq!(
            fields("", "Service", &svc, &json!({})),
            [
                "metadata.labels",
                "metadata.labels",
                "metadata.labels",
                "status.loadBalancer.ingress"
            ]
        );
        let pv = json!({"metadata": {"annotations": {"Bad/x/y": "v"}},
            "spec": {"accessModes": ["Bogus"]}, "status": {"phase": "Bogus"}});
        assert_eq!(
            fields("", "PersistentVolume", &pv, &json!({})),
            ["metadata.annotations"; 3]
        );
        assert!(validates_status_alone("", "Service"));
        assert!(validates_status_alone("apps", "Deployment"));
        assert!(!validates_status_alone("apps", "ControllerRevision"));
    }

    #[test]
    fn each_strategy_checks_the_metadata_its_own_number_of_times() {
        let object = json!({"metadata": {"labels": {"bad key!": "v"}, "finalizers": ["bad"]},
            "status": {"replicas": -1}});
        let old = json!({"status": {}});
        let deployment = fields("apps", "Deployment", &object, &old);
        assert_eq!(
            deployment[..5],
            [
                "metadata.labels",
                "metadata.labels",
                "metadata.labels",
                "metadata.finalizers[0]",
                "status.replicas"
            ]
        );
        let stateful = fields("apps", "StatefulSet", &object, &old);
        assert_eq!(
            stateful[..3],
            ["metadata.labels", "metadata.labels", "status.replicas"]
        );
        assert_eq!(
            stateful[stateful.len() - 2..],
            ["metadata.labels", "metadata.finalizers[0]"]
        );
        assert_eq!(
            fields("batch", "CronJob", &object, &old),
            ["metadata.labels", "metadata.labels"]
        );
    }

    #[test]
    fn a_crd_checks_its_metadata_without_finalizer_names_and_a_claim_not_at_all() {
        let crd = json!({"metadata": {"labels": {"bad key!": "v"}, "finalizers": ["bad"]},
            "status": {"acceptedNames": {"plural": "Bad"}}});
        assert_eq!(
            fields(
                "apiextensions.k8s.io",
                "CustomResourceDefinition",
                &crd,
                &json!({})
            ),
            [
                "metadata.labels",
                "metadata.labels",
                "metadata.labels",
                "status.acceptedNames.plural"
            ]
        );
        let both = json!({"metadata": {"finalizers": ["orphan", "foregroundDeletion"]}});
        assert_eq!(
            fields("apps", "Deployment", &both, &json!({})),
            ["metadata.finalizers"]
        );
        let claim = json!({"metadata": {"finalizers": ["bad"]},
            "status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]}});
        assert_eq!(
            fields("resource.k8s.io", "ResourceClaim", &claim, &json!({})),
            ["status.reservedFor"]
        );
    }

    #[test]
    fn disabled_fields_are_dropped_and_defaults_set() {
        let mut d = json!({"status": {"replicas": 1, "terminatingReplicas": 2}});
        prepare_status_update("apps", "Deployment", &mut d, &Value::Null);
        assert_eq!(d, json!({"status": {"replicas": 1}}));
        let mut pod = json!({"status": {"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.2"}],
            "hostIPs": [{"ip": "10.1.0.1"}]}});
        prepare_status_update("", "Pod", &mut pod, &Value::Null);
        assert_eq!(
            pod,
            json!({"status": {"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}],
                "hostIPs": [{"ip": "10.1.0.1"}]}})
        );
        let mut listed = json!({"status": {"podIPs": [{"ip": "10.0.0.2"}]}});
        prepare_status_update("", "Pod", &mut listed, &Value::Null);
        assert_eq!(listed["status"]["podIP"], "10.0.0.2");
        let mut node = json!({"status": {"capacity": {"cpu": "1"}}});
        prepare_status_update("", "Node", &mut node, &Value::Null);
        assert_eq!(node["status"]["allocatable"], json!({"cpu": "1"}));
    }
}
