//! The APIServices kube-apiserver's aggregator keeps for what the server serves itself: the
//! built-in group versions (made at start-up by [`super::bootstrap`]) and every served
//! version of a CustomResourceDefinition (the CRD registration controller: made when a CRD
//! serves a version, gone when no CRD does), all available from the start.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::endpoints::delete_options::DeleteOptions;
use crate::endpoints::hooks::Client;
use crate::support::meta;
use crate::support::resource::ResourceDef;

const GROUP: &str = "apiregistration.k8s.io";
const AUTOMANAGED: &str = "kube-aggregator.kubernetes.io/automanaged";

fn api_service_def(client: &dyn Client) -> Option<Arc<ResourceDef>> {
    client
        .registry()
        .all()
        .find(|d| d.group == GROUP && d.plural == "apiservices")
        .cloned()
}

/// A local APIService (one served by this server, without `spec.service`) is available
/// from the start, as the aggregator's availability controller records it; returns the
/// object as stored.
pub fn available(client: &mut dyn Client, def: &ResourceDef, stored: &Value) -> Value {
    if def.kind != "APIService" || !stored["spec"]["service"].is_null() {
        return stored.clone();
    }
    let mut object = stored.clone();
    object["status"] = json!({"conditions": [{
        "type": "Available",
        "status": "True",
        "lastTransitionTime": meta::now(),
        "reason": "Local",
        "message": "Local APIServices are always available",
    }]});
    let name = meta::meta_str(&object, "name")
        .unwrap_or_default()
        .to_string();
    (*client.put(def, "", &name, object)).clone()
}

/// Makes the APIServices of the CRDs' served versions (`<version>.<group>`, group priority
/// 1000, version priority 100) and removes those no CRD serves any more.
pub fn sync_crds(client: &mut dyn Client) {
    let Some(def) = api_service_def(client) else {
        return;
    };
    let crds = client
        .registry()
        .all()
        .find(|d| crate::registry::crd::is_crd(d))
        .map(|d| d.storage_key.clone());
    let mut wanted = BTreeSet::new();
    for (_, crd) in crds
        .iter()
        .filter_map(|key| client.store().bucket(key))
        .flatten()
    {
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        for version in crd["spec"]["versions"].as_array().into_iter().flatten() {
            if version["served"] == true {
                let name = version["name"].as_str().unwrap_or_default();
                wanted.insert((group.to_string(), name.to_string()));
            }
        }
    }
    let existing: BTreeSet<String> = client
        .store()
        .bucket(&def.storage_key)
        .into_iter()
        .flatten()
        .filter(|(_, s)| s["metadata"]["labels"][AUTOMANAGED] == "true")
        .filter_map(|(_, s)| meta::meta_str(s, "name").map(str::to_string))
        .collect();
    for (group, version) in &wanted {
        let name = format!("{version}.{group}");
        if existing.contains(&name) {
            continue;
        }
        let object = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": name, "labels": {AUTOMANAGED: "true"}},
            "spec": {"group": group, "version": version, "groupPriorityMinimum": 1000,
                "versionPriority": 100}});
        if let Ok(stored) = client.create(&def, "", object, "kube-apiserver") {
            available(client, &def, &stored);
        }
    }
    for name in existing {
        let served = wanted
            .iter()
            .any(|(group, version)| format!("{version}.{group}") == name);
        if !served {
            let _ = client.delete(&def, "", &name, &DeleteOptions::default());
        }
    }
}
