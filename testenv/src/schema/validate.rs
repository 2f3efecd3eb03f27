//! Validation of an object against a CRD's `openAPIV3Schema`, the way the apiextensions
//! apiserver does it: kube-openapi's schema validator (type, bounds, lengths, pattern,
//! format, items, properties, enum, composition) with its results converted to field errors,
//! followed by the embedded-resource and `x-kubernetes-list-type` checks.
//!
//! Paths are kube-openapi's (`spec.list[0].name`), messages the real server's, e.g.
//! `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`.

use super::errors::{FieldError, go_float, go_quote};
use super::formats::check_format;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// Validates `object` against `schema` (an `openAPIV3Schema`) and returns every error found,
/// in the order the real server reports them (per node: type, composition, string, format,
/// number, array, enum, object; then list-type and embedded-resource checks).
pub fn validate(object: &Value, schema: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    validate_node(object, schema, "", &mut errs);
    check_list_types_and_embedded(object, schema, "", &mut errs);
    super::rules::check_rules(object, schema, None, false, "", &mut errs);
    errs
}

/// [`validate`] for an update: additionally evaluates the transition rules (those using
/// `oldSelf`) of `x-kubernetes-validations` wherever the new value correlates with a value
/// of `old` (same object property, or same key in a `x-kubernetes-list-type: map` list).
///
/// Errors about values that did not change are dropped (validation ratcheting, see
/// the `ratchet` module), as the real server does on update.
pub fn validate_update(object: &Value, old: &Value, schema: &Value) -> Vec<FieldError> {
    let mut schema_errs = Vec::new();
    validate_node(object, schema, "", &mut schema_errs);
    let mut errs = super::ratchet::ratchet(schema_errs, object, old, schema);
    check_list_types_and_embedded(object, schema, "", &mut errs);
    // CEL rules ratchet per node (see the `rules` module).
    super::rules::check_rules(object, schema, Some(old), true, "", &mut errs);
    errs
}

/// Appends `key` to a kube-openapi path (`spec` + `replicas` = `spec.replicas`).
pub(crate) fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Appends an index to a path (`spec.list` + 0 = `spec.list[0]`).
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// The JSON-schema type name kube-openapi reports for a value.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "integer"
            } else {
                "number"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `v` has (or is compatible with) the schema type `t`.
pub(crate) fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "integer" => type_name(v) == "integer",
        "number" => v.is_number(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn flag(s: &Map<String, Value>, key: &str) -> bool {
    s.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The types a schema node allows (`x-kubernetes-int-or-string` means integer or string).
pub(crate) fn schema_types(s: &Map<String, Value>) -> Vec<String> {
    if flag(s, "x-kubernetes-int-or-string") {
        return vec!["integer".into(), "string".into()];
    }
    match s.get("type").and_then(Value::as_str) {
        Some(t) if !t.is_empty() => vec![t.to_string()],
        _ => Vec::new(),
    }
}

fn body(path: &str, rest: &str) -> String {
    format!("{path} in body {rest}")
}

fn validate_node(v: &Value, schema: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let Some(s) = schema.as_object() else {
        return;
    };
    let types = schema_types(s);
    let nullable = flag(s, "nullable");

    // type
    if v.is_null() {
        if !types.is_empty() && !nullable {
            let ty = types.join(",");
            errs.push(FieldError::type_invalid(
                path,
                &Value::from("null"),
                &body(path, &format!("must be of type {ty}: \"null\"")),
            ));
        }
        if !nullable {
            check_enum(v, s, path, errs);
        }
        return;
    }
    if !types.is_empty() && !types.iter().any(|t| has_type(v, t)) {
        let found = type_name(v);
        errs.push(FieldError::type_invalid(
            path,
            &Value::from(found),
            &body(
                path,
                &format!("must be of type {}: {}", types.join(","), go_quote(found)),
            ),
        ));
        // kube-openapi runs every validator that applies; only `enum` applies to a value
        // of the wrong type.
        check_enum(v, s, path, errs);
        return;
    }

    check_composition(v, s, path, errs);

    match v {
        Value::String(text) => {
            check_string(text, v, s, path, errs);
            check_format_of(text, v, s, path, errs);
        }
        Value::Number(_) => check_number(v, s, path, errs),
        Value::Array(items) => check_array(items, s, path, errs),
        _ => {}
    }
    check_enum(v, s, path, errs);
    if let Value::Object(obj) = v {
        check_object(obj, s, path, errs);
    }
}

fn composite(msg: String) -> FieldError {
    // kube-openapi reports composition failures as plain errors, which the apiextensions
    // server converts with a nil field path: `<nil>: Invalid value: "": ...`.
    FieldError::invalid("<nil>", &Value::from(""), &msg)
}

fn sub_validate(v: &Value, schema: &Value, path: &str) -> Vec<FieldError> {
    let mut e = Vec::new();
    validate_node(v, schema, path, &mut e);
    e
}

fn check_composition(v: &Value, s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    let quoted = go_quote(path);
    if let Some(any_of) = s.get("anyOf").and_then(Value::as_array)
        && !any_of.is_empty()
    {
        let mut best: Option<Vec<FieldError>> = None;
        let mut ok = false;
        for sub in any_of {
            let e = sub_validate(v, sub, path);
            if e.is_empty() {
                ok = true;
                break;
            }
            if best.as_ref().is_none_or(|b| e.len() < b.len()) {
                best = Some(e);
            }
        }
        if !ok {
            errs.push(composite(format!(
                "{quoted} must validate at least one schema (anyOf)"
            )));
            errs.extend(best.unwrap_or_default());
        }
    }
    if let Some(one_of) = s.get("oneOf").and_then(Value::as_array)
        && !one_of.is_empty()
    {
        let mut valid = 0;
        let mut best: Option<Vec<FieldError>> = None;
        for sub in one_of {
            let e = sub_validate(v, sub, path);
            if e.is_empty() {
                valid += 1;
            } else if best.as_ref().is_none_or(|b| e.len() < b.len()) {
                best = Some(e);
            }
        }
        if valid == 0 {
            errs.push(composite(format!(
                "{quoted} must validate one and only one schema (oneOf). Found none valid"
            )));
            errs.extend(best.unwrap_or_default());
        } else if valid > 1 {
            errs.push(composite(format!(
                "{quoted} must validate one and only one schema (oneOf). Found {valid} valid alternatives"
            )));
        }
    }
    if let Some(all_of) = s.get("allOf").and_then(Value::as_array)
        && !all_of.is_empty()
    {
        let mut valid = 0;
        let mut collected = Vec::new();
        for sub in all_of {
            let e = sub_validate(v, sub, path);
            if e.is_empty() {
                valid += 1;
            }
            collected.extend(e);
        }
        errs.extend(collected);
        if valid != all_of.len() {
            let extra = if valid == 0 { ". None validated" } else { "" };
            errs.push(composite(format!(
                "{quoted} must validate all the schemas (allOf){extra}"
            )));
        }
    }
    if let Some(not) = s.get("not")
        && not.is_object()
        && sub_validate(v, not, path).is_empty()
    {
        errs.push(composite(format!(
            "{quoted} must not validate the schema (not)"
        )));
    }
}

fn as_i64(v: Option<&Value>) -> Option<i64> {
    v.and_then(|x| x.as_i64().or_else(|| x.as_f64().map(|f| f as i64)))
}

fn check_string(
    text: &str,
    v: &Value,
    s: &Map<String, Value>,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    let len = text.chars().count() as i64;
    if let Some(max) = as_i64(s.get("maxLength"))
        && len > max
    {
        errs.push(FieldError::too_long(path, max));
    }
    if let Some(min) = as_i64(s.get("minLength"))
        && len < min
    {
        errs.push(FieldError::invalid(
            path,
            v,
            &body(path, &format!("should be at least {min} chars long")),
        ));
    }
    if let Some(pattern) = s.get("pattern").and_then(Value::as_str)
        && pattern_matches(pattern, text) == Some(false)
    {
        errs.push(FieldError::invalid(
            path,
            v,
            &body(path, &format!("should match '{pattern}'")),
        ));
    }
}

thread_local! {
    static REGEX_CACHE: RefCell<HashMap<String, Option<regex::Regex>>> = RefCell::new(HashMap::new());
}

/// Whether `text` matches the (RE2-syntax, unanchored) `pattern`; `None` if the pattern
/// does not compile.
pub(crate) fn pattern_matches(pattern: &str, text: &str) -> Option<bool> {
    REGEX_CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 512 {
            cache.clear();
        }
        cache
            .entry(pattern.to_string())
            .or_insert_with(|| regex::Regex::new(pattern).ok())
            .as_ref()
            .map(|re| re.is_match(text))
    })
}

fn check_format_of(
    text: &str,
    v: &Value,
    s: &Map<String, Value>,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    if let Some(format) = s.get("format").and_then(Value::as_str)
        && check_format(format, text) == Some(false)
    {
        errs.push(FieldError::type_invalid(
            path,
            v,
            &body(
                path,
                &format!("must be of type {format}: {}", go_quote(text)),
            ),
        ));
    }
}

fn num_text(v: &Value) -> String {
    match v {
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => go_float(f),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

fn check_number(v: &Value, s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    let x = v.as_f64().unwrap_or(0.0);
    if let Some(m) = s.get("multipleOf").and_then(Value::as_f64)
        && m > 0.0
    {
        let q = x / m;
        if (q - q.round()).abs() > 1e-9 * q.abs().max(1.0) {
            errs.push(FieldError::invalid(
                path,
                v,
                &body(
                    path,
                    &format!("should be a multiple of {}", num_text(&s["multipleOf"])),
                ),
            ));
        }
    }
    if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
        let exclusive = flag(s, "exclusiveMaximum");
        if x > max || (exclusive && x == max) {
            let rel = if exclusive {
                "less than"
            } else {
                "less than or equal to"
            };
            errs.push(FieldError::invalid(
                path,
                v,
                &body(path, &format!("should be {rel} {}", go_float(max))),
            ));
        }
    }
    if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
        let exclusive = flag(s, "exclusiveMinimum");
        if x < min || (exclusive && x == min) {
            let rel = if exclusive {
                "greater than"
            } else {
                "greater than or equal to"
            };
            errs.push(FieldError::invalid(
                path,
                v,
                &body(path, &format!("should be {rel} {}", go_float(min))),
            ));
        }
    }
}

/// JSON equality where numbers compare by value (`1` equals `1.0`), as Go's decoded values do.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

fn check_array(items: &[Value], s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(item_schema) = s.get("items") {
        match item_schema {
            Value::Array(tuple) => {
                for (i, (item, sub)) in items.iter().zip(tuple).enumerate() {
                    validate_node(item, sub, &index(path, i), errs);
                }
            }
            other => {
                for (i, item) in items.iter().enumerate() {
                    validate_node(item, other, &index(path, i), errs);
                }
            }
        }
    }
    let size = items.len() as i64;
    if let Some(min) = as_i64(s.get("minItems"))
        && size < min
    {
        errs.push(FieldError::invalid(
            path,
            &Value::from(size),
            &body(path, &format!("should have at least {min} items")),
        ));
    }
    if let Some(max) = as_i64(s.get("maxItems"))
        && size > max
    {
        errs.push(FieldError::too_many(path, size, max));
    }
    if flag(s, "uniqueItems") {
        let dup = items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].iter().any(|b| json_eq(a, b)));
        if dup {
            errs.push(FieldError::invalid(
                path,
                &Value::from(""),
                &body(path, "shouldn't contain duplicates"),
            ));
        }
    }
}

fn check_enum(v: &Value, s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    let Some(values) = s.get("enum").and_then(Value::as_array) else {
        return;
    };
    if values.is_empty() || values.iter().any(|e| json_eq(e, v)) {
        return;
    }
    let supported: Vec<String> = values
        .iter()
        .map(|e| match e {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    errs.push(FieldError::not_supported(path, v, &supported));
}

fn check_object(
    obj: &Map<String, Value>,
    s: &Map<String, Value>,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    let count = obj.len() as i64;
    if let Some(max) = as_i64(s.get("maxProperties"))
        && count > max
    {
        errs.push(FieldError::too_many(path, count, max));
    }
    if let Some(min) = as_i64(s.get("minProperties"))
        && count < min
    {
        errs.push(FieldError::invalid(
            path,
            &Value::from(min),
            &body(path, &format!("should have at least {min} properties")),
        ));
    }
    if let Some(required) = s.get("required").and_then(Value::as_array) {
        for key in required.iter().filter_map(Value::as_str) {
            if !obj.contains_key(key) {
                errs.push(FieldError::required(child(path, key), ""));
            }
        }
    }
    let props = s.get("properties").and_then(Value::as_object);
    let mut keys: Vec<&String> = obj.keys().collect();
    keys.sort();
    for key in keys {
        let value = &obj[key.as_str()];
        let p = child(path, key);
        if let Some(prop) = props.and_then(|p| p.get(key.as_str())) {
            validate_node(value, prop, &p, errs);
            continue;
        }
        match s.get("additionalProperties") {
            Some(Value::Bool(false)) => errs.push(FieldError::invalid(
                path,
                &Value::from(key.as_str()),
                &format!("{path}.{key} in body is a forbidden property"),
            )),
            Some(add @ Value::Object(_)) => validate_node(value, add, &p, errs),
            _ => {}
        }
    }
}

/// The schema a child property of an object node uses, if any (`properties` first, then
/// `additionalProperties`).
pub(crate) fn property_schema<'a>(s: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if let Some(p) = s
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.get(key))
    {
        return Some(p);
    }
    match s.get("additionalProperties") {
        Some(add @ Value::Object(_)) => Some(add),
        _ => None,
    }
}

/// The apiextensions checks that run after the OpenAPI validation: embedded resources must
/// carry `apiVersion` and `kind`, and `x-kubernetes-list-type: set|map` lists must not hold
/// duplicates (`Duplicate value`).
fn check_list_types_and_embedded(
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
                    let msgs = super::crd::dns1035_label(&v.to_lowercase());
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msgs(object: Value, schema: Value) -> Vec<String> {
        validate(&object, &schema)
            .iter()
            .map(FieldError::to_message)
            .collect()
    }

    fn spec(props: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": props}}})
    }

    #[test]
    fn type_mismatch_message() {
        assert_eq!(
            msgs(
                json!({"spec": {"replicas": "x"}}),
                spec(json!({"replicas": {"type": "integer"}}))
            ),
            vec![
                r#"spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string""#
            ]
        );
        let errs = validate(
            &json!({"spec": {"replicas": "x"}}),
            &spec(json!({"replicas": {"type": "integer"}})),
        );
        assert_eq!(errs[0].reason(), "FieldValueTypeInvalid");
        // 3.0 is an integer, 3.5 is not
        assert!(
            msgs(
                json!({"spec": {"r": 3.0}}),
                spec(json!({"r": {"type": "integer"}}))
            )
            .is_empty()
        );
        assert_eq!(
            msgs(
                json!({"spec": {"r": 3.5}}),
                spec(json!({"r": {"type": "integer"}}))
            ),
            vec![
                r#"spec.r: Invalid value: "number": spec.r in body must be of type integer: "number""#
            ]
        );
    }

    #[test]
    fn required_and_null() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "required": ["size"], "properties": {"size": {"type": "integer"}, "n": {"type": "string", "nullable": true}, "s": {"type": "string"}}}}});
        assert_eq!(
            msgs(json!({"spec": {"n": null, "s": null}}), schema),
            vec![
                "spec.size: Required value",
                r#"spec.s: Invalid value: "null": spec.s in body must be of type string: "null""#
            ]
        );
    }

    #[test]
    fn enum_bounds_lengths_pattern() {
        let schema = spec(json!({
            "mode": {"type": "string", "enum": ["a", "b"]},
            "size": {"type": "integer", "minimum": 1, "maximum": 10},
            "ex": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
            "name": {"type": "string", "maxLength": 5, "minLength": 2, "pattern": "^[a-z]+$"},
            "mul": {"type": "integer", "multipleOf": 5},
        }));
        let got = msgs(
            json!({"spec": {"mode": "x", "size": 0, "ex": 0, "name": "ABCDEFG", "mul": 7}}),
            schema.clone(),
        );
        assert_eq!(
            got,
            vec![
                "spec.ex: Invalid value: 0: spec.ex in body should be greater than 0",
                r#"spec.mode: Unsupported value: "x": supported values: "a", "b""#,
                "spec.mul: Invalid value: 7: spec.mul in body should be a multiple of 5",
                "spec.name: Too long: may not be more than 5 bytes",
                r#"spec.name: Invalid value: "ABCDEFG": spec.name in body should match '^[a-z]+$'"#,
                "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
            ]
        );
        assert_eq!(
            msgs(json!({"spec": {"size": 11, "name": "a"}}), schema),
            vec![
                r#"spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long"#,
                "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10",
            ]
        );
    }

    #[test]
    fn arrays_and_items() {
        let schema = spec(json!({
            "l": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
            "m": {"type": "array", "minItems": 1, "items": {"type": "string"}},
            "u": {"type": "array", "uniqueItems": true, "items": {"type": "integer"}},
        }));
        assert_eq!(
            msgs(
                json!({"spec": {"l": ["a", 1, "c"], "m": [], "u": [1, 1]}}),
                schema
            ),
            vec![
                r#"spec.l[1]: Invalid value: "integer": spec.l[1] in body must be of type string: "integer""#,
                "spec.l: Too many: 3: must have at most 2 items",
                "spec.m: Invalid value: 0: spec.m in body should have at least 1 items",
                r#"spec.u: Invalid value: "": spec.u in body shouldn't contain duplicates"#,
            ]
        );
    }

    #[test]
    fn formats_and_int_or_string() {
        let schema = spec(json!({
            "when": {"type": "string", "format": "date-time"},
            "n": {"type": "integer", "format": "int32"},
            "port": {"x-kubernetes-int-or-string": true},
        }));
        assert_eq!(
            msgs(
                json!({"spec": {"when": "yesterday", "n": 1_i64 << 40, "port": 8080}}),
                schema.clone()
            ),
            vec![
                r#"spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday""#
            ]
        );
        assert!(msgs(json!({"spec": {"port": "http"}}), schema.clone()).is_empty());
        assert_eq!(
            msgs(json!({"spec": {"port": true}}), schema),
            vec![
                r#"spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean""#
            ]
        );
    }

    #[test]
    fn additional_properties_and_property_counts() {
        let schema = spec(json!({
            "labels": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}},
            "m": {"type": "object", "minProperties": 2, "additionalProperties": {"type": "integer"}},
        }));
        assert_eq!(
            msgs(
                json!({"spec": {"labels": {"a": "x", "b": 2}, "m": {"x": 1}}}),
                schema
            ),
            vec![
                "spec.labels: Too many: 2: must have at most 1 item",
                r#"spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer""#,
                "spec.m: Invalid value: 2: spec.m in body should have at least 2 properties",
            ]
        );
    }

    #[test]
    fn composition() {
        let schema = spec(json!({
            "v": {"type": "integer", "anyOf": [{"minimum": 10}, {"maximum": 0}]},
            "w": {"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": 10}]},
            "x": {"type": "string", "not": {"enum": ["bad"]}},
        }));
        let got = msgs(json!({"spec": {"v": 5, "w": 5, "x": "bad"}}), schema);
        assert_eq!(
            got,
            vec![
                r#"<nil>: Invalid value: "": "spec.v" must validate at least one schema (anyOf)"#,
                "spec.v: Invalid value: 5: spec.v in body should be greater than or equal to 10",
                r#"<nil>: Invalid value: "": "spec.w" must validate one and only one schema (oneOf). Found 2 valid alternatives"#,
                r#"<nil>: Invalid value: "": "spec.x" must not validate the schema (not)"#,
            ]
        );
    }

    #[test]
    fn list_types_and_embedded_resources() {
        let schema = spec(json!({
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
            "tpl": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
        }));
        assert_eq!(
            msgs(
                json!({"spec": {"tags": ["a", "b", "a"], "ports": [{"name": "x", "port": 1}, {"name": "x", "port": 2}], "tpl": {"kind": "Pod_x", "apiVersion": ""}}}),
                schema
            ),
            vec![
                r#"spec.ports[1]: Duplicate value: {"name":"x"}"#,
                r#"spec.tags[2]: Duplicate value: "a""#,
                r#"spec.tpl.apiVersion: Invalid value: "": must not be empty"#,
                r#"spec.tpl.kind: Invalid value: "Pod_x": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"#,
            ]
        );
    }

    #[test]
    fn cel_rules() {
        let schema = spec(json!({
            "min": {"type": "integer"}, "max": {"type": "integer"},
            "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "Value is immutable"}]},
            "odd": {"type": "string", "x-kubernetes-validations": [{"rule": "self.unsupportedFn()"}]},
        }));
        let mut schema = schema;
        schema["properties"]["spec"]["x-kubernetes-validations"] = json!([
            {"rule": "self.min <= self.max", "message": "min must be <= max"},
            {"rule": "!has(self.forbidden)", "reason": "FieldValueForbidden", "fieldPath": ".forbidden"},
            {"rule": "has(self.min)"},
            {"rule": "self.max < 100", "messageExpression": "'max is ' + string(self.max)"},
        ]);
        assert_eq!(
            msgs(
                json!({"spec": {"min": 5, "max": 1, "name": "a", "odd": "x"}}),
                schema.clone()
            ),
            vec![r#"spec: Invalid value: "object": min must be <= max"#]
        );
        assert_eq!(
            msgs(json!({"spec": {"min": 1, "max": 100}}), schema.clone()),
            vec![r#"spec: Invalid value: "object": max is 100"#]
        );
        assert_eq!(
            msgs(json!({"spec": {"max": 1, "forbidden": 1}}), schema.clone()),
            vec![
                r#"spec: Invalid value: "object": no such key: min evaluating rule: min must be <= max"#,
                "spec.forbidden: Forbidden: failed rule: !has(self.forbidden)",
                r#"spec: Invalid value: "object": failed rule: has(self.min)"#,
            ]
        );
        let new = json!({"spec": {"min": 1, "max": 2, "name": "b"}});
        let old = json!({"spec": {"min": 1, "max": 2, "name": "a"}});
        assert!(validate(&new, &schema).is_empty());
        assert_eq!(
            validate_update(&new, &old, &schema)
                .iter()
                .map(FieldError::to_message)
                .collect::<Vec<_>>(),
            vec![r#"spec.name: Invalid value: "string": Value is immutable"#]
        );
        assert!(validate_update(&old, &old, &schema).is_empty());
    }

    #[test]
    fn valid_object_has_no_errors() {
        let schema =
            spec(json!({"size": {"type": "integer", "minimum": 1}, "image": {"type": "string"}}));
        assert!(msgs(json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a"}, "spec": {"size": 3, "image": "m"}}), schema).is_empty());
    }
}
