//! The access review kinds (`pkg/apis/authorization/validation`): a SubjectAccessReview,
//! SelfSubjectAccessReview or LocalSubjectAccessReview names exactly one kind of attributes,
//! a subject (not for the self review), well-formed field and label selector attributes and
//! no metadata (a LocalSubjectAccessReview its namespace, matching the attributes'); and the
//! selectors the authorizer could not read (`BuildEvaluationError` of
//! `pkg/registry/authorization/util`), which the answer reports instead of refusing.

use serde_json::{Map, Value};

use super::errors::{
    Errors, child, forbidden, index, invalid, invalid_str, invalid_text, required_because,
};
use crate::support::meta::{label_key_errors, label_value_error};
use crate::support::selector::label::LabelSelector;
use crate::support::selector::lexer::{Token, tokens};

const IN_OR_NOT_IN: &str = "must be specified when `operator` is 'In' or 'NotIn'";
const EXISTS: &str = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'";

/// The errors of an access review of `kind` (after the server set its namespace from the
/// path, for a LocalSubjectAccessReview), in the order the real server reports them.
pub fn access_review_errors(kind: &str, review: &Value) -> Errors {
    let spec = &review["spec"];
    let mut out = one_of_attributes(spec);
    if kind != "SelfSubjectAccessReview" && subject_missing(spec) {
        let user = spec["user"].as_str().unwrap_or_default();
        out.push(invalid_str(
            "spec.user",
            user,
            "at least one of user or group must be specified",
        ));
    }
    out.extend(resource_attributes(&spec["resourceAttributes"]));
    let meta = &review["metadata"];
    let local = kind == "LocalSubjectAccessReview";
    let ignored: &[&str] = if local {
        &["managedFields", "namespace"]
    } else {
        &["managedFields"]
    };
    if !meta_is_empty(meta, ignored) {
        let why = if local {
            "must be empty except for namespace"
        } else {
            "must be empty"
        };
        out.push(invalid_text("metadata", &object_meta_go(meta), why));
    }
    if local {
        let ns = meta["namespace"].as_str().unwrap_or_default();
        let attributes = &spec["resourceAttributes"];
        let theirs = attributes["namespace"].as_str().unwrap_or_default();
        if attributes.is_object() && theirs != ns {
            out.push(invalid_str(
                "spec.resourceAttributes.namespace",
                theirs,
                "must match metadata.namespace",
            ));
        }
        if spec["nonResourceAttributes"].is_object() {
            out.push(invalid_text(
                "spec.nonResourceAttributes",
                &non_resource_go(&spec["nonResourceAttributes"]),
                "disallowed on this kind of request",
            ));
        }
    }
    out
}

/// Exactly one of `resourceAttributes` and `nonResourceAttributes`.
fn one_of_attributes(spec: &Value) -> Errors {
    let resource = spec["resourceAttributes"].is_object();
    let non_resource = &spec["nonResourceAttributes"];
    match (resource, non_resource.is_object()) {
        (true, true) => vec![invalid_text(
            "spec.nonResourceAttributes",
            &non_resource_go(non_resource),
            "cannot be specified in combination with resourceAttributes",
        )],
        (false, false) => vec![invalid(
            "spec.resourceAttributes",
            &Value::Null,
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )],
        _ => Vec::new(),
    }
}

fn subject_missing(spec: &Value) -> bool {
    spec["user"].as_str().unwrap_or_default().is_empty()
        && spec["groups"].as_array().is_none_or(Vec::is_empty)
}

/// The internal `NonResourceAttributes` struct as Go prints it (no JSON tags).
fn non_resource_go(attributes: &Value) -> String {
    let s = |k: &str| Value::String(attributes[k].as_str().unwrap_or_default().into());
    format!("{{\"Path\":{},\"Verb\":{}}}", s("path"), s("verb"))
}

/// Whether the metadata is empty but for `ignored` keys.
fn meta_is_empty(meta: &Value, ignored: &[&str]) -> bool {
    meta.as_object().is_none_or(|m| {
        m.iter()
            .filter(|(k, _)| !ignored.contains(&k.as_str()))
            .all(|(_, v)| is_zero(v))
    })
}

fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(b) => !b,
    }
}

/// `metav1.ObjectMeta` as `encoding/json` writes it: its fields in declaration order, empty
/// ones left out, a managed fields entry's keys in its struct's order.
pub(super) fn object_meta_go(meta: &Value) -> String {
    const ORDER: &[&str] = &[
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    ];
    const ENTRY: &[&str] = &[
        "manager",
        "operation",
        "apiVersion",
        "time",
        "fieldsType",
        "fieldsV1",
        "subresource",
    ];
    let empty = Map::new();
    let m = meta.as_object().unwrap_or(&empty);
    let mut parts = Vec::new();
    for key in ORDER {
        let Some(v) = m.get(*key).filter(|v| !is_zero(v)) else {
            continue;
        };
        let text = match (*key, v) {
            ("managedFields", Value::Array(entries)) => {
                let entries: Vec<String> = entries.iter().map(|e| ordered(e, ENTRY)).collect();
                format!("[{}]", entries.join(","))
            }
            _ => v.to_string(),
        };
        parts.push(format!("\"{key}\":{text}"));
    }
    format!("{{{}}}", parts.join(","))
}

/// An object's keys in `order` (others after, sorted), empty ones left out.
fn ordered(v: &Value, order: &[&str]) -> String {
    let Some(m) = v.as_object() else {
        return v.to_string();
    };
    let mut keys: Vec<&str> = order
        .iter()
        .copied()
        .filter(|k| m.contains_key(*k))
        .collect();
    keys.extend(m.keys().map(String::as_str).filter(|k| !order.contains(k)));
    let parts: Vec<String> = keys
        .into_iter()
        .filter(|k| !is_zero(&m[*k]))
        .map(|k| format!("{}:{}", Value::String(k.into()), m[k]))
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// The field and label selector attributes: a raw selector or requirements, not both, and
/// each requirement well formed (an operator the server does not know is allowed, for newer
/// clients).
fn resource_attributes(attributes: &Value) -> Errors {
    let path = "spec.resourceAttributes";
    let mut out = Vec::new();
    for (name, label) in [("fieldSelector", false), ("labelSelector", true)] {
        let selector = &attributes[name];
        if !selector.is_object() {
            continue;
        }
        let at = child(path, name);
        let raw = selector["rawSelector"].as_str().unwrap_or_default();
        let requirements = selector["requirements"].as_array().map_or(&[][..], |r| r);
        if !raw.is_empty() && !requirements.is_empty() {
            out.push(invalid_str(
                &child(&at, "rawSelector"),
                raw,
                "may not specified at the same time as requirements",
            ));
        }
        if raw.is_empty() && requirements.is_empty() {
            out.push(required_because(
                &child(&at, "requirements"),
                &format!("when {at} is specified, requirements or rawSelector is required"),
            ));
        }
        for (i, r) in requirements.iter().enumerate() {
            let here = index(&child(&at, "requirements"), i);
            out.extend(if label {
                label_requirement(r, &here)
            } else {
                field_requirement(r, &here)
            });
        }
    }
    out
}

/// `ValidateFieldSelectorRequirement`, unknown operators allowed.
fn field_requirement(r: &Value, at: &str) -> Errors {
    let mut out = Vec::new();
    if r["key"].as_str().unwrap_or_default().is_empty() {
        out.push(required_because(&child(at, "key"), "must be specified"));
    }
    out.extend(operator_values(r, at));
    out
}

/// `ValidateLabelSelectorRequirement`, unknown operators allowed: the operator's values,
/// then the key, then each value.
fn label_requirement(r: &Value, at: &str) -> Errors {
    let mut out = operator_values(r, at);
    let key = r["key"].as_str().unwrap_or_default();
    for why in label_key_errors(key) {
        out.push(invalid_str(&child(at, "key"), key, &why));
    }
    for (i, v) in r["values"].as_array().into_iter().flatten().enumerate() {
        let v = v.as_str().unwrap_or_default();
        if let Some(why) = label_value_error(v) {
            out.push(invalid_str(&index(&child(at, "values"), i), v, why));
        }
    }
    out
}

fn operator_values(r: &Value, at: &str) -> Errors {
    let values = r["values"].as_array().map_or(0, Vec::len);
    match r["operator"].as_str().unwrap_or_default() {
        "In" | "NotIn" if values == 0 => {
            vec![required_because(&child(at, "values"), IN_OR_NOT_IN)]
        }
        "Exists" | "DoesNotExist" if values > 0 => {
            vec![forbidden(&child(at, "values"), EXISTS)]
        }
        _ => Vec::new(),
    }
}

/// The `evaluationError` of a review whose selectors the authorizer could not (entirely)
/// read: they are ignored, which only broadens the check. None when both were read.
pub fn selector_evaluation_error(attributes: &Value) -> Option<String> {
    let mut notes = Vec::new();
    for (name, label) in [("fieldSelector", false), ("labelSelector", true)] {
        let selector = &attributes[name];
        if !selector.is_object() {
            continue;
        }
        let raw = selector["rawSelector"].as_str().unwrap_or_default();
        let requirements = selector["requirements"].as_array().map_or(&[][..], |r| r);
        // Requirements win over a raw selector (validation refuses both together).
        let (read, failed) = if !requirements.is_empty() {
            let ok = requirements
                .iter()
                .filter(|r| {
                    if label {
                        label_requirement_reads(r)
                    } else {
                        field_requirement_reads(r)
                    }
                })
                .count();
            (ok, ok < requirements.len())
        } else if raw.is_empty() {
            (0, false)
        } else {
            let parsed = if label {
                LabelSelector::parse(raw).is_ok() && label_values_valid(raw)
            } else {
                field_selector_parses(raw)
            };
            (usize::from(parsed), !parsed)
        };
        if failed {
            let how = if read > 0 {
                "partially ignored"
            } else {
                "ignored"
            };
            notes.push(format!(
                "spec.resourceAttributes.{name} {how} due to parse error"
            ));
        }
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// Whether the values of a parsed label selector are label values (`labels.NewRequirement`
/// checks them; the parser of list requests leaves that to the match): those after `=`,
/// `==` or `!=`, and those in parentheses.
fn label_values_valid(raw: &str) -> bool {
    let mut after_operator = false;
    let mut in_set = false;
    for token in tokens(raw) {
        match token {
            Token::Equals | Token::DoubleEquals | Token::NotEquals => after_operator = true,
            Token::OpenPar => in_set = true,
            Token::ClosePar => in_set = false,
            Token::Identifier(value) if after_operator || in_set => {
                if label_value_error(&value).is_some() {
                    return false;
                }
                after_operator = false;
            }
            _ => after_operator = false,
        }
    }
    true
}

/// Whether a field requirement becomes a field selector term: `In` or `NotIn` with one value.
fn field_requirement_reads(r: &Value) -> bool {
    let values = r["values"].as_array().map_or(0, Vec::len);
    matches!(r["operator"].as_str(), Some("In" | "NotIn")) && values == 1
}

/// Whether a label requirement becomes a label selector requirement (`labels.NewRequirement`).
fn label_requirement_reads(r: &Value) -> bool {
    let values: Vec<&str> = r["values"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v.as_str().unwrap_or_default())
        .collect();
    let key = r["key"].as_str().unwrap_or_default();
    let arity = match r["operator"].as_str().unwrap_or_default() {
        "In" | "NotIn" => !values.is_empty(),
        "Exists" | "DoesNotExist" => values.is_empty(),
        _ => false,
    };
    arity
        && label_key_errors(key).is_empty()
        && values.iter().all(|v| label_value_error(v).is_none())
}

/// Whether `fields.ParseSelector` reads a raw field selector: every term has an operator
/// (`!=`, `==`, `=`) after its field, and its value escapes `\`, `,` and `=`.
fn field_selector_parses(raw: &str) -> bool {
    split_terms(raw)
        .iter()
        .filter(|t| !t.is_empty())
        .all(|term| match split_term(term) {
            Some(value) => unescapes(value),
            None => false,
        })
}

/// The terms of a field selector: split at unescaped commas.
fn split_terms(raw: &str) -> Vec<String> {
    let mut terms = vec![String::new()];
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' {
            terms.push(String::new());
            continue;
        }
        if let Some(t) = terms.last_mut() {
            t.push(c);
        }
    }
    terms
}

/// The value of a term after its first unescaped operator, if it has one.
fn split_term(term: &str) -> Option<&str> {
    let mut escaped = false;
    for (i, c) in term.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' {
            escaped = true;
            continue;
        }
        let rest = &term[i..];
        for op in ["!=", "==", "="] {
            if let Some(value) = rest.strip_prefix(op) {
                return Some(value);
            }
        }
    }
    None
}

/// Whether `fields.UnescapeValue` accepts a value.
fn unescapes(value: &str) -> bool {
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        let ok = match c {
            '\\' => matches!(chars.next(), Some('\\' | ',' | '=')),
            ',' | '=' => false,
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    true
}
