//! `pods/<name>/eviction`: deleting a pod unless a PodDisruptionBudget forbids it, as
//! kube-apiserver's eviction subresource does: pods that are not running (pending or
//! terminal, or already deleting) go at once; otherwise the budget selecting the pod must
//! allow a disruption (its status is the disruption controller's), which the eviction then
//! uses up; a blocked eviction is 429 with the real message and cause.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Value, json};

use super::delete::delete_object;
use super::delete_options::DeleteOptions;
use super::state::Api;
use crate::support::meta;
use crate::support::request::{Reply, Req, Target, json_body};
use crate::support::selector::LabelSelector;
use crate::support::status::ApiError;

const PDBS: &str = "policy/poddisruptionbudgets";
const BLOCKED: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

fn too_many_requests(cause: String) -> ApiError {
    let mut e = ApiError::new(429, "TooManyRequests", BLOCKED);
    e.details = json!({"causes": [{"reason": "DisruptionBudget", "message": cause}]});
    e
}

fn is_ready(pod: &Value) -> bool {
    pod["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True")
}

/// Whether the pod may go without asking its budget: not running, or already going.
fn can_ignore_budget(pod: &Value) -> bool {
    meta::is_deleting(pod)
        || matches!(
            pod["status"]["phase"].as_str(),
            Some("Succeeded" | "Failed" | "Pending") | None
        )
}

/// POST of an Eviction.
pub fn create(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let eviction = json_body(req)?;
    let name = target.name.as_deref().unwrap_or_default();
    let ns = target.namespace.as_deref().unwrap_or_default();
    if meta::meta_str(&eviction, "name").unwrap_or_default() != name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Eviction object",
        ));
    }
    let options_req = Req {
        body: eviction
            .get("deleteOptions")
            .filter(|o| o.is_object())
            .map(|o| Bytes::from(o.to_string()))
            .unwrap_or_default(),
        // The options were decoded with the Eviction, whatever its format.
        content_type: "application/json".into(),
        ..req.clone()
    };
    let options = DeleteOptions::from_request(&options_req)?;
    let mut cluster = api.lock();
    let def = target.def.clone();
    let pod = cluster
        .store
        .get(&def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(&def, name))?;
    if !can_ignore_budget(&pod) {
        let labels = &pod["metadata"]["labels"];
        let budgets: Vec<Arc<Value>> = cluster
            .store
            .bucket(PDBS)
            .into_iter()
            .flatten()
            .filter(|((pdb_ns, _), pdb)| {
                pdb_ns == ns
                    && pdb["spec"]["selector"].is_object()
                    && LabelSelector::from_metav1(&pdb["spec"]["selector"]).matches(labels)
            })
            .map(|(_, pdb)| pdb.clone())
            .collect();
        if budgets.len() > 1 {
            return Err(ApiError::internal(
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            ));
        }
        if let Some(pdb) = budgets.first() {
            let status = &pdb["status"];
            let int = |v: &Value| v.as_i64().unwrap_or(0);
            let ready = is_ready(&pod);
            let healthy_budget = int(&status["currentHealthy"]) >= int(&status["desiredHealthy"])
                && int(&status["desiredHealthy"]) > 0;
            let always_allow = pdb["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow";
            if ready || !(healthy_budget || always_allow) {
                let pdb_name = meta::meta_str(pdb, "name").unwrap_or_default();
                let generation = int(&pdb["metadata"]["generation"]);
                if int(&status["observedGeneration"]) < generation {
                    return Err(too_many_requests(format!(
                        "The disruption budget {pdb_name} is still being processed by the server."
                    )));
                }
                let allowed = int(&status["disruptionsAllowed"]);
                if allowed < 0 {
                    let mut e = ApiError::new(
                        403,
                        "Forbidden",
                        format!(
                            "poddisruptionbudget.policy \"{pdb_name}\" is forbidden: pdb disruptions allowed is negative"
                        ),
                    );
                    e.details =
                        json!({"name": pdb_name, "group": "policy", "kind": "poddisruptionbudget"});
                    return Err(e);
                }
                if allowed == 0 {
                    return Err(too_many_requests(format!(
                        "The disruption budget {pdb_name} needs {} healthy pods and has {} currently",
                        int(&status["desiredHealthy"]),
                        int(&status["currentHealthy"])
                    )));
                }
                if !options.dry_run {
                    let mut used = (**pdb).clone();
                    used["status"]["disruptionsAllowed"] = json!(allowed - 1);
                    used["status"]["disruptedPods"][name] = json!(meta::now());
                    if allowed - 1 == 0 {
                        let mut conditions: Vec<Value> = used["status"]["conditions"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        conditions.retain(|c| c["type"] != "DisruptionAllowed");
                        conditions.push(json!({
                            "type": "DisruptionAllowed", "status": "False",
                            "reason": "InsufficientPods", "message": "",
                            "lastTransitionTime": meta::now(), "observedGeneration": generation,
                        }));
                        used["status"]["conditions"] = Value::Array(conditions);
                    }
                    cluster.store.put(PDBS, ns, pdb_name, used);
                }
            }
        }
    }
    delete_object(&mut cluster, &def, ns, name, &options)?;
    Ok(Reply::json(
        201,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
    ))
}
