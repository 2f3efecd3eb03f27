//! The component schemas of the built-in API as kube-apiserver v1.34.9 publishes them in its
//! OpenAPI v3 documents (`src/openapi/builtin/schemas.json`, recorded by
//! `scripts/record-discovery.sh`, descriptions left out), parsed once on first use.
//!
//! They live here, in the lowest layer, because the field manager types the objects of
//! built-in kinds with them as the real server's field manager does (list types and keys,
//! map types, maps and structs, the structs Go always writes), and the OpenAPI documents
//! (`openapi::builtin`) are built from the same schemas.

use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::OnceLock;

use serde_json::{Map, Value};

/// The schema name of `ObjectMeta`, the `metadata` of every object (custom resources too).
pub const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// Every component schema of the built-in API, by name.
pub fn schemas() -> &'static Map<String, Value> {
    static SCHEMAS: OnceLock<Map<String, Value>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        serde_json::from_str(include_str!("../openapi/builtin/schemas.json"))
            .expect("the recorded built-in schemas are JSON")
    })
}

/// The component schema called `name`.
pub fn named(name: &str) -> Option<&'static Value> {
    schemas().get(name)
}

/// The component schema name of each built-in group, version and kind (from the schemas'
/// `x-kubernetes-group-version-kind`).
fn kind_index() -> &'static HashMap<(String, String, String), &'static str> {
    static INDEX: OnceLock<HashMap<(String, String, String), &'static str>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = HashMap::new();
        for (name, schema) in schemas() {
            let gvks = schema["x-kubernetes-group-version-kind"].as_array();
            for gvk in gvks.into_iter().flatten() {
                let text = |k: &str| gvk[k].as_str().unwrap_or_default().to_string();
                index
                    .entry((text("group"), text("version"), text("kind")))
                    .or_insert(name.as_str());
            }
        }
        index
    })
}

/// Whether some built-in kind of the schemas belongs to API group `group`.
pub fn has_group(group: &str) -> bool {
    static GROUPS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    GROUPS
        .get_or_init(|| kind_index().keys().map(|(g, _, _)| g.as_str()).collect())
        .contains(group)
}

/// The schema of the built-in kind `group`/`version`/`kind`, if it has one.
pub fn of_kind(group: &str, version: &str, kind: &str) -> Option<&'static Value> {
    let key = (group.to_string(), version.to_string(), kind.to_string());
    kind_index().get(&key).and_then(|name| named(name))
}

/// The schema a `$ref` (or an `allOf` whose first member is one) stands for, followed until
/// a schema with its own content; any other schema is itself.
pub fn resolve(schema: &Value) -> &Value {
    let reference = schema.get("$ref").and_then(Value::as_str).or_else(|| {
        schema
            .get("allOf")
            .and_then(Value::as_array)
            .and_then(|all| all.first())
            .and_then(|first| first.get("$ref"))
            .and_then(Value::as_str)
    });
    match reference.and_then(|r| r.rsplit('/').next()).and_then(named) {
        Some(target) => resolve(target),
        None => schema,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_references_resolve_to_their_schemas() {
        let deployment = of_kind("apps", "v1", "Deployment").expect("Deployment is built in");
        let spec = resolve(&deployment["properties"]["spec"]);
        assert!(spec["properties"]["replicas"].is_object());
        assert_eq!(
            resolve(&deployment["properties"]["metadata"]),
            named(OBJECT_META).unwrap()
        );
        assert!(of_kind("apps", "v1", "Nothing").is_none());
        let plain = serde_json::json!({"type": "string"});
        assert_eq!(resolve(&plain), &plain);
    }
}
