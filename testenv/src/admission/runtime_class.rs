//! The RuntimeClass admission plugin: a Pod that names a RuntimeClass gets the class's pod
//! overhead and scheduling constraints (node selector, tolerations), and is refused when
//! the class does not exist, its overhead disagrees or its node selector conflicts.

use serde_json::{Map, Value};

use super::plugins::forbidden;
use crate::storage::Store;
use crate::support::meta;
use crate::support::quantity::Quantity;
use crate::support::status::ApiError;

const RUNTIME_CLASSES: &str = "node.k8s.io/runtimeclasses";

/// Whether two resource lists hold the same quantities (`1` equals `1000m`).
fn same_resources(a: &Value, b: &Value) -> bool {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return a == b;
    };
    a.len() == b.len()
        && a.iter().all(|(k, v)| {
            b.get(k).is_some_and(|w| {
                Quantity::from_json(v).map(|q| q.nanos) == Quantity::from_json(w).map(|q| q.nanos)
            })
        })
}

/// RuntimeClass admission of a Pod being created.
pub fn admit_pod(store: &Store, pod: &mut Value) -> Result<(), ApiError> {
    let name = meta::meta_str(pod, "name").unwrap_or_default().to_string();
    let refuse = |why: String| forbidden("pods", &name, why);
    let class_name = pod["spec"]["runtimeClassName"]
        .as_str()
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    let class = match &class_name {
        Some(c) => Some(
            store
                .get(RUNTIME_CLASSES, "", c)
                .ok_or_else(|| refuse(format!("pod rejected: RuntimeClass \"{c}\" not found")))?,
        ),
        None => None,
    };
    let overhead = class
        .as_ref()
        .map(|c| c["overhead"]["podFixed"].clone())
        .filter(|o| !o.is_null());
    let pod_overhead = pod["spec"]["overhead"].clone();
    match overhead {
        Some(fixed) => {
            if !pod_overhead.is_null() && !same_resources(&pod_overhead, &fixed) {
                return Err(refuse(
                    "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
                        .into(),
                ));
            }
            pod["spec"]["overhead"] = fixed;
        }
        None if !pod_overhead.is_null() => {
            return Err(refuse(
                "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
                    .into(),
            ));
        }
        None => {}
    }
    let Some(class) = class else {
        return Ok(());
    };
    let scheduling = &class["scheduling"];
    if let Some(selector) = scheduling["nodeSelector"].as_object() {
        let mut merged = pod["spec"]["nodeSelector"]
            .as_object()
            .cloned()
            .unwrap_or_else(Map::new);
        for (key, value) in selector {
            match merged.get(key) {
                Some(own) if own != value => {
                    return Err(refuse(format!(
                        "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {}; pod.spec.nodeSelector[{key}] = {}",
                        value.as_str().unwrap_or_default(),
                        own.as_str().unwrap_or_default()
                    )));
                }
                _ => {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
        pod["spec"]["nodeSelector"] = Value::Object(merged);
    }
    if let Some(tolerations) = scheduling["tolerations"].as_array() {
        let mut merged = pod["spec"]["tolerations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for toleration in tolerations {
            if !merged.contains(toleration) {
                merged.push(toleration.clone());
            }
        }
        pod["spec"]["tolerations"] = Value::Array(merged);
    }
    Ok(())
}
