//! The `Dangling` condition kube-apiserver's flow-control configuration controller keeps on
//! every FlowSchema: whether the PriorityLevelConfiguration it names exists.

use serde_json::{Value, json};

use crate::endpoints::hooks::Client;
use crate::support::meta;
use crate::support::resource::ResourceDef;

const GROUP: &str = "flowcontrol.apiserver.k8s.io";
const SCHEMAS: &str = "flowschemas";
const LEVELS: &str = "prioritylevelconfigurations";

/// Whether `def` is a FlowSchema or a PriorityLevelConfiguration (whose changes can make a
/// FlowSchema dangle or stop dangling).
pub fn is_flow_control(def: &ResourceDef) -> bool {
    def.group == GROUP && (def.plural == SCHEMAS || def.plural == LEVELS)
}

/// The condition a FlowSchema naming `level` gets: (status, reason, message).
fn dangling(level: &str, exists: bool) -> (&'static str, &'static str, String) {
    if exists {
        (
            "False",
            "Found",
            format!(
                "This FlowSchema references the PriorityLevelConfiguration object named \"{level}\" and it exists"
            ),
        )
    } else {
        (
            "True",
            "NotFound",
            format!(
                "This FlowSchema references the PriorityLevelConfiguration object named \"{level}\" but there is no such object"
            ),
        )
    }
}

/// Brings every FlowSchema's `Dangling` condition up to date; a condition that already
/// says the same is left as it is (with its transition time).
pub fn sync_all(client: &mut dyn Client) {
    let find = |client: &dyn Client, plural: &str| {
        client
            .registry()
            .all()
            .find(|d| d.group == GROUP && d.plural == plural && d.version == "v1")
            .cloned()
    };
    let (Some(schemas), Some(levels)) = (find(client, SCHEMAS), find(client, LEVELS)) else {
        return;
    };
    let all: Vec<Value> = client
        .store()
        .bucket(&schemas.storage_key)
        .into_iter()
        .flatten()
        .map(|(_, s)| (**s).clone())
        .collect();
    for schema in all {
        let level = schema["spec"]["priorityLevelConfiguration"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let exists = client
            .store()
            .get(&levels.storage_key, "", &level)
            .is_some();
        let (status, reason, message) = dangling(&level, exists);
        let conditions = schema["status"]["conditions"].as_array();
        let current = conditions
            .into_iter()
            .flatten()
            .find(|c| c["type"] == "Dangling");
        if current.is_some_and(|c| {
            c["status"] == status && c["reason"] == reason && c["message"] == json!(message)
        }) {
            continue;
        }
        let mut updated = schema.clone();
        let mut kept: Vec<Value> = conditions
            .into_iter()
            .flatten()
            .filter(|c| c["type"] != "Dangling")
            .cloned()
            .collect();
        kept.push(json!({"type": "Dangling", "status": status,
            "lastTransitionTime": meta::now(), "reason": reason, "message": message}));
        updated["status"] = json!({"conditions": kept});
        let name = meta::meta_str(&schema, "name")
            .unwrap_or_default()
            .to_string();
        client.put(&schemas, "", &name, updated);
    }
}
