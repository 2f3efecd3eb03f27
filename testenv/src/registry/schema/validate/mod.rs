//! Validation of an object against a CRD's `openAPIV3Schema`, the way the apiextensions
//! apiserver does it: kube-openapi's schema validator (type, bounds, lengths, pattern,
//! format, items, properties, enum, composition) with its results converted to field errors,
//! followed by the embedded-resource and `x-kubernetes-list-type` checks.
//!
//! Paths are kube-openapi's (`spec.list[0].name`), messages the real server's, e.g.
//! `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`.

use super::errors::{FieldError, go_float, go_quote};
use super::extensions::check_list_types_and_embedded;
use super::formats::check_format;
use super::values::{
    child, flag, has_type, index, json_eq, pattern_matches, schema_types, type_name,
};
use serde_json::{Map, Value};

/// Validates `object` against `schema` (an `openAPIV3Schema`) and returns every error found,
/// in the order the real server reports them (per node: type, composition, string, format,
/// number, array, enum, object; then list-type and embedded-resource checks, then the CEL
/// rules).
pub fn validate(object: &Value, schema: &Value) -> Vec<FieldError> {
    validate_custom_resource(object, None, schema, None)
}

/// [`validate`] for an update: additionally evaluates the transition rules (those using
/// `oldSelf`) of `x-kubernetes-validations` wherever the new value correlates with a value
/// of `old` (same object property, or same key in a `x-kubernetes-list-type: map` list).
///
/// Errors about values that did not change are dropped (validation ratcheting, see
/// the `ratchet` module), as the real server does on update.
pub fn validate_update(object: &Value, old: &Value, schema: &Value) -> Vec<FieldError> {
    validate_custom_resource(object, Some(old), schema, None)
}

/// The whole validation of a custom resource (`old` on updates), as the apiextensions
/// apiserver runs it: the schema (ratcheted on update), list types and embedded resources,
/// the scale subresource's paths when the CRD has one, then the CEL rules unless an error
/// so far blocks them.
pub fn validate_custom_resource(
    object: &Value,
    old: Option<&Value>,
    schema: &Value,
    scale: Option<super::ScalePaths<'_>>,
) -> Vec<FieldError> {
    let mut schema_errs = Vec::new();
    validate_node(object, schema, "", &mut schema_errs);
    let mut errs = match old {
        Some(old) => super::ratchet::ratchet(schema_errs, object, old, schema),
        None => schema_errs,
    };
    check_list_types_and_embedded(object, schema, "", &mut errs);
    if let Some(paths) = scale {
        super::scale::check_scale(object, paths, &mut errs);
    }
    // CEL rules ratchet per node (see the `rules` module).
    super::rules::check_rules(object, schema, old, old.is_some(), "", &mut errs);
    errs
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
        // kube-openapi runs every validator that applies to the value's own type: a number
        // in an integer field (a fraction, or beyond int64, which the server decodes as a
        // float) still meets `multipleOf`, `maximum` and `minimum`; every value meets `enum`.
        if v.is_number() {
            check_number(v, s, path, errs);
        }
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

/// A bound (`maximum`, `minimum`, `multipleOf`) as kube-openapi applies it
/// (`MaximumNativeType` and its siblings): when the value decoded as an int64, the bound is
/// converted with Go's `int64(f)` (truncated; out of range it is the minimum int64) and
/// both are compared and printed as int64s (`4294967295`, and `2` for a `2.5` bound);
/// otherwise as float64s, printed as Go's `%v` (`4.294967295e+09`).
enum Bound {
    Int(i64, i64),
    Float(f64, f64),
}

impl Bound {
    fn new(v: &Value, bound: f64) -> Bound {
        match v.as_i64() {
            Some(i) => Bound::Int(i, go_int64(bound)),
            None => Bound::Float(v.as_f64().unwrap_or(0.0), bound),
        }
    }

    fn bound_text(&self) -> String {
        match self {
            Bound::Int(_, b) => b.to_string(),
            Bound::Float(_, b) => go_float(*b),
        }
    }
}

/// Go's `int64(f)` on amd64: truncation, and the minimum int64 for NaN and values out of
/// range (where Rust's `as` saturates).
fn go_int64(f: f64) -> i64 {
    if !(-9.223372036854776e18..9.223372036854776e18).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

fn check_number(v: &Value, s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(m) = s.get("multipleOf").and_then(Value::as_f64)
        && m > 0.0
    {
        let bound = Bound::new(v, m);
        let off = match bound {
            Bound::Int(x, m) => m != 0 && x % m != 0,
            // go-openapi's `IsFloat64AJSONInteger` on the quotient: beyond 2^53 it is not
            // taken for an integer at all.
            Bound::Float(x, m) => {
                let q = x / m;
                q.abs() > 9_007_199_254_740_992.0 || (q - q.round()).abs() > 1e-9 * q.abs().max(1.0)
            }
        };
        if off {
            let text = bound.bound_text();
            errs.push(FieldError::invalid(
                path,
                v,
                &body(path, &format!("should be a multiple of {text}")),
            ));
        }
    }
    if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
        let exclusive = flag(s, "exclusiveMaximum");
        let bound = Bound::new(v, max);
        let over = match bound {
            Bound::Int(x, max) => x > max || (exclusive && x == max),
            Bound::Float(x, max) => x > max || (exclusive && x == max),
        };
        if over {
            let rel = if exclusive {
                "less than"
            } else {
                "less than or equal to"
            };
            errs.push(FieldError::invalid(
                path,
                v,
                &body(path, &format!("should be {rel} {}", bound.bound_text())),
            ));
        }
    }
    if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
        let exclusive = flag(s, "exclusiveMinimum");
        let bound = Bound::new(v, min);
        let under = match bound {
            Bound::Int(x, min) => x < min || (exclusive && x == min),
            Bound::Float(x, min) => x < min || (exclusive && x == min),
        };
        if under {
            let rel = if exclusive {
                "greater than"
            } else {
                "greater than or equal to"
            };
            errs.push(FieldError::invalid(
                path,
                v,
                &body(path, &format!("should be {rel} {}", bound.bound_text())),
            ));
        }
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
    if values.is_empty() || values.iter().any(|e| json_eq(e, v) || converts_to(v, e)) {
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

/// go-openapi compares a value with an `enum` entry after Go's conversion to the entry's type:
/// a float64 meets an int64 entry truncated (`2.5` is in `[1, 2]`).
fn converts_to(v: &Value, entry: &Value) -> bool {
    match (v.as_i64(), v.as_f64(), entry.as_i64()) {
        (None, Some(f), Some(e)) => go_int64(f) == e,
        _ => false,
    }
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

#[cfg(test)]
mod tests;
