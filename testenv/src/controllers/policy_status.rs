//! The status kube-apiserver's type-checking controller writes on a
//! ValidatingAdmissionPolicy: `observedGeneration`, and `typeChecking` with the warnings of
//! the policy's expressions checked against the schemas of the kinds it matches
//! (`registry::schema::cel_types::type_checking`), the kinds found in the served resources
//! as the real REST mapper finds them, their schemas as the real schema resolver finds them
//! (a custom kind's from its published OpenAPI).

use serde_json::{Value, json};

use crate::endpoints::hooks::Client;
use crate::registry::Registry;
use crate::registry::schema::cel_types::type_checking::{Kinds, check_policy};
use crate::support::openapi_schemas::{self, OBJECT_META};
use crate::support::resource::ResourceDef;

/// Whether `def` is the ValidatingAdmissionPolicy resource.
pub fn is_policy(def: &ResourceDef) -> bool {
    def.group == "admissionregistration.k8s.io" && def.plural == "validatingadmissionpolicies"
}

/// The served resources as the type checker's REST mapper and schema resolver.
struct Served<'a>(&'a Registry);

impl Kinds for Served<'_> {
    fn kind_for(&self, group: &str, version: &str, resource: &str) -> Option<String> {
        self.0.get(group, version, resource).map(|d| d.kind.clone())
    }

    /// A built-in kind's schema, or a custom kind's as the real server publishes it in
    /// OpenAPI (`metadata` an ObjectMeta, `apiVersion` and `kind` strings), which is where
    /// the real checker resolves it.
    fn schema_of(&self, group: &str, version: &str, kind: &str) -> Option<Value> {
        let def = self
            .0
            .all()
            .find(|d| d.group == group && d.version == version && d.kind == kind);
        let Some(custom) = def.and_then(|d| d.custom.as_ref()) else {
            return openapi_schemas::of_kind(group, version, kind).cloned();
        };
        let mut schema = custom.schema.clone()?;
        let props = &mut schema["properties"];
        props["metadata"] = json!({"$ref": format!("#/components/schemas/{OBJECT_META}")});
        for key in ["apiVersion", "kind"] {
            props[key] = json!({"type": "string"});
        }
        Some(schema)
    }
}

/// The policy's `status.typeChecking`.
fn type_checking(client: &dyn Client, policy: &Value) -> Value {
    let warnings = check_policy(&policy["spec"], &Served(client.registry()));
    if warnings.is_empty() {
        return json!({});
    }
    let warnings: Vec<Value> = warnings
        .into_iter()
        .map(|w| json!({"fieldRef": w.field_ref, "warning": w.warning}))
        .collect();
    json!({"expressionWarnings": warnings})
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
    updated["status"] = json!({
        "observedGeneration": generation,
        "typeChecking": type_checking(client, policy),
    });
    client.put(def, "", &name, updated);
}
