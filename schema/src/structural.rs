//! The structural invariants and their completeness, as `apiextensions-apiserver`'s
//! `structuralschema` package checks them:
//! - a `type` everywhere except under int-or-string or preserve-unknown-fields, `items` for
//!   arrays, no `additionalProperties` at the root, metadata restricted to
//!   `name`/`generateName`, the embedded-resource rules;
//! - value validations in `allOf`/`anyOf`/`oneOf`/`not` carry no structure (`type`,
//!   `default`, `description`, `nullable`, `x-kubernetes-*`) and only name fields that the
//!   structural part specifies too (completeness), and `pattern`s are valid.

use serde_json::{Map, Value};

use crate::node::{flag, items, key, list, props, type_of};
use crate::violation::Violation;

/// Why `structuralschema.NewStructural` cannot convert the schema, if it cannot: the first
/// unsupported keyword met walking it (value validations, then `additionalProperties`,
/// then `items`, then properties in name order).
pub(crate) fn unconvertible(s: &Map<String, Value>) -> Option<String> {
    const UNSUPPORTED: [(&str, &str); 7] = [
        ("id", "id"),
        ("$schema", "schema"),
        ("$ref", "$ref"),
        ("patternProperties", "patternProperties"),
        ("dependencies", "dependencies"),
        ("additionalItems", "additionalItems"),
        ("definitions", "definitions"),
    ];
    let set = |k: &str| match s.get(k) {
        None | Some(Value::Null) => false,
        Some(Value::String(t)) => !t.is_empty(),
        Some(Value::Object(o)) => !o.is_empty() || k == "additionalItems",
        Some(_) => true,
    };
    if let Some((_, name)) = UNSUPPORTED.iter().find(|(k, _)| set(k)) {
        return Some(format!("OpenAPIV3Schema '{name}' is not supported"));
    }
    let nested = s.get("not").and_then(Value::as_object).into_iter().chain(
        ["allOf", "anyOf", "oneOf"]
            .into_iter()
            .flat_map(|j| list(s, j).into_iter().map(|(_, b)| b)),
    );
    for branch in nested {
        if let Some(why) = unconvertible(branch) {
            return Some(why);
        }
    }
    if let Some(why) = s
        .get("additionalProperties")
        .and_then(Value::as_object)
        .and_then(unconvertible)
    {
        return Some(why);
    }
    if s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        return Some(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
                .into(),
        );
    }
    match s.get("items") {
        Some(Value::Array(_)) => {
            return Some("OpenAPIV3Schema 'items' must be a schema, but is an array".into());
        }
        Some(Value::Object(it)) => {
            if let Some(why) = unconvertible(it) {
                return Some(why);
            }
        }
        _ => {}
    }
    props(s)?
        .values()
        .filter_map(Value::as_object)
        .find_map(unconvertible)
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Root,
    Item,
    Field,
}

pub(crate) fn invariants(
    s: &Map<String, Value>,
    lvl: Level,
    path: &str,
    errs: &mut Vec<Violation>,
) {
    let ty = type_of(s);
    if ty == "array" && s.get("items").is_none_or(Value::is_null) {
        errs.push(Violation::required(
            format!("{path}.items"),
            "must be specified",
        ));
    }
    if let Some(it) = items(s) {
        invariants(it, Level::Item, &format!("{path}.items"), errs);
    }
    if let Some(p) = props(s) {
        for (k, v) in p {
            if let Some(v) = v.as_object() {
                invariants(v, Level::Field, &key(path, k), errs);
            }
        }
    }
    let additional = s.get("additionalProperties").filter(|a| !a.is_null());
    if let Some(add) = additional {
        if lvl == Level::Root {
            errs.push(Violation::forbidden(
                format!("{path}.additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let Some(a) = add.as_object() {
            invariants(
                a,
                Level::Field,
                &format!("{path}.additionalProperties"),
                errs,
            );
        }
    }
    let int_or_string = flag(s, "x-kubernetes-int-or-string");
    let preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
    let embedded = flag(s, "x-kubernetes-embedded-resource");
    if int_or_string && preserve {
        errs.push(Violation::invalid(
            format!("{path}.x-kubernetes-preserve-unknown-fields"),
            &Value::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if int_or_string && embedded {
        errs.push(Violation::invalid(
            format!("{path}.x-kubernetes-embedded-resource"),
            &Value::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    value_validation(
        s,
        is_int_or_string_any_of(s),
        is_int_or_string_all_of(s),
        path,
        errs,
    );
    let check_metadata = lvl == Level::Root || embedded;
    if embedded && ty != "object" {
        if ty.is_empty() {
            errs.push(Violation::required(
                format!("{path}.type"),
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        } else {
            errs.push(Violation::invalid(
                format!("{path}.type"),
                &Value::from(ty),
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        }
    } else if ty.is_empty() && !int_or_string && !preserve {
        let detail = match lvl {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errs.push(Violation::required(format!("{path}.type"), detail));
    }
    if embedded && additional.is_some() {
        errs.push(Violation::forbidden(
            format!("{path}.additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if lvl == Level::Root && !ty.is_empty() && ty != "object" {
        errs.push(Violation::invalid(
            format!("{path}.type"),
            &Value::from(ty),
            "must be object at the root",
        ));
    }
    if check_metadata && let Some(p) = props(s) {
        for field in ["kind", "apiVersion"] {
            if let Some(f) = p.get(field).and_then(Value::as_object)
                && type_of(f) != "string"
            {
                errs.push(Violation::invalid(
                    format!("{}.type", key(path, field)),
                    &Value::from(type_of(f)),
                    "must be string",
                ));
            }
        }
    }
    if let Some(meta) = props(s)
        .and_then(|p| p.get("metadata"))
        .and_then(Value::as_object)
    {
        metadata_invariants(meta, check_metadata, lvl, &key(path, "metadata"), errs);
    }
    if embedded && !preserve && props(s).is_none_or(Map::is_empty) {
        errs.push(Violation::required(
            format!("{path}.properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

fn metadata_invariants(
    meta: &Map<String, Value>,
    check_metadata: bool,
    lvl: Level,
    path: &str,
    errs: &mut Vec<Violation>,
) {
    if check_metadata && type_of(meta) != "object" {
        errs.push(Violation::invalid(
            format!("{path}.type"),
            &Value::from(type_of(meta)),
            "must be object",
        ));
    }
    if lvl == Level::Root {
        // Only `type`, `default` (checked elsewhere), documentation and a `properties` of
        // exactly name and/or generateName may be given.
        let allowed_props = props(meta)
            .is_none_or(|p| !p.is_empty() && p.keys().all(|k| k == "name" || k == "generateName"));
        let other_keys = meta.keys().any(|k| {
            !matches!(
                k.as_str(),
                "type" | "default" | "properties" | "description" | "title"
            )
        });
        if !allowed_props || other_keys {
            errs.push(Violation::forbidden(
                path,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            ));
        }
    }
}

fn is_int_or_string_pair(v: Option<&Value>) -> bool {
    v.and_then(Value::as_array).is_some_and(|a| {
        a.len() == 2
            && a[0] == serde_json::json!({"type": "integer"})
            && a[1] == serde_json::json!({"type": "string"})
    })
}

fn is_int_or_string_any_of(s: &Map<String, Value>) -> bool {
    is_int_or_string_pair(s.get("anyOf"))
}

fn is_int_or_string_all_of(s: &Map<String, Value>) -> bool {
    s.get("allOf")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .is_some_and(|first| is_int_or_string_pair(first.get("anyOf")))
}

/// The junctors of a node (structural or nested) and its `pattern`.
fn value_validation(
    s: &Map<String, Value>,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    path: &str,
    errs: &mut Vec<Violation>,
) {
    if !skip_any_of {
        for (i, sub) in list(s, "anyOf") {
            nested(sub, false, &format!("{path}.anyOf[{i}]"), errs);
        }
    }
    for (i, sub) in list(s, "allOf") {
        nested(
            sub,
            skip_first_all_of_any_of && i == 0,
            &format!("{path}.allOf[{i}]"),
            errs,
        );
    }
    for (i, sub) in list(s, "oneOf") {
        nested(sub, false, &format!("{path}.oneOf[{i}]"), errs);
    }
    if let Some(not) = s.get("not").and_then(Value::as_object) {
        nested(not, false, &format!("{path}.not"), errs);
    }
    if let Some(p) = s.get("pattern").and_then(Value::as_str)
        && let Some(msg) = crate::pattern::go_regexp_error(p)
    {
        errs.push(Violation::invalid(
            format!("{path}.pattern"),
            &Value::from(p),
            &format!("must be a valid regular expression, but isn't: {msg}"),
        ));
    }
}

/// A value validation under a junctor: no structure allowed.
fn nested(v: &Map<String, Value>, skip_any_of: bool, path: &str, errs: &mut Vec<Violation>) {
    value_validation(v, skip_any_of, false, path, errs);
    if let Some(it) = items(v) {
        nested(it, false, &format!("{path}.items"), errs);
    }
    if let Some(p) = props(v) {
        for (k, f) in p {
            if let Some(f) = f.as_object() {
                nested(f, false, &key(path, k), errs);
            }
        }
    }
    let forbidden =
        |field: &str, detail: &str| Violation::forbidden(format!("{path}.{field}"), detail);
    if !type_of(v).is_empty() {
        errs.push(forbidden("type", "must be empty to be structural"));
    }
    if v.get("additionalProperties").is_some_and(|a| !a.is_null()) {
        errs.push(forbidden(
            "additionalProperties",
            "must be undefined to be structural",
        ));
    }
    if v.get("default").is_some_and(|d| !d.is_null()) {
        errs.push(forbidden("default", "must be undefined to be structural"));
    }
    for field in ["title", "description"] {
        if v.get(field)
            .and_then(Value::as_str)
            .is_some_and(|t| !t.is_empty())
        {
            errs.push(forbidden(field, "must be empty to be structural"));
        }
    }
    for field in [
        "nullable",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
    ] {
        if flag(v, field) {
            errs.push(forbidden(field, "must be false to be structural"));
        }
    }
    if v.get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .is_some_and(|k| !k.is_empty())
    {
        errs.push(forbidden(
            "x-kubernetes-list-map-keys",
            "must be empty to be structural",
        ));
    }
    for field in ["x-kubernetes-list-type", "x-kubernetes-map-type"] {
        if v.get(field).is_some_and(|x| !x.is_null()) {
            errs.push(forbidden(field, "must be undefined to be structural"));
        }
    }
    if v.get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .is_some_and(|x| !x.is_empty())
    {
        errs.push(forbidden(
            "x-kubernetes-validations",
            "must be empty to be structural",
        ));
    }
    if props(v).is_some_and(|p| p.contains_key("metadata")) {
        errs.push(Violation::forbidden(
            key(path, "metadata"),
            "must not be specified in a nested context",
        ));
    }
}

/// Every field a junctor names must be specified in the structural part too.
pub(crate) fn completeness(s: &Map<String, Value>, path: &str, errs: &mut Vec<Violation>) {
    if let Some(it) = items(s) {
        completeness(it, &format!("{path}.items"), errs);
    }
    if let Some(p) = props(s) {
        for (k, v) in p {
            if let Some(v) = v.as_object() {
                completeness(v, &key(path, k), errs);
            }
        }
    }
    if let Some(a) = s.get("additionalProperties").and_then(Value::as_object) {
        completeness(a, &format!("{path}.additionalProperties"), errs);
    }
    junctor_completeness(s, Some(s), path, path, errs);
}

fn junctor_completeness(
    v: &Map<String, Value>,
    s: Option<&Map<String, Value>>,
    s_path: &str,
    v_path: &str,
    errs: &mut Vec<Violation>,
) {
    if let Some(not) = v.get("not").and_then(Value::as_object) {
        nested_completeness(not, s, s_path, &format!("{v_path}.not"), errs);
    }
    for junctor in ["allOf", "anyOf", "oneOf"] {
        for (i, sub) in list(v, junctor) {
            nested_completeness(sub, s, s_path, &format!("{v_path}.{junctor}[{i}]"), errs);
        }
    }
}

fn nested_completeness(
    v: &Map<String, Value>,
    s: Option<&Map<String, Value>>,
    s_path: &str,
    v_path: &str,
    errs: &mut Vec<Violation>,
) {
    let Some(s) = s else {
        errs.push(Violation::required(
            s_path,
            &format!("because it is defined in {v_path}"),
        ));
        return;
    };
    junctor_completeness(v, Some(s), s_path, v_path, errs);
    if let Some(vi) = items(v) {
        nested_completeness(
            vi,
            items(s),
            &format!("{s_path}.items"),
            &format!("{v_path}.items"),
            errs,
        );
    }
    if let Some(vp) = props(v) {
        for (k, vf) in vp {
            let Some(vf) = vf.as_object() else { continue };
            match props(s).and_then(|p| p.get(k)).and_then(Value::as_object) {
                Some(sf) => {
                    nested_completeness(vf, Some(sf), &key(s_path, k), &key(v_path, k), errs);
                }
                None => errs.push(Violation::required(
                    key(s_path, k),
                    &format!("because it is defined in {}", key(v_path, k)),
                )),
            }
        }
    }
}
