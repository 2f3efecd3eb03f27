//! The status kube-apiserver's type-checking controller writes on a
//! ValidatingAdmissionPolicy: `observedGeneration`, and `typeChecking` (empty here: the
//! expressions are not type-checked against the matched kinds' schemas, so there are no
//! expression warnings to report).

use serde_json::{Value, json};

use crate::endpoints::hooks::Client;
use crate::support::resource::ResourceDef;

/// Whether `def` is the ValidatingAdmissionPolicy resource.
pub fn is_policy(def: &ResourceDef) -> bool {
    def.group == "admissionregistration.k8s.io" && def.plural == "validatingadmissionpolicies"
}

/// Brings a policy's status up to date with its generation.
pub fn sync(client: &mut dyn Client, def: &ResourceDef, policy: &Value) {
    let generation = policy["metadata"]["generation"].as_i64().unwrap_or(1);
    if policy["status"]["observedGeneration"].as_i64() == Some(generation) {
        return;
    }
    let name = policy["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut updated = policy.clone();
    updated["status"] = json!({"observedGeneration": generation, "typeChecking": {}});
    client.put(def, "", &name, updated);
}
