//! The parameters the Swagger 2.0 document shares: kube-apiserver lists each distinct
//! parameter once under the top-level `parameters` and has the operations and path items
//! refer to it (`{"$ref": "#/parameters/<name>-<hash>"}`), except the ones it keeps inline:
//! `name` in the path or query, the `dryRun` and `fieldValidation` query parameters (kubectl
//! used to look for them), and a `body` whose schema is the kind's own (not one of
//! `io.k8s.apimachinery`'s, such as `DeleteOptions` or `Patch`).
//!
//! A shared parameter is named after its `name` and the first 6 bytes of the 64-bit FNV-1
//! hash of its JSON as Go encodes it, in URL-safe base64; the names are given in the order
//! of those JSON texts, and a name already taken gets `-1`, `-2`... instead of the hash.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::{Map, Value, json};

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch"];

/// The order Go writes the members of a parameter in (its validations, its simple schema,
/// its reference, then its own properties); vendor extensions come before the own ones.
const VALIDATIONS: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "enum",
    "type",
    "nullable",
    "format",
    "items",
    "collectionFormat",
    "default",
    "example",
    "$ref",
];
const PROPERTIES: &[&str] = &[
    "description",
    "name",
    "in",
    "required",
    "schema",
    "allowEmptyValue",
];

/// Whether kube-apiserver shares this parameter.
fn shareable(p: &Value) -> bool {
    let (name, place) = (p["name"].as_str(), p["in"].as_str());
    match (place, name) {
        (Some("query" | "path"), Some("name")) => false,
        (Some("query"), Some("fieldValidation" | "dryRun")) => false,
        (Some("body"), Some("body")) => p.get("schema").is_none_or(|s| {
            s["$ref"]
                .as_str()
                .is_some_and(|r| r.starts_with("#/definitions/io.k8s.apimachinery"))
        }),
        _ => true,
    }
}

/// Go's JSON text of a parameter: its members in Go's order, `false` flags left out, and
/// `<`, `>`, `&`, U+2028 and U+2029 escaped as Go escapes them.
fn go_json(p: &Value) -> String {
    let Some(members) = p.as_object() else {
        return p.to_string();
    };
    let omitted = |v: &Value| *v == Value::Bool(false);
    let mut out: Vec<(&str, &Value)> = Vec::new();
    let mut put = |key: &str| {
        if let Some((k, v)) = members.get_key_value(key).filter(|(_, v)| !omitted(v)) {
            out.push((k.as_str(), v));
        }
    };
    VALIDATIONS.iter().for_each(|k| put(k));
    let mut extensions: Vec<&String> = members.keys().filter(|k| k.starts_with("x-")).collect();
    extensions.sort();
    extensions.into_iter().for_each(|k| put(k));
    PROPERTIES.iter().for_each(|k| put(k));
    let mut text = String::from("{");
    for (i, (k, v)) in out.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&Value::from(*k).to_string());
        text.push(':');
        text.push_str(&v.to_string());
    }
    text.push('}');
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// 64-bit FNV-1 (multiply, then xor).
fn fnv1_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, b| {
        h.wrapping_mul(0x0000_0100_0000_01b3) ^ u64::from(*b)
    })
}

fn base64_hash(text: &str) -> String {
    let hash = fnv1_64(text.as_bytes()).to_be_bytes();
    base64::engine::general_purpose::URL_SAFE.encode(&hash[..6])
}

/// Every parameter list of the paths: each operation's, then the path item's.
fn parameter_lists(item: &mut Value) -> impl Iterator<Item = &mut Vec<Value>> {
    let item = item.as_object_mut().into_iter().flat_map(|o| o.iter_mut());
    item.filter(|(k, _)| METHODS.contains(&k.as_str()) || *k == "parameters")
        .filter_map(|(k, v)| {
            if k == "parameters" {
                v.as_array_mut()
            } else {
                v.get_mut("parameters").and_then(Value::as_array_mut)
            }
        })
}

/// Moves the shared parameters of `paths` out of them: each becomes a reference, and the
/// returned map (the document's `parameters`) holds them by name.
pub fn share(paths: &mut Map<String, Value>) -> Map<String, Value> {
    let mut shared: BTreeMap<String, Value> = BTreeMap::new();
    for item in paths.values_mut() {
        for list in parameter_lists(item) {
            for p in list
                .iter()
                .filter(|p| p.get("$ref").is_none() && shareable(p))
            {
                shared.entry(go_json(p)).or_insert_with(|| p.clone());
            }
        }
    }
    let mut parameters = Map::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for (text, p) in shared {
        let base = p["name"]
            .as_str()
            .filter(|n| !n.is_empty())
            .unwrap_or("param");
        let mut name = format!("{base}-{}", base64_hash(&text));
        let mut i = 0;
        while parameters.contains_key(&name) {
            i += 1;
            name = format!("{base}-{i}");
        }
        parameters.insert(name.clone(), p);
        names.insert(text, name);
    }
    for item in paths.values_mut() {
        for list in parameter_lists(item) {
            for p in list.iter_mut().filter(|p| p.get("$ref").is_none()) {
                if let Some(name) = names.get(&go_json(p)) {
                    *p = json!({"$ref": format!("#/parameters/{name}")});
                }
            }
        }
    }
    parameters
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_go_hash_of_the_go_json() {
        let watch = json!({"name": "watch", "in": "query", "type": "boolean", "uniqueItems": true,
            "description": "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion."});
        assert_eq!(
            go_json(&watch),
            "{\"uniqueItems\":true,\"type\":\"boolean\",\"description\":\"Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.\",\"name\":\"watch\",\"in\":\"query\"}"
        );
        // The name kube-apiserver v1.34 gives this parameter.
        assert_eq!(base64_hash(&go_json(&watch)), "XNNPZGbK");
        assert_eq!(
            go_json(&json!({"name": "a<b", "in": "query", "required": false})),
            "{\"name\":\"a\\u003cb\",\"in\":\"query\"}"
        );
    }

    #[test]
    fn shared_parameters_become_references_and_the_rest_stays_inline() {
        let namespace = json!({"name": "namespace", "in": "path", "required": true, "type": "string", "uniqueItems": true});
        let dry_run =
            json!({"name": "dryRun", "in": "query", "type": "string", "uniqueItems": true});
        let own_body = json!({"name": "body", "in": "body", "required": true, "schema": {"$ref": "#/definitions/io.k8s.api.core.v1.ConfigMap"}});
        let patch_body = json!({"name": "body", "in": "body", "required": true, "schema": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}});
        let name = json!({"name": "name", "in": "path", "required": true, "type": "string", "uniqueItems": true});
        let mut paths = Map::new();
        paths.insert(
            "/api/v1/namespaces/{namespace}/configmaps/{name}".into(),
            json!({
                "put": {"parameters": [own_body, dry_run]},
                "patch": {"parameters": [patch_body, dry_run]},
                "parameters": [name, namespace],
            }),
        );
        paths.insert(
            "/api/v1/namespaces/{namespace}/configmaps".into(),
            json!({"parameters": [namespace]}),
        );
        let shared = share(&mut paths);
        let mut keys: Vec<&String> = shared.keys().collect();
        keys.sort();
        assert_eq!(keys.len(), 2);
        assert!(keys[0].starts_with("body-") && keys[1].starts_with("namespace-"));
        assert_eq!(keys[1].len(), "namespace-".len() + 8);
        assert_eq!(shared[keys[1].as_str()], namespace);
        let item = &paths["/api/v1/namespaces/{namespace}/configmaps/{name}"];
        let reference = |k: &String| json!({"$ref": format!("#/parameters/{k}")});
        assert_eq!(item["parameters"], json!([name, reference(keys[1])]));
        assert_eq!(item["put"]["parameters"], json!([own_body, dry_run]));
        assert_eq!(
            item["patch"]["parameters"],
            json!([reference(keys[0]), dry_run])
        );
        assert_eq!(
            paths["/api/v1/namespaces/{namespace}/configmaps"]["parameters"],
            json!([reference(keys[1])])
        );
    }
}
