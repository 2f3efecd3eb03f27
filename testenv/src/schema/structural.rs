//! Structural schema checks for one version's `openAPIV3Schema`, as the apiextensions
//! server runs them on CRD create and update:
//! - the structural invariants (a `type` everywhere except under int-or-string or
//!   preserve-unknown-fields, `items` for arrays, no `additionalProperties` at the root,
//!   metadata restricted to `name`/`generateName`, embedded-resource rules);
//! - value validations in `allOf`/`anyOf`/`oneOf`/`not` carry no structure (`type`,
//!   `default`, `description`, `nullable`, `x-kubernetes-*`) and only name fields that the
//!   structural part specifies too (completeness);
//! - the keywords CRDs do not support (`$ref`, `uniqueItems: true`, ...), list-type
//!   consistency, valid `pattern`s, and `default`s that validate and are already pruned.
//!
//! Paths use the real server's form, `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`,
//! and the structural errors are sorted by their text as the real server sorts them.

use super::crd::{apply_crd_defaults, check_crd};
use super::errors::FieldError;
use super::prune::prune;
use super::validate::validate;
use serde_json::{Map, Value};

/// Checks a whole CustomResourceDefinition object (as JSON) the way the apiserver's CRD
/// validation does: names (plural/singular/kind/listKind, `metadata.name ==
/// <plural>.<group>`), scope, exactly one storage version, at least one served, version
/// names, printer columns, scale subresource paths, conversion, and that every version's
/// `openAPIV3Schema` is a structural schema whose defaults are valid and pruned.
///
/// The CRD defaults (`singular`, `listKind`, `conversion`) are applied to a copy first, as
/// the server does before validating; use [`super::apply_crd_defaults`] to store them.
/// Messages match the real server's (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type:
/// Required value: must not be empty for specified object fields`).
pub fn check_structural(crd: &Value) -> Result<(), Vec<FieldError>> {
    let mut copy = crd.clone();
    apply_crd_defaults(&mut copy);
    let errs = check_crd(&copy);
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// [`check_structural`] for an update of `old` to `new`, plus the update rules: `spec.group`
/// and `spec.names.plural` never change, `spec.scope` and `spec.names.kind` not once the
/// CRD is established (`field is immutable`), and every version in `status.storedVersions`
/// must stay in `spec.versions` (`must appear in spec.versions`).
pub fn check_structural_update(new: &Value, old: &Value) -> Result<(), Vec<FieldError>> {
    let mut errs = check_structural(new).err().unwrap_or_default();
    let at = |v: &Value, path: &[&str]| {
        let mut cur = v;
        for p in path {
            cur = cur.get(p).unwrap_or(&Value::Null);
        }
        cur.clone()
    };
    let established = old
        .get("status")
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some("Established")
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        });
    let mut immutable = vec![
        ("spec.group", vec!["spec", "group"]),
        ("spec.names.plural", vec!["spec", "names", "plural"]),
    ];
    if established {
        immutable.insert(1, ("spec.scope", vec!["spec", "scope"]));
        immutable.insert(2, ("spec.names.kind", vec!["spec", "names", "kind"]));
    }
    for (field, path) in immutable {
        let (n, o) = (at(new, &path), at(old, &path));
        if n != o {
            errs.push(FieldError::invalid(field, &n, "field is immutable"));
        }
    }
    let versions: Vec<String> = at(new, &["spec", "versions"])
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|v| v.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let stored = at(old, &["status", "storedVersions"]);
    for (i, sv) in stored.as_array().into_iter().flatten().enumerate() {
        if let Some(name) = sv.as_str()
            && !versions.iter().any(|v| v == name)
        {
            errs.push(FieldError::invalid(
                format!("status.storedVersions[{i}]"),
                sv,
                "must appear in spec.versions",
            ));
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

fn key(path: &str, k: &str) -> String {
    format!("{path}.properties[{k}]")
}

fn flag(s: &Map<String, Value>, k: &str) -> bool {
    s.get(k).and_then(Value::as_bool).unwrap_or(false)
}

fn type_of(s: &Map<String, Value>) -> &str {
    s.get("type").and_then(Value::as_str).unwrap_or("")
}

fn props(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("properties").and_then(Value::as_object)
}

fn items(s: &Map<String, Value>) -> Option<&Map<String, Value>> {
    s.get("items").and_then(Value::as_object)
}

/// Every check for one version's schema at `path`; errors of the structural invariants are
/// sorted by text (as the real server does), the other CRD schema checks follow.
pub(crate) fn check_version_schema(schema: &Value, path: &str) -> Vec<FieldError> {
    let Some(s) = schema.as_object() else {
        return vec![FieldError::required(path, "schemas are required")];
    };
    let mut structural = Vec::new();
    invariants(s, Level::Root, path, &mut structural);
    completeness(s, path, &mut structural);
    structural.sort_by_key(FieldError::to_message);
    let mut errs = structural;
    keywords(s, path, None, &mut errs);
    defaults(s, path, true, &mut errs);
    errs
}

fn invariants(s: &Map<String, Value>, lvl: Level, path: &str, errs: &mut Vec<FieldError>) {
    let ty = type_of(s);
    if ty == "array" && s.get("items").is_none_or(Value::is_null) {
        errs.push(FieldError::required(
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
            errs.push(FieldError::forbidden(
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
        errs.push(FieldError::invalid(
            format!("{path}.x-kubernetes-preserve-unknown-fields"),
            &Value::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if int_or_string && embedded {
        errs.push(FieldError::invalid(
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
            errs.push(FieldError::required(
                format!("{path}.type"),
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        } else {
            errs.push(FieldError::invalid(
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
        errs.push(FieldError::required(format!("{path}.type"), detail));
    }
    if embedded && additional.is_some() {
        errs.push(FieldError::forbidden(
            format!("{path}.additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if lvl == Level::Root && !ty.is_empty() && ty != "object" {
        errs.push(FieldError::invalid(
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
                errs.push(FieldError::invalid(
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
        errs.push(FieldError::required(
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
    errs: &mut Vec<FieldError>,
) {
    if check_metadata && type_of(meta) != "object" {
        errs.push(FieldError::invalid(
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
            errs.push(FieldError::forbidden(
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
    errs: &mut Vec<FieldError>,
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
        && super::validate::pattern_matches(p, "").is_none()
        && let Err(e) = regex::Regex::new(p)
    {
        let msg = e
            .to_string()
            .lines()
            .last()
            .unwrap_or("")
            .trim()
            .to_string();
        errs.push(FieldError::invalid(
            format!("{path}.pattern"),
            &Value::from(p),
            &format!("must be a valid regular expression, but isn't: {msg}"),
        ));
    }
}

fn list<'a>(s: &'a Map<String, Value>, k: &str) -> Vec<(usize, &'a Map<String, Value>)> {
    s.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .enumerate()
                .filter_map(|(i, v)| v.as_object().map(|o| (i, o)))
                .collect()
        })
        .unwrap_or_default()
}

/// A value validation under a junctor: no structure allowed.
fn nested(v: &Map<String, Value>, skip_any_of: bool, path: &str, errs: &mut Vec<FieldError>) {
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
        |field: &str, detail: &str| FieldError::forbidden(format!("{path}.{field}"), detail);
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
        errs.push(FieldError::forbidden(
            key(path, "metadata"),
            "must not be specified in a nested context",
        ));
    }
}

/// Every field a junctor names must be specified in the structural part too.
fn completeness(s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
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
    errs: &mut Vec<FieldError>,
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
    errs: &mut Vec<FieldError>,
) {
    let Some(s) = s else {
        errs.push(FieldError::required(
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
                    nested_completeness(vf, Some(sf), &key(s_path, k), &key(v_path, k), errs)
                }
                None => errs.push(FieldError::required(
                    key(s_path, k),
                    &format!("because it is defined in {}", key(v_path, k)),
                )),
            }
        }
    }
}

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

/// CRD schema keywords the apiextensions server rejects or constrains
/// (`ValidateCustomResourceDefinitionOpenAPISchema` and `specStandardValidatorV3`), checked
/// on every node of the structural part and the junctors. `meta` names the top-level
/// `apiVersion`/`kind`/`metadata` property a node sits in, where defaults are forbidden.
fn keywords(s: &Map<String, Value>, path: &str, meta: Option<&str>, errs: &mut Vec<FieldError>) {
    let forbidden =
        |field: &str, detail: &str| FieldError::forbidden(format!("{path}.{field}"), detail);
    let ty = type_of(s);
    if !ty.is_empty() && !TYPES.contains(&ty) {
        errs.push(FieldError::not_supported(
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
        && matches!(
            additional,
            Some(Value::Bool(false)) | Some(Value::Object(_))
        )
    {
        errs.push(forbidden(
            "additionalProperties",
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    if s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        errs.push(FieldError::invalid(
            format!("{path}.x-kubernetes-preserve-unknown-fields"),
            &Value::Bool(false),
            "must be true or undefined",
        ));
    }
    if let Some(m) = s.get("x-kubernetes-map-type").filter(|m| !m.is_null()) {
        if ty != "object" {
            let detail = "must be object if x-kubernetes-map-type is specified";
            errs.push(if ty.is_empty() {
                FieldError::required(format!("{path}.type"), detail)
            } else {
                FieldError::invalid(format!("{path}.type"), &Value::from(ty), detail)
            });
        }
        if !matches!(m.as_str(), Some("atomic" | "granular")) {
            errs.push(FieldError::not_supported(
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
fn validation_rules(s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
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
            errs.push(FieldError::required(
                format!("{p}.rule"),
                "rule is not specified",
            ));
        } else if !message.is_empty() && message.trim().is_empty() {
            errs.push(FieldError::invalid(
                format!("{p}.message"),
                &Value::from(message),
                "message must be non-empty if specified",
            ));
        } else if message.trim().contains(['\n', '\r']) {
            errs.push(FieldError::invalid(
                format!("{p}.message"),
                &Value::from(message),
                "message must not contain line breaks",
            ));
        } else if text.contains(['\n', '\r']) && message.trim().is_empty() {
            errs.push(FieldError::required(
                format!("{p}.message"),
                "message must be specified if rule contains line breaks",
            ));
        }
        if let Some(reason) = rule.get("reason").and_then(Value::as_str)
            && !reasons.iter().any(|r| r == reason)
        {
            errs.push(FieldError::not_supported(
                format!("{p}.reason"),
                &Value::from(reason),
                &reasons,
            ));
        }
        errs.extend(super::rules::rule_errors(rule, &p));
    }
}

fn list_type(s: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
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
                FieldError::required(format!("{path}.type"), detail)
            } else {
                FieldError::invalid(format!("{path}.type"), &Value::from(ty), detail)
            });
        } else if lt_str == Some("set")
            && let Some(is) = item
        {
            match type_of(is) {
                "array" => {
                    if let Some(inner) = is.get("x-kubernetes-list-type").filter(|l| !l.is_null())
                        && inner.as_str() != Some("atomic")
                    {
                        errs.push(FieldError::invalid(
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
                    errs.push(FieldError::invalid(
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
            errs.push(FieldError::not_supported(
                &lt_path,
                lt,
                &["atomic".into(), "set".into(), "map".into()],
            ));
        }
    }
    if !keys.is_empty() {
        let detail = "must be map if x-kubernetes-list-map-keys is non-empty";
        match lt {
            None => errs.push(FieldError::required(&lt_path, detail)),
            Some(l) if lt_str != Some("map") => errs.push(FieldError::invalid(&lt_path, l, detail)),
            _ => {}
        }
    }
    if lt_str == Some("map") {
        if keys.is_empty() {
            errs.push(FieldError::required(
                &keys_path,
                "must not be empty if x-kubernetes-list-type is map",
            ));
        }
        if s.get("items").is_none_or(Value::is_null) {
            errs.push(FieldError::required(
                format!("{path}.items"),
                "must have a schema if x-kubernetes-list-type is map",
            ));
        }
        if let Some(is) = item {
            let item_type = type_of(is);
            if item_type != "object" {
                errs.push(FieldError::invalid(
                    format!("{path}.items.type"),
                    &Value::from(item_type),
                    "must be object if parent array's x-kubernetes-list-type is map",
                ));
            } else {
                let mut seen = Vec::new();
                for k in &keys {
                    match props(is).and_then(|p| p.get(*k)).and_then(Value::as_object) {
                        Some(p) if matches!(type_of(p), "array" | "object") => {
                            errs.push(FieldError::invalid(
                                format!("{path}.items.properties[{k}].type"),
                                &Value::from(item_type),
                                "must be a scalar type if parent array's x-kubernetes-list-type is map",
                            ))
                        }
                        Some(_) => {}
                        None => errs.push(FieldError::invalid(
                            &keys_path,
                            &keys_value,
                            "entries must all be names of item properties",
                        )),
                    }
                    if seen.contains(k) {
                        errs.push(FieldError::invalid(
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
            errs.push(FieldError::forbidden(
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
                    errs.push(FieldError::required(
                        format!("{path}.items.properties[{k}].default"),
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                    ));
                }
                if flag(p, "nullable") {
                    errs.push(FieldError::forbidden(
                        format!("{path}.items.properties[{k}].nullable"),
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                    ));
                }
            }
        }
    }
}

/// Every `default` in the structural part must validate against its node's schema and be
/// pruned already (`must not have unknown fields`). Defaults inside root metadata are not
/// allowed except for name/generateName, which the server checks elsewhere.
fn defaults(s: &Map<String, Value>, path: &str, root: bool, errs: &mut Vec<FieldError>) {
    if let Some(d) = s.get("default").filter(|d| !d.is_null()) {
        let node = Value::Object(s.clone());
        let dpath = format!("{path}.default");
        for e in validate(d, &node) {
            let field = match e.field.as_str() {
                "" => dpath.clone(),
                "<nil>" => e.field.clone(),
                f => format!("{dpath}.{f}"),
            };
            errs.push(FieldError { field, ..e });
        }
        let mut pruned = d.clone();
        if d.is_object() && !prune_nested(&mut pruned, &node).is_empty() {
            errs.push(FieldError::invalid(
                dpath,
                d,
                "must not have unknown fields",
            ));
        }
    }
    if let Some(it) = items(s) {
        defaults(it, &format!("{path}.items"), false, errs);
    }
    if let Some(p) = props(s) {
        for (k, v) in p {
            if root && k == "metadata" {
                continue;
            }
            if let Some(v) = v.as_object() {
                defaults(v, &key(path, k), false, errs);
            }
        }
    }
    if let Some(a) = s.get("additionalProperties").and_then(Value::as_object) {
        defaults(a, &format!("{path}.additionalProperties"), false, errs);
    }
}

/// Prunes a value that is not a resource root (so `apiVersion`/`kind`/`metadata` are ordinary
/// fields unless the node is an embedded resource).
fn prune_nested(v: &mut Value, schema: &Value) -> Vec<String> {
    // Wrap the value as a field of a synthetic root so root-level exemptions do not apply.
    let mut wrapper = serde_json::json!({ "v": v.take() });
    let root = serde_json::json!({"type": "object", "properties": {"v": schema}});
    let pruned = prune(&mut wrapper, &root);
    *v = wrapper["v"].take();
    pruned
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(schema: Value) -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "memcacheds.cache.example.com"},
            "spec": {"group": "cache.example.com", "scope": "Namespaced",
                "names": {"plural": "memcacheds", "kind": "Memcached"},
                "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": schema}}]}
        })
    }

    fn msgs(c: &Value) -> Vec<String> {
        match check_structural(c) {
            Ok(()) => vec![],
            Err(e) => e.iter().map(FieldError::to_message).collect(),
        }
    }

    const P: &str = "spec.versions[0].schema.openAPIV3Schema";

    #[test]
    fn a_good_crd_passes() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "size": {"type": "integer", "minimum": 1, "default": 1},
                "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
                "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "tpl": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
                "mode": {"type": "string", "anyOf": [{"enum": ["a"]}, {"pattern": "^b"}]},
            }},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}},
        }});
        assert_eq!(msgs(&crd(schema)), Vec::<String>::new());
    }

    #[test]
    fn non_structural_schemas_are_rejected_with_the_real_messages() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"properties": {
                "foo": {"type": "string", "anyOf": [{"type": "string", "description": "d"}, {"nullable": true}]},
                "list": {"type": "array"},
                "bar": {"type": "object", "anyOf": [{"properties": {"x": {"type": "string"}}}]},
            }},
            "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
        }});
        let got = msgs(&crd(schema));
        let want = [
            format!(
                "{P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
            ),
            format!(
                "{P}.properties[spec].properties[bar].anyOf[0].properties[x].type: Forbidden: must be empty to be structural"
            ),
            format!(
                "{P}.properties[spec].properties[bar].properties[x]: Required value: because it is defined in {P}.properties[spec].properties[bar].anyOf[0].properties[x]"
            ),
            format!(
                "{P}.properties[spec].properties[foo].anyOf[0].description: Forbidden: must be empty to be structural"
            ),
            format!(
                "{P}.properties[spec].properties[foo].anyOf[0].type: Forbidden: must be empty to be structural"
            ),
            format!(
                "{P}.properties[spec].properties[foo].anyOf[1].nullable: Forbidden: must be false to be structural"
            ),
            format!(
                "{P}.properties[spec].properties[list].items: Required value: must be specified"
            ),
            format!(
                "{P}.properties[spec].type: Required value: must not be empty for specified object fields"
            ),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn crd_level_checks() {
        let mut c = crd(json!({"type": "object"}));
        c["metadata"]["name"] = json!("wrong.cache.example.com");
        c["spec"]["scope"] = json!("Global");
        c["spec"]["names"]["kind"] = json!("Mem_cached");
        c["spec"]["versions"] = json!([
            {"name": "v1", "served": false, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
            {"name": "V2", "served": false, "storage": false}
        ]);
        let got = msgs(&c);
        assert_eq!(
            got[0],
            r#"metadata.name: Invalid value: "wrong.cache.example.com": must be spec.names.plural+"."+spec.group"#
        );
        assert!(got.iter().any(|m| m.starts_with(r#"spec.names.kind: Invalid value: "Mem_cached": may have mixed case, but should otherwise match: a DNS-1035 label"#)), "{got:?}");
        assert!(got.contains(&r#"spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced""#.to_string()));
        assert!(got.iter().any(|m| {
            m.starts_with(r#"spec.versions[1].name: Invalid value: "V2": a DNS-1035 label"#)
        }));
        assert!(
            got.contains(
                &"spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required"
                    .to_string()
            )
        );
        assert!(
            got.iter()
                .any(|m| m.starts_with("spec.versions: Invalid value: [")
                    && m.ends_with("must have exactly one version marked as storage version"))
        );
        assert!(!got.iter().any(|m| m.contains("must serve")), "{got:?}");
        let mut g = crd(json!({"type": "object"}));
        g["spec"]["group"] = json!("example");
        g["metadata"]["name"] = json!("memcacheds.example");
        assert_eq!(
            msgs(&g),
            vec![
                r#"spec.group: Invalid value: "example": should be a domain with at least one dot"#
            ]
        );
    }

    #[test]
    fn update_rules() {
        let mut old = crd(json!({"type": "object"}));
        old["status"] = json!({"storedVersions": ["v1alpha1"],
            "conditions": [{"type": "Established", "status": "True"}]});
        assert_eq!(check_structural_update(&old, &old), Ok(()));
        let mut new = old.clone();
        new["spec"]["scope"] = json!("Cluster");
        new["spec"]["versions"][0]["name"] = json!("v1");
        let got: Vec<String> = check_structural_update(&new, &old)
            .unwrap_err()
            .iter()
            .map(FieldError::to_message)
            .collect();
        assert_eq!(
            got,
            [
                r#"spec.scope: Invalid value: "Cluster": field is immutable"#,
                r#"status.storedVersions[0]: Invalid value: "v1alpha1": must appear in spec.versions"#,
            ]
        );
        // before it is established, the scope may still change
        old["status"]["conditions"] = json!([]);
        new["spec"]["versions"][0]["name"] = json!("v1alpha1");
        assert_eq!(check_structural_update(&new, &old), Ok(()));
    }

    #[test]
    fn printer_columns_conversion_and_list_map_rules() {
        let mut c = crd(
            json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
                "ids": {"type": "array", "x-kubernetes-list-map-keys": ["id"], "items": {"type": "string"}},
                "objs": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}},
                "rules": {"type": "string", "x-kubernetes-validations": [{"rule": "", "reason": "Nope"}]},
            }}}}),
        );
        c["spec"]["versions"][0]["additionalPrinterColumns"] =
            json!([{"name": "Age", "type": "time", "jsonPath": "metadata.creationTimestamp"}]);
        c["spec"]["conversion"] =
            json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v2"]}});
        let got = msgs(&c);
        let sp = format!("{P}.properties[spec].properties");
        for want in [
            r#"spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string"#.to_string(),
            r#"spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "metadata.creationTimestamp": must be a simple json path starting with ."#.to_string(),
            "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook".to_string(),
            r#"spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1"#.to_string(),
            format!("{sp}[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"),
            format!("{sp}[ids].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty"),
            format!("{sp}[objs].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set"),
            format!("{sp}[rules].x-kubernetes-validations[0].rule: Required value: rule is not specified"),
            format!(r#"{sp}[rules].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired""#),
        ] {
            assert!(got.contains(&want), "missing {want}\n in {got:#?}");
        }
    }

    #[test]
    fn keywords_list_types_and_defaults() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "u": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
            "m": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
            "l": {"type": "array", "x-kubernetes-list-type": "map", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
            "d": {"type": "integer", "default": "one"},
            "o": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x", "b": 1}},
            "r": {"type": "string", "pattern": "(unclosed"},
        }}}});
        let got = msgs(&crd(schema));
        let sp = format!("{P}.properties[spec].properties");
        for want in [
            format!(
                "{sp}[u].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
            ),
            format!(
                "{sp}[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"
            ),
            format!(
                "{sp}[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"
            ),
            format!(
                r#"{sp}[d].default: Invalid value: "string": {} in body must be of type integer: "string""#,
                ""
            ),
            format!(
                r#"{sp}[o].default: Invalid value: {{"a":"x","b":1}}: must not have unknown fields"#
            ),
        ] {
            assert!(got.contains(&want), "missing {want}\n in {got:#?}");
        }
        assert!(got.iter().any(|m| m.starts_with(&format!("{sp}[r].pattern: Invalid value: \"(unclosed\": must be a valid regular expression, but isn't:"))), "{got:#?}");
    }
}
