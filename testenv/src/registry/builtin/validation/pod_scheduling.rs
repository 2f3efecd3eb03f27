//! Where a pod may be scheduled (`validateAffinity` and `validateTopologySpreadConstraints` of
//! `ValidatePodSpec`): node affinity (a required node selector, preferred terms with weights),
//! pod affinity and anti-affinity terms (selectors with their values checked, namespaces,
//! topology key), and topology spread constraints (skew, key, action, repeats, minimum
//! domains, node inclusion policies, label keys, selector), with the real server's messages
//! and order.

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_label, forbidden, index, invalid, invalid_str, not_supported,
    required_because,
};
use super::label_selector::label_selector_with_values;
use super::node_selector::{node_selector, node_selector_term};
use crate::support::meta::qualified_name_errors;
use crate::support::status::Cause;

const WEIGHT_RANGE: &str = "must be in the range 1-100";
const ACTIONS: &[&str] = &["DoNotSchedule", "ScheduleAnyway"];
const INCLUSION_POLICIES: &[&str] = &["Honor", "Ignore"];

fn items(value: &Value) -> impl Iterator<Item = (usize, &Value)> {
    value.as_array().into_iter().flatten().enumerate()
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// `ValidateLabelName`: a qualified name.
fn label_name(name: &str, path: &str) -> Errors {
    qualified_name_errors(name)
        .iter()
        .map(|why| invalid_str(path, name, why))
        .collect()
}

/// A weight of a preferred term outside 1–100.
fn weight(term: &Value, path: &str) -> Option<Cause> {
    let w = term["weight"].as_i64().unwrap_or(0);
    (!(1..=100).contains(&w))
        .then(|| invalid(&child(path, "weight"), &Value::from(w), WEIGHT_RANGE))
}

/// `validateAffinity` of the pod spec's `affinity` at `path`.
pub fn affinity(affinity: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let node = &affinity["nodeAffinity"];
    if node.is_object() {
        let at = child(path, "nodeAffinity");
        let required = &node["requiredDuringSchedulingIgnoredDuringExecution"];
        if required.is_object() {
            let p = child(&at, "requiredDuringSchedulingIgnoredDuringExecution");
            out.extend(node_selector(required, &p));
        }
        let p = child(&at, "preferredDuringSchedulingIgnoredDuringExecution");
        for (i, term) in items(&node["preferredDuringSchedulingIgnoredDuringExecution"]) {
            let term_path = index(&p, i);
            out.extend(weight(term, &term_path));
            out.extend(node_selector_term(
                &term["preference"],
                &child(&term_path, "preference"),
            ));
        }
    }
    for kind in ["podAffinity", "podAntiAffinity"] {
        let terms = &affinity[kind];
        if !terms.is_object() {
            continue;
        }
        let at = child(path, kind);
        let p = child(&at, "requiredDuringSchedulingIgnoredDuringExecution");
        for (i, term) in items(&terms["requiredDuringSchedulingIgnoredDuringExecution"]) {
            out.extend(pod_affinity_term(term, &index(&p, i)));
        }
        let p = child(&at, "preferredDuringSchedulingIgnoredDuringExecution");
        for (i, term) in items(&terms["preferredDuringSchedulingIgnoredDuringExecution"]) {
            let term_path = index(&p, i);
            out.extend(weight(term, &term_path));
            let inner = child(&term_path, "podAffinityTerm");
            out.extend(pod_affinity_term(&term["podAffinityTerm"], &inner));
        }
    }
    out
}

/// `validatePodAffinityTerm`: the label and namespace selectors, the namespaces' names
/// (reported under `namespace`, as the real server names them), the label keys, then the
/// topology key, required and a qualified name.
fn pod_affinity_term(term: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for selector in ["labelSelector", "namespaceSelector"] {
        if term[selector].is_object() {
            out.extend(label_selector_with_values(
                &term[selector],
                &child(path, selector),
            ));
        }
    }
    for (_, name) in items(&term["namespaces"]) {
        let name = name.as_str().unwrap_or_default();
        for why in dns1123_label(name) {
            out.push(invalid_str(&child(path, "namespace"), name, &why));
        }
    }
    out.extend(label_keys(
        path,
        &term["matchLabelKeys"],
        &term["mismatchLabelKeys"],
        &term["labelSelector"],
    ));
    let key = text(term, "topologyKey");
    let key_path = child(path, "topologyKey");
    if key.is_empty() {
        out.push(required_because(&key_path, "can not be empty"));
    }
    out.extend(label_name(key, &key_path));
    out
}

/// `validateTopologySpreadConstraints` of the constraints at `path`.
pub fn topology_spread(constraints: &Value, path: &str) -> Errors {
    let list = constraints.as_array().map_or(&[][..], Vec::as_slice);
    let mut out = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let at = index(path, i);
        let skew = c["maxSkew"].as_i64().unwrap_or(0);
        if skew <= 0 {
            let why = "must be greater than zero";
            out.push(invalid(&child(&at, "maxSkew"), &Value::from(skew), why));
        }
        let key = text(c, "topologyKey");
        if key.is_empty() {
            out.push(required_because(
                &child(&at, "topologyKey"),
                "can not be empty",
            ));
        }
        let action = text(c, "whenUnsatisfiable");
        if !ACTIONS.contains(&action) {
            out.push(not_supported(
                &child(&at, "whenUnsatisfiable"),
                action,
                ACTIONS,
            ));
        }
        let repeated = list[i + 1..].iter().any(|later| {
            text(later, "topologyKey") == key && text(later, "whenUnsatisfiable") == action
        });
        if repeated {
            out.push(Cause {
                reason: "FieldValueDuplicate".into(),
                message: format!("Duplicate value: \"{{{key}, {action}}}\""),
                field: child(&at, "{topologyKey, whenUnsatisfiable}"),
            });
        }
        out.extend(min_domains(c, action, &child(&at, "minDomains")));
        for policy in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
            if let Some(p) = c[policy].as_str()
                && !INCLUSION_POLICIES.contains(&p)
            {
                out.push(not_supported(&child(&at, policy), p, INCLUSION_POLICIES));
            }
        }
        out.extend(label_keys(
            &at,
            &c["matchLabelKeys"],
            &Value::Null,
            &c["labelSelector"],
        ));
        if c["labelSelector"].is_object() {
            out.extend(label_selector_with_values(
                &c["labelSelector"],
                &child(&at, "labelSelector"),
            ));
        }
    }
    out
}

/// `validateMinDomains`: positive, and only with `DoNotSchedule`.
fn min_domains(c: &Value, action: &str, path: &str) -> Errors {
    let Some(n) = c["minDomains"].as_i64() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if n <= 0 {
        out.push(invalid(path, &Value::from(n), "must be greater than zero"));
    }
    if action != "DoNotSchedule" {
        let why =
            format!("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}");
        out.push(invalid(path, &Value::from(n), &why));
    }
    out
}

/// `validateLabelKeys`: no keys, or keys beside a label selector, each a label name.
fn key_names(keys: &[Value], selector: &Value, path: &str) -> Errors {
    if keys.is_empty() {
        return Vec::new();
    }
    if !selector.is_object() {
        return vec![forbidden(
            path,
            "must not be specified when labelSelector is not set",
        )];
    }
    keys.iter()
        .enumerate()
        .flat_map(|(i, k)| label_name(k.as_str().unwrap_or_default(), &index(path, i)))
        .collect()
}

/// `ValidateMatchLabelKeysAndMismatchLabelKeys` of the term or constraint at `path` (a
/// constraint has no `mismatchLabelKeys`): the keys' names, then a `matchLabelKeys` key the
/// selector names twice, then a key in both lists. On create the selector already holds the
/// requirements merged from the keys, so a key the sent selector names is named twice; the
/// real server reports it at `path` indexed by the key's last position in `matchLabelKeys`,
/// once for each further requirement on it.
fn label_keys(path: &str, matching: &Value, mismatching: &Value, selector: &Value) -> Errors {
    let as_list = |v: &Value| v.as_array().map_or(&[][..], Vec::as_slice).to_vec();
    let (matching, mismatching) = (as_list(matching), as_list(mismatching));
    let mut out = key_names(&matching, selector, &child(path, "matchLabelKeys"));
    out.extend(key_names(
        &mismatching,
        selector,
        &child(path, "mismatchLabelKeys"),
    ));
    let key_of = |v: &Value| v.as_str().unwrap_or_default().to_string();
    if selector.is_object() {
        let last_position = |key: &str| matching.iter().rposition(|k| key_of(k) == key);
        let mut named: Vec<String> = selector["matchLabels"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        for (_, expression) in items(&selector["matchExpressions"]) {
            let key = text(expression, "key");
            if let Some(i) = last_position(key)
                && named.iter().any(|n| n == key)
            {
                out.push(invalid_str(
                    &index(path, i),
                    key,
                    "exists in both matchLabelKeys and labelSelector",
                ));
            }
            named.push(key.to_string());
        }
    }
    for (i, key) in matching.iter().enumerate() {
        let key = key_of(key);
        if mismatching.iter().any(|m| key_of(m) == key) {
            out.push(invalid_str(
                &index(&child(path, "matchLabelKeys"), i),
                &key,
                "exists in both matchLabelKeys and mismatchLabelKeys",
            ));
        }
    }
    out
}
