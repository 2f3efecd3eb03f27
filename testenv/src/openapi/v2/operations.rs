//! Path items in Swagger 2.0 form, from the OpenAPI v3 path items: the request body becomes
//! the `body` parameter, parameters carry their type themselves, the content types of the
//! request and the answers become `consumes` and `produces`, and each answer names one
//! schema. `x-kubernetes-action` and `x-kubernetes-group-version-kind` are kept.

use serde_json::{Map, Value, json};

use super::schema::{Rules, convert};

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch"];

/// The order kube-apiserver lists the types an operation consumes.
const CONSUMES_ORDER: &[&str] = &[
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];

/// The order kube-apiserver lists the types an operation produces.
const PRODUCES_ORDER: &[&str] = &[
    "text/plain",
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "application/json;stream=watch",
    "application/vnd.kubernetes.protobuf;stream=watch",
];

/// The Swagger 2.0 form of one v3 path item.
pub fn path_item(item: &Value) -> Value {
    let mut out = Map::new();
    for method in METHODS {
        if let Some(op) = item.get(*method) {
            out.insert(method.to_string(), operation(op));
        }
    }
    if let Some(Value::Array(params)) = item.get("parameters") {
        out.insert(
            "parameters".into(),
            Value::Array(params.iter().map(parameter).collect()),
        );
    }
    Value::Object(out)
}

fn ordered<'a>(types: impl Iterator<Item = &'a String>, order: &[&str]) -> Vec<String> {
    let mut types: Vec<&String> = types.collect();
    types.sort_by_key(|t| order.iter().position(|o| o == t).unwrap_or(order.len()));
    types.dedup();
    types.into_iter().cloned().collect()
}

fn operation(op: &Value) -> Value {
    let mut out = Map::new();
    if let Some(d) = op.get("description") {
        out.insert("description".into(), d.clone());
    }
    let responses = op
        .get("responses")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let produces = ordered(
        responses
            .values()
            .filter_map(|r| r.get("content").and_then(Value::as_object))
            .flat_map(|c| c.keys()),
        PRODUCES_ORDER,
    );
    let body = op.get("requestBody");
    let consumes = match body.and_then(|b| b["content"].as_object()) {
        Some(content) => ordered(content.keys(), CONSUMES_ORDER),
        None if op.get("x-kubernetes-action").is_some() => vec!["*/*".to_string()],
        // The service account issuer's documents name nothing they consume.
        None if op["operationId"]
            .as_str()
            .is_some_and(|id| id.starts_with("getServiceAccountIssuer")) =>
        {
            Vec::new()
        }
        None => produces.clone(),
    };
    if !consumes.is_empty() {
        out.insert("consumes".into(), json!(consumes));
    }
    out.insert("produces".into(), json!(produces));
    out.insert("schemes".into(), json!(["https"]));
    for key in ["tags", "operationId"] {
        if let Some(v) = op.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let mut params = Vec::new();
    if let Some(b) = body {
        let schema = b["content"]
            .as_object()
            .and_then(|c| c.values().next())
            .map_or_else(|| json!({}), |m| convert(&m["schema"], Rules::Builtin));
        let mut p = json!({"name": "body", "in": "body", "schema": schema});
        if b["required"] == json!(true) {
            p["required"] = json!(true);
        }
        params.push(p);
    }
    if let Some(Value::Array(ps)) = op.get("parameters") {
        params.extend(ps.iter().map(parameter));
    }
    if !params.is_empty() {
        out.insert("parameters".into(), Value::Array(params));
    }
    let mut answers = Map::new();
    for (code, r) in &responses {
        let mut a = Map::new();
        a.insert(
            "description".into(),
            r.get("description").cloned().unwrap_or_else(|| json!("")),
        );
        if let Some(schema) = r
            .get("content")
            .and_then(Value::as_object)
            .and_then(|c| c.values().next())
            .and_then(|m| m.get("schema"))
        {
            a.insert("schema".into(), convert(schema, Rules::Builtin));
        }
        answers.insert(code.clone(), Value::Object(a));
    }
    out.insert("responses".into(), Value::Object(answers));
    for (k, v) in op.as_object().into_iter().flatten() {
        if k.starts_with("x-") {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// A v3 parameter (`schema: {type}`) as a v2 one (`type` on the parameter).
fn parameter(p: &Value) -> Value {
    let mut out = Map::new();
    if let Some(schema) = p.get("schema").and_then(Value::as_object) {
        for (k, v) in schema {
            out.insert(k.clone(), v.clone());
        }
    }
    for key in ["name", "in", "description", "required"] {
        if let Some(v) = p.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_body_becomes_the_body_parameter() {
        let v3 = json!({
            "parameters": [{"name": "namespace", "in": "path", "required": true, "schema": {"type": "string", "uniqueItems": true}}],
            "patch": {
                "tags": ["apps_v1"], "operationId": "patchAppsV1NamespacedDeployment",
                "parameters": [{"name": "force", "in": "query", "schema": {"type": "boolean", "uniqueItems": true}}],
                "requestBody": {"required": true, "content": {
                    "application/apply-patch+yaml": {"schema": {"$ref": "#/components/schemas/P"}},
                    "application/json-patch+json": {"schema": {"$ref": "#/components/schemas/P"}}}},
                "responses": {"200": {"description": "OK", "content": {
                    "application/yaml": {"schema": {"$ref": "#/components/schemas/D"}},
                    "application/json": {"schema": {"$ref": "#/components/schemas/D"}}}},
                    "401": {"description": "Unauthorized"}},
                "x-kubernetes-action": "patch",
                "x-kubernetes-group-version-kind": {"group": "apps", "kind": "Deployment", "version": "v1"},
            },
        });
        let v2 = path_item(&v3);
        assert_eq!(
            v2["parameters"][0],
            json!({"name": "namespace", "in": "path", "required": true, "type": "string", "uniqueItems": true})
        );
        let patch = &v2["patch"];
        assert_eq!(
            patch["parameters"][0],
            json!({"name": "body", "in": "body", "required": true, "schema": {"$ref": "#/definitions/P"}})
        );
        assert_eq!(patch["parameters"][1]["type"], "boolean");
        assert_eq!(
            patch["consumes"],
            json!([
                "application/json-patch+json",
                "application/apply-patch+yaml"
            ])
        );
        assert_eq!(
            patch["produces"],
            json!(["application/json", "application/yaml"])
        );
        assert_eq!(
            patch["responses"]["200"],
            json!({"description": "OK", "schema": {"$ref": "#/definitions/D"}})
        );
        assert_eq!(patch["x-kubernetes-action"], "patch");
        assert_eq!(
            patch["x-kubernetes-group-version-kind"]["kind"],
            "Deployment"
        );
    }
}
