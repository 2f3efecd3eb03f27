//! Small vocabulary shared by the rewrite: notes, the JSON kind a schema node accepts, and the
//! free-form node that accepts anything.

use serde_json::{Map, Value, json};

/// Something `manifests` tells the user about a schema it generated: a recursion cut, or a
/// value kept as free-form JSON because its Rust shape has no narrower structural form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// JSON path of the field in the custom resource (`.spec.tree.children[*]`).
    pub path: String,
    /// What was done and what it means for the data.
    pub message: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "<root>"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.message)
    }
}

/// Collected notes.
pub type Notes = Vec<Note>;

/// Adds a note.
pub fn note(notes: &mut Notes, path: &str, message: impl Into<String>) {
    notes.push(Note {
        path: path.to_string(),
        message: message.into(),
    });
}

/// The marker `#[kubeforge(nullable)]` leaves next to `nullable: true`, so the rewrite keeps
/// what the user asked for while dropping the `nullable` schemars adds to every `Option`.
pub const EXPLICIT_NULLABLE: &str = "x-kubeforge-nullable";

/// What a (rewritten) schema node accepts, as far as merging variants is concerned.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Any JSON value (`x-kubernetes-preserve-unknown-fields` without a type).
    Any,
    /// An integer or a string (`x-kubernetes-int-or-string`).
    IntOrString,
    /// One JSON type (`object`, `array`, `string`, `integer`, `number`, `boolean`).
    Type(String),
}

/// The kind of a rewritten node.
pub fn kind_of(schema: &Value) -> Kind {
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Kind::IntOrString;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some(t) => Kind::Type(t.to_string()),
        None => Kind::Any,
    }
}

/// Whether a node accepts anything (and so keeps everything below it).
pub fn is_free_form(obj: &Map<String, Value>) -> bool {
    obj.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
        && !obj.contains_key("type")
        && obj.get("x-kubernetes-int-or-string") != Some(&Value::Bool(true))
}

/// A node accepting any JSON value, nested data included, `null` too.
pub fn free_form() -> Value {
    json!({"x-kubernetes-preserve-unknown-fields": true, "nullable": true})
}

/// Keys that describe a node rather than constrain it; the field's own win over its type's.
pub const ANNOTATIONS: [&str; 4] = ["description", "title", "default", "example"];

/// Moves `from`'s keys into `into`; `into`'s annotations (a field's doc comment) win over
/// `from`'s (the doc comment of the field's type).
pub fn absorb(into: &mut Map<String, Value>, from: Value) {
    let Value::Object(from) = from else { return };
    for (key, value) in from {
        if ANNOTATIONS.contains(&key.as_str()) && into.contains_key(&key) {
            continue;
        }
        match (key.as_str(), into.get_mut(&key), value) {
            // Rules, required fields and properties add up (a flattened part or an enum next
            // to named fields).
            (
                "x-kubernetes-validations" | "required",
                Some(Value::Array(existing)),
                Value::Array(more),
            ) => {
                for v in more {
                    if !existing.contains(&v) {
                        existing.push(v);
                    }
                }
            }
            ("properties", Some(Value::Object(existing)), Value::Object(more)) => {
                for (name, schema) in more {
                    existing.entry(name).or_insert(schema);
                }
            }
            (_, _, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// Appends a CEL rule to a node.
pub fn push_rule(obj: &mut Map<String, Value>, rule: Value) {
    if let Value::Array(rules) = obj
        .entry("x-kubernetes-validations")
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        rules.push(rule);
    }
}

/// Two schemas equal once descriptions (variant doc comments) are set aside.
pub fn same_shape(a: &Value, b: &Value) -> bool {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(o) => Value::Object(
                o.iter()
                    .filter(|(k, _)| *k != "description")
                    .map(|(k, v)| {
                        let v = if k == "properties" {
                            match v {
                                Value::Object(p) => Value::Object(
                                    p.iter().map(|(n, s)| (n.clone(), strip(s))).collect(),
                                ),
                                other => other.clone(),
                            }
                        } else {
                            strip(v)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    strip(a) == strip(b)
}
