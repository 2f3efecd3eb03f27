//! kube-apiserver's default admission plugins that fill in a Pod or an object from other
//! objects: Priority (a Pod's `priority` from its PriorityClass, or the global default),
//! DefaultTolerationSeconds (the not-ready and unreachable tolerations), DefaultIngressClass
//! and DefaultStorageClass (the class marked default for Ingresses and claims without one),
//! StorageObjectInUseProtection (the protection finalizer of a claim or a volume),
//! TaintNodesByCondition (a new Node's not-ready taint).

use serde_json::{Value, json};

use crate::storage::Store;
use crate::support::meta;
use crate::support::status::ApiError;

const PRIORITY_CLASSES: &str = "scheduling.k8s.io/priorityclasses";
/// The finalizer the PVC protection controller removes once no pod uses the claim.
const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";
/// The finalizer the PV protection controller removes once the volume is not bound.
const PV_PROTECTION: &str = "kubernetes.io/pv-protection";
/// The finalizer StorageObjectInUseProtection puts on a new VolumeAttributesClass.
const VAC_PROTECTION: &str = "kubernetes.io/vac-protection";

/// 403 Forbidden for `plural` `name`, as the admission plugins word it.
pub(crate) fn forbidden(plural: &str, name: &str, why: String) -> ApiError {
    let mut e = ApiError::new(
        403,
        "Forbidden",
        format!("{plural} \"{name}\" is forbidden: {why}"),
    );
    e.details = json!({"name": name, "kind": plural});
    e
}

/// Priority and DefaultTolerationSeconds for a Pod being created.
pub fn pod(store: &Store, pod: &mut Value) -> Result<(), ApiError> {
    let name = meta::meta_str(pod, "name").unwrap_or_default().to_string();
    let class_name = pod["spec"]["priorityClassName"]
        .as_str()
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    let class = match &class_name {
        Some(c) => Some(store.get(PRIORITY_CLASSES, "", c).ok_or_else(|| {
            forbidden(
                "pods",
                &name,
                format!("no PriorityClass with name {c} was found"),
            )
        })?),
        None => store
            .bucket(PRIORITY_CLASSES)
            .into_iter()
            .flatten()
            .map(|(_, c)| c)
            .filter(|c| c["globalDefault"] == true)
            .min_by_key(|c| c["value"].as_i64().unwrap_or(0))
            .cloned(),
    };
    let (priority, policy) = match &class {
        Some(c) => (
            c["value"].as_i64().unwrap_or(0),
            c["preemptionPolicy"]
                .as_str()
                .unwrap_or("PreemptLowerPriority")
                .to_string(),
        ),
        None => (0, "PreemptLowerPriority".to_string()),
    };
    if let Some(given) = pod["spec"]["priority"].as_i64()
        && given != priority
    {
        return Err(forbidden(
            "pods",
            &name,
            format!(
                "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
            ),
        ));
    }
    if class_name.is_none()
        && let Some(c) = &class
    {
        pod["spec"]["priorityClassName"] = c["metadata"]["name"].clone();
    }
    pod["spec"]["priority"] = json!(priority);
    if pod["spec"]
        .get("preemptionPolicy")
        .is_none_or(Value::is_null)
    {
        pod["spec"]["preemptionPolicy"] = json!(policy);
    }
    default_toleration_seconds(pod);
    Ok(())
}

/// DefaultTolerationSeconds, on a create and on an update alike: a pod that does not
/// tolerate the not-ready or the unreachable `NoExecute` taint (a toleration with that key
/// or no key, and that effect or none) gets a toleration of it for 300 seconds.
fn default_toleration_seconds(pod: &mut Value) {
    let mut tolerations = pod["spec"]["tolerations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut added = false;
    for key in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        let covered = tolerations.iter().any(|t| {
            (t["key"] == key || t["key"].as_str().is_none_or(str::is_empty))
                && (t["effect"] == "NoExecute" || t["effect"].as_str().is_none_or(str::is_empty))
        });
        if !covered {
            tolerations.push(json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
            added = true;
        }
    }
    if added {
        pod["spec"]["tolerations"] = Value::Array(tolerations);
    }
}

/// Priority and DefaultTolerationSeconds for a Pod being updated from `old`: a new pod
/// without `priority` or `preemptionPolicy` keeps the old pod's (their changes are the
/// update validation's to refuse), then the default tolerations are added back when the
/// new list lacks them.
pub fn pod_update(pod: &mut Value, old: &Value) {
    for field in ["priority", "preemptionPolicy"] {
        let unset = pod["spec"].get(field).is_none_or(Value::is_null);
        if unset && !old["spec"][field].is_null() && pod["spec"].is_object() {
            pod["spec"][field] = old["spec"][field].clone();
        }
    }
    if pod["spec"].is_object() {
        default_toleration_seconds(pod);
    }
}

/// The one class of `key` marked default by `annotation` (the newest, as the real plugins
/// pick when several are).
fn default_class(store: &Store, key: &str, annotation: &str) -> Option<String> {
    store
        .bucket(key)
        .into_iter()
        .flatten()
        .map(|(_, c)| c)
        .filter(|c| c["metadata"]["annotations"][annotation] == "true")
        .max_by_key(|c| {
            c["metadata"]["creationTimestamp"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .and_then(|c| c["metadata"]["name"].as_str().map(String::from))
}

/// DefaultIngressClass: an Ingress without a class (and without the legacy annotation)
/// gets the default IngressClass.
pub fn ingress(store: &Store, ingress: &mut Value) {
    let named = ingress["spec"]["ingressClassName"]
        .as_str()
        .is_some_and(|c| !c.is_empty())
        || ingress["metadata"]["annotations"]["kubernetes.io/ingress.class"].is_string();
    if !named
        && let Some(class) = default_class(
            store,
            "networking.k8s.io/ingressclasses",
            "ingressclass.kubernetes.io/is-default-class",
        )
    {
        ingress["spec"]["ingressClassName"] = json!(class);
    }
}

/// StorageObjectInUseProtection and DefaultStorageClass: a PersistentVolumeClaim gets the
/// `kubernetes.io/pvc-protection` finalizer and, without `storageClassName`, the default
/// StorageClass.
pub fn claim(store: &Store, claim: &mut Value) {
    // StorageObjectInUseProtection: a claim is protected while pods use it.
    protect(claim, PVC_PROTECTION);
    if claim["spec"]
        .get("storageClassName")
        .is_some_and(|c| !c.is_null())
    {
        return;
    }
    if let Some(class) = default_class(
        store,
        "storage.k8s.io/storageclasses",
        "storageclass.kubernetes.io/is-default-class",
    ) {
        claim["spec"]["storageClassName"] = json!(class);
    }
}

/// StorageObjectInUseProtection: a PersistentVolume gets the `kubernetes.io/pv-protection`
/// finalizer, which keeps it while it is bound.
pub fn volume(volume: &mut Value) {
    protect(volume, PV_PROTECTION);
}

/// StorageObjectInUseProtection: a VolumeAttributesClass gets the
/// `kubernetes.io/vac-protection` finalizer, which keeps it while claims or volumes use it.
pub fn volume_attributes_class(class: &mut Value) {
    protect(class, VAC_PROTECTION);
}

/// TaintNodesByCondition: a new Node is tainted `node.kubernetes.io/not-ready:NoSchedule`
/// (after its own taints) until its kubelet reports it ready, unless it has that taint. The
/// Node strategy drops the removed dynamic kubelet configuration first (`spec.configSource`,
/// `status.config`), after the field manager recorded it as the creator's.
pub fn node(node: &mut Value) {
    node_update(node);
    if let Some(status) = node["status"].as_object_mut() {
        status.remove("config");
    }
    const NOT_READY: &str = "node.kubernetes.io/not-ready";
    let mut taints = node["spec"]["taints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if taints
        .iter()
        .any(|t| t["key"] == NOT_READY && t["effect"] == "NoSchedule")
    {
        return;
    }
    taints.push(json!({"key": NOT_READY, "effect": "NoSchedule"}));
    if !node["spec"].is_object() {
        node["spec"] = json!({});
    }
    node["spec"]["taints"] = Value::Array(taints);
}

/// What the Node strategy drops of an update: `spec.configSource`, which no stored node uses.
pub fn node_update(node: &mut Value) {
    if let Some(spec) = node["spec"].as_object_mut() {
        spec.remove("configSource");
    }
}

/// Adds `finalizer` to `object` unless it has it.
fn protect(object: &mut Value, finalizer: &str) {
    let mut finalizers = meta::finalizers(object);
    if !finalizers.iter().any(|f| f == finalizer) {
        finalizers.push(finalizer.into());
        object["metadata"]["finalizers"] = json!(finalizers);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_keeps_the_priority_and_gets_the_default_tolerations_back() {
        let old = json!({"spec": {"priority": 7, "preemptionPolicy": "Never", "tolerations": []}});
        let mut new = json!({"spec": {"tolerations": [{"key": "a", "operator": "Exists"}]}});
        pod_update(&mut new, &old);
        assert_eq!(new["spec"]["priority"], 7);
        assert_eq!(new["spec"]["preemptionPolicy"], "Never");
        let keys: Vec<&str> = new["spec"]["tolerations"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["key"].as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "a",
                "node.kubernetes.io/not-ready",
                "node.kubernetes.io/unreachable"
            ]
        );
        // A key-less toleration of every effect covers both taints, whatever its operator.
        let mut all = json!({"spec": {"priority": 1, "tolerations": [{"operator": "Exists"}]}});
        pod_update(&mut all, &old);
        assert_eq!(all["spec"]["priority"], 1);
        assert_eq!(all["spec"]["tolerations"].as_array().map(Vec::len), Some(1));
    }
}
