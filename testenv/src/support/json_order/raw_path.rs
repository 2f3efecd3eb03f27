//! Where raw values (`runtime.RawExtension`) are: the fields of the built-in API that hold
//! them, where they are set in an object, and their paths as Go's decoder names them, as
//! JSON pointer tokens and as the span of the value's bytes in a request body.

use std::sync::OnceLock;

use serde_json::Value;

use crate::support::go_json;
use crate::support::go_types::{self, Target};

/// The raw fields of the built-in API: (Go struct component, JSON field name).
const RAW_FIELDS: &[(&str, &str)] = &[
    ("io.k8s.api.apps.v1.ControllerRevision", "data"),
    (
        "io.k8s.api.resource.v1.OpaqueDeviceConfiguration",
        "parameters",
    ),
    ("io.k8s.api.resource.v1.AllocatedDeviceStatus", "data"),
];

/// The served kinds whose objects hold raw fields: (group, version, kind).
const RAW_KINDS: &[(&str, &str, &str)] = &[
    ("apps", "v1", "ControllerRevision"),
    ("resource.k8s.io", "v1", "DeviceClass"),
    ("resource.k8s.io", "v1", "ResourceClaim"),
    ("resource.k8s.io", "v1", "ResourceClaimTemplate"),
];

struct Indices {
    /// Struct index and field name of each raw field.
    fields: Vec<(usize, &'static str)>,
    /// Struct index of each kind with raw fields.
    kinds: Vec<usize>,
}

fn indices() -> &'static Indices {
    static INDICES: OnceLock<Indices> = OnceLock::new();
    INDICES.get_or_init(|| Indices {
        fields: RAW_FIELDS
            .iter()
            .filter_map(|(component, name)| Some((go_types::index_of(component)?, *name)))
            .collect(),
        kinds: RAW_KINDS
            .iter()
            .filter_map(|(g, v, k)| go_types::index_of_kind(g, v, k))
            .collect(),
    })
}

/// Whether objects of this kind hold raw fields.
pub fn holds_raw(group: &str, version: &str, kind: &str) -> bool {
    RAW_KINDS
        .iter()
        .any(|(g, v, k)| *g == group && *v == version && *k == kind)
}

/// Whether the struct at `index` is a kind whose objects hold raw fields.
pub(crate) fn is_raw_kind(index: usize) -> bool {
    indices().kinds.contains(&index)
}

/// Whether the struct at `index` has a raw field.
pub(crate) fn holds_raw_field(index: usize) -> bool {
    indices().fields.iter().any(|(i, _)| *i == index)
}

/// Whether field `name` of the struct at `index` is a raw field.
pub(crate) fn is_raw_field(index: usize, name: &str) -> bool {
    indices()
        .fields
        .iter()
        .any(|(i, n)| *i == index && *n == name)
}

fn walk<'a>(value: &'a Value, target: &Target, at: &mut Vec<Step>, out: &mut Vec<Found<'a>>) {
    match (target, value) {
        (Target::Struct(index), Value::Object(map)) => {
            for field in &go_types::structure(*index).fields {
                let Some(inner) = map.get(&field.name) else {
                    continue;
                };
                at.push(Step::Key(field.name.clone()));
                if is_raw_field(*index, &field.name) {
                    if !inner.is_null() {
                        out.push(Found {
                            steps: at.clone(),
                            value: inner,
                        });
                    }
                } else {
                    walk(inner, &field.target, at, out);
                }
                at.pop();
            }
        }
        (Target::List(inner), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                at.push(Step::Index(i));
                walk(item, inner, at, out);
                at.pop();
            }
        }
        (Target::Map(inner), Value::Object(map)) => {
            for (key, item) in map {
                at.push(Step::Key(key.clone()));
                walk(item, inner, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// A raw field found in an object: where it is and its value.
pub(crate) struct Found<'a> {
    pub steps: Vec<Step>,
    pub value: &'a Value,
}

/// The raw fields set in `object` (of the kind at struct `index`).
pub(crate) fn raw_fields(object: &Value, index: usize) -> Vec<Found<'_>> {
    let mut out = Vec::new();
    walk(object, &Target::Struct(index), &mut Vec::new(), &mut out);
    out
}

/// One step of a path into a document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// A path as Go's decoder names it (`spec.devices.config[0].opaque.parameters`).
pub(crate) fn go_path(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The path as JSON pointer tokens (member names, list indices).
pub(crate) fn tokens(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .map(|step| match step {
            Step::Key(key) => key.clone(),
            Step::Index(i) => i.to_string(),
        })
        .collect()
}

/// The span of the value at `steps` in `doc`: the last of repeated members, as Go's
/// decoder keeps the last.
pub(crate) fn span(doc: &[u8], steps: &[Step]) -> Option<(usize, usize)> {
    let mut start = go_json::skip_space(doc, 0);
    for step in steps {
        start = match (step, doc.get(start)?) {
            (Step::Key(want), b'{') => member(doc, start + 1, want)?,
            (Step::Index(want), b'[') => element(doc, start + 1, *want)?,
            _ => return None,
        };
    }
    Some((start, go_json::value_end(doc, start)?))
}

/// The start of the value of the last member called `want` of the object whose members
/// start at `i`.
fn member(doc: &[u8], mut i: usize, want: &str) -> Option<usize> {
    let mut found = None;
    loop {
        i = go_json::skip_space(doc, i);
        if doc.get(i)? == &b'}' {
            return found;
        }
        let key_end = go_json::string_end(doc, i + 1).ok()?;
        let key: String = serde_json::from_slice(&doc[i..key_end]).ok()?;
        i = go_json::skip_space(doc, key_end);
        (doc.get(i)? == &b':').then_some(())?;
        let value = go_json::skip_space(doc, i + 1);
        if key == want {
            found = Some(value);
        }
        i = go_json::skip_space(doc, go_json::value_end(doc, value)?);
        if doc.get(i)? == &b',' {
            i += 1;
        }
    }
}

/// The start of element `want` of the array whose elements start at `i`.
fn element(doc: &[u8], mut i: usize, want: usize) -> Option<usize> {
    for _ in 0..want {
        i = go_json::skip_space(doc, go_json::value_end(doc, i)?);
        (doc.get(i)? == &b',').then_some(())?;
        i += 1;
    }
    let i = go_json::skip_space(doc, i);
    (doc.get(i)? != &b']').then_some(i)
}
