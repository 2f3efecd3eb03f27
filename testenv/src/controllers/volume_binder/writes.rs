//! The reads and writes of the persistent volume controller, each as its API call does it:
//! phase changes through the status (a volume's dated with `lastPhaseTransitionTime`),
//! annotations and references through the object, and Events recorded (and counted again
//! when repeated) as kube-controller-manager's recorder writes them.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::endpoints::fields::{Fields, managers_after};
use crate::endpoints::hooks::Client;
use crate::endpoints::subresource::Endpoint;
use crate::registry::strategy;
use crate::support::meta;

/// Set on a claim once the controller finished binding it.
pub const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// Set on a volume or claim whose binding the controller made (rather than its author).
pub const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
/// The provisioner a claim waits for, and its older name.
pub const PROVISIONER: [&str; 2] = [
    "volume.beta.kubernetes.io/storage-provisioner",
    "volume.kubernetes.io/storage-provisioner",
];
/// The component the Events name.
const COMPONENT: &str = "persistentvolume-controller";
const VOLUMES: &str = "/persistentvolumes";
const CLAIMS: &str = "/persistentvolumeclaims";
const CLASSES: &str = "storage.k8s.io/storageclasses";

/// Every volume, in name order.
pub fn volumes(client: &dyn Client) -> Vec<Arc<Value>> {
    client
        .store()
        .bucket(VOLUMES)
        .into_iter()
        .flatten()
        .map(|(_, v)| v.clone())
        .collect()
}

/// Every claim's namespace and name, in order.
pub fn claim_keys(client: &dyn Client) -> Vec<(String, String)> {
    client
        .store()
        .bucket(CLAIMS)
        .into_iter()
        .flatten()
        .map(|(k, _)| k.clone())
        .collect()
}

/// The volume `name`.
pub fn volume(client: &dyn Client, name: &str) -> Option<Arc<Value>> {
    client.store().get(VOLUMES, "", name)
}

/// The claim `ns`/`name`.
pub fn claim(client: &dyn Client, ns: &str, name: &str) -> Option<Arc<Value>> {
    client.store().get(CLAIMS, ns, name)
}

/// The StorageClass `name`.
pub fn class(client: &dyn Client, name: &str) -> Option<Arc<Value>> {
    client.store().get(CLASSES, "", name)
}

/// The default StorageClass (the newest marked default, as the real controller picks).
pub fn default_class(client: &dyn Client) -> Option<String> {
    client
        .store()
        .bucket(CLASSES)
        .into_iter()
        .flatten()
        .map(|(_, c)| c)
        .filter(|c| {
            c["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
        })
        .max_by_key(|c| {
            (
                c["metadata"]["creationTimestamp"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                c["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .and_then(|c| c["metadata"]["name"].as_str().map(String::from))
}

/// The name of an object.
pub fn name(object: &Value) -> &str {
    object["metadata"]["name"].as_str().unwrap_or_default()
}

/// Whether `object` carries the annotation `key`.
pub fn annotated(object: &Value, key: &str) -> bool {
    object["metadata"]["annotations"].get(key).is_some()
}

/// Sets annotation `key` to `value`.
pub fn annotate(object: &mut Value, key: &str, value: &str) {
    if !object["metadata"]["annotations"].is_object() {
        object["metadata"]["annotations"] = json!({});
    }
    object["metadata"]["annotations"][key] = json!(value);
}

/// The manager the real controller's writes are recorded under.
const MANAGER: &str = "kube-controller-manager";

/// Stores `new` (changed from `old`) of `plural` as an update of the object, or of its
/// status with `status`: the fields it changed are recorded as the controller's, as the
/// real server records its writes.
fn store(
    client: &mut dyn Client,
    plural: &str,
    old: &Value,
    new: Value,
    status: bool,
) -> Arc<Value> {
    let credited = new.clone();
    store_as(client, plural, old, new, &credited, status)
}

/// [`store`], the field manager crediting `credited` (`new` as the controller sent it).
fn store_as(
    client: &mut dyn Client,
    plural: &str,
    old: &Value,
    mut new: Value,
    credited: &Value,
    status: bool,
) -> Arc<Value> {
    let Some(def) = client.registry().get("", "v1", plural) else {
        return Arc::new(new);
    };
    let endpoint = if status {
        Endpoint::Status
    } else {
        Endpoint::Main
    };
    managers_after(
        &def,
        Some(old),
        credited,
        None,
        endpoint,
        Fields::Update(MANAGER.into()),
    )
    .write_to(&mut new);
    let ns = new["metadata"]["namespace"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let name = name(&new).to_string();
    client.put(&def, &ns, &name, new)
}

/// Stores a changed volume (an update of the object).
pub fn put_volume(client: &mut dyn Client, old: &Value, new: Value) -> Arc<Value> {
    store(client, "persistentvolumes", old, new, false)
}

/// Stores a changed claim (an update of the object).
pub fn put_claim(client: &mut dyn Client, old: &Value, new: Value) -> Arc<Value> {
    store(client, "persistentvolumeclaims", old, new, false)
}

/// Moves a volume to `phase` with `message` (none when empty), through its status; nothing
/// when it is there already.
pub fn volume_phase(
    client: &mut dyn Client,
    volume: &Arc<Value>,
    phase: &str,
    message: &str,
) -> Arc<Value> {
    let status = &volume["status"];
    if status["phase"] == phase && status["message"].as_str().unwrap_or_default() == message {
        return volume.clone();
    }
    let mut next = (**volume).clone();
    if !next["status"].is_object() {
        next["status"] = json!({});
    }
    next["status"]["phase"] = json!(phase);
    if let Some(s) = next["status"].as_object_mut() {
        if message.is_empty() {
            s.remove("message");
        } else {
            s.insert("message".into(), json!(message));
        }
    }
    // The field manager sees the status as sent, before the strategy dates the phase.
    let sent = next.clone();
    strategy::volume_phase_transition(volume, &mut next, &meta::now());
    let mut credited = next.clone();
    strategy::with_volume_phase_time(&mut credited, strategy::volume_phase_time(&sent));
    store_as(client, "persistentvolumes", volume, next, &credited, true)
}

/// [`volume_phase`], and when the phase changed an Event of `kind` and `reason` with the
/// message.
pub fn volume_phase_with_event(
    client: &mut dyn Client,
    volume: &Arc<Value>,
    phase: &str,
    warning: bool,
    reason: &str,
    message: &str,
) -> Arc<Value> {
    if volume["status"]["phase"] == phase {
        return volume.clone();
    }
    let updated = volume_phase(client, volume, phase, message);
    event(
        client,
        &updated,
        "PersistentVolume",
        warning,
        reason,
        message,
    );
    updated
}

/// Sets a claim's status: `phase`, and the access modes and capacity of the volume it is
/// bound to (the capacity only when the claim becomes bound), or none without a volume.
pub fn claim_status(
    client: &mut dyn Client,
    claim: &Arc<Value>,
    phase: &str,
    volume: Option<&Value>,
) -> Arc<Value> {
    let mut next = (**claim).clone();
    if !next["status"].is_object() {
        next["status"] = json!({});
    }
    let becomes = claim["status"]["phase"] != phase;
    next["status"]["phase"] = json!(phase);
    let status = next["status"].as_object_mut().expect("status is an object");
    match volume {
        None => {
            status.remove("accessModes");
            status.remove("capacity");
        }
        Some(volume) => {
            status.insert("accessModes".into(), volume["spec"]["accessModes"].clone());
            let capacity = &volume["spec"]["capacity"];
            if becomes && claim["status"]["capacity"]["storage"] != capacity["storage"] {
                status.insert("capacity".into(), capacity.clone());
            }
            if let Some(vac) = volume["spec"]["volumeAttributesClassName"].as_str() {
                status.insert("currentVolumeAttributesClassName".into(), json!(vac));
            }
        }
    }
    if next == **claim {
        return claim.clone();
    }
    store(client, "persistentvolumeclaims", claim, next, true)
}

/// Records an Event about `object` (a `kind` of core v1) from the controller, in the
/// object's namespace (`default` for a volume); the same Event again counts up the stored
/// one, as the real recorder's aggregation does.
pub fn event(
    client: &mut dyn Client,
    object: &Value,
    kind: &str,
    warning: bool,
    reason: &str,
    message: &str,
) {
    let Some(def) = client.registry().get("", "v1", "events") else {
        return;
    };
    let m = &object["metadata"];
    let ns = m["namespace"].as_str().unwrap_or("default").to_string();
    let kind_of_event = if warning { "Warning" } else { "Normal" };
    let now = meta::now();
    let same = client
        .store()
        .bucket(&def.storage_key)
        .into_iter()
        .flatten()
        .filter(|((n, _), _)| *n == ns)
        .map(|(_, e)| e)
        .find(|e| {
            e["involvedObject"]["uid"] == m["uid"]
                && e["reason"] == reason
                && e["message"] == message
                && e["type"] == kind_of_event
                && e["source"]["component"] == COMPONENT
        })
        .cloned();
    if let Some(stored) = same {
        let mut next = (*stored).clone();
        next["count"] = json!(stored["count"].as_i64().unwrap_or(1) + 1);
        next["lastTimestamp"] = json!(now);
        let name = name(&next).to_string();
        client.put(&def, &ns, &name, next);
        return;
    }
    let nanos = jiff::Timestamp::now().as_nanosecond();
    let mut involved = json!({"kind": kind, "name": m["name"], "uid": m["uid"],
        "apiVersion": "v1", "resourceVersion": m["resourceVersion"]});
    if let Some(n) = m["namespace"].as_str() {
        involved["namespace"] = json!(n);
    }
    let event = json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{}.{nanos:x}", name(object)), "namespace": ns},
        "involvedObject": involved,
        "reason": reason, "message": message,
        "source": {"component": COMPONENT},
        "firstTimestamp": now, "lastTimestamp": now, "count": 1,
        "type": kind_of_event,
        "reportingComponent": COMPONENT, "reportingInstance": "",
    });
    let _ = client.create(&def, &ns, event, "kube-controller-manager");
}
