//! The real apiserver's defaulting (`SetDefaults_*` in `k8s.io/kubernetes/pkg/apis/*/v1`) for
//! the built-in kinds operators create most, over `serde_json::Value`.
//!
//! Operators that compare the object they want with the object the server returns loop
//! forever when a test server lacks these defaults, so they are exact: same fields, same
//! values, set only when absent (a JSON `null` counts as absent, as it does when Go decodes
//! into a typed struct). One file per API group:
//! - [`core`] covers Pod, Service, Secret (with `stringData` folded into `data`), Namespace,
//!   PersistentVolumeClaim, Endpoints, PodTemplate,
//!   ReplicationController, Node (its pod CIDRs and allocatable amounts), ServiceAccount (its
//!   secret references);
//! - [`pod`] covers PodSpec and everything in it (containers, probes, volumes, env), used by every
//!   kind that carries a pod template;
//! - [`autoscaling`] covers HorizontalPodAutoscaler (`autoscaling/v2`);
//! - [`apps`] covers Deployment, StatefulSet, DaemonSet, ReplicaSet;
//! - [`batch`] covers Job, CronJob;
//! - [`rbac`] covers RoleBinding, ClusterRoleBinding;
//! - [`networking`] covers NetworkPolicy and IngressClass;
//! - [`cluster`] covers EndpointSlice, ResourceClaim(Template), PriorityLevelConfiguration;
//! - [`admissionregistration`] covers Validating/MutatingWebhookConfiguration;
//! - [`storage`] covers StorageClass and CSIDriver;
//! - PriorityClass (`preemptionPolicy`) is defaulted inline below.
//!
//! What is *not* defaulting and therefore left to the server: allocating `clusterIP`,
//! `clusterIPs` and node ports of Services, admission plugins (the `default` service account
//! and its token volume, `priority`, default tolerations), Job selector/label generation and
//! status reset on create ([`initial_status`] gives the shape the server stores, and
//! [`pod_status::pod_status_on_create`] a new Pod's `phase` and `qosClass`).

pub mod admissionregistration;
pub mod apps;
pub mod autoscaling;
pub mod batch;
pub mod cluster;
pub mod core;
mod fields;
pub mod networking;
pub mod pod;
pub mod pod_status;
pub mod rbac;
pub mod storage;

use serde_json::Value;

use fields::set_default;

/// Applies the real apiserver's defaults for `group`/`version`/`kind` to `object` in place.
///
/// `group` is `""` for the core group. Unknown kinds (including custom resources) are left
/// untouched: their defaulting comes from their CRD schema (`schema::apply_defaults`).
pub fn apply_builtin_defaults(group: &str, version: &str, kind: &str, object: &mut Value) {
    if !object.is_object() {
        return;
    }
    // autoscaling/v1 objects reach defaulting in their stored (v2) form.
    if group == "autoscaling" && matches!(version, "v1" | "v2") && kind == "HorizontalPodAutoscaler"
    {
        autoscaling::horizontal_pod_autoscaler(object);
        return;
    }
    if version != "v1" {
        return;
    }
    match (group, kind) {
        ("", "Pod") => core::pod(object),
        ("", "PodTemplate") => core::pod_template_kind(object),
        ("", "ReplicationController") => core::replication_controller(object),
        ("", "Service") => core::service(object),
        ("", "Secret") => core::secret(object),
        ("", "Namespace") => core::namespace(object),
        ("", "PersistentVolumeClaim") => core::persistent_volume_claim(object),
        ("", "Endpoints") => core::endpoints(object),
        ("", "Node") => core::node(object),
        ("", "ServiceAccount") => core::service_account(object),
        ("", "LimitRange") => core::limit_range(object),
        ("apps", "Deployment") => apps::deployment(object),
        ("apps", "StatefulSet") => apps::stateful_set(object),
        ("apps", "DaemonSet") => apps::daemon_set(object),
        ("apps", "ReplicaSet") => apps::replica_set(object),
        ("batch", "Job") => batch::job(object),
        ("discovery.k8s.io", "EndpointSlice") => cluster::endpoint_slice(object),
        ("resource.k8s.io", "ResourceClaim") => cluster::resource_claim(object),
        ("resource.k8s.io", "ResourceClaimTemplate") => cluster::resource_claim_template(object),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration") => {
            cluster::priority_level(object);
        }
        ("flowcontrol.apiserver.k8s.io", "FlowSchema") => cluster::flow_schema(object),
        ("apiregistration.k8s.io", "APIService") => cluster::api_service(object),
        ("batch", "CronJob") => batch::cron_job(object),
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => {
            rbac::role_binding(object);
        }
        ("networking.k8s.io", "NetworkPolicy") => networking::network_policy(object),
        ("networking.k8s.io", "IngressClass") => networking::ingress_class(object),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration") => {
            admissionregistration::webhook_configuration(object, false);
        }
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration") => {
            admissionregistration::webhook_configuration(object, true);
        }
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy") => {
            admissionregistration::validating_admission_policy(object);
        }
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding") => {
            admissionregistration::validating_admission_policy_binding(object);
        }
        ("", "PersistentVolume") => core::persistent_volume(object),
        ("scheduling.k8s.io", "PriorityClass") => {
            if let Some(o) = object.as_object_mut() {
                set_default(
                    o,
                    "preemptionPolicy",
                    serde_json::json!("PreemptLowerPriority"),
                );
            }
        }
        ("storage.k8s.io", "StorageClass") => storage::storage_class(object),
        ("storage.k8s.io", "CSIDriver") => storage::csi_driver(object),
        _ => {}
    }
}

/// The `status` the real server stores for a newly created object of a built-in kind: the
/// zero value of the kind's status struct as Go serializes it (non-`omitempty` counters
/// appear as `0`), which the server returns on create because create resets status.
///
/// `None` for kinds without a status or without a fixed initial shape (Pods get theirs
/// from the scheduler/kubelet path; custom resources keep what the status subresource allows).
pub fn initial_status(group: &str, version: &str, kind: &str) -> Option<Value> {
    if version != "v1" {
        return None;
    }
    let v = match (group, kind) {
        ("apps", "Deployment")
        | ("batch", "Job" | "CronJob")
        | ("flowcontrol.apiserver.k8s.io", "FlowSchema" | "PriorityLevelConfiguration")
        | ("resource.k8s.io", "ResourceClaim") => serde_json::json!({}),
        ("apps", "StatefulSet") => serde_json::json!({"replicas": 0, "availableReplicas": 0}),
        ("apps", "ReplicaSet") => serde_json::json!({"replicas": 0}),
        ("", "ReplicationController") => serde_json::json!({"replicas": 0}),
        ("apps", "DaemonSet") => serde_json::json!({
            "currentNumberScheduled": 0,
            "numberMisscheduled": 0,
            "desiredNumberScheduled": 0,
            "numberReady": 0,
        }),
        ("", "Service") => serde_json::json!({"loadBalancer": {}}),
        ("", "Namespace") => serde_json::json!({"phase": "Active"}),
        ("", "PersistentVolumeClaim") => serde_json::json!({"phase": "Pending"}),
        // The PersistentVolume strategy records when the volume entered its phase.
        ("", "PersistentVolume") => serde_json::json!({
            "phase": "Pending",
            "lastPhaseTransitionTime": crate::support::meta::now(),
        }),
        _ => return None,
    };
    Some(v)
}

#[cfg(test)]
mod tests;
