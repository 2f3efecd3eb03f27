//! The typed decoding of a merge or JSON patch's result on a built-in kind. The real patcher
//! encodes the current object, applies the patch to that JSON, then decodes the result into
//! the kind's Go type: a value of the wrong JSON type is a 422 quoting the patched JSON
//! (`"" is invalid: patch: Invalid value: "{...}": json: cannot unmarshal bool into Go
//! struct field ConfigMap.data of type string`).
//!
//! The quoted JSON is written as the patch library writes it: the objects the patch walked
//! into (every object of a merge patch, the containers along a JSON patch operation's path)
//! and the values it put in are decoded maps, written with sorted keys; the rest is the
//! current object as the server encoded it, in its own field order.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::kind::PatchType;
use crate::registry::{schema, validation};
use crate::support::go_decode;
use crate::support::go_types::Target;
use crate::support::json_order;
use crate::support::patch::strategic_leftover;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Which parts of the patched object the patch library rewrote (sorted keys).
#[derive(Debug, Default)]
enum Touched {
    /// Nothing below: written as the server encoded it.
    #[default]
    Untouched,
    /// This container, and the listed children as given.
    Some(BTreeMap<String, Touched>),
    /// This value and everything in it.
    All,
}

impl Touched {
    fn child(&mut self, key: &str) -> &mut Touched {
        if !matches!(self, Touched::Some(_) | Touched::All) {
            *self = Touched::Some(BTreeMap::new());
        }
        match self {
            Touched::Some(children) => children.entry(key.to_string()).or_default(),
            // Everything below is rewritten already.
            all => all,
        }
    }

    fn get(&self, key: &str) -> &Touched {
        match self {
            Touched::Some(children) => children.get(key).unwrap_or(&Touched::Untouched),
            Touched::All => &Touched::All,
            Touched::Untouched => &Touched::Untouched,
        }
    }
}

/// What a merge patch rewrites: every object it names, every value it sets.
fn merge_touched(patch: &Value) -> Touched {
    match patch {
        Value::Object(members) => Touched::Some(
            members
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), merge_touched(v)))
                .collect(),
        ),
        _ => Touched::All,
    }
}

/// A JSON pointer's tokens, unescaped.
fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// What a JSON patch rewrites: the containers along each operation's paths, and the values
/// `add`, `replace` and `test` decode.
fn json_touched(ops: &[Value]) -> Touched {
    let mut root = Touched::Some(BTreeMap::new());
    for op in ops {
        let kind = op["op"].as_str().unwrap_or_default();
        let paths = [("path", true), ("from", false)];
        for (field, target) in paths {
            let Some(pointer) = op[field].as_str() else {
                continue;
            };
            let parts = tokens(pointer);
            let Some((last, parents)) = parts.split_last() else {
                continue;
            };
            let mut at = &mut root;
            for part in parents {
                at = at.child(part);
                if matches!(at, Touched::Untouched) {
                    *at = Touched::Some(BTreeMap::new());
                }
            }
            if target && matches!(kind, "add" | "replace" | "test") {
                *at.child(last) = Touched::All;
            }
        }
    }
    root
}

/// `value` (at `path` from the object's root) as the server's encoder writes it.
fn encoded(value: &Value, path: &[&str]) -> Vec<u8> {
    // Wrapped in its ancestors, each alone in its object, to keep the field order of its
    // place; the wrapping is cut off again.
    let wrapped = path
        .iter()
        .rev()
        .fold(value.clone(), |inner, key| json!({ *key: inner }));
    let text = json_order::to_vec(&wrapped);
    let prefix: usize = path
        .iter()
        .map(|k| serde_json::to_string(k).map_or(0, |s| s.len()) + 2)
        .sum();
    text[prefix..text.len() - path.len()].to_vec()
}

/// Writes `value` (at `path`, of the Go type `go` when known) as the patch library does.
fn write(
    value: &Value,
    go: Option<&Target>,
    touched: &Touched,
    path: &mut Vec<String>,
    out: &mut Vec<u8>,
) {
    if matches!(touched, Touched::Untouched) {
        match go {
            Some(target) => out.extend(json_order::to_vec_as(value, target)),
            None => {
                let keys: Vec<&str> = path.iter().map(String::as_str).collect();
                out.extend(encoded(value, &keys));
            }
        }
        return;
    }
    match value {
        Value::Object(members) => {
            out.push(b'{');
            for (i, (key, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend(serde_json::to_vec(key).unwrap_or_default());
                out.push(b':');
                path.push(key.clone());
                let member = go.and_then(|t| json_order::member_target(t, key));
                write(v, member.as_ref(), touched.get(key), path, out);
                path.pop();
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                // Path entries name objects' keys only: items keep their list's place.
                let item = go.and_then(json_order::item_target);
                write(v, item.as_ref(), touched.get(&i.to_string()), path, out);
            }
            out.push(b']');
        }
        scalar => out.extend(serde_json::to_vec(scalar).unwrap_or_default()),
    }
}

/// The patched object as the patch library writes it, with Go's HTML-safe escapes (`<`,
/// `>` and `&` only ever appear inside strings).
fn patched_text(kind: PatchType, patch: &Value, patched: &Value) -> String {
    let touched = match (kind, patch) {
        (PatchType::Json, Value::Array(ops)) => json_touched(ops),
        _ => merge_touched(patch),
    };
    let mut out = Vec::new();
    // The document itself is always a decoded map.
    let root = match touched {
        Touched::Untouched => Touched::Some(BTreeMap::new()),
        other => other,
    };
    let go = json_order::root_target(patched);
    write(patched, go.as_ref(), &root, &mut Vec::new(), &mut out);
    String::from_utf8_lossy(&out)
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The 422 the real server answers when the result of a merge or JSON `patch` on a built-in
/// kind does not decode into the kind's Go type; `None` when it decodes (and for custom
/// resources, and for objects of another kind, such as a Scale).
pub fn patched_type_error(
    def: &ResourceDef,
    kind: PatchType,
    patch: &Value,
    patched: &Value,
) -> Option<ApiError> {
    if def.custom.is_some() || patched["kind"].as_str() != Some(def.kind.as_str()) {
        return None;
    }
    let decode = |text: &str| {
        let node = go_decode::parse(text.as_bytes())?;
        validation::decode_error(&def.group, &def.version, &def.kind, &node)
    };
    // Most patches decode: look first at the object in any order, which finds whether
    // there is an error, and only then write it as the patch library does, which decides
    // which error is the first.
    decode(&patched.to_string())?;
    let text = patched_text(kind, patch, patched);
    let why = decode(&text)?;
    Some(validation::patch_invalid(&schema::go_quote(&text), &why))
}

/// What field validation makes of a merge, JSON or strategic merge `patch` on a built-in
/// kind, as the real patcher decodes its result `patched`: the fields a merge or strategic
/// merge patch repeats (`duplicates`), then the fields the kind does not have in the result,
/// as the patch library writes it (a merge or JSON patch) or as a Go map (a strategic merge
/// patch). `Warn` returns them as warnings, `Strict` refuses them with a 422 quoting the
/// result, or for a strategic merge patch the patch as merging it into `original` left it.
/// Objects of another kind (a Scale) are the subresource's business.
pub fn patched_strict(
    def: &ResourceDef,
    kind: PatchType,
    strict: bool,
    duplicates: Vec<String>,
    patch: &Value,
    (original, patched): (&Value, &Value),
) -> Result<Vec<String>, ApiError> {
    if def.custom.is_some() || patched["kind"].as_str() != Some(def.kind.as_str()) {
        return Ok(Vec::new());
    }
    let mut errors = duplicates;
    let (group, version, name) = (&def.group, &def.version, &def.kind);
    let text = match kind {
        PatchType::Strategic => {
            errors.extend(validation::unknown_fields_sorted(
                group, version, name, patched,
            ));
            None
        }
        // Most results have no unknown field: finding that needs no text (the fields are
        // the same in any order), and the text is written only to quote it in a refusal.
        _ if validation::unknown_fields_sorted(group, version, name, patched).is_empty() => {
            (strict && !errors.is_empty()).then(|| patched_text(kind, patch, patched))
        }
        _ => {
            let text = patched_text(kind, patch, patched);
            if let Some(node) = go_decode::parse(text.as_bytes()) {
                errors.extend(validation::strict_errors(
                    group,
                    version,
                    name,
                    &node,
                    &|_| false,
                ));
            }
            Some(text)
        }
    };
    if !strict || errors.is_empty() {
        return Ok(errors);
    }
    let why = format!("strict decoding error: {}", errors.join(", "));
    Err(match text {
        Some(text) => validation::patch_invalid(&schema::go_quote(&text), &why),
        None => {
            validation::patch_strict_invalid(&strategic_leftover::leftover(original, patch), &why)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_map() -> Value {
        json!({"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": "c", "namespace": "n", "uid": "u", "labels": {"b": "1"}},
            "data": {"z": "1", "a": "2"}})
    }

    #[test]
    fn the_patch_rewrites_what_it_walks_into() {
        let mut patched = config_map();
        patched["data"]["a"] = json!(1);
        let patch = json!({"data": {"a": 1}});
        assert_eq!(
            patched_text(PatchType::Merge, &patch, &patched),
            r#"{"apiVersion":"v1","data":{"a":1,"z":"1"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"n","uid":"u","labels":{"b":"1"}}}"#
        );
        let patch = json!({"metadata": {"labels": {"c": "<&>"}}});
        let mut patched = config_map();
        patched["metadata"]["labels"]["c"] = json!("<&>");
        assert_eq!(
            patched_text(PatchType::Merge, &patch, &patched),
            r#"{"apiVersion":"v1","data":{"a":"2","z":"1"},"kind":"ConfigMap","metadata":{"labels":{"b":"1","c":"\u003c\u0026\u003e"},"name":"c","namespace":"n","uid":"u"}}"#
        );
        // A JSON patch sorts the containers along its paths only.
        let ops = json!([{"op": "add", "path": "/metadata/labels/c", "value": "x"}]);
        let mut patched = config_map();
        patched["metadata"]["labels"]["c"] = json!("x");
        assert!(patched_text(PatchType::Json, &ops, &patched).ends_with(
            r#""metadata":{"labels":{"b":"1","c":"x"},"name":"c","namespace":"n","uid":"u"}}"#
        ));
        let ops = json!([{"op": "remove", "path": "/data/z"}]);
        let mut patched = config_map();
        patched["data"].as_object_mut().unwrap().remove("z");
        assert!(
            patched_text(PatchType::Json, &ops, &patched).ends_with(
                r#""metadata":{"name":"c","namespace":"n","uid":"u","labels":{"b":"1"}}}"#
            )
        );
    }

    #[test]
    fn wrong_types_in_the_result_are_refused() {
        let def = crate::registry::builtin_resources()
            .into_iter()
            .find(|d| d.group.is_empty() && d.plural == "configmaps" && d.version == "v1")
            .expect("configmaps are served");
        let mut patched = config_map();
        patched["data"]["b"] = json!(true);
        let ops = json!([{"op": "add", "path": "/data/b", "value": true}]);
        let err = patched_type_error(&def, PatchType::Json, &ops, &patched).expect("refused");
        assert_eq!(err.code, 422);
        assert!(err.message.starts_with(
            r#" "" is invalid: patch: Invalid value: "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"2\",\"b\":true,\"z\":\"1\"}"#
        ));
        assert!(err.message.ends_with(
            "json: cannot unmarshal bool into Go struct field ConfigMap.data of type string"
        ));
        assert!(patched_type_error(&def, PatchType::Merge, &json!({}), &config_map()).is_none());
    }
}
