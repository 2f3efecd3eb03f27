//! The apiextensions checks that follow the OpenAPI validation of a custom resource:
//! embedded resources (`x-kubernetes-embedded-resource`) must carry `apiVersion` and `kind`
//! (and a valid `metadata.name`), and `x-kubernetes-list-type: set|map` lists must not hold
//! duplicates.

use serde_json::{Map, Value};

use super::errors::FieldError;
use super::names::dns1035_label;
use super::values::{child, flag, index, json_eq, property_schema};

/// The apiextensions checks that run after the OpenAPI validation: embedded resources must
/// carry `apiVersion` and `kind`, and `x-kubernetes-list-type: set|map` lists must not hold
/// duplicates (`Duplicate value`).
pub(crate) fn check_list_types_and_embedded(
    v: &Value,
    schema: &Value,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    let Some(s) = schema.as_object() else {
        return;
    };
    match v {
        Value::Object(obj) => {
            if flag(s, "x-kubernetes-embedded-resource") {
                check_embedded_type_meta(obj, path, errs);
            }
            let mut keys: Vec<&String> = obj.keys().collect();
            keys.sort();
            for key in keys {
                if let Some(sub) = property_schema(s, key) {
                    check_list_types_and_embedded(&obj[key.as_str()], sub, &child(path, key), errs);
                }
            }
        }
        Value::Array(items) => {
            match s.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("set") => {
                    for (i, item) in items.iter().enumerate() {
                        if items[..i].iter().any(|b| json_eq(item, b)) {
                            errs.push(FieldError::duplicate(index(path, i), item));
                        }
                    }
                }
                Some("map") => check_list_map(items, s, path, errs),
                _ => {}
            }
            if let Some(item_schema) = s.get("items").filter(|i| i.is_object()) {
                for (i, item) in items.iter().enumerate() {
                    check_list_types_and_embedded(item, item_schema, &index(path, i), errs);
                }
            }
        }
        _ => {}
    }
}

/// An embedded resource needs a string `apiVersion` that parses as a group/version and a
/// string `kind` that is a DNS-1035 label in lower case (`validateEmbeddedResource`).
fn check_embedded_type_meta(obj: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    for key in ["apiVersion", "kind"] {
        let p = child(path, key);
        match obj.get(key) {
            None => errs.push(FieldError::required(p, "must not be empty")),
            Some(Value::String(v)) if v.is_empty() => errs.push(FieldError::invalid(
                p,
                &Value::from(""),
                "must not be empty",
            )),
            Some(Value::String(v)) => {
                if key == "apiVersion" && v.matches('/').count() > 1 {
                    errs.push(FieldError::invalid(
                        p,
                        &Value::from(v.as_str()),
                        &format!("unexpected GroupVersion string: {v}"),
                    ));
                } else if key == "kind" {
                    let msgs = dns1035_label(&v.to_lowercase());
                    if !msgs.is_empty() {
                        errs.push(FieldError::invalid(
                            p,
                            &Value::from(v.as_str()),
                            &format!(
                                "may have mixed case, but should otherwise match: {}",
                                msgs.join(",")
                            ),
                        ));
                    }
                }
            }
            Some(other) => errs.push(FieldError::invalid(p, other, "must be a string")),
        }
    }
}

fn check_list_map(items: &[Value], s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    let keys: Vec<&str> = s
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|k| k.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let item_props = s
        .get("items")
        .and_then(|i| i.get("properties"))
        .and_then(Value::as_object);
    let mut seen: Vec<Vec<Value>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(obj) = item.as_object() else {
            errs.push(FieldError::invalid(
                index(path, i),
                item,
                "must be an object for an array of list-type map",
            ));
            continue;
        };
        let key: Vec<Value> = keys
            .iter()
            .map(|k| {
                obj.get(*k)
                    .cloned()
                    .or_else(|| {
                        item_props
                            .and_then(|p| p.get(*k))
                            .and_then(|p| p.get("default"))
                            .cloned()
                    })
                    .unwrap_or(Value::Null)
            })
            .collect();
        if seen
            .iter()
            .any(|k| k.iter().zip(&key).all(|(a, b)| json_eq(a, b)))
        {
            let shown: Map<String, Value> = keys
                .iter()
                .zip(&key)
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            errs.push(FieldError::duplicate(index(path, i), &Value::Object(shown)));
        } else {
            seen.push(key);
        }
    }
}
