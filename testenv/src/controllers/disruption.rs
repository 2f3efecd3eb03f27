//! The disruption controller of kube-controller-manager: the status of every
//! PodDisruptionBudget (expected, healthy and desired pods, disruptions allowed, the
//! `DisruptionAllowed` condition), kept up to date as budgets and pods change, so that
//! `pods/<name>/eviction` decides as on a cluster.

use serde_json::{Value, json};

use crate::endpoints::hooks::Client;
use crate::support::meta;
use crate::support::selector::LabelSelector;

const PDBS: &str = "policy/poddisruptionbudgets";
const PODS: &str = "/pods";

fn is_ready(pod: &Value) -> bool {
    pod["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True")
}

/// An int-or-percent of `total`: percentages round up, as the real controller rounds them.
fn scaled(v: &Value, total: i64) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    let p: i64 = v.as_str()?.strip_suffix('%')?.parse().ok()?;
    Some((p * total + 99) / 100)
}

/// The replicas of the controller owning `pod` (a Deployment through its ReplicaSet, a
/// StatefulSet, a ReplicationController), for budgets counted against the desired scale.
fn controller_key(client: &dyn Client, pod: &Value, ns: &str) -> Option<(String, i64)> {
    let owner = pod["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|o| o["controller"] == true)?;
    let name = owner["name"].as_str()?;
    let (key, object) = match owner["kind"].as_str()? {
        "ReplicaSet" => {
            let rs = client.store().get("apps/replicasets", ns, name)?;
            let deployment = rs["metadata"]["ownerReferences"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|o| o["controller"] == true && o["kind"] == "Deployment")
                .and_then(|o| o["name"].as_str())
                .and_then(|d| client.store().get("apps/deployments", ns, d));
            match deployment {
                Some(d) => ("apps/deployments", d),
                None => ("apps/replicasets", rs),
            }
        }
        "StatefulSet" => (
            "apps/statefulsets",
            client.store().get("apps/statefulsets", ns, name)?,
        ),
        "ReplicationController" => (
            "/replicationcontrollers",
            client.store().get("/replicationcontrollers", ns, name)?,
        ),
        _ => return None,
    };
    let replicas = object["spec"]["replicas"].as_i64().unwrap_or(1);
    Some((
        format!(
            "{key}/{}",
            meta::meta_str(&object, "uid").unwrap_or_default()
        ),
        replicas,
    ))
}

/// The status a budget should have now.
fn status_of(client: &dyn Client, pdb: &Value, ns: &str) -> Value {
    let selector = &pdb["spec"]["selector"];
    let pods: Vec<&std::sync::Arc<Value>> = if selector.is_object() {
        let s = LabelSelector::from_metav1(selector);
        client
            .store()
            .bucket(PODS)
            .into_iter()
            .flatten()
            .filter(|((p_ns, _), p)| p_ns == ns && s.matches(&p["metadata"]["labels"]))
            .map(|(_, p)| p)
            .collect()
    } else {
        Vec::new()
    };
    let spec = &pdb["spec"];
    let by_scale = spec.get("maxUnavailable").is_some_and(|v| !v.is_null())
        || spec["minAvailable"].as_str().is_some();
    let expected = if by_scale {
        let mut seen: Vec<String> = Vec::new();
        let mut total = 0;
        for p in &pods {
            match controller_key(client, p, ns) {
                Some((key, replicas)) => {
                    if !seen.contains(&key) {
                        seen.push(key);
                        total += replicas;
                    }
                }
                None => total += 1,
            }
        }
        total
    } else {
        pods.len() as i64
    };
    let desired = match spec.get("maxUnavailable").filter(|v| !v.is_null()) {
        Some(max) => (expected - scaled(max, expected).unwrap_or(0)).max(0),
        None => scaled(&spec["minAvailable"], expected).unwrap_or(0),
    };
    let disrupted = &pdb["status"]["disruptedPods"];
    let healthy = pods
        .iter()
        .filter(|p| {
            is_ready(p)
                && !meta::is_deleting(p)
                && disrupted
                    .get(meta::meta_str(p, "name").unwrap_or_default())
                    .is_none()
        })
        .count() as i64;
    let allowed = (healthy - desired).max(0);
    let generation = pdb["metadata"]["generation"].as_i64().unwrap_or(1);
    let (state, reason) = if allowed > 0 {
        ("True", "SufficientPods")
    } else {
        ("False", "InsufficientPods")
    };
    let previous = pdb["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "DisruptionAllowed"));
    let since = previous
        .filter(|c| c["status"] == state && c["reason"] == reason)
        .and_then(|c| c["lastTransitionTime"].as_str().map(String::from))
        .unwrap_or_else(meta::now);
    let mut status = json!({
        "conditions": [{
            "lastTransitionTime": since, "message": "", "observedGeneration": generation,
            "reason": reason, "status": state, "type": "DisruptionAllowed",
        }],
        "currentHealthy": healthy, "desiredHealthy": desired, "disruptionsAllowed": allowed,
        "expectedPods": expected, "observedGeneration": generation,
    });
    // Evictions not yet seen through are kept while their pods are there.
    if let Some(d) = disrupted.as_object() {
        let kept: serde_json::Map<String, Value> = d
            .iter()
            .filter(|(name, _)| {
                pods.iter()
                    .any(|p| meta::meta_str(p, "name") == Some(name.as_str()))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !kept.is_empty() {
            status["disruptedPods"] = Value::Object(kept);
        }
    }
    status
}

/// Brings the status of the budget `name` in `ns` up to date.
pub fn sync(client: &mut dyn Client, ns: &str, name: &str) {
    let Some(pdb) = client.store().get(PDBS, ns, name) else {
        return;
    };
    let status = status_of(client, &pdb, ns);
    if pdb["status"] == status {
        return;
    }
    let Some(def) = client
        .registry()
        .get("policy", "v1", "poddisruptionbudgets")
    else {
        return;
    };
    let mut updated = (*pdb).clone();
    updated["status"] = status;
    client.put(&def, ns, name, updated);
}

/// A pod changed in `ns`: every budget of the namespace is brought up to date.
pub fn pods_changed(client: &mut dyn Client, ns: &str) {
    let names: Vec<String> = client
        .store()
        .bucket(PDBS)
        .into_iter()
        .flatten()
        .filter(|((p_ns, _), _)| p_ns == ns)
        .map(|((_, name), _)| name.clone())
        .collect();
    for name in names {
        sync(client, ns, &name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_up() {
        assert_eq!(scaled(&json!("50%"), 3), Some(2));
        assert_eq!(scaled(&json!(1), 3), Some(1));
        assert_eq!(scaled(&json!("x"), 3), None);
    }
}
