//! `componentstatuses` (deprecated, still served by v1.34): the health of the control
//! plane's components, read-only. Here the store (etcd's place) and the in-process
//! controllers are healthy, and there is no scheduler; a real control plane without one
//! answers the same for it.

use serde_json::{Value, json};

use super::read::Filter;
use super::table;
use crate::support::request::{Reply, Req, Target};
use crate::support::status::ApiError;

fn component(name: &str, healthy: bool, message: &str) -> Value {
    json!({
        "kind": "ComponentStatus", "apiVersion": "v1", "metadata": {"name": name},
        "conditions": [{"type": "Healthy", "status": if healthy { "True" } else { "False" }, "message": message}],
    })
}

fn components() -> Vec<Value> {
    vec![
        component("controller-manager", true, "ok"),
        component(
            "scheduler",
            false,
            "Get \"https://127.0.0.1:10259/healthz\": dial tcp 127.0.0.1:10259: connect: connection refused",
        ),
        component("etcd-0", true, "ok"),
    ]
}

/// GET of the list or of one component (as a Table when kubectl asks for one).
pub fn get(req: &Req, target: &Target) -> Result<Reply, ApiError> {
    match &target.name {
        None => {
            let filter = Filter::from_query(&target.def, &req.query)?;
            let selected = components().into_iter().filter(|c| filter.matches(c));
            if table::wants_table(&req.accept) {
                let items: Vec<Value> = selected.collect();
                return Ok(table::reply(&target.def, &items, json!({}), &req.query));
            }
            let items: Vec<Value> = selected
                .map(|mut c| {
                    let m = c.as_object_mut().expect("an object");
                    m.remove("kind");
                    m.remove("apiVersion");
                    c
                })
                .collect();
            Ok(Reply::json(
                200,
                json!({"kind": "ComponentStatusList", "apiVersion": "v1", "metadata": {}, "items": items}),
            ))
        }
        Some(name) => components()
            .into_iter()
            .find(|c| c["metadata"]["name"] == name.as_str())
            .map(|c| {
                if table::wants_table(&req.accept) {
                    table::reply(&target.def, &[c], json!({}), &req.query)
                } else {
                    Reply::json(200, c)
                }
            })
            .ok_or_else(|| ApiError::not_found(&target.def, name)),
    }
}
