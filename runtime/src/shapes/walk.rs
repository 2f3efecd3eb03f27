//! The walk over a schemars schema that makes every node structural: unions merged (see
//! [`super::union`]), recursion cut, free-form values marked so nothing is pruned, `null`
//! accepted where a Rust client sends it, unsigned bounds and sets spelled the way the API
//! server enforces them.

use serde_json::{Map, Value, json};

use super::cel;
use super::kinds::{
    EXPLICIT_NULLABLE, Notes, absorb, free_form, is_free_form, note, push_rule, same_shape,
};
use super::union;

/// Where a node sits: the API server drops a `null` object field (pruning) but keeps, or
/// refuses, a `null` list item or map value, so `Option` needs `nullable` only in the latter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// The root, a property, or an enum variant.
    Field,
    /// A list item or a map value.
    Element,
}

/// State of one rewrite: the definitions schemars left for recursive types, and the notes.
pub struct Walk {
    definitions: Map<String, Value>,
    /// Recursive types whose definition is being rewritten (to learn its JSON type).
    resolving: Vec<String>,
    /// What the user should know about the result.
    pub notes: Notes,
}

impl Walk {
    /// A walk over a root schema, taking its definitions out of it.
    pub fn new(root: &mut Value) -> Self {
        let mut definitions = Map::new();
        if let Some(obj) = root.as_object_mut() {
            for key in ["components", "$defs", "definitions"] {
                match obj.remove(key) {
                    Some(Value::Object(mut defs)) if key == "components" => {
                        if let Some(Value::Object(schemas)) = defs.remove("schemas") {
                            definitions.extend(schemas);
                        }
                    }
                    Some(Value::Object(defs)) => definitions.extend(defs),
                    _ => {}
                }
            }
        }
        Walk {
            definitions,
            resolving: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Rewrites `schema` (found at `path`) in place.
    pub fn node(&mut self, schema: &mut Value, path: &str, position: Position) {
        if schema.is_boolean() {
            *schema = json!({});
        }
        let Some(obj) = schema.as_object_mut() else {
            return;
        };
        let mut explicit_nullable = obj.remove(EXPLICIT_NULLABLE) == Some(Value::Bool(true));
        let mut nullable = obj.remove("nullable") == Some(Value::Bool(true));

        // `allOf` (schemars' wrapper around a `$ref` with siblings, or flattened parts).
        if let Some(Value::Array(parts)) = obj.remove("allOf") {
            for part in parts {
                absorb(obj, part);
            }
        }
        if let Some(Value::String(reference)) = obj.remove("$ref") {
            self.cut(obj, &reference, path);
        }

        // Named fields next to a union (an enum flattened into a struct) are rewritten first;
        // a node that is only a union gets its structure from the variants.
        let is_union = obj.contains_key("anyOf") || obj.contains_key("oneOf");
        if !is_union || has_structure(obj) {
            self.children(obj, path);
        }

        // Enums and `Option`: merge the variants (each rewritten first).
        while let Some(key) = ["anyOf", "oneOf"]
            .into_iter()
            .find(|k| obj.contains_key(*k))
        {
            let branches = obj.remove(key);
            if obj.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
                continue;
            }
            let Some(Value::Array(branches)) = branches else {
                continue;
            };
            let mut rest = Vec::new();
            for mut branch in branches {
                if is_null(&branch) {
                    nullable = true;
                    continue;
                }
                // `#[kubeforge(nullable)]` on an `Option` field is written into its `T` branch.
                if branch.get(EXPLICIT_NULLABLE) == Some(&Value::Bool(true)) {
                    explicit_nullable = true;
                }
                self.node(&mut branch, path, Position::Field);
                rest.push(branch);
            }
            let value = match rest.len() {
                0 => free_form(),
                1 => rest.pop().unwrap_or_default(),
                _ => union::merge(rest, path, &mut self.notes),
            };
            // `type` and `format` come from the variants (schemars may have put a bare
            // `type: object` next to `oneOf`).
            if !value.get("type").is_some_and(|t| t == "object")
                && obj.get("type").is_some_and(|t| t == "object")
                && obj.get("properties").is_none()
            {
                obj.remove("type");
            }
            absorb(obj, value);
        }
        scalars(obj);
        finish_nullable(obj, nullable, explicit_nullable, position);
    }

    /// Replaces a `$ref` (a recursive type) by a node that keeps its data as free-form JSON.
    fn cut(&mut self, obj: &mut Map<String, Value>, reference: &str, path: &str) {
        let name = reference
            .rsplit('/')
            .next()
            .unwrap_or(reference)
            .replace("~1", "/")
            .replace("~0", "~");
        // What the recursive type is once rewritten (an enum may be an object): the cut keeps
        // its JSON type, so CEL rules of the parent can still name the field.
        let definition = match self.resolving.contains(&name) {
            true => None,
            false => self.definitions.get(&name).cloned().map(|mut d| {
                let mut scratch = Walk {
                    definitions: self.definitions.clone(),
                    resolving: [self.resolving.clone(), vec![name.clone()]].concat(),
                    notes: Vec::new(),
                };
                scratch.node(&mut d, path, Position::Field);
                d
            }),
        };
        if !obj.contains_key("description")
            && let Some(doc) = definition.as_ref().and_then(|d| d.get("description"))
        {
            obj.insert("description".into(), doc.clone());
        }
        match definition
            .as_ref()
            .and_then(|d| d.get("type"))
            .and_then(Value::as_str)
        {
            Some("object") => {
                obj.insert("type".into(), "object".into());
            }
            Some("array") => {
                obj.insert("type".into(), "array".into());
                obj.insert(
                    "items".into(),
                    json!({"x-kubernetes-preserve-unknown-fields": true, "nullable": true}),
                );
                return self.cut_note(&name, path);
            }
            _ => {}
        }
        obj.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        self.cut_note(&name, path);
    }

    fn cut_note(&mut self, name: &str, path: &str) {
        note(
            &mut self.notes,
            path,
            format!(
                "`{name}` is recursive: the schema stops here and keeps the data below as free-form JSON (x-kubernetes-preserve-unknown-fields), so the API server stores it without validating it"
            ),
        );
    }

    /// Rewrites the properties, items and map values of a node, and the object and list
    /// keywords the API server does not accept.
    fn children(&mut self, obj: &mut Map<String, Value>, path: &str) {
        if let Some(Value::Array(types)) = obj.get("type").cloned() {
            // `type: [a, b]`: the same as a union of single types.
            let branches: Vec<Value> = types
                .into_iter()
                .filter(|t| t != "null")
                .map(|t| json!({ "type": t }))
                .collect();
            obj.remove("type");
            let value = match branches.len() {
                1 => branches.into_iter().next().unwrap_or_default(),
                _ => union::merge(branches, path, &mut self.notes),
            };
            absorb(obj, value);
        }
        if !has_structure(obj) {
            // `serde_json::Value` and other "anything" schemas: keep everything.
            obj.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            return;
        }
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                self.node(prop, &format!("{path}.{name}"), Position::Field);
            }
        }
        self.object_keywords(obj, path);
        self.array_keywords(obj, path);
    }

    fn object_keywords(&mut self, obj: &mut Map<String, Value>, path: &str) {
        obj.remove("propertyNames");
        if let Some(Value::Object(patterns)) = obj.remove("patternProperties")
            && !obj.contains_key("additionalProperties")
            && let Some(first) = patterns.into_iter().next()
        {
            // Maps with non-string keys: the keys are strings in JSON anyway.
            obj.insert("additionalProperties".into(), first.1);
        }
        let has_properties = obj.contains_key("properties");
        match obj.remove("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                obj.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            }
            Some(mut values) if !has_properties => {
                self.node(&mut values, &format!("{path}[*]"), Position::Element);
                obj.insert("additionalProperties".into(), values);
            }
            Some(values) => {
                // A `#[serde(flatten)]` map next to named fields: the API server cannot have both.
                let free = values.as_object().is_some_and(is_free_form) || values == json!({});
                obj.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
                if !free {
                    note(
                        &mut self.notes,
                        path,
                        "a flattened map next to named fields: the extra keys are kept (x-kubernetes-preserve-unknown-fields) but their values are not validated by the API server",
                    );
                }
            }
        }
        let open_object = obj.get("type").is_some_and(|t| t == "object")
            && obj
                .get("properties")
                .is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
            && !obj.contains_key("additionalProperties");
        if open_object {
            // An object with no declared fields (`RawExtension`, `{"type": "object"}` written by
            // hand): the server would prune everything in it.
            obj.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        }
    }

    fn array_keywords(&mut self, obj: &mut Map<String, Value>, path: &str) {
        let item_path = format!("{path}[*]");
        match obj.remove("items") {
            Some(Value::Array(mut tuple)) => {
                // A tuple: one items schema for every position.
                for item in &mut tuple {
                    self.node(item, &item_path, Position::Element);
                }
                let same = tuple.iter().all(|t| same_shape(t, &tuple[0]));
                let items = if same {
                    tuple.into_iter().next().unwrap_or_else(free_form)
                } else {
                    union::merge(tuple, &item_path, &mut self.notes)
                };
                obj.insert("items".into(), items);
            }
            Some(mut items) => {
                self.node(&mut items, &item_path, Position::Element);
                obj.insert("items".into(), items);
            }
            None => {}
        }
        obj.remove("additionalItems");
        if obj.remove("uniqueItems") == Some(Value::Bool(true))
            && !obj.contains_key("x-kubernetes-list-type")
            && obj.get("items").is_some_and(|i| {
                matches!(
                    i.get("type").and_then(Value::as_str),
                    Some("string" | "integer" | "number" | "boolean")
                ) && i.get("nullable") != Some(&Value::Bool(true))
            })
        {
            // A Rust set: the API server refuses `uniqueItems` but enforces a set list.
            obj.insert("x-kubernetes-list-type".into(), "set".into());
        }
    }
}

/// Whether a node says what it holds (otherwise it holds anything).
fn has_structure(obj: &Map<String, Value>) -> bool {
    [
        "type",
        "properties",
        "items",
        "additionalProperties",
        "enum",
    ]
    .iter()
    .any(|k| obj.contains_key(*k))
        || obj.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
        || obj.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
}

fn is_null(branch: &Value) -> bool {
    branch.get("type") == Some(&json!("null"))
        || branch.get("enum") == Some(&json!([null]))
        || branch.get("const") == Some(&Value::Null)
}

/// Integer bounds the API server can enforce, so that its refusal names the field and the limit:
/// schemars gives `u32` no maximum, and `u64`, `usize` and `u128` only their minimum.
///
/// The server's integers are int64, and it converts a `maximum` to a float64 and back before
/// comparing it with an integer value: 2^63-1 becomes 2^63, which overflows to the minimum
/// int64 and refuses every value. The unsigned 64-bit and wider types therefore get
/// [`UNSIGNED_MAX`], the largest int64 a float64 holds exactly: values up to it are kept, the
/// 1,023 int64 values above it are refused naming it, and values beyond int64 (a float64 to the
/// server) are refused both as "must be of type integer" and naming the limit.
fn scalars(obj: &mut Map<String, Value>) {
    if obj.get("type").is_none_or(|t| t != "integer") || obj.contains_key("maximum") {
        return;
    }
    let maximum: Value = match obj.get("format").and_then(Value::as_str) {
        Some("uint32") => u32::MAX.into(),
        Some("uint64" | "uint" | "uint128") => UNSIGNED_MAX.into(),
        _ => return,
    };
    obj.insert("maximum".into(), maximum);
}

/// The `maximum` of unsigned integers wider than 32 bits: 2^63 - 1024, the largest int64 that
/// a float64 represents exactly (see [`scalars`]).
pub(crate) const UNSIGNED_MAX: u64 = (1 << 63) - 1024;

/// `nullable` where a Rust client sends `null` and the server would otherwise refuse it or drop
/// the entry; none on fields, where the server drops a `null` before validating (which reads
/// back as `None`, and lets defaults and `has()` rules see the field as unset).
fn finish_nullable(
    obj: &mut Map<String, Value>,
    mut option: bool,
    explicit: bool,
    position: Position,
) {
    // schemars lists `null` among an `Option<enum>`'s values.
    if let Some(Value::Array(values)) = obj.get_mut("enum")
        && values.contains(&Value::Null)
    {
        values.retain(|v| !v.is_null());
        option = true;
    }
    if is_free_form(obj) {
        obj.insert("nullable".into(), true.into());
        return;
    }
    obj.remove("nullable");
    if !(explicit || option && position == Position::Element) {
        return;
    }
    obj.insert("nullable".into(), true.into());
    // The server refuses `null` for a schema with an `enum`, nullable or not.
    if let Some(Value::Array(values)) = obj.get("enum").cloned() {
        let strings: Option<Vec<String>> = values
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect();
        if let Some(strings) = strings {
            obj.remove("enum");
            push_rule(obj, cel::string_in(&strings));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(mut schema: Value) -> (Value, Notes) {
        let mut walk = Walk::new(&mut schema);
        walk.node(&mut schema, "", Position::Field);
        (schema, walk.notes)
    }

    #[test]
    fn options_drop_nullable_on_fields_and_keep_it_in_lists() {
        let (out, _) = rewrite(json!({"type": "object", "properties": {
            "mode": {"anyOf": [{"type": "string", "enum": ["A", "B"]}, {"enum": [null], "nullable": true}], "description": "d"},
            "size": {"type": "integer", "nullable": true},
            "modes": {"type": "array", "items": {"anyOf": [{"type": "string", "enum": ["A"]}, {"enum": [null], "nullable": true}]}}
        }}));
        assert_eq!(
            out["properties"]["mode"],
            json!({"type": "string", "enum": ["A", "B"], "description": "d"})
        );
        assert_eq!(out["properties"]["size"], json!({"type": "integer"}));
        assert_eq!(
            out["properties"]["modes"]["items"],
            json!({"type": "string", "nullable": true, "x-kubernetes-validations": [
                {"rule": "self == 'A'", "message": "supported values: \"A\""}
            ]})
        );
    }

    #[test]
    fn anything_is_kept() {
        let (out, _) = rewrite(json!({"type": "object", "properties": {
            "raw": {"description": "any"},
            "map": {"type": "object", "additionalProperties": {}},
            "json": {"type": "object", "additionalProperties": true}
        }}));
        assert_eq!(
            out["properties"]["raw"],
            json!({"description": "any", "x-kubernetes-preserve-unknown-fields": true, "nullable": true})
        );
        assert_eq!(
            out["properties"]["map"]["additionalProperties"],
            free_form()
        );
        assert_eq!(
            out["properties"]["json"],
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
        );
    }

    #[test]
    fn recursion_is_cut_with_a_note() {
        let (out, notes) = rewrite(json!({
            "type": "object",
            "properties": {"root": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
            }}},
            "components": {"schemas": {"Node": {"type": "object", "description": "A node."}}}
        }));
        assert!(out.get("components").is_none());
        assert_eq!(
            out["properties"]["root"]["properties"]["children"]["items"],
            json!({"type": "object", "description": "A node.", "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(notes[0].path, ".root.children[*]");
        assert!(notes[0].message.contains("`Node` is recursive"));
    }

    #[test]
    fn tuples_sets_and_unsigned_integers() {
        let (out, notes) = rewrite(json!({"type": "object", "properties": {
            "pair": {"type": "array", "items": [{"type": "integer"}, {"type": "integer"}], "minItems": 2, "maxItems": 2},
            "mixed": {"type": "array", "items": [{"type": "string"}, {"type": "boolean"}]},
            "set": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
            "count": {"type": "integer", "format": "uint32", "minimum": 0},
            "big": {"type": "integer", "format": "uint64", "minimum": 0},
            "size": {"type": "integer", "format": "uint", "minimum": 0},
            "capped": {"type": "integer", "format": "uint64", "minimum": 0, "maximum": 10},
            "signed": {"type": "integer", "format": "int64"}
        }}));
        assert_eq!(
            out["properties"]["pair"]["items"],
            json!({"type": "integer"})
        );
        assert_eq!(out["properties"]["mixed"]["items"], free_form());
        assert_eq!(notes.len(), 1);
        assert_eq!(
            out["properties"]["set"],
            json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}})
        );
        assert_eq!(out["properties"]["count"]["maximum"], json!(4294967295u32));
        for wide in ["big", "size"] {
            assert_eq!(
                out["properties"][wide]["maximum"],
                json!(9223372036854774784u64)
            );
        }
        assert_eq!(out["properties"]["capped"]["maximum"], json!(10));
        assert!(out["properties"]["signed"].get("maximum").is_none());
        // The bound survives the server's float64 round trip unchanged.
        assert_eq!(UNSIGNED_MAX as f64 as u64, UNSIGNED_MAX);
        assert!(((UNSIGNED_MAX + 1) as f64) as u64 != UNSIGNED_MAX + 1);
    }

    #[test]
    fn flattened_typed_maps_keep_their_keys() {
        let (out, notes) = rewrite(json!({"type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": {"type": "string"}}));
        assert_eq!(out["x-kubernetes-preserve-unknown-fields"], json!(true));
        assert!(out.get("additionalProperties").is_none());
        assert_eq!(notes.len(), 1);
    }
}
