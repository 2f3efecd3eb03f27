//! Defaults for `PodSpec` and everything inside it, shared by Pods and every pod template
//! (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, ...).

use super::fields::{
    each_object, ensure_object, is_unset, object_mut, set_default, set_default_nonzero,
    set_default_str,
};
use serde_json::{Map, Value, json};

/// Defaults a `PodTemplateSpec` (the value under `spec.template`). The template and its
/// `spec` are plain structs in Go, so the spec defaults apply even when they are absent.
pub fn pod_template(parent: &mut Map<String, Value>, key: &str) {
    if let Some(tpl) = ensure_object(parent, key)
        && let Some(spec) = ensure_object(tpl, "spec")
    {
        pod_spec(spec);
    }
}

/// `SetDefaults_PodSpec` plus the defaults of everything a PodSpec holds.
pub fn pod_spec(spec: &mut Map<String, Value>) {
    set_default_str(spec, "dnsPolicy", "ClusterFirst");
    set_default_str(spec, "restartPolicy", "Always");
    set_default(spec, "securityContext", json!({}));
    set_default(spec, "terminationGracePeriodSeconds", json!(30));
    set_default_str(spec, "schedulerName", "default-scheduler");
    // v1 conversion keeps the deprecated `serviceAccount` and `serviceAccountName` in step.
    let sa_name = spec
        .get("serviceAccountName")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let sa = spec
        .get("serviceAccount")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    match (sa_name, sa) {
        (Some(n), None) => {
            spec.insert("serviceAccount".into(), Value::from(n));
        }
        (None, Some(s)) => {
            spec.insert("serviceAccountName".into(), Value::from(s));
        }
        _ => {}
    }
    for key in ["containers", "initContainers", "ephemeralContainers"] {
        for c in each_object(spec, key) {
            container(c);
        }
    }
    for v in each_object(spec, "volumes") {
        volume(v);
    }
}

/// `SetDefaults_Container` (also used for init and ephemeral containers): image pull policy
/// by tag, termination message path and policy, port protocols, probes, lifecycle handlers,
/// env field references, and `resources: {}` (a plain struct Go always serializes).
pub fn container(c: &mut Map<String, Value>) {
    if c.get("imagePullPolicy")
        .is_none_or(|v| v.is_null() || v.as_str() == Some(""))
    {
        let image = c.get("image").and_then(Value::as_str).unwrap_or("");
        let policy = if image_tag(image).as_deref() == Some("latest") {
            "Always"
        } else {
            "IfNotPresent"
        };
        c.insert("imagePullPolicy".into(), Value::from(policy));
    }
    set_default_str(c, "terminationMessagePath", "/dev/termination-log");
    set_default_str(c, "terminationMessagePolicy", "File");
    set_default(c, "resources", json!({}));
    for p in each_object(c, "ports") {
        set_default_str(p, "protocol", "TCP");
    }
    for key in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = object_mut(c, key) {
            probe(p);
        }
    }
    if let Some(lifecycle) = object_mut(c, "lifecycle") {
        for key in ["postStart", "preStop"] {
            if let Some(h) = object_mut(lifecycle, key)
                && let Some(get) = object_mut(h, "httpGet")
            {
                http_get(get);
            }
        }
    }
    for e in each_object(c, "env") {
        if let Some(from) = object_mut(e, "valueFrom") {
            field_refs(from);
        }
    }
}

/// The tag `ParseImageName` finds: `latest` when the reference has neither tag nor digest,
/// `None` when it has only a digest or does not parse (both mean `IfNotPresent`).
pub fn image_tag(image: &str) -> Option<String> {
    if image.is_empty() || image.chars().any(char::is_whitespace) {
        return None;
    }
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let (repo, tag) = match name[last_slash..].rfind(':') {
        Some(i) => (&name[..last_slash + i], Some(&name[last_slash + i + 1..])),
        None => (name, None),
    };
    // The repository path (everything after an optional registry host) must be lower case.
    let path = match repo.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first != first.to_lowercase() =>
        {
            rest
        }
        _ => repo,
    };
    if path.is_empty() || path != path.to_lowercase() {
        return None;
    }
    match (tag, digest) {
        (Some(t), _) if !t.is_empty() => Some(t.to_string()),
        (Some(_), _) => None,
        (None, Some(_)) => None,
        (None, None) => Some("latest".into()),
    }
}

/// `SetDefaults_Probe` plus the handler's `httpGet` defaults.
pub fn probe(p: &mut Map<String, Value>) {
    set_default_nonzero(p, "timeoutSeconds", 1);
    set_default_nonzero(p, "periodSeconds", 10);
    set_default_nonzero(p, "successThreshold", 1);
    set_default_nonzero(p, "failureThreshold", 3);
    if let Some(get) = object_mut(p, "httpGet") {
        http_get(get);
    }
}

/// `SetDefaults_HTTPGetAction`: path `/`, scheme `HTTP`.
pub fn http_get(get: &mut Map<String, Value>) {
    set_default_str(get, "path", "/");
    set_default_str(get, "scheme", "HTTP");
}

/// `fieldRef.apiVersion: v1` (`SetDefaults_ObjectFieldSelector`) and `resourceFieldRef`'s
/// `divisor: "0"` (a plain Quantity Go always serializes).
fn field_refs(holder: &mut Map<String, Value>) {
    if let Some(f) = object_mut(holder, "fieldRef") {
        set_default_str(f, "apiVersion", "v1");
    }
    if let Some(r) = object_mut(holder, "resourceFieldRef") {
        set_default(r, "divisor", json!("0"));
    }
}

const VOLUME_SOURCES: &[&str] = &[
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
];

/// `SetDefaults_Volume` and the per-source defaults: a volume without a source becomes
/// `emptyDir: {}`; configMap/secret/downwardAPI/projected get `defaultMode: 420`; hostPath
/// gets `type: ""`; projected service account tokens expire after 3600 s; iSCSI, RBD, Azure
/// disk and ScaleIO sources get theirs; ephemeral volume claim templates get `volumeMode:
/// Filesystem`.
pub fn volume(v: &mut Map<String, Value>) {
    if VOLUME_SOURCES.iter().all(|k| is_unset(v, k)) {
        v.insert("emptyDir".into(), json!({}));
    }
    for key in ["configMap", "secret", "downwardAPI", "projected"] {
        if let Some(src) = object_mut(v, key) {
            set_default(src, "defaultMode", json!(420));
        }
    }
    if let Some(d) = object_mut(v, "downwardAPI") {
        for item in each_object(d, "items") {
            field_refs(item);
        }
    }
    if let Some(p) = object_mut(v, "projected") {
        for src in each_object(p, "sources") {
            if let Some(d) = object_mut(src, "downwardAPI") {
                for item in each_object(d, "items") {
                    field_refs(item);
                }
            }
            if let Some(t) = object_mut(src, "serviceAccountToken") {
                set_default(t, "expirationSeconds", json!(3600));
            }
        }
    }
    if let Some(h) = object_mut(v, "hostPath") {
        set_default(h, "type", json!(""));
    }
    if let Some(i) = object_mut(v, "iscsi") {
        set_default_str(i, "iscsiInterface", "default");
    }
    if let Some(r) = object_mut(v, "rbd") {
        set_default_str(r, "pool", "rbd");
        set_default_str(r, "user", "admin");
        set_default_str(r, "keyring", "/etc/ceph/keyring");
    }
    if let Some(d) = object_mut(v, "azureDisk") {
        set_default(d, "cachingMode", json!("ReadWrite"));
        set_default(d, "fsType", json!("ext4"));
        set_default(d, "readOnly", json!(false));
        set_default(d, "kind", json!("Shared"));
    }
    if let Some(s) = object_mut(v, "scaleIO") {
        set_default_str(s, "storageMode", "ThinProvisioned");
        set_default_str(s, "fsType", "xfs");
    }
    if let Some(e) = object_mut(v, "ephemeral")
        && let Some(t) = object_mut(e, "volumeClaimTemplate")
        && let Some(spec) = ensure_object(t, "spec")
    {
        pvc_spec(spec);
    }
}

/// `SetDefaults_PersistentVolumeClaimSpec`: `volumeMode: Filesystem`.
pub fn pvc_spec(spec: &mut Map<String, Value>) {
    set_default(spec, "volumeMode", json!("Filesystem"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn image_pull_policy_follows_the_tag() {
        for (image, tag) in [
            ("nginx", Some("latest")),
            ("nginx:latest", Some("latest")),
            ("nginx:1.25", Some("1.25")),
            ("localhost:5000/app", Some("latest")),
            ("localhost:5000/app:v2", Some("v2")),
            ("registry.io/team/app@sha256:abcd", None),
            ("registry.io/team/app:v1@sha256:abcd", Some("v1")),
            ("", None),
            ("Nginx", None),
        ] {
            assert_eq!(image_tag(image).as_deref(), tag, "{image}");
        }
        let mut c = obj(json!({"name": "a", "image": "nginx"}));
        container(&mut c);
        assert_eq!(c["imagePullPolicy"], "Always");
        let mut c = obj(json!({"name": "a", "image": "nginx:1.25"}));
        container(&mut c);
        assert_eq!(c["imagePullPolicy"], "IfNotPresent");
        let mut c = obj(json!({"name": "a", "image": "nginx", "imagePullPolicy": "Never"}));
        container(&mut c);
        assert_eq!(c["imagePullPolicy"], "Never");
    }

    #[test]
    fn pod_spec_defaults_are_exact() {
        let mut spec = obj(json!({
            "serviceAccountName": "sa",
            "containers": [{
                "name": "app", "image": "app:v1",
                "ports": [{"containerPort": 80}],
                "livenessProbe": {"httpGet": {"port": 80}},
                "readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5},
                "env": [{"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
                        {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}],
            }],
            "volumes": [
                {"name": "cm", "configMap": {"name": "c"}},
                {"name": "s", "secret": {"secretName": "s", "defaultMode": 256}},
                {"name": "scratch"},
                {"name": "tok", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
            ],
        }));
        pod_spec(&mut spec);
        assert_eq!(
            Value::Object(spec),
            json!({
                "serviceAccountName": "sa", "serviceAccount": "sa",
                "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "securityContext": {},
                "terminationGracePeriodSeconds": 30, "schedulerName": "default-scheduler",
                "containers": [{
                    "name": "app", "image": "app:v1", "imagePullPolicy": "IfNotPresent",
                    "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                    "resources": {},
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "livenessProbe": {"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
                        "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
                    "readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5,
                        "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
                    "env": [{"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace", "apiVersion": "v1"}}},
                            {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "0"}}}],
                }],
                "volumes": [
                    {"name": "cm", "configMap": {"name": "c", "defaultMode": 420}},
                    {"name": "s", "secret": {"secretName": "s", "defaultMode": 256}},
                    {"name": "scratch", "emptyDir": {}},
                    {"name": "tok", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"path": "t", "expirationSeconds": 3600}}]}},
                ],
            })
        );
    }
}
