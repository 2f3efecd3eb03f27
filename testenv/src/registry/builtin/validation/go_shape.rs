//! A built-in object written as the real server's round trip through its Go type writes it:
//! what `omitempty` leaves out dropped, the struct fields that are not pointers written (`{}`
//! when absent), zero values and `null`s written where Go writes them, quantities in Go's
//! canonical form, times at their type's precision. The types come from the built-in OpenAPI
//! schemas, resolved as [`super::typed`] resolves them.

use serde_json::{Value, json};

use super::typed::{QUANTITY, precision_of, resolve};
use crate::openapi::builtin::{component_prefix, schemas};
use crate::support::go_time;
use crate::support::go_types;
use crate::support::quantity;

/// Whether a resolved schema is a Go map (`additionalProperties`, no fixed properties).
fn is_map(schema: &Value) -> bool {
    schema.get("additionalProperties").is_some() && schema.get("properties").is_none()
}

/// A quantity written back in Go's canonical form (rounded up to a milli-unit in a
/// `ResourceList`, as its defaulting does); kept when it is beyond what is held here.
fn canonical_quantity(value: &mut Value, milli: bool) {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Number(n) => n.to_string(),
        _ => return,
    };
    if let Some(written) = quantity::canonical(&text, milli) {
        *value = Value::String(written);
    }
}

/// What [`omit_empty`] shapes: whether the kind's defaulting rounds its `ResourceList`s up
/// to milli-units (core, apps and batch, whose defaulters run `SetDefaults_ResourceList`;
/// a RuntimeClass's overhead, for one, is kept as sent).
#[derive(Clone, Copy)]
struct Shaping {
    round_resource_lists: bool,
}

fn omit_empty(value: &mut Value, schema: &Value, shaping: Shaping) {
    let (name, schema) = resolve(schema);
    if name == Some(QUANTITY) {
        canonical_quantity(value, false);
        return;
    }
    match value {
        // Written back as the type's MarshalJSON writes it: UTC, to the second or microsecond.
        Value::String(text) if schema["format"] == "date-time" => {
            let precision = precision_of(name);
            if let Ok(time) = go_time::parse(text, precision) {
                *text = go_time::normalize(time, precision);
            }
        }
        Value::Object(map) if schema.get("properties").is_some() => {
            let properties = &schema["properties"];
            let required = schema["required"].as_array();
            // A struct field that is not a pointer (`default: {}`) is always written.
            for (k, field) in properties.as_object().into_iter().flatten() {
                if field["default"] == json!({})
                    && resolve(field).1.get("properties").is_some()
                    && !map.contains_key(k)
                {
                    map.insert(k.clone(), json!({}));
                }
            }
            // What the Go type's tags leave out; by the schema for a struct not recorded.
            if !name.is_some_and(|n| go_types::drop_left_out(n, map)) {
                map.retain(|k, v| {
                    let Some(field) = properties.get(k) else {
                        return true;
                    };
                    let empty = match v {
                        Value::Array(items) => items.is_empty(),
                        Value::Object(m) => m.is_empty() && is_map(resolve(field).1),
                        _ => false,
                    };
                    !empty || required.is_some_and(|r| r.iter().any(|n| n == k))
                });
            }
            for (k, v) in map.iter_mut() {
                if let Some(field) = properties.get(k) {
                    omit_empty(v, field, shaping);
                }
            }
        }
        Value::Object(map) if is_map(schema) => {
            let values = &schema["additionalProperties"];
            // A map of quantities is a ResourceList, whose defaulting rounds up to milli.
            let resource_list = resolve(values).0 == Some(QUANTITY);
            for v in map.values_mut() {
                if resource_list {
                    canonical_quantity(v, shaping.round_resource_lists);
                } else {
                    omit_empty(v, values, shaping);
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                omit_empty(v, &schema["items"], shaping);
            }
        }
        _ => {}
    }
}

/// Drops what the Go type's `omitempty` leaves out from a built-in object (zero values, empty
/// lists and maps; [`go_types::drop_left_out`]) and writes the struct fields that are not
/// pointers (`{}` when absent), as the real server's round trip through the Go type does
/// (`omitempty` never omits structs); quantities come back in Go's canonical form
/// ([`quantity::canonical`]). The type is the object's own `apiVersion` and `kind`.
pub fn omit_empty_collections(object: &mut Value) {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let kind = object["kind"].as_str().unwrap_or_default();
    let component = format!("{}.{kind}", component_prefix(group, version));
    if schemas().contains_key(&component) {
        // Through a reference, so the root struct is known by its name too.
        let reference = json!({"$ref": format!("#/components/schemas/{component}")});
        let shaping = Shaping {
            round_resource_lists: matches!(group, "" | "apps" | "batch"),
        };
        omit_empty(object, &reference, shaping);
    }
}

/// Writes the zero values Go writes for fields without `omitempty` (`""`, `0`, `false`; the
/// built-in OpenAPI gives them as the field's `default`) where the object lacks them, and
/// `null` for the unset time fields that are not pointers ([`go_types::write_null_times`])
/// and the unset pointers without `omitempty` ([`go_types::write_null_pointers`]),
/// as the real server's round trip through the Go type does (a core Event's
/// `reportingComponent: ""` and `firstTimestamp: null`). Not part of
/// [`omit_empty_collections`], which also shapes the creator's view for the field manager: a
/// zero value nobody sent is nobody's field.
pub fn write_zero_values(object: &mut Value) {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let kind = object["kind"].as_str().unwrap_or_default();
    let component = format!("{}.{kind}", component_prefix(group, version));
    if let Some(schema) = schemas().get(&component) {
        // The root schema is the component itself, not a reference to it.
        if let Some(map) = object.as_object_mut() {
            go_types::write_null_times(&component, map);
        }
        zero_values(object, schema);
    }
}

fn is_zero(value: &Value) -> bool {
    matches!(value, Value::String(s) if s.is_empty())
        || value.as_f64() == Some(0.0)
        || *value == Value::Bool(false)
}

fn zero_values(value: &mut Value, schema: &Value) {
    let (name, schema) = resolve(schema);
    match value {
        Value::Object(map) if schema.get("properties").is_some() => {
            if let Some(component) = name {
                go_types::write_null_times(component, map);
                go_types::write_null_pointers(component, map);
            }
            for (k, field) in schema["properties"].as_object().into_iter().flatten() {
                match map.get_mut(k) {
                    None if field.get("default").is_some_and(is_zero) => {
                        map.insert(k.clone(), field["default"].clone());
                    }
                    Some(v) => zero_values(v, field),
                    None => {}
                }
            }
        }
        Value::Object(map) if is_map(schema) => {
            for v in map.values_mut() {
                zero_values(v, &schema["additionalProperties"]);
            }
        }
        Value::Array(items) => {
            for v in items {
                zero_values(v, &schema["items"]);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_optional_lists_and_maps_are_dropped() {
        let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"labels": {}, "finalizers": []},
            "spec": {"template": {"spec": {"containers": [{"name": "a", "env": []}],
                "securityContext": {}}}}});
        omit_empty_collections(&mut d);
        assert_eq!(d["metadata"], json!({}));
        assert_eq!(
            d["spec"]["template"]["spec"]["containers"],
            json!([{"name": "a", "resources": {}}])
        );
        assert_eq!(d["spec"]["template"]["spec"]["securityContext"], json!({}));
        assert_eq!(d["status"], json!({}));
        let mut p = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": []}});
        omit_empty_collections(&mut p);
        assert_eq!(p["spec"]["containers"], json!([]));
    }
}
