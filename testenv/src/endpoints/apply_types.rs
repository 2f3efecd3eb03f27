//! The JSON types of an applied configuration of a built-in kind, checked against the kind's
//! OpenAPI schema as the real field manager types it before merging: a string where a map
//! is expected, a number where a string is, a field the schema does not declare, and so on.
//! Each error is worded as structured-merge-diff words it, with the value printed as Go
//! prints the decoded JSON.

use serde_json::{Map, Value};

use crate::support::openapi_schemas::{of_kind, resolve};

/// Go's `%v` of a decoded JSON value (`map[a:1 b:[x <nil>]]`).
fn go_plain(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(go_plain).collect();
            format!("[{}]", inner.join(" "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = sorted(map)
                .map(|(k, v)| format!("{k}:{}", go_plain(v)))
                .collect();
            format!("map[{}]", inner.join(" "))
        }
        other => other.to_string(),
    }
}

/// Go's `%#v` of a decoded JSON value (`map[string]interface {}{"a":1}`).
fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".into(),
        Value::String(s) => crate::registry::schema::go_quote(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = sorted(map)
                .map(|(k, v)| format!("{}:{}", crate::registry::schema::go_quote(k), go_syntax(v)))
                .collect();
            format!("map[string]interface {{}}{{{}}}", inner.join(", "))
        }
        other => other.to_string(),
    }
}

fn sorted(map: &Map<String, Value>) -> impl Iterator<Item = (&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries.into_iter()
}

/// The Go type name of a decoded JSON value, as a numeric field's error names it.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
        Value::Number(_) => "float64",
        Value::Null => "<nil>",
    }
}

/// The path element of item `i` of a list with schema `schema`: its keys for a map list
/// (a key the item omits takes the key field's default), its value for a set, its index
/// otherwise.
fn item_element(schema: &Value, item: &Value, i: usize) -> String {
    match schema["x-kubernetes-list-type"].as_str() {
        Some("map") => {
            let keys: Vec<&str> = schema["x-kubernetes-list-map-keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let item_schema = resolve(&schema["items"]);
            let mut parts: Vec<(String, String)> = keys
                .iter()
                .filter_map(|k| {
                    let value = item
                        .get(*k)
                        .filter(|v| !v.is_null())
                        .or_else(|| item_schema["properties"][*k].get("default"))?;
                    Some((k.to_string(), format!("{k}={}", key_text(value))))
                })
                .collect();
            if parts.is_empty() {
                return format!("[{i}]");
            }
            parts.sort();
            let inner: Vec<String> = parts.into_iter().map(|(_, p)| p).collect();
            format!("[{}]", inner.join(","))
        }
        Some("set") => format!("[={}]", key_text(item)),
        _ => format!("[{i}]"),
    }
}

/// A key value in a path: JSON for scalars, Go's `%v` for maps and lists.
fn key_text(value: &Value) -> String {
    match value {
        Value::Object(map) => sorted(map)
            .map(|(k, v)| format!("{k}={}", key_text(v)))
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

/// Appends to `out` the type errors of `value` at `path` against `schema`.
fn walk(schema: &Value, value: &Value, path: &str, out: &mut Vec<String>) {
    if value.is_null() {
        return;
    }
    let schema = resolve(schema);
    // Int-or-string, quantities and other untyped scalars take any value here; the
    // conversion to the Go type refuses what they cannot hold.
    if schema.get("oneOf").is_some() || schema.get("x-kubernetes-int-or-string").is_some() {
        return;
    }
    let ty = schema["type"].as_str().unwrap_or_default();
    match ty {
        "string" if !value.is_string() => {
            out.push(format!(
                "{path}: expected string, got &value.valueUnstructured{{Value:{}}}",
                go_syntax(value)
            ));
        }
        "integer" | "number" if !value.is_number() => {
            out.push(format!(
                "{path}: expected numeric (int or float), got {}",
                go_type(value)
            ));
        }
        "boolean" if !value.is_boolean() => {
            out.push(format!(
                "{path}: expected boolean, got &{{{}}}",
                go_plain(value)
            ));
        }
        "array" => {
            let Some(items) = value.as_array() else {
                out.push(format!(
                    "{path}: expected list, got &{{{}}}",
                    go_plain(value)
                ));
                return;
            };
            for (i, item) in items.iter().enumerate() {
                let at = format!("{path}{}", item_element(schema, item, i));
                walk(&schema["items"], item, &at, out);
            }
        }
        "object" => {
            let Some(map) = value.as_object() else {
                out.push(format!(
                    "{path}: expected map, got &{{{}}}",
                    go_plain(value)
                ));
                return;
            };
            if let Some(properties) = schema["properties"].as_object() {
                // A field the schema does not declare ends the walk of its map (the real
                // server meets the entries in Go's map order, which varies).
                for (name, v) in sorted(map) {
                    let at = format!("{path}.{name}");
                    match properties.get(name) {
                        Some(field) => walk(field, v, &at, out),
                        None => {
                            out.push(format!("{at}: field not declared in schema"));
                            break;
                        }
                    }
                }
            } else if let Some(values) = schema.get("additionalProperties") {
                for (name, v) in sorted(map) {
                    walk(values, v, &format!("{path}.{name}"), out);
                }
            }
        }
        _ => {}
    }
}

/// The type errors of an applied configuration of the built-in `group`/`version`/`kind`
/// (empty for kinds without a recorded schema): list items in their order, map entries by
/// key (the real server visits them in Go's map order, which varies between requests).
pub fn type_errors(group: &str, version: &str, kind: &str, config: &Value) -> Vec<String> {
    let Some(schema) = of_kind(group, version, kind) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    walk(schema, config, "", &mut out);
    out
}

/// The keys of `map` (a value of `schema`) in the order Go visits them: the fields of the
/// schema's Go struct in declaration order, then any others by name.
fn go_order(schema: &Value, map: &Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(map.len());
    if let Some(go) = crate::support::go_types::of_schema(schema) {
        names.extend(
            go.fields
                .iter()
                .filter(|f| map.contains_key(&f.name))
                .map(|f| f.name.clone()),
        );
    }
    let mut rest: Vec<String> = map.keys().filter(|k| !names.contains(k)).cloned().collect();
    rest.sort();
    names.extend(rest);
    names
}

/// Converts `value` (against `schema`) as the conversion to the kind's Go type and back
/// does: an integral number for an integer or an int-or-string becomes an integer, a number
/// for a quantity its canonical string. Fails on the first value the conversion refuses: a
/// number with a fraction for an integer (`cannot convert float64 to int32`) or for an
/// int-or-string (Go's JSON decoder's words), a string that is not a quantity. Struct fields
/// are visited in their Go struct's order, as the conversion visits them ([`go_order`]).
fn to_go(schema: &Value, value: &mut Value) -> Result<(), String> {
    let schema = resolve(schema);
    let integral = |v: &Value| match v.as_f64() {
        Some(f) if v.is_f64() && f.fract() == 0.0 => Ok(Some(Value::from(f as i64))),
        Some(f) if v.is_f64() => Err(f),
        _ => Ok(None),
    };
    if schema["format"] == "int-or-string" {
        return match integral(value) {
            Ok(Some(int)) => {
                *value = int;
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(_) => Err(format!(
                "json: cannot unmarshal number {value} into Go value of type int32"
            )),
        };
    }
    if let Some(one_of) = schema["oneOf"].as_array() {
        // A quantity: a string or a number.
        if !one_of.iter().any(|s| s["type"] == "number") {
            return Ok(());
        }
        match value {
            Value::String(text) => {
                crate::support::quantity::Quantity::try_parse(text)?;
            }
            Value::Number(n) => {
                let quantity = crate::support::quantity::Quantity::try_parse(&n.to_string())?;
                *value = Value::String(quantity.to_string());
            }
            _ => {}
        }
        return Ok(());
    }
    match value {
        Value::Number(_) if schema["type"] == "integer" => match integral(value) {
            Ok(Some(int)) => *value = int,
            Ok(None) => {}
            Err(_) => {
                let bits = if schema["format"] == "int32" { 32 } else { 64 };
                return Err(format!("cannot convert float64 to int{bits}"));
            }
        },
        Value::Array(items) => {
            for item in items {
                to_go(&schema["items"], item)?;
            }
        }
        Value::Object(map) => {
            for name in go_order(schema, map) {
                let field = schema["properties"]
                    .get(&name)
                    .or_else(|| schema.get("additionalProperties"));
                if let (Some(field), Some(v)) = (field, map.get_mut(&name)) {
                    to_go(field, v)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Converts the object a server-side apply made of the built-in `group`/`version`/`kind` to
/// the kind's Go type and back (see [`to_go`]), or says why the conversion fails (the real
/// server then answers 500 `failed to convert new object`).
pub fn convert(group: &str, version: &str, kind: &str, object: &mut Value) -> Result<(), String> {
    match of_kind(group, version, kind) {
        Some(schema) => to_go(schema, object),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn config_map_data_must_be_strings() {
        let config =
            json!({"data": {"a": 1, "b": "x", "c": {"x": 1}}, "metadata": {"labels": {"l": true}}});
        assert_eq!(
            type_errors("", "v1", "ConfigMap", &config),
            [
                ".data.a: expected string, got &value.valueUnstructured{Value:1}",
                r#".data.c: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"x":1}}"#,
                ".metadata.labels.l: expected string, got &value.valueUnstructured{Value:true}",
            ]
        );
        let wrong = json!({"data": ["a"]});
        assert_eq!(
            type_errors("", "v1", "ConfigMap", &wrong),
            [".data: expected map, got &{[a]}"]
        );
    }

    #[test]
    fn deployment_paths_name_list_keys() {
        let config = json!({"metadata": {"finalizers": [1]}, "spec": {"replicas": "x", "paused": "yes",
            "template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80, "name": 5}]}]}}}});
        assert_eq!(
            type_errors("apps", "v1", "Deployment", &config),
            [
                ".metadata.finalizers[=1]: expected string, got &value.valueUnstructured{Value:1}",
                ".spec.paused: expected boolean, got &{yes}",
                ".spec.replicas: expected numeric (int or float), got string",
                r#".spec.template.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"].name: expected string, got &value.valueUnstructured{Value:5}"#,
            ]
        );
        let containers = json!({"spec": {"template": {"spec": {"containers": "x"}}}});
        assert_eq!(
            type_errors("apps", "v1", "Deployment", &containers),
            [".spec.template.spec.containers: expected list, got &{x}"]
        );
        let fine = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": 2, "strategy": {"rollingUpdate": {"maxSurge": "25%"}}}});
        assert!(type_errors("apps", "v1", "Deployment", &fine).is_empty());
    }

    #[test]
    fn values_go_cannot_convert_are_named() {
        let convert =
            |mut object: Value| convert("apps", "v1", "Deployment", &mut object).map(|()| object);
        let refused = |object: Value| convert(object).err();
        assert_eq!(
            refused(json!({"spec": {"replicas": 1.5}})).as_deref(),
            Some("cannot convert float64 to int32")
        );
        assert_eq!(
            refused(json!({"spec": {"template": {"spec": {"activeDeadlineSeconds": 2.5}}}}))
                .as_deref(),
            Some("cannot convert float64 to int64")
        );
        assert_eq!(
            refused(json!({"spec": {"strategy": {"rollingUpdate": {"maxSurge": 1.5}}}})).as_deref(),
            Some("json: cannot unmarshal number 1.5 into Go value of type int32")
        );
        let limits = |cpu: Value| {
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "c", "resources": {"limits": {"cpu": cpu}}}]}}}})
        };
        assert_eq!(
            refused(limits(json!("1x"))).as_deref(),
            Some(crate::support::quantity::FORMAT_ERROR)
        );
        // Integral numbers become integers and numeric quantities canonical strings.
        assert_eq!(convert(limits(json!(1.5))), Ok(limits(json!("1500m"))));
        // Of two values it cannot convert, Go names the first in its struct order
        // (`template` is declared before `progressDeadlineSeconds`; by name it would come after).
        assert_eq!(
            refused(json!({"spec": {"progressDeadlineSeconds": 1.5,
                "template": {"spec": {"activeDeadlineSeconds": 2.5}}}}))
            .as_deref(),
            Some("cannot convert float64 to int64")
        );
        assert_eq!(
            convert(
                json!({"spec": {"replicas": 2.0, "strategy": {"rollingUpdate": {"maxSurge": 1.0}}}})
            ),
            Ok(json!({"spec": {"replicas": 2, "strategy": {"rollingUpdate": {"maxSurge": 1}}}}))
        );
    }

    #[test]
    fn undeclared_fields_end_the_walk_of_their_map() {
        let config = json!({"spec": {"x": 1}, "data": {"a": "b"}});
        assert_eq!(
            type_errors("", "v1", "ConfigMap", &config),
            [".spec: field not declared in schema"]
        );
        let config = json!({"metadata": {"foo": 1, "labels": {"a": 1}},
            "spec": {"bogus": 1, "replicas": "x"}, "status": {"zzz": null}});
        assert_eq!(
            type_errors("apps", "v1", "Deployment", &config),
            [
                ".metadata.foo: field not declared in schema",
                ".spec.bogus: field not declared in schema",
                ".status.zzz: field not declared in schema",
            ]
        );
    }
}
