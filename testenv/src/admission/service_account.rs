//! The ServiceAccount admission plugin of kube-apiserver (on by default): a Pod runs as a
//! service account (`default` unless it names one), which must exist in its namespace;
//! unless token automounting is off (on the Pod or the account), the Pod gets the projected
//! `kube-api-access-<suffix>` volume (token, cluster CA, namespace) mounted in every
//! container at `/var/run/secrets/kubernetes.io/serviceaccount`; and it gets the account's
//! image pull secrets when it names none.

use serde_json::{Value, json};

use crate::storage::Store;
use crate::support::meta;
use crate::support::status::ApiError;

const MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
/// The characters of Kubernetes' random name suffixes.
const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

fn suffix() -> String {
    meta::new_uid()
        .bytes()
        .filter(u8::is_ascii_hexdigit)
        .take(5)
        .map(|b| ALPHABET[usize::from(b) % ALPHABET.len()] as char)
        .collect()
}

/// The projected volume kube-apiserver v1.34.9 mounts (the binary recorded also projects an
/// `openshift-service-ca.crt` ConfigMap, so this does too).
fn token_volume(name: &str) -> Value {
    json!({"name": name, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        {"configMap": {"name": "openshift-service-ca.crt",
            "items": [{"key": "service-ca.crt", "path": "service-ca.crt"}]}},
    ]}})
}

/// Admits a Pod being created in `ns` (`pod` already named).
pub fn admit_pod(store: &Store, pod: &mut Value, ns: &str) -> Result<(), ApiError> {
    // Mirror pods (a kubelet's static pods) are left alone.
    if pod["metadata"]["annotations"]["kubernetes.io/config.mirror"].is_string() {
        return Ok(());
    }
    let name = pod["spec"]["serviceAccountName"]
        .as_str()
        .filter(|s| !s.is_empty())
        .or_else(|| {
            pod["spec"]["serviceAccount"]
                .as_str()
                .filter(|s| !s.is_empty())
        })
        .unwrap_or("default")
        .to_string();
    let pod_name = meta::meta_str(pod, "name").unwrap_or_default().to_string();
    let Some(account) = store.get("/serviceaccounts", ns, &name) else {
        let mut e = ApiError::new(
            403,
            "Forbidden",
            format!(
                "pods \"{pod_name}\" is forbidden: error looking up service account {ns}/{name}: serviceaccount \"{name}\" not found"
            ),
        );
        e.details = json!({"name": pod_name, "kind": "pods"});
        return Err(e);
    };
    pod["spec"]["serviceAccountName"] = json!(name);
    // The deprecated field mirrors it, as the v1 conversion writes it.
    pod["spec"]["serviceAccount"] = json!(name);
    let automount = pod["spec"]["automountServiceAccountToken"]
        .as_bool()
        .or_else(|| account["automountServiceAccountToken"].as_bool())
        .unwrap_or(true);
    let mounted = |c: &Value| {
        c["volumeMounts"]
            .as_array()
            .is_some_and(|m| m.iter().any(|v| v["mountPath"] == MOUNT_PATH))
    };
    let any_mounted = ["containers", "initContainers"].iter().any(|k| {
        pod["spec"][*k]
            .as_array()
            .is_some_and(|cs| cs.iter().any(mounted))
    });
    if automount && !any_mounted {
        let volume = format!("kube-api-access-{}", suffix());
        let mut volumes = pod["spec"]["volumes"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        volumes.push(token_volume(&volume));
        pod["spec"]["volumes"] = Value::Array(volumes);
        for key in ["initContainers", "containers"] {
            for c in pod["spec"][key].as_array_mut().into_iter().flatten() {
                let mut mounts = c["volumeMounts"].as_array().cloned().unwrap_or_default();
                mounts.push(json!({"name": volume, "readOnly": true, "mountPath": MOUNT_PATH}));
                c["volumeMounts"] = Value::Array(mounts);
            }
        }
    }
    let has_pull_secrets = pod["spec"]["imagePullSecrets"]
        .as_array()
        .is_some_and(|s| !s.is_empty());
    if !has_pull_secrets
        && let Some(secrets) = account["imagePullSecrets"]
            .as_array()
            .filter(|s| !s.is_empty())
    {
        pod["spec"]["imagePullSecrets"] = Value::Array(secrets.clone());
    }
    Ok(())
}
