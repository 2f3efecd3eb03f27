//! An OpenAPI v3 document reduced to what the parity test compares, exactly as
//! `scripts/record-discovery.sh` reduces the real server's documents (its `REDUCE` filter):
//! per path one line per operation and one for the path's own parameters (sorted), and per
//! component schema the names of its properties.
//!
//! An operation line: `<METHOD> <operationId> tags=<t,..> action=<x> gvk=<g/v/Kind>
//! params=<in>.<name>:<type>[!],... body=<ct>:<schema>,..[!] <code>[=<schema>:<ct>,..|..] ...`
//! (schemas named without `#/components/schemas/`, inline ones as JSON; content types
//! shortened: `json`, `yaml`, `pb` for protobuf, `;watch` for `;stream=watch`).

use serde_json::{Map, Value, json};

fn content_type(ct: &str) -> String {
    let ct = match ct.strip_prefix("application/vnd.kubernetes.protobuf") {
        Some(rest) => format!("pb{rest}"),
        None => ct.strip_prefix("application/").unwrap_or(ct).to_string(),
    };
    match ct.strip_suffix(";stream=watch") {
        Some(base) => format!("{base};watch"),
        None => ct,
    }
}

fn schema(s: &Value) -> String {
    let strip = |r: &str| r.trim_start_matches("#/components/schemas/").to_string();
    if s.is_null() {
        "-".into()
    } else if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        strip(r)
    } else if let Some(r) = s.pointer("/allOf/0/$ref").and_then(Value::as_str) {
        strip(r)
    } else {
        s.to_string()
    }
}

fn param(p: &Value) -> String {
    let s = &p["schema"];
    let mut rest = s.as_object().cloned().unwrap_or_default();
    rest.remove("type");
    rest.remove("uniqueItems");
    let odd = !rest.is_empty() || s.get("uniqueItems") != Some(&json!(true));
    format!(
        "{}.{}:{}{}{}",
        p["in"].as_str().unwrap_or_default(),
        p["name"].as_str().unwrap_or_default(),
        s.get("type").and_then(Value::as_str).unwrap_or("-"),
        if p["required"] == json!(true) {
            "!"
        } else {
            ""
        },
        if odd { format!("~{s}") } else { String::new() },
    )
}

fn params(list: Option<&Value>) -> String {
    match list.and_then(Value::as_array) {
        Some(ps) if !ps.is_empty() => {
            format!(
                " params={}",
                ps.iter().map(param).collect::<Vec<_>>().join(",")
            )
        }
        _ => String::new(),
    }
}

fn operation(method: &str, op: &Value) -> String {
    let mut line = format!(
        "{} {} tags={}",
        method.to_ascii_uppercase(),
        op["operationId"].as_str().unwrap_or("-"),
        op["tags"]
            .as_array()
            .map(|t| t
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(","))
            .unwrap_or_default()
    );
    if let Some(a) = op["x-kubernetes-action"].as_str() {
        line += &format!(" action={a}");
    }
    let gvk = &op["x-kubernetes-group-version-kind"];
    if gvk.is_object() {
        line += &format!(
            " gvk={}/{}/{}",
            gvk["group"].as_str().unwrap_or_default(),
            gvk["version"].as_str().unwrap_or_default(),
            gvk["kind"].as_str().unwrap_or_default()
        );
    }
    line += &params(op.get("parameters"));
    if let Some(body) = op.get("requestBody").filter(|b| b.is_object()) {
        let mut cts: Vec<String> = body["content"]
            .as_object()
            .map(|c| {
                c.iter()
                    .map(|(k, v)| format!("{}:{}", content_type(k), schema(&v["schema"])))
                    .collect()
            })
            .unwrap_or_default();
        cts.sort();
        line += &format!(" body={}", cts.join(","));
        if body["required"] == json!(true) {
            line += "!";
        }
    }
    for (code, response) in op["responses"].as_object().into_iter().flatten() {
        line += &format!(" {code}");
        if let Some(content) = response.get("content").and_then(Value::as_object) {
            let mut groups: Vec<(String, Vec<String>)> = Vec::new();
            for (ct, v) in content {
                let s = schema(&v["schema"]);
                match groups.iter_mut().find(|(g, _)| *g == s) {
                    Some((_, cts)) => cts.push(content_type(ct)),
                    None => groups.push((s, vec![content_type(ct)])),
                }
            }
            groups.sort();
            let parts: Vec<String> = groups
                .into_iter()
                .map(|(s, mut cts)| {
                    cts.sort();
                    format!("{s}:{}", cts.join(","))
                })
                .collect();
            line += &format!("={}", parts.join("|"));
        }
    }
    line
}

/// The reduced form of one document.
pub fn reduce(doc: &Value) -> Value {
    let mut paths = Map::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        let mut lines: Vec<String> = item
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                if k == "parameters" {
                    format!("PARAMETERS{}", params(Some(v)))
                } else {
                    operation(k, v)
                }
            })
            .collect();
        lines.sort();
        paths.insert(path.clone(), json!(lines));
    }
    let schemas: Map<String, Value> = doc["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, s)| {
            let props: Vec<&String> = s["properties"]
                .as_object()
                .map(|p| p.keys().collect())
                .unwrap_or_default();
            (name.clone(), json!(props))
        })
        .collect();
    let security: Vec<&String> = doc["components"]["securitySchemes"]
        .as_object()
        .map(|s| s.keys().collect())
        .unwrap_or_default();
    json!({"paths": paths, "schemas": schemas, "securitySchemes": security})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_read_as_the_recording_script_writes_them() {
        let doc = json!({"paths": {"/api/v1/x": {
            "get": {"operationId": "readX", "tags": ["core_v1"], "x-kubernetes-action": "get",
                "x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "Pod"},
                "responses": {"200": {"content": {
                    "application/yaml": {"schema": {"$ref": "#/components/schemas/P"}},
                    "application/json": {"schema": {"$ref": "#/components/schemas/P"}},
                    "application/vnd.kubernetes.protobuf;stream=watch": {"schema": {"$ref": "#/components/schemas/P"}}}},
                    "401": {"description": "Unauthorized"}}},
            "parameters": [{"name": "name", "in": "path", "required": true, "schema": {"type": "string", "uniqueItems": true}}]}}});
        let r = reduce(&doc);
        assert_eq!(
            r["paths"]["/api/v1/x"],
            json!([
                "GET readX tags=core_v1 action=get gvk=/v1/Pod 200=P:json,pb;watch,yaml 401",
                "PARAMETERS params=path.name:string!"
            ])
        );
    }
}
