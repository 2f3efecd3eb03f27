//! Core group (`v1`) defaults: Pod, Service, Secret, Namespace, PersistentVolumeClaim,
//! Endpoints, PodTemplate, ReplicationController, Node and ServiceAccount.

use super::fields::{each_object, ensure_object, object_mut, set_default, set_default_str};
use super::pod::{pod_spec, pod_template, pvc_spec};
use serde_json::{Map, Value, json};

fn root(object: &mut Value) -> Option<&mut Map<String, Value>> {
    object.as_object_mut()
}

/// `SetDefaults_Pod` + `SetDefaults_PodSpec`: requests default to limits for containers and
/// init containers, `enableServiceLinks: true`, host ports mirror container ports on the host
/// network, then the PodSpec defaults.
pub fn pod(object: &mut Value) {
    let Some(o) = root(object) else { return };
    let Some(spec) = ensure_object(o, "spec") else {
        return;
    };
    for key in ["containers", "initContainers"] {
        for c in each_object(spec, key) {
            requests_from_limits(c);
        }
    }
    if let Some(res) = object_mut(spec, "resources") {
        copy_limits_to_requests(res);
    }
    set_default(spec, "enableServiceLinks", json!(true));
    if spec.get("hostNetwork").and_then(Value::as_bool) == Some(true) {
        for key in ["containers", "initContainers"] {
            for c in each_object(spec, key) {
                for p in each_object(c, "ports") {
                    let cp = p.get("containerPort").cloned().unwrap_or(Value::Null);
                    if p.get("hostPort")
                        .is_none_or(|h| h.is_null() || h.as_i64() == Some(0))
                        && !cp.is_null()
                    {
                        p.insert("hostPort".into(), cp);
                    }
                }
            }
        }
    }
    pod_spec(spec);
}

/// A container's `resources.requests` default to its `resources.limits`.
fn requests_from_limits(container: &mut Map<String, Value>) {
    if let Some(res) = object_mut(container, "resources") {
        copy_limits_to_requests(res);
    }
}

/// On one ResourceRequirements: every limit without a request becomes the request.
fn copy_limits_to_requests(res: &mut Map<String, Value>) {
    let Some(limits) = res.get("limits").and_then(Value::as_object).cloned() else {
        return;
    };
    if let Some(requests) = ensure_object(res, "requests") {
        for (k, v) in limits {
            requests.entry(k).or_insert(v);
        }
    }
}

/// A `PodTemplate` object: its `template` gets the pod template defaults.
pub fn pod_template_kind(object: &mut Value) {
    if let Some(o) = root(object) {
        pod_template(o, "template");
    }
}

/// `SetDefaults_ReplicationController`: selector and labels from the template's labels,
/// `replicas: 1`, then the template.
pub fn replication_controller(object: &mut Value) {
    let Some(o) = root(object) else { return };
    let Some(spec) = ensure_object(o, "spec") else {
        return;
    };
    let labels = spec
        .get("template")
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("labels"))
        .filter(|l| l.as_object().is_some_and(|m| !m.is_empty()))
        .cloned();
    if let Some(labels) = &labels
        && spec
            .get("selector")
            .is_none_or(|s| s.as_object().is_none_or(Map::is_empty))
    {
        spec.insert("selector".into(), labels.clone());
    }
    set_default(spec, "replicas", json!(1));
    pod_template(spec, "template");
    if let Some(labels) = labels
        && let Some(meta) = ensure_object(o, "metadata")
        && meta
            .get("labels")
            .is_none_or(|l| l.as_object().is_none_or(Map::is_empty))
    {
        meta.insert("labels".into(), labels);
    }
}

/// The status part of `SetDefaults_Service`: a LoadBalancer Service's ingress points with an
/// `ip` and no `ipMode` get `ipMode: VIP`. Only a status write keeps what its body says
/// there, and the type is the body's (a body without spec is a ClusterIP one), so the
/// status endpoint calls this on the body before taking its status.
pub fn service_status(object: &mut Value) {
    if object["spec"]["type"] != "LoadBalancer" {
        return;
    }
    let Some(ingress) = object["status"]["loadBalancer"]["ingress"].as_array_mut() else {
        return;
    };
    for item in ingress.iter_mut().filter_map(Value::as_object_mut) {
        let has_ip = item
            .get("ip")
            .and_then(Value::as_str)
            .is_some_and(|ip| !ip.is_empty());
        if has_ip && item.get("ipMode").is_none_or(Value::is_null) {
            item.insert("ipMode".into(), json!("VIP"));
        }
    }
}

/// `SetDefaults_Service`: `type: ClusterIP`, `sessionAffinity: None` (ClientIP gets a
/// 10800 s timeout), ports `protocol: TCP` and `targetPort` = `port`, `externalTrafficPolicy:
/// Cluster` for NodePort/LoadBalancer and a ClusterIP with external IPs,
/// `internalTrafficPolicy: Cluster`,
/// `allocateLoadBalancerNodePorts: true` for LoadBalancer.
///
/// The IP family fields (`ipFamilyPolicy`, `ipFamilies`, `clusterIPs` mirrored from a set
/// `clusterIP`), cluster IPs and node ports are filled in by the service registry after the
/// field manager (`registry::allocate::service`), not here.
pub fn service(object: &mut Value) {
    let Some(o) = root(object) else { return };
    let Some(spec) = ensure_object(o, "spec") else {
        return;
    };
    set_default_str(spec, "sessionAffinity", "None");
    match spec.get("sessionAffinity").and_then(Value::as_str) {
        Some("None") => {
            spec.remove("sessionAffinityConfig");
        }
        Some("ClientIP") => {
            if let Some(cfg) = ensure_object(spec, "sessionAffinityConfig")
                && let Some(ip) = ensure_object(cfg, "clientIP")
            {
                set_default(ip, "timeoutSeconds", json!(10800));
            }
        }
        _ => {}
    }
    set_default_str(spec, "type", "ClusterIP");
    for p in each_object(spec, "ports") {
        set_default_str(p, "protocol", "TCP");
        let unset = p
            .get("targetPort")
            .is_none_or(|t| t.is_null() || t.as_i64() == Some(0) || t.as_str() == Some(""));
        if unset && let Some(port) = p.get("port").cloned() {
            p.insert("targetPort".into(), port);
        }
    }
    let ty = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let external_ips = spec
        .get("externalIPs")
        .and_then(Value::as_array)
        .is_some_and(|ips| !ips.is_empty());
    // Go's `ExternallyAccessible`: a ClusterIP Service with external IPs is one too.
    if matches!(ty.as_str(), "NodePort" | "LoadBalancer") || (ty == "ClusterIP" && external_ips) {
        set_default_str(spec, "externalTrafficPolicy", "Cluster");
    }
    if matches!(ty.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
        set_default(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if ty == "LoadBalancer" {
        set_default(spec, "allocateLoadBalancerNodePorts", json!(true));
    }
}

/// `SetDefaults_Secret`: `type: Opaque`; and, as the v1 conversion does on every write, the
/// write-only `stringData` is folded into `data` (base64, overriding keys of `data`) and
/// dropped.
pub fn secret(object: &mut Value) {
    let Some(o) = root(object) else { return };
    set_default_str(o, "type", "Opaque");
    if let Some(Value::Object(string_data)) = o.remove("stringData")
        && let Some(data) = ensure_object(o, "data")
    {
        for (k, v) in string_data {
            let text = v.as_str().unwrap_or_default();
            data.insert(k, Value::from(base64(text.as_bytes())));
        }
    }
}

/// Standard base64 with padding, as Go encodes `[]byte` fields.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Namespace: the `kubernetes.io/metadata.name` label (`SetDefaults_Namespace`),
/// `spec.finalizers: [kubernetes]` and `status.phase: Active` (what the namespace strategy
/// and `SetDefaults_NamespaceStatus` store on create).
pub fn namespace(object: &mut Value) {
    let Some(o) = root(object) else { return };
    if let Some(meta) = ensure_object(o, "metadata") {
        let name = meta.get("name").and_then(Value::as_str).map(str::to_string);
        if let Some(name) = name
            && !name.is_empty()
            && let Some(labels) = ensure_object(meta, "labels")
        {
            labels.insert("kubernetes.io/metadata.name".into(), Value::from(name));
        }
    }
    if let Some(status) = ensure_object(o, "status") {
        set_default_str(status, "phase", "Active");
    }
}

/// PersistentVolumeClaim: `spec.volumeMode: Filesystem`, `status.phase: Pending`.
pub fn persistent_volume_claim(object: &mut Value) {
    if let Some(o) = root(object) {
        pvc(o);
    }
}

/// PersistentVolume (`SetDefaults_PersistentVolume`): `persistentVolumeReclaimPolicy: Retain`,
/// `volumeMode: Filesystem`, `status.phase: Pending`, and the defaults of its volume source
/// (hostPath `type: ""`, iSCSI interface, RBD pool, user and keyring, Azure disk caching,
/// file system, read-only and kind, ScaleIO storage mode and file system).
pub fn persistent_volume(object: &mut Value) {
    let Some(o) = root(object) else { return };
    if let Some(spec) = ensure_object(o, "spec") {
        set_default_str(spec, "persistentVolumeReclaimPolicy", "Retain");
        set_default(spec, "volumeMode", json!("Filesystem"));
        if let Some(h) = object_mut(spec, "hostPath") {
            set_default(h, "type", json!(""));
        }
        if let Some(i) = object_mut(spec, "iscsi") {
            set_default_str(i, "iscsiInterface", "default");
        }
        if let Some(r) = object_mut(spec, "rbd") {
            set_default_str(r, "pool", "rbd");
            set_default_str(r, "user", "admin");
            set_default_str(r, "keyring", "/etc/ceph/keyring");
        }
        if let Some(d) = object_mut(spec, "azureDisk") {
            set_default(d, "cachingMode", json!("ReadWrite"));
            set_default(d, "fsType", json!("ext4"));
            set_default(d, "readOnly", json!(false));
            set_default(d, "kind", json!("Shared"));
        }
        if let Some(s) = object_mut(spec, "scaleIO") {
            set_default_str(s, "storageMode", "ThinProvisioned");
            set_default_str(s, "fsType", "xfs");
        }
    }
    if let Some(status) = ensure_object(o, "status") {
        set_default_str(status, "phase", "Pending");
    }
}

/// The PVC defaults on one claim object (also used for StatefulSet volume claim templates).
pub fn pvc(o: &mut Map<String, Value>) {
    if let Some(spec) = ensure_object(o, "spec") {
        pvc_spec(spec);
    }
    if let Some(status) = ensure_object(o, "status") {
        set_default_str(status, "phase", "Pending");
    }
}

/// Endpoints: every subset port gets `protocol: TCP`.
pub fn endpoints(object: &mut Value) {
    let Some(o) = root(object) else { return };
    for subset in each_object(o, "subsets") {
        for p in each_object(subset, "ports") {
            set_default_str(p, "protocol", "TCP");
        }
    }
}

/// Node: the v1 conversion keeps `spec.podCIDR` and `spec.podCIDRs` in agreement (a
/// `podCIDR` that is not the list's first replaces the list; the first of the list is the
/// `podCIDR`); `SetDefaults_NodeStatus` makes the allocatable amounts the capacity when they
/// are unset. (The strategy drops `spec.configSource` after the field manager has seen it: see
/// the admission plugins.)
pub fn node(object: &mut Value) {
    let Some(o) = root(object) else { return };
    if let Some(spec) = object_mut(o, "spec") {
        let single = spec
            .get("podCIDR")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let first = spec
            .get("podCIDRs")
            .and_then(|l| l.get(0))
            .and_then(Value::as_str)
            .map(str::to_string);
        if !single.is_empty() && first.as_deref() != Some(single.as_str()) {
            spec.insert("podCIDRs".into(), json!([single]));
        } else if single.is_empty()
            && let Some(first) = first
        {
            spec.insert("podCIDR".into(), Value::String(first));
        }
    }
    if let Some(status) = object_mut(o, "status")
        && status.get("allocatable").is_none_or(Value::is_null)
        && let Some(capacity) = status.get("capacity").filter(|c| !c.is_null()).cloned()
    {
        status.insert("allocatable".into(), capacity);
    }
}

/// ServiceAccount: its strategy keeps only the name of each secret it references.
pub fn service_account(object: &mut Value) {
    let Some(o) = root(object) else { return };
    for secret in each_object(o, "secrets") {
        secret.retain(|key, _| key == "name");
    }
}

/// LimitRange (`SetDefaults_LimitRangeItem`): in a `Container` item, the default limit of a
/// resource is its `max`, its default request the default limit, else its `min`.
pub fn limit_range(object: &mut Value) {
    let Some(o) = root(object) else { return };
    let Some(spec) = object_mut(o, "spec") else {
        return;
    };
    for item in each_object(spec, "limits") {
        if item.get("type").and_then(Value::as_str) != Some("Container") {
            continue;
        }
        let read = |item: &Map<String, Value>, key: &str| {
            item.get(key)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let mut default = read(item, "default");
        for (k, v) in read(item, "max") {
            default.entry(k).or_insert(v);
        }
        let mut request = read(item, "defaultRequest");
        for (k, v) in default.iter().chain(read(item, "min").iter()) {
            request.entry(k.clone()).or_insert(v.clone());
        }
        for (key, list) in [("default", default), ("defaultRequest", request)] {
            if !list.is_empty() {
                item.insert(key.into(), Value::Object(list));
            }
        }
    }
}
