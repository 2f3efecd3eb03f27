//! Merges the variants of a Rust enum (schemars' `oneOf`/`anyOf` branches, each already
//! rewritten) into one structural node, as the API server needs one type per field:
//!
//! - all strings (unit variants): one string with every variant's value in `enum`;
//! - integers and strings (`#[serde(untagged)] enum { Int(i32), Name(String) }`):
//!   `x-kubernetes-int-or-string`;
//! - all objects: one object with every variant's properties. The variants stay apart through
//!   CEL rules: a tag property (internally and adjacently tagged enums) makes each variant's
//!   fields required when the tag names it and refused when it names another variant; the single
//!   property of each externally tagged variant must be set exactly once; for untagged objects,
//!   the fields of at least one variant must be complete;
//! - anything else (a string or an object, as for enums mixing unit and data variants): a
//!   free-form node that keeps every value (`x-kubernetes-preserve-unknown-fields`), with a note.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::cel;
use super::kinds::{Kind, Notes, free_form, kind_of, note, push_rule, same_shape};

/// Merges rewritten variant schemas found at `path`.
pub fn merge(branches: Vec<Value>, path: &str, notes: &mut Notes) -> Value {
    let kinds: BTreeSet<Kind> = branches.iter().map(kind_of).collect();
    let only = |allowed: &[&str]| {
        kinds.iter().all(|k| match k {
            Kind::Type(t) => allowed.contains(&t.as_str()),
            Kind::IntOrString => allowed.contains(&"int-or-string"),
            Kind::Any => false,
        })
    };
    if kinds.contains(&Kind::Any) {
        return free_form();
    }
    if only(&["object"]) {
        return objects(branches, path, notes);
    }
    if only(&["array"]) {
        return arrays(branches, path, notes);
    }
    if only(&["string"]) {
        return scalars(branches, "string");
    }
    if only(&["boolean"]) {
        return scalars(branches, "boolean");
    }
    if only(&["integer"]) {
        return scalars(branches, "integer");
    }
    if only(&["integer", "number"]) {
        return json!({"type": "number"});
    }
    if only(&["integer", "string", "int-or-string"]) {
        return int_or_string(&branches);
    }
    let names: Vec<String> = kinds
        .iter()
        .map(|k| match k {
            Kind::Type(t) => t.clone(),
            Kind::IntOrString => "int-or-string".into(),
            Kind::Any => "any".into(),
        })
        .collect();
    note(
        notes,
        path,
        format!(
            "the variants serialize as different JSON types ({}), which no single Kubernetes schema type covers: kept as free-form JSON (x-kubernetes-preserve-unknown-fields), so the API server stores any value here without validating it",
            names.join(", ")
        ),
    );
    free_form()
}

/// The string values of an `enum` keyword, if the node has one made of strings only.
fn string_enum(schema: &Value) -> Option<Vec<String>> {
    schema
        .get("enum")?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// Scalars of one type: keywords shared by every variant, and the union of their `enum`s.
fn scalars(branches: Vec<Value>, ty: &str) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), ty.into());
    let first = branches[0].as_object().cloned().unwrap_or_default();
    for (key, value) in first {
        if key == "description" || key == "enum" || key == "type" {
            continue;
        }
        if branches.iter().all(|b| b.get(&key) == Some(&value)) {
            out.insert(key, value);
        }
    }
    let enums: Option<Vec<Vec<Value>>> = branches
        .iter()
        .map(|b| b.get("enum").and_then(Value::as_array).cloned())
        .collect();
    if let Some(enums) = enums {
        let mut values: Vec<Value> = Vec::new();
        for v in enums.into_iter().flatten() {
            if !values.contains(&v) {
                values.push(v);
            }
        }
        out.insert("enum".into(), Value::Array(values));
    }
    Value::Object(out)
}

/// Integers and strings: int-or-string, with the strings' values checked when they are an enum.
fn int_or_string(branches: &[Value]) -> Value {
    let mut out = Map::new();
    out.insert("x-kubernetes-int-or-string".into(), true.into());
    let strings: Option<Vec<Vec<String>>> = branches
        .iter()
        .filter(|b| kind_of(b) == Kind::Type("string".into()))
        .map(string_enum)
        .collect();
    if let Some(strings) = strings {
        let values: Vec<String> = strings.into_iter().flatten().collect();
        if !values.is_empty() {
            push_rule(&mut out, cel::int_or_string_in(&values));
        }
    }
    Value::Object(out)
}

/// Lists: one list whose items merge every variant's items.
fn arrays(branches: Vec<Value>, path: &str, notes: &mut Notes) -> Value {
    let items: Vec<Value> = branches
        .iter()
        .map(|b| b.get("items").cloned().unwrap_or_else(free_form))
        .collect();
    json!({"type": "array", "items": merge_same(items, &format!("{path}[*]"), notes)})
}

/// Merges schemas of one value that should agree: identical shapes stay as they are.
pub fn merge_same(schemas: Vec<Value>, path: &str, notes: &mut Notes) -> Value {
    if schemas.iter().all(|s| same_shape(s, &schemas[0])) {
        return schemas.into_iter().next().unwrap_or_else(free_form);
    }
    merge(schemas, path, notes)
}

fn properties(branch: &Value) -> Map<String, Value> {
    branch
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn required(branch: &Value) -> Vec<String> {
    branch
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The property that tells variants apart: present in every variant with a single, distinct
/// string value (serde's `tag`).
fn find_tag(branches: &[Value]) -> Option<(String, Vec<String>)> {
    let first = properties(&branches[0]);
    'names: for name in first.keys() {
        let mut values = Vec::new();
        for b in branches {
            match properties(b).get(name).and_then(string_enum).as_deref() {
                Some([one]) if !values.contains(one) => values.push(one.clone()),
                _ => continue 'names,
            }
        }
        return Some((name.clone(), values));
    }
    None
}

/// Externally tagged variants: each an object with one required property of its own.
fn external_names(branches: &[Value]) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for b in branches {
        let props = properties(b);
        let name = props.keys().next()?;
        if props.len() != 1 || required(b) != [name.clone()] || names.contains(name) {
            return None;
        }
        names.push(name.clone());
    }
    Some(names)
}

/// Objects: every variant's properties in one object, the variants kept apart by rules.
fn objects(branches: Vec<Value>, path: &str, notes: &mut Notes) -> Value {
    let tag = find_tag(&branches);
    let external = if tag.is_none() {
        external_names(&branches)
    } else {
        None
    };

    // Every property with the schemas the variants give it, in first-seen order.
    let mut seen: Vec<(String, Vec<Value>)> = Vec::new();
    for (i, b) in branches.iter().enumerate() {
        for (name, mut schema) in properties(b) {
            if let Some(names) = &external
                && schema.get("description").is_none()
                && let Some(doc) = branches[i].get("description")
            {
                // An externally tagged variant's doc comment describes its property.
                debug_assert_eq!(names[i], name);
                schema["description"] = doc.clone();
            }
            match seen.iter_mut().find(|(n, _)| *n == name) {
                Some((_, schemas)) => schemas.push(schema),
                None => seen.push((name, vec![schema])),
            }
        }
    }
    let mut props = Map::new();
    for (name, schemas) in seen {
        if let Some((tag_name, values)) = &tag
            && &name == tag_name
        {
            let mut tag_schema = json!({"type": "string", "enum": values});
            if let Some(doc) = schemas.iter().find_map(|s| s.get("description")) {
                tag_schema["description"] = doc.clone();
            }
            props.insert(name, tag_schema);
            continue;
        }
        let merged = merge_same(schemas, &format!("{path}.{name}"), notes);
        props.insert(name, merged);
    }

    // CEL cannot see free-form properties (no type): rules naming them would not compile.
    let visible = |name: &String| props.get(name).is_some_and(|s| kind_of(s) != Kind::Any);
    let requireds: Vec<Vec<String>> = branches.iter().map(required).collect();
    let common: Vec<String> = requireds[0]
        .iter()
        .filter(|r| requireds.iter().all(|other| other.contains(r)))
        .cloned()
        .collect();
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    if branches
        .iter()
        .any(|b| b.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)))
    {
        out.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
    }
    let mut rules = Vec::new();
    let required_out: Vec<String> = match (&tag, &external) {
        (Some((tag_name, values)), _) => {
            for (i, variant) in values.iter().enumerate() {
                let own: Vec<String> = requireds[i]
                    .iter()
                    .filter(|r| *r != tag_name && !common.contains(r) && visible(r))
                    .cloned()
                    .collect();
                if !own.is_empty() {
                    rules.extend(cel::required_for_variant(tag_name, variant, &own));
                }
            }
            for name in props.keys().filter(|n| *n != tag_name && visible(n)) {
                let owners: Vec<String> = branches
                    .iter()
                    .zip(values)
                    .filter(|(b, _)| properties(b).contains_key(name))
                    .map(|(_, v)| v.clone())
                    .collect();
                if owners.len() < values.len() {
                    rules.extend(cel::only_for_variants(tag_name, name, &owners));
                }
            }
            let mut req = vec![tag_name.clone()];
            req.extend(common.into_iter().filter(|r| r != tag_name));
            req
        }
        (None, Some(names)) => {
            if names.iter().all(visible) {
                rules.extend(cel::exactly_one(names));
            }
            Vec::new()
        }
        (None, None) => {
            let sets: Vec<Vec<String>> = requireds
                .iter()
                .map(|r| r.iter().filter(|f| !common.contains(f)).cloned().collect())
                .collect();
            if sets
                .iter()
                .all(|s: &Vec<String>| !s.is_empty() && s.iter().all(visible))
            {
                rules.extend(cel::one_variant_complete(&sets));
            }
            common
        }
    };
    out.insert("properties".into(), Value::Object(props));
    if !required_out.is_empty() {
        out.insert("required".into(), json!(required_out));
    }
    if !rules.is_empty() {
        out.insert("x-kubernetes-validations".into(), Value::Array(rules));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(branches: Value) -> (Value, Notes) {
        let mut notes = Vec::new();
        let Value::Array(b) = branches else {
            unreachable!()
        };
        (merge(b, ".spec.x", &mut notes), notes)
    }

    #[test]
    fn unit_variants_become_one_string_enum() {
        let (out, notes) = run(json!([
            {"type": "string", "enum": ["A"], "description": "a"},
            {"type": "string", "enum": ["B"]}
        ]));
        assert_eq!(out, json!({"type": "string", "enum": ["A", "B"]}));
        assert!(notes.is_empty());
    }

    #[test]
    fn integers_and_strings_become_int_or_string() {
        let (out, _) = run(json!([{"type": "integer", "format": "int32"}, {"type": "string"}]));
        assert_eq!(out, json!({"x-kubernetes-int-or-string": true}));
        let (out, _) = run(json!([{"type": "integer"}, {"type": "string", "enum": ["auto"]}]));
        assert_eq!(
            out["x-kubernetes-validations"][0]["rule"],
            "type(self) == int || self == 'auto'"
        );
    }

    #[test]
    fn internally_tagged_variants_merge_with_rules() {
        let (out, notes) = run(json!([
            {"type": "object", "properties": {"type": {"type": "string", "enum": ["Git"]}, "url": {"type": "string"}}, "required": ["type", "url"]},
            {"type": "object", "properties": {"type": {"type": "string", "enum": ["Empty"]}}, "required": ["type"]}
        ]));
        assert!(notes.is_empty());
        assert_eq!(
            out,
            json!({"type": "object", "required": ["type"],
            "properties": {"type": {"type": "string", "enum": ["Git", "Empty"]}, "url": {"type": "string"}},
            "x-kubernetes-validations": [
                {"rule": "self.type != 'Git' || has(self.url)", "message": "`url` is required when type is Git"},
                {"rule": "!has(self.url) || self.type == 'Git'", "message": "`url` is only allowed when type is Git"}
            ]})
        );
    }

    #[test]
    fn externally_tagged_variants_need_exactly_one_property() {
        let (out, _) = run(json!([
            {"type": "object", "description": "by url", "properties": {"git": {"type": "string"}}, "required": ["git"]},
            {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}
        ]));
        assert_eq!(out["properties"]["git"]["description"], "by url");
        assert_eq!(
            out["x-kubernetes-validations"][0]["message"],
            "exactly one of `git` or `size` must be set"
        );
        assert!(out.get("required").is_none());
    }

    #[test]
    fn conflicting_field_types_become_free_form_with_a_note() {
        let (out, notes) = run(json!([
            {"type": "object", "properties": {"kind": {"type": "string", "enum": ["A"]}, "v": {"type": "string"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"type": "string", "enum": ["B"]}, "v": {"type": "object", "properties": {"a": {"type": "string"}}}}, "required": ["kind"]}
        ]));
        assert_eq!(out["properties"]["v"], free_form());
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].path, ".spec.x.v");
        assert!(notes[0].message.contains("(object, string)"), "{notes:?}");
    }

    #[test]
    fn strings_and_objects_become_free_form() {
        let (out, notes) = run(json!([
            {"type": "string", "enum": ["Empty"]},
            {"type": "object", "properties": {"Sized": {"type": "integer"}}, "required": ["Sized"]}
        ]));
        assert_eq!(out, free_form());
        assert_eq!(notes.len(), 1);
    }
}
