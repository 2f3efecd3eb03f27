//! The objects a fresh cluster has, made as a real control plane makes them:
//!
//! - at start-up, what kube-apiserver's start-up hooks create: the built-in ClusterRoles,
//!   ClusterRoleBindings, Roles and RoleBindings (`cluster-admin`, `admin`, `edit`, `view`,
//!   `system:*`), the `system-cluster-critical` and `system-node-critical` PriorityClasses,
//!   the flow-control FlowSchemas and PriorityLevelConfigurations, and the local
//!   APIServices of the built-in group versions (available from the start). They are the real
//!   server's (`objects.json`, recorded from kube-apiserver v1.34.9 by
//!   `scripts/record-discovery.sh`); the aggregated ClusterRoles get their rules from the
//!   aggregation controller ([`super::aggregation`]);
//! - once the server listens, what its bootstrap controller creates: the `kubernetes`
//!   Service in `default` with its Endpoints and EndpointSlice pointing at the server
//!   ([`kubernetes_service`]).
//!
//! The per-namespace objects (the `default` ServiceAccount and the `kube-root-ca.crt`
//! ConfigMap) are [`super::namespace_objects`]'s.

pub mod kubernetes_service;

use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use crate::endpoints::hooks::Client;
use crate::support::meta;
use crate::support::resource::ResourceDef;

/// The recorded start-up objects, parsed once per process.
pub fn objects() -> &'static [Value] {
    static OBJECTS: OnceLock<Vec<Value>> = OnceLock::new();
    OBJECTS.get_or_init(|| {
        serde_json::from_str(include_str!("objects.json"))
            .expect("the recorded bootstrap objects are JSON")
    })
}

/// One created start-up object: where it is stored and what was stored.
struct Made {
    def: Arc<ResourceDef>,
    ns: String,
    name: String,
    object: Value,
}

/// The start-up objects as the first server of the process created them (through the API,
/// with defaults, validation and managed fields); later servers store copies with their own
/// uids and times, which keeps start-up fast.
static MADE: OnceLock<Vec<Made>> = OnceLock::new();

fn create_all(client: &mut dyn Client) -> Vec<Made> {
    let mut made = Vec::new();
    for object in objects() {
        let api_version = object["apiVersion"].as_str().unwrap_or_default();
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let kind = object["kind"].as_str().unwrap_or_default();
        let Some(def) = client
            .registry()
            .all()
            .find(|d| d.group == group && d.version == version && d.kind == kind)
            .cloned()
        else {
            continue;
        };
        let ns = object["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let mut object = object.clone();
        if object.get("rules").is_some_and(Value::is_null) {
            object.as_object_mut().map(|o| o.remove("rules"));
        }
        // API Priority and Fairness's configuration is made by its own config producer.
        let manager = if group == "flowcontrol.apiserver.k8s.io" {
            "api-priority-and-fairness-config-producer-v1"
        } else {
            "kube-apiserver"
        };
        match client.create(&def, &ns, object, manager) {
            Ok(stored) => made.push(Made {
                object: super::api_services::available(client, &def, &stored),
                name: meta::meta_str(&stored, "name")
                    .unwrap_or_default()
                    .to_string(),
                def,
                ns,
            }),
            Err(e) => tracing::warn!(kind, error = %e, "a bootstrap object was refused"),
        }
    }
    made
}

/// Creates the start-up objects, as kube-apiserver (field manager `kube-apiserver`, API
/// Priority and Fairness's objects `api-priority-and-fairness-config-producer-v1`), with the
/// aggregated ClusterRoles aggregated.
pub fn started(client: &mut dyn Client) {
    match MADE.get() {
        None => {
            let mut made = create_all(client);
            super::aggregation::aggregate_all(client);
            // Keep them as aggregated.
            for m in &mut made {
                if let Some(now) = client.store().get(&m.def.storage_key, &m.ns, &m.name) {
                    m.object = (*now).clone();
                }
            }
            let _ = MADE.set(made);
        }
        Some(made) => {
            let now = meta::now();
            for m in made {
                let mut object = m.object.clone();
                let metadata = &mut object["metadata"];
                metadata["uid"] = json!(meta::new_uid());
                metadata["creationTimestamp"] = json!(now);
                for entry in metadata["managedFields"]
                    .as_array_mut()
                    .into_iter()
                    .flatten()
                {
                    entry["time"] = json!(now);
                }
                for condition in object["status"]["conditions"]
                    .as_array_mut()
                    .into_iter()
                    .flatten()
                {
                    condition["lastTransitionTime"] = json!(now);
                }
                client.put(&m.def, &m.ns, &m.name, object);
            }
        }
    }
}
