//! Label selectors (`ValidateLabelSelector` of `metav1/validation`): the `matchLabels`
//! first, then each expression's operator and values, its key and optionally its values as
//! label values.

use serde_json::Value;

use super::errors::{Errors, check_labels, child, forbidden, index, invalid_str, required};
use crate::support::meta::{label_key_errors, label_value_error};

const IN_OR_NOT_IN: &str = "must be specified when `operator` is 'In' or 'NotIn'";
const EXISTS: &str = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'";

/// `ValidateLabelSelector` of the selector at `path`, its expressions' values not checked
/// (`AllowInvalidLabelValueInSelector`, as workloads' selectors are checked).
pub(super) fn label_selector(selector: &Value, path: &str) -> Errors {
    selector_errors(selector, path, false)
}

/// `ValidateLabelSelector` of the selector at `path` with its expressions' values checked as
/// label values (a new pod's affinity terms and spread constraints).
pub(super) fn label_selector_with_values(selector: &Value, path: &str) -> Errors {
    selector_errors(selector, path, true)
}

fn selector_errors(selector: &Value, path: &str, check_values: bool) -> Errors {
    let mut out = check_labels(
        &child(path, "matchLabels"),
        selector["matchLabels"].as_object(),
    );
    let exprs_path = child(path, "matchExpressions");
    for (i, expr) in selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = index(&exprs_path, i);
        let values = expr["values"].as_array().map_or(0, Vec::len);
        match expr["operator"].as_str().unwrap_or_default() {
            "In" | "NotIn" if values == 0 => {
                let mut c = required(&child(&at, "values"));
                c.message = format!("Required value: {IN_OR_NOT_IN}");
                out.push(c);
            }
            "Exists" | "DoesNotExist" if values > 0 => {
                out.push(forbidden(&child(&at, "values"), EXISTS));
            }
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => out.push(invalid_str(
                &child(&at, "operator"),
                other,
                "not a valid selector operator",
            )),
        }
        let k = expr["key"].as_str().unwrap_or_default();
        for why in label_key_errors(k) {
            out.push(invalid_str(&child(&at, "key"), k, &why));
        }
        if check_values {
            let values = expr["values"].as_array().map_or(&[][..], Vec::as_slice);
            for (j, v) in values.iter().enumerate() {
                let v = v.as_str().unwrap_or_default();
                if let Some(why) = label_value_error(v) {
                    out.push(invalid_str(&index(&child(&at, "values"), j), v, why));
                }
            }
        }
    }
    out
}
