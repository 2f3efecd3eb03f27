//! The keywords a CRD schema may use, as the apiextensions server checks them on every node
//! (`ValidateCustomResourceDefinitionOpenAPISchema`): unsupported keywords (`$ref`,
//! `uniqueItems: true`, ...), valid types, the syntax of `x-kubernetes-validations` entries
//! (their CEL is compiled by the caller), and consistent `x-kubernetes-list-type`s.

use serde_json::{Map, Value};

use crate::node::{flag, items, key, list, props, type_of};
use crate::violation::Violation;

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

/// CRD schema keywords the apiextensions server rejects or constrains
/// (`ValidateCustomResourceDefinitionOpenAPISchema` and `specStandardValidatorV3`), checked
/// on every node of the structural part and the junctors. `meta` names the top-level
/// `apiVersion`/`kind`/`metadata` property a node sits in, where defaults are forbidden.
pub(crate) fn keywords(
    s: &Map<String, Value>,
    path: &str,
    meta: Option<&str>,
    errs: &mut Vec<Violation>,
) {
    let forbidden =
        |field: &str, detail: &str| Violation::forbidden(format!("{path}.{field}"), detail);
    let ty = type_of(s);
    if !ty.is_empty() && !TYPES.contains(&ty) {
        errs.push(Violation::not_supported(
            format!("{path}.type"),
            &Value::from(ty),
            &TYPES.map(String::from),
        ));
    }
    if let (Some(prop), Some(_)) = (meta, s.get("default").filter(|d| !d.is_null())) {
        errs.push(forbidden(
            "default",
            &format!("must not be set in top-level {prop}"),
        ));
    }
    for (field, name) in [
        ("id", "id"),
        ("additionalItems", "additionalItems"),
        ("patternProperties", "patternProperties"),
        ("definitions", "definitions"),
        ("dependencies", "dependencies"),
        ("$ref", "$ref"),
    ] {
        if s.get(field).is_some_and(|v| !v.is_null()) {
            errs.push(forbidden(field, &format!("{name} is not supported")));
        }
    }
    if ty == "null" {
        errs.push(forbidden(
            "type",
            "type cannot be set to null, use nullable as an alternative",
        ));
    }
    if let Some(Value::Array(_)) = s.get("items") {
        errs.push(forbidden(
            "items",
            "items must be a schema object and not an array",
        ));
    }
    if flag(s, "uniqueItems") {
        errs.push(forbidden(
            "uniqueItems",
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    let additional = s.get("additionalProperties");
    if props(s).is_some_and(|p| !p.is_empty())
        && matches!(additional, Some(Value::Bool(false) | Value::Object(_)))
    {
        errs.push(forbidden(
            "additionalProperties",
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    if s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        errs.push(Violation::invalid(
            format!("{path}.x-kubernetes-preserve-unknown-fields"),
            &Value::Bool(false),
            "must be true or undefined",
        ));
    }
    if let Some(m) = s.get("x-kubernetes-map-type").filter(|m| !m.is_null()) {
        if ty != "object" {
            let detail = "must be object if x-kubernetes-map-type is specified";
            errs.push(if ty.is_empty() {
                Violation::required(format!("{path}.type"), detail)
            } else {
                Violation::invalid(format!("{path}.type"), &Value::from(ty), detail)
            });
        }
        if !matches!(m.as_str(), Some("atomic" | "granular")) {
            errs.push(Violation::not_supported(
                format!("{path}.x-kubernetes-map-type"),
                m,
                &["atomic".into(), "granular".into()],
            ));
        }
    }
    list_type(s, path, errs);
    validation_rules(s, path, errs);

    if let Some(a) = s.get("additionalProperties").and_then(Value::as_object) {
        keywords(a, &format!("{path}.additionalProperties"), meta, errs);
    }
    if let Some(p) = props(s) {
        for (k, v) in p {
            if let Some(v) = v.as_object() {
                let in_meta = if path.ends_with("openAPIV3Schema")
                    && matches!(k.as_str(), "apiVersion" | "kind" | "metadata")
                {
                    Some(k.as_str())
                } else {
                    meta
                };
                keywords(v, &key(path, k), in_meta, errs);
            }
        }
    }
    if let Some(not) = s.get("not").and_then(Value::as_object) {
        keywords(not, &format!("{path}.not"), meta, errs);
    }
    for junctor in ["allOf", "oneOf", "anyOf"] {
        for (i, sub) in list(s, junctor) {
            keywords(sub, &format!("{path}.{junctor}[{i}]"), meta, errs);
        }
    }
    if let Some(it) = items(s) {
        keywords(it, &format!("{path}.items"), meta, errs);
    }
}

/// `x-kubernetes-validations` entries must have a rule, a one-line message and a known reason.
fn validation_rules(s: &Map<String, Value>, path: &str, errs: &mut Vec<Violation>) {
    let reasons: Vec<String> = [
        "FieldValueDuplicate",
        "FieldValueForbidden",
        "FieldValueInvalid",
        "FieldValueRequired",
    ]
    .map(String::from)
    .to_vec();
    for (i, rule) in s
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let p = format!("{path}.x-kubernetes-validations[{i}]");
        let text = rule
            .get("rule")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        let message = rule.get("message").and_then(Value::as_str).unwrap_or("");
        if text.is_empty() {
            errs.push(Violation::required(
                format!("{p}.rule"),
                "rule is not specified",
            ));
        } else if !message.is_empty() && message.trim().is_empty() {
            errs.push(Violation::invalid(
                format!("{p}.message"),
                &Value::from(message),
                "must be non-empty if specified",
            ));
        } else if message.trim().contains(['\n', '\r']) {
            errs.push(Violation::invalid(
                format!("{p}.message"),
                &Value::from(message),
                "must not contain line breaks",
            ));
        } else if text.contains(['\n', '\r']) && message.trim().is_empty() {
            errs.push(Violation::required(
                format!("{p}.message"),
                "message must be specified if rule contains line breaks",
            ));
        }
        let expr = rule
            .get("messageExpression")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !expr.is_empty() && expr.trim().is_empty() {
            errs.push(Violation::required(
                format!("{p}.messageExpression"),
                "messageExpression must be non-empty if specified",
            ));
        }
        if let Some(reason) = rule.get("reason").and_then(Value::as_str)
            && !reasons.iter().any(|r| r == reason)
        {
            errs.push(Violation::not_supported(
                format!("{p}.reason"),
                &Value::from(reason),
                &reasons,
            ));
        }
        let field_path = rule.get("fieldPath").and_then(Value::as_str).unwrap_or("");
        let fp = format!("{p}.fieldPath");
        if !field_path.is_empty() && field_path.trim().is_empty() {
            errs.push(Violation::invalid(
                &fp,
                &Value::from(field_path),
                "must be non-empty if specified",
            ));
        }
        if field_path.contains(['\n', '\r']) {
            errs.push(Violation::invalid(
                &fp,
                &Value::from(field_path),
                "must not contain line breaks",
            ));
        }
        if !field_path.is_empty() && !valid_field_path(s, field_path) {
            errs.push(Violation::invalid(
                &fp,
                &Value::from(field_path),
                "must be a valid path",
            ));
        }
    }
}

/// Whether a rule's `fieldPath` names a field of the schema `s` it is declared on: a
/// chain of `.name` or `['name']` steps through properties and map values (lists cannot
/// be entered).
fn valid_field_path(s: &Map<String, Value>, path: &str) -> bool {
    let mut cur = s;
    let mut rest = path;
    while !rest.is_empty() {
        let (name, tail) = if let Some(r) = rest.strip_prefix("['") {
            match r.split_once("']") {
                Some((n, t)) => (n, t),
                None => return false,
            }
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            (&r[..end], &r[end..])
        } else {
            return false;
        };
        if name.is_empty() || name.trim() != name || name.contains(['\n', '\r']) {
            return false;
        }
        let next = props(cur)
            .and_then(|p| p.get(name))
            .or_else(|| cur.get("additionalProperties").filter(|a| a.is_object()))
            .and_then(Value::as_object);
        match next {
            Some(n) => cur = n,
            None => return false,
        }
        rest = tail;
    }
    true
}

fn list_type(s: &Map<String, Value>, path: &str, errs: &mut Vec<Violation>) {
    let ty = type_of(s);
    let lt = s.get("x-kubernetes-list-type").filter(|l| !l.is_null());
    let lt_str = lt.and_then(Value::as_str);
    let keys: Vec<&str> = s
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|k| k.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let keys_value = s
        .get("x-kubernetes-list-map-keys")
        .cloned()
        .unwrap_or(Value::Null);
    let lt_path = format!("{path}.x-kubernetes-list-type");
    let keys_path = format!("{path}.x-kubernetes-list-map-keys");
    let item = items(s);
    if let Some(lt) = lt {
        if ty != "array" {
            let detail = "must be array if x-kubernetes-list-type is specified";
            errs.push(if ty.is_empty() {
                Violation::required(format!("{path}.type"), detail)
            } else {
                Violation::invalid(format!("{path}.type"), &Value::from(ty), detail)
            });
        } else if lt_str == Some("set")
            && let Some(is) = item
        {
            match type_of(is) {
                "array" => {
                    if let Some(inner) = is.get("x-kubernetes-list-type").filter(|l| !l.is_null())
                        && inner.as_str() != Some("atomic")
                    {
                        errs.push(Violation::invalid(
                            format!("{path}.items.x-kubernetes-list-type"),
                            inner,
                            "must be atomic as item of a list with x-kubernetes-list-type=set",
                        ));
                    }
                }
                "object"
                    if is.get("x-kubernetes-map-type").and_then(Value::as_str)
                        != Some("atomic") =>
                {
                    errs.push(Violation::invalid(
                        format!("{path}.items.x-kubernetes-map-type"),
                        &is.get("x-kubernetes-list-type")
                            .cloned()
                            .unwrap_or(Value::Null),
                        "must be atomic as item of a list with x-kubernetes-list-type=set",
                    ));
                }
                _ => {}
            }
        }
        if !matches!(lt_str, Some("atomic" | "set" | "map")) {
            errs.push(Violation::not_supported(
                &lt_path,
                lt,
                &["atomic".into(), "set".into(), "map".into()],
            ));
        }
    }
    if !keys.is_empty() {
        let detail = "must be map if x-kubernetes-list-map-keys is non-empty";
        match lt {
            None => errs.push(Violation::required(&lt_path, detail)),
            Some(l) if lt_str != Some("map") => errs.push(Violation::invalid(&lt_path, l, detail)),
            _ => {}
        }
    }
    if lt_str == Some("map") {
        if keys.is_empty() {
            errs.push(Violation::required(
                &keys_path,
                "must not be empty if x-kubernetes-list-type is map",
            ));
        }
        if s.get("items").is_none_or(Value::is_null) {
            errs.push(Violation::required(
                format!("{path}.items"),
                "must have a schema if x-kubernetes-list-type is map",
            ));
        }
        if let Some(is) = item {
            let item_type = type_of(is);
            if item_type != "object" {
                errs.push(Violation::invalid(
                    format!("{path}.items.type"),
                    &Value::from(item_type),
                    "must be object if parent array's x-kubernetes-list-type is map",
                ));
            } else {
                let mut seen = Vec::new();
                for k in &keys {
                    match props(is).and_then(|p| p.get(*k)).and_then(Value::as_object) {
                        Some(p) if matches!(type_of(p), "array" | "object") => {
                            errs.push(Violation::invalid(
                                format!("{path}.items.properties[{k}].type"),
                                &Value::from(item_type),
                                "must be a scalar type if parent array's x-kubernetes-list-type is map",
                            ));
                        }
                        Some(_) => {}
                        None => errs.push(Violation::invalid(
                            &keys_path,
                            &keys_value,
                            "entries must all be names of item properties",
                        )),
                    }
                    if seen.contains(k) {
                        errs.push(Violation::invalid(
                            &keys_path,
                            &keys_value,
                            "must not contain duplicate entries",
                        ));
                    }
                    seen.push(k);
                }
            }
        }
    }
    // validateMapListKeysMapSet
    if let (Some(l @ ("set" | "map")), Some(is)) = (lt_str, item) {
        if flag(is, "nullable") {
            errs.push(Violation::forbidden(
                format!("{path}.items.nullable"),
                &format!("cannot be nullable when x-kubernetes-list-type is {l}"),
            ));
        }
        if l == "map" {
            let required: Vec<&str> = is
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for k in &keys {
                let Some(p) = props(is).and_then(|p| p.get(*k)).and_then(Value::as_object) else {
                    continue;
                };
                if !required.contains(k) && p.get("default").is_none_or(Value::is_null) {
                    errs.push(Violation::required(
                        format!("{path}.items.properties[{k}].default"),
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                    ));
                }
                if flag(p, "nullable") {
                    errs.push(Violation::forbidden(
                        format!("{path}.items.properties[{k}].nullable"),
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                    ));
                }
            }
        }
    }
}
