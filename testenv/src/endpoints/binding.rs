//! Binding a pod to a node: `pods/<name>/binding` and the `bindings` resource, as the
//! scheduler does it. The pod gets `spec.nodeName` and the `PodScheduled` condition.

use std::sync::Arc;

use serde_json::{Value, json};

use super::state::Api;
use crate::support::meta;
use crate::support::request::{Reply, Req, Target, json_body};
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};

fn conflict(name: &str, why: String) -> ApiError {
    let mut e = ApiError::new(
        409,
        "Conflict",
        format!("Operation cannot be fulfilled on pods/binding \"{name}\": {why}"),
    );
    e.details = json!({"name": name, "kind": "pods/binding"});
    e
}

/// POST of a Binding, to `bindings` (the pod named by the body) or `pods/<name>/binding`.
pub fn create(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let binding = json_body(req)?;
    let ns = target.namespace.as_deref().unwrap_or_default();
    let name = match target.name.as_deref() {
        Some(n) => n.to_string(),
        None => meta::meta_str(&binding, "name")
            .unwrap_or_default()
            .to_string(),
    };
    let node = binding["target"]["name"].as_str().unwrap_or_default();
    if node.is_empty() {
        return Err(ApiError::invalid(
            &ResourceDef::named("", "v1", "Binding", "bindings"),
            &name,
            vec![Cause {
                reason: "FieldValueRequired".into(),
                message: "Required value".into(),
                field: "target.name".into(),
            }],
        ));
    }
    let mut cluster = api.lock();
    let pods = cluster
        .registry
        .get("", "v1", "pods")
        .expect("pods are a built-in resource");
    let pod = cluster
        .store
        .get(&pods.storage_key, ns, &name)
        .ok_or_else(|| ApiError::not_found(&pods, &name))?;
    if meta::is_deleting(&pod) {
        return Err(conflict(
            &name,
            format!("pod {name} is being deleted, cannot be assigned to a host"),
        ));
    }
    if let Some(current) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        return Err(conflict(
            &name,
            format!("pod {name} is already assigned to node \"{current}\""),
        ));
    }
    let mut bound: Value = (*pod).clone();
    bound["spec"]["nodeName"] = json!(node);
    let mut conditions: Vec<Value> = bound["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    conditions.retain(|c| c["type"] != "PodScheduled");
    conditions.push(json!({
        "type": "PodScheduled", "status": "True", "lastProbeTime": null,
        "lastTransitionTime": meta::now(),
    }));
    bound["status"]["conditions"] = Value::Array(conditions);
    if let Some(annotations) = binding["metadata"]["annotations"].as_object() {
        for (k, v) in annotations {
            bound["metadata"]["annotations"][k] = v.clone();
        }
    }
    if !req.query.dry_run() {
        let stored = cluster.store.put(&pods.storage_key, ns, &name, bound);
        let controllers = cluster.controllers.clone();
        controllers.updated(&mut *cluster, &pods, &stored, ns);
    }
    Ok(Reply::json(
        201,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
    ))
}
