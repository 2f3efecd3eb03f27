//! kube-apiserver's validation of the built-in kinds (`pkg/apis/*/validation`), after
//! defaulting: the same field paths, messages and reasons, every error of a request at
//! once, in the order the real server finds them.
//!
//! One module per kind family: [`config`] (ConfigMaps, Secrets), [`service`], [`pod`]
//! (pod specs, shared by the workload templates; [`pod_update`] what a Pod update may
//! change, printing the internal spec of [`pod_go`]), [`workloads`] (with [`cron`] for
//! schedules and time zones, and PodTemplates), [`storage`] (StorageClasses,
//! PersistentVolumes and their claims, with [`pv_update`] for a volume's update and
//! [`pv_go`] for the Go values its errors print), [`attachment`] (VolumeAttachments),
//! [`csi`] (CSIDrivers, CSINodes, storage capacities, volume attributes classes),
//! [`networking`] (NetworkPolicies, IngressClasses),
//! [`policy`] (PodDisruptionBudgets), [`rbac`], [`quota`] (LimitRanges, ResourceQuotas),
//! [`certificates`], [`autoscaling`]; [`go_diff`] prints the Go values an error shows
//! as a diff, [`go_struct`] reads a v1 value as the internal Go struct a table describes; [`meta`] checks the metadata every kind has; [`base64`] the `[]byte` fields
//! the real server's decoder refuses before validation; [`typed`] the Go types a
//! strategic merge patch's result must decode into.

mod admission_binding;
pub mod admission_policy_spec;
mod apiservice;
mod apparmor;
mod apps;
mod attachment;
mod autoscaling;
mod base64;
mod certificates;
mod claim_data_source;
mod config;
mod cron;
mod csi;
mod csr;
mod csr_signature;
mod device_class;
mod ec_private_key;
mod empty_lists;
mod endpoint_slice;
mod endpoints;
pub mod errors;
mod flowcontrol;
mod go_diff;
mod go_shape;
mod go_struct;
mod hpa_metrics;
mod ingress;
mod internal_type;
mod ip_address;
mod job_go;
mod job_spec;
mod label_selector;
mod meta;
mod ml_dsa;
mod ml_dsa_ring;
mod ml_dsa_verify;
mod natural;
mod networking;
mod node;
mod node_annotations;
mod node_selector;
mod pem;
mod pod;
mod pod_annotations;
mod pod_container;
mod pod_dns;
mod pod_go;
mod pod_os;
mod pod_scheduling;
mod pod_security_context;
mod pod_update;
mod pod_volume_files;
mod pod_volume_sources;
mod policy;
mod priority_class;
mod private_key;
mod pv_go;
mod pv_source;
mod pv_update;
mod quota;
mod rbac;
pub mod resource;
mod resource_claim;
mod resource_cost;
mod resource_go;
mod resource_slice;
mod resources;
mod review;
mod rsa_private_key;
mod runtime_class;
mod secret_tls;
mod security_context;
mod service;
mod service_cidr;
mod service_fields;
mod shake;
mod special_ip;
mod status;
mod status_apps;
mod status_batch;
mod status_control_plane;
mod status_core;
mod status_extensions;
mod status_networking;
mod status_policy;
mod status_resource;
mod storage;
mod strict;
mod toleration_annotation;
mod tolerations;
mod topology_terms;
mod typed;
mod unknown;
mod warnings;
mod workloads;
mod x509_certificate;
mod x509_extensions;
mod x509_name_constraints;

use serde_json::Value;

pub use admission_binding::rule_with_operations;
pub use empty_lists::EmptyLists;
pub use errors::Errors;
pub use go_shape::{omit_empty_collections, write_zero_values};
pub use internal_type::internal_decoding;
pub use pod_update::{after_own_errors as pod_update_after_own_errors, pod_update};
pub use review::{access_review_errors, selector_evaluation_error};
pub use status::{prepare_status_update, status_update, validates_status_alone};
pub use strict::{strict_errors, unknown_fields_sorted};
pub use typed::{decode_error, patch_invalid, patch_strict_invalid, patch_type_error};
pub use unknown::drop_unknown_fields;
pub use warnings::{before_validation as warnings_before_validation, warnings};

/// A Service's `clusterIP` and `clusterIPs` agree (see [`service::cluster_ips`]).
pub fn service_cluster_ips(object: &Value) -> Errors {
    service::cluster_ips(object)
}

/// The warnings of a Service's status update (see [`service::status_warnings`]).
pub fn service_status_warnings(object: &Value) -> Vec<String> {
    service::status_warnings(object)
}

/// A `*core.ObjectReference` as a field error prints it (Go field names in declaration
/// order, `null` when absent).
pub fn go_object_reference(value: &Value) -> String {
    go_diff::marshal(&pv_go::object_reference(value))
}

/// The metadata checks the real server makes for every kind, after the labels and
/// annotations: owner references, the finalizer names, then the `orphan` and
/// `foregroundDeletion` finalizers together (once; see [`validate`] for what a built-in
/// kind adds, and how often its update repeats them).
pub fn metadata(object: &Value) -> Errors {
    meta::accessor_after_labels(object)
}

/// The metadata errors an update's check of the object meta reports (labels, annotations,
/// owner references): the generic registry's and a custom resource's or CRD's strategy each
/// report them once more after [`metadata`].
pub fn metadata_update(object: &Value) -> Errors {
    meta::object_meta(object)
}

/// The 400 message of a built-in object whose `[]byte` fields are not base64 (a Secret's
/// `data`, a ConfigMap's `binaryData`, a CertificateSigningRequest's `spec.request`), which
/// the real server cannot decode.
pub fn undecodable(group: &str, kind: &str, object: &Value) -> Option<String> {
    match (group, kind) {
        ("", "Secret") => base64::undecodable(kind, object, "data"),
        ("", "ConfigMap") => base64::undecodable(kind, object, "binaryData"),
        ("certificates.k8s.io", "CertificateSigningRequest") => {
            base64::undecodable_value(kind, &object["spec"]["request"])
        }
        _ => None,
    }
}

/// The checks of an update that come between the metadata's checks as an update and the
/// object's own: an immutable ConfigMap's or Secret's contents, a DaemonSet's selector
/// (`ValidateDaemonSetSpecUpdate`), an IngressClass's controller and a ResourceQuota's scopes
/// may not change, a Service keeps its primary cluster IP and family.
fn update_before_spec(group: &str, kind: &str, object: &Value, old: &Value) -> Errors {
    match (group, kind) {
        ("", "ConfigMap") => config::immutable_update(object, old, &["data", "binaryData"]),
        ("", "Secret") => config::secret_update(object, old),
        ("apps", "DaemonSet") => workloads::selector_update(object, old),
        ("networking.k8s.io", "IngressClass") => networking::ingress_class_update(object, old),
        ("", "Service") => service::update(object, old),
        ("", "ResourceQuota") => quota::resource_quota_update(object, old),
        _ => Vec::new(),
    }
}

/// The checks of an update after the object's own: the selector of a Deployment or
/// ReplicaSet may not change (their strategies check it last), a StatefulSet's spec
/// changes only in the fields the real server lets change, a binding keeps its role, a
/// claim its spec; a NetworkPolicy's spec is checked a second time.
fn update_after_spec(group: &str, kind: &str, object: &Value, old: &Value) -> Errors {
    match (group, kind) {
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => {
            rbac::role_binding_update(object, old)
        }
        ("", "PersistentVolume") => pv_update::persistent_volume_update(object, old),
        ("", "Node") => node::node_update(object, old),
        ("", "PersistentVolumeClaim") => storage::persistent_volume_claim_update(object, old),
        ("storage.k8s.io", "StorageClass") => storage::storage_class_update(object, old),
        ("storage.k8s.io", "VolumeAttachment") => attachment::volume_attachment_update(object, old),
        ("storage.k8s.io", "CSIDriver") => csi::csi_driver_update(object, old),
        ("storage.k8s.io", "CSINode") => csi::csi_node_update(object, old),
        ("storage.k8s.io", "CSIStorageCapacity") => csi::csi_storage_capacity_update(object, old),
        ("storage.k8s.io", "VolumeAttributesClass") => {
            csi::volume_attributes_class_update(object, old)
        }
        // The strategy validates the policy on its own, then as an update: every error of
        // its spec is reported twice.
        ("networking.k8s.io", "NetworkPolicy") => networking::network_policy(object),
        ("apps", "Deployment" | "ReplicaSet") => workloads::selector_update(object, old),
        ("apps", "StatefulSet") => workloads::stateful_set_update(object, old),
        // The strategy validates the Job, then the update, which validates its spec again.
        ("batch", "Job") => {
            let mut out = workloads::job_spec_of(object, true);
            out.extend(job_spec::job_update(object, old));
            out
        }
        ("networking.k8s.io", "IPAddress") => ip_address::ip_address_update(object, old),
        ("resource.k8s.io", "ResourceSlice") => resource_slice::update_after_pool(object, old),
        ("node.k8s.io", "RuntimeClass") => runtime_class::runtime_class_update(object, old),
        ("discovery.k8s.io", "EndpointSlice") => endpoint_slice::endpoint_slice_update(object, old),
        ("resource.k8s.io", "DeviceClass") => device_class::device_class_update(object, old),
        ("networking.k8s.io", "ServiceCIDR") => service_cidr::service_cidr_update(object, old),
        ("scheduling.k8s.io", "PriorityClass") => {
            priority_class::priority_class_update(object, old)
        }
        // The strategy validates the controller, then the update, which validates its spec
        // again: every error of its spec is reported twice.
        ("", "ReplicationController") => workloads::replication_controller(object),
        ("resource.k8s.io", "ResourceClaim") => resource_claim::claim_update(object, old),
        ("resource.k8s.io", "ResourceClaimTemplate") => {
            resource_claim::template_update(object, old)
        }
        _ => Vec::new(),
    }
}

/// The checks of a create after the object's own: a v1 VolumeAttachment's attacher and
/// volume name (`ValidateVolumeAttachmentV1`), a Pod's AppArmor annotations and fields.
fn create_after_spec(group: &str, kind: &str, object: &Value) -> Errors {
    match (group, kind) {
        ("storage.k8s.io", "VolumeAttachment") => attachment::volume_attachment_create(object),
        ("resource.k8s.io", "ResourceSlice") => resource_slice::placement_and_devices(object),
        ("", "Pod") => pod_annotations::pod_create(object),
        ("networking.k8s.io", "Ingress") => ingress::ingress_create(object),
        ("discovery.k8s.io", "EndpointSlice") => endpoint_slice::endpoint_slice(object),
        ("networking.k8s.io", "ServiceCIDR") => service_cidr::service_cidr(object),
        ("scheduling.k8s.io", "PriorityClass") => priority_class::priority_class(object),
        _ => Vec::new(),
    }
}

/// The kind's own checks of a defaulted object (`updating` on an update).
fn object_causes(group: &str, kind: &str, object: &Value, updating: bool) -> Errors {
    match (group, kind) {
        ("", "ConfigMap") => config::config_map(object),
        ("", "Secret") => config::secret(object),
        ("", "Service") => service::service(object),
        ("", "Node") => node::node(object),
        ("", "Endpoints") => endpoints::endpoints(object),
        ("", "Pod") => pod::pod(object),
        ("", "ReplicationController") => workloads::replication_controller(object),
        ("apps", "Deployment") => apps::deployment(object),
        ("apps", "ReplicaSet") => apps::replica_set(object),
        ("apps", "StatefulSet") => apps::stateful_set(object, updating),
        ("apps", "DaemonSet") => apps::daemon_set(object),
        ("batch", "Job") => workloads::job(object, updating),
        ("batch", "CronJob") => workloads::cron_job(object),
        ("", "PodTemplate") => workloads::pod_template(object),
        ("", "LimitRange") => quota::limit_range(object),
        ("", "ResourceQuota") => quota::resource_quota(object),
        ("", "PersistentVolume") => storage::persistent_volume(object),
        ("", "PersistentVolumeClaim") => storage::persistent_volume_claim(object),
        ("storage.k8s.io", "StorageClass") => storage::storage_class(object),
        ("storage.k8s.io", "VolumeAttachment") => attachment::volume_attachment(object),
        ("storage.k8s.io", "CSIDriver") => csi::csi_driver_spec(object),
        ("storage.k8s.io", "CSINode") => csi::csi_node(object),
        ("storage.k8s.io", "CSIStorageCapacity") => csi::csi_storage_capacity(object),
        ("storage.k8s.io", "VolumeAttributesClass") => csi::volume_attributes_class(object),
        ("networking.k8s.io", "NetworkPolicy") => networking::network_policy(object),
        ("networking.k8s.io", "IngressClass") => networking::ingress_class(object),
        ("networking.k8s.io", "IPAddress") => ip_address::ip_address(object),
        ("networking.k8s.io", "Ingress") => ingress::ingress(object),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration") => {
            flowcontrol::priority_level(object)
        }
        ("flowcontrol.apiserver.k8s.io", "FlowSchema") => flowcontrol::flow_schema(object),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding") => {
            admission_binding::binding(object)
        }
        ("apiregistration.k8s.io", "APIService") => apiservice::api_service(object),
        ("policy", "PodDisruptionBudget") => policy::pod_disruption_budget(object),
        ("rbac.authorization.k8s.io", "Role") => rbac::role(object, true),
        ("rbac.authorization.k8s.io", "ClusterRole") => rbac::role(object, false),
        ("rbac.authorization.k8s.io", "RoleBinding") => rbac::role_binding(object, true),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => rbac::role_binding(object, false),
        ("certificates.k8s.io", "CertificateSigningRequest") => {
            certificates::certificate_signing_request(object)
        }
        ("autoscaling", "HorizontalPodAutoscaler") => {
            autoscaling::horizontal_pod_autoscaler(object)
        }
        ("resource.k8s.io", "ResourceClaim") => resource_claim::claim_spec("spec", &object["spec"]),
        ("resource.k8s.io", "ResourceClaimTemplate") => resource_claim::template(object),
        ("resource.k8s.io", "ResourceSlice") => resource_slice::driver_and_pool(object),
        ("node.k8s.io", "RuntimeClass") => runtime_class::runtime_class(object),
        ("resource.k8s.io", "DeviceClass") => device_class::device_class(object),
        _ => Vec::new(),
    }
}

/// Every validation error of a built-in object (`old` is the stored object on updates),
/// given the errors of the generic registry's check of its metadata (`meta`: the labels and
/// annotations, then [`metadata`]'s), in the real server's order: on a create, the kind's
/// own validation of the object meta is that check; an update adds the generic check as an
/// update and each of the kind's own (see [`meta::update_rest`]).
pub fn validate(
    group: &str,
    kind: &str,
    object: &Value,
    old: Option<&Value>,
    meta: Errors,
) -> Errors {
    let Some(old) = old else {
        let mut out = meta;
        out.extend(meta::create_rest(group, kind, object));
        out.extend(object_causes(group, kind, object, false));
        out.extend(create_after_spec(group, kind, object));
        if out.is_empty() {
            out = crate::support::meta::unchecked_name_causes(group, kind, object);
        }
        return out;
    };
    let rest = meta::update_rest(group, kind, object);
    let mut out = meta;
    out.extend(rest.before);
    out.extend(update_before_spec(group, kind, object, old));
    out.extend(rest.with_object);
    out.extend(object_causes(group, kind, object, true));
    if validates_again(group, kind) {
        let mut after = rest.after;
        let later = after.split_off(rest.again_end.min(after.len()));
        out.extend(after);
        out.extend(object_causes(group, kind, object, true));
        out.extend(later);
    } else {
        out.extend(rest.after);
    }
    out.extend(update_after_spec(group, kind, object, old));
    out
}

/// Whether an update of `kind` validates the whole new object a second time, as a new one
/// (`ValidateRoleBindingUpdate` calls `ValidateRoleBinding`, `ValidatePersistentVolumeClaimUpdate`
/// `ValidatePersistentVolumeClaim`, after the strategy's own call): its errors are then
/// reported twice, the second time after the metadata's second check.
fn validates_again(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        ("rbac.authorization.k8s.io", _) | ("", "PersistentVolumeClaim")
    )
}
