//! Node selectors (`ValidateNodeSelector` of `pkg/apis/core/validation`): a
//! PersistentVolume's `nodeAffinity.required`, its terms' label requirements and node field
//! requirements, with the real server's messages and order (each requirement's operator
//! and values first, then its key).

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, forbidden, index, invalid_str, required_because,
};
use crate::support::meta::{label_value_error, qualified_name_errors};

/// The only node field a node field selector may use.
const NODE_NAME_FIELD: &str = "metadata.name";

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v.as_str().unwrap_or_default())
        .collect()
}

fn objects(value: &Value) -> impl Iterator<Item = (usize, &Value)> {
    value.as_array().into_iter().flatten().enumerate()
}

/// `validateVolumeNodeAffinity`: a PersistentVolume's `nodeAffinity` (present) at `path`.
pub fn volume_node_affinity(affinity: &Value, path: &str) -> Errors {
    let required = &affinity["required"];
    if required.is_null() {
        return vec![required_because(
            &child(path, "required"),
            "must specify required node constraints",
        )];
    }
    node_selector(required, &child(path, "required"))
}

/// `ValidateNodeSelector` at `path`.
pub fn node_selector(selector: &Value, path: &str) -> Errors {
    let terms_path = child(path, "nodeSelectorTerms");
    let terms: Vec<(usize, &Value)> = objects(&selector["nodeSelectorTerms"]).collect();
    if terms.is_empty() {
        return vec![required_because(
            &terms_path,
            "must have at least one node selector term",
        )];
    }
    let mut out = Vec::new();
    for (i, term) in terms {
        out.extend(node_selector_term(term, &index(&terms_path, i)));
    }
    out
}

/// `ValidateNodeSelectorTerm` of the term at `path`: its label requirements, then its node
/// field requirements.
pub fn node_selector_term(term: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let exprs = child(path, "matchExpressions");
    for (j, req) in objects(&term["matchExpressions"]) {
        out.extend(label_requirement(req, &index(&exprs, j)));
    }
    let fields = child(path, "matchFields");
    for (j, req) in objects(&term["matchFields"]) {
        out.extend(field_requirement(req, &index(&fields, j)));
    }
    out
}

/// `ValidateNodeSelectorRequirement`.
fn label_requirement(req: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let values = strings(&req["values"]);
    let values_path = child(path, "values");
    match req["operator"].as_str().unwrap_or_default() {
        "In" | "NotIn" if values.is_empty() => out.push(required_because(
            &values_path,
            "must be specified when `operator` is 'In' or 'NotIn'",
        )),
        "Exists" | "DoesNotExist" if !values.is_empty() => out.push(forbidden(
            &values_path,
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        )),
        "Gt" | "Lt" if values.len() != 1 => out.push(required_because(
            &values_path,
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
        other => out.push(invalid_str(
            &child(path, "operator"),
            other,
            "not a valid selector operator",
        )),
    }
    let key = req["key"].as_str().unwrap_or_default();
    for why in qualified_name_errors(key) {
        out.push(invalid_str(&child(path, "key"), key, &why));
    }
    for (i, v) in values.iter().enumerate() {
        if let Some(why) = label_value_error(v) {
            out.push(invalid_str(&index(&values_path, i), v, why));
        }
    }
    out
}

/// `ValidateNodeFieldSelectorRequirement`: only `metadata.name`, with `In` or `NotIn` and
/// exactly one node name.
fn field_requirement(req: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let values = strings(&req["values"]);
    let values_path = child(path, "values");
    match req["operator"].as_str().unwrap_or_default() {
        "In" | "NotIn" if values.len() != 1 => out.push(required_because(
            &values_path,
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        )),
        "In" | "NotIn" => {}
        other => out.push(invalid_str(
            &child(path, "operator"),
            other,
            "not a valid selector operator",
        )),
    }
    let key = req["key"].as_str().unwrap_or_default();
    if key == NODE_NAME_FIELD {
        for (i, v) in values.iter().enumerate() {
            for why in dns1123_subdomain(v) {
                out.push(invalid_str(&index(&values_path, i), v, &why));
            }
        }
    } else {
        out.push(invalid_str(
            &child(path, "key"),
            key,
            "not a valid field selector key",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::super::errors::field_messages as messages;

    #[test]
    fn requirements_are_checked_operator_first() {
        let affinity = json!({"required": {"nodeSelectorTerms": [{
            "matchExpressions": [
                {"key": "k", "operator": "Exists", "values": ["a"]},
                {"key": "k", "operator": "Gt", "values": ["1", "2"]},
                {"key": "k", "operator": "Sometimes"},
                {"key": "k", "operator": "Lt", "values": ["3"]},
            ],
            "matchFields": [
                {"key": "metadata.uid", "operator": "In", "values": ["a"]},
                {"key": "metadata.name", "operator": "In", "values": ["a", "b"]},
            ],
        }]}});
        let p = "spec.nodeAffinity.required.nodeSelectorTerms[0]";
        assert_eq!(
            messages(&volume_node_affinity(&affinity, "spec.nodeAffinity")),
            vec![
                format!(
                    "{p}.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                ),
                format!(
                    "{p}.matchExpressions[1].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
                ),
                format!(
                    "{p}.matchExpressions[2].operator: Invalid value: \"Sometimes\": not a valid selector operator"
                ),
                format!(
                    "{p}.matchFields[0].key: Invalid value: \"metadata.uid\": not a valid field selector key"
                ),
                format!(
                    "{p}.matchFields[1].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
                ),
            ]
        );
    }

    #[test]
    fn terms_and_required_are_required() {
        assert_eq!(
            messages(&volume_node_affinity(&json!({}), "a")),
            vec!["a.required: Required value: must specify required node constraints"]
        );
        assert_eq!(
            messages(&node_selector(&json!({"nodeSelectorTerms": []}), "r")),
            vec!["r.nodeSelectorTerms: Required value: must have at least one node selector term"]
        );
        assert!(node_selector(&json!({"nodeSelectorTerms": [{}]}), "r").is_empty());
    }
}
