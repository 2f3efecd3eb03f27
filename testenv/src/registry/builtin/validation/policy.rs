//! PodDisruptionBudgets (`ValidatePodDisruptionBudgetSpec`): at most one of `minAvailable`
//! and `maxUnavailable`, each a non-negative number or a percentage up to 100%, and the
//! selector.

use serde_json::Value;

use super::errors::{Errors, go_value, invalid, invalid_text, not_supported};
use super::go_struct::selector_as_go;
use super::workloads::label_selector;

const EVICTION_POLICIES: &[&str] = &["AlwaysAllow", "IfHealthyBudget"];
const PERCENT: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/// The spec as the real server prints it in an error: the Go struct, field names and all.
fn spec_as_go(spec: &Value) -> String {
    format!(
        "{{\"MinAvailable\":{},\"Selector\":{},\"MaxUnavailable\":{},\"UnhealthyPodEvictionPolicy\":{}}}",
        go_value(&spec["minAvailable"]),
        selector_as_go(&spec["selector"]),
        go_value(&spec["maxUnavailable"]),
        go_value(&spec["unhealthyPodEvictionPolicy"]),
    )
}

/// `ValidatePositiveIntOrPercent` and `IsNotMoreThan100Percent` of the value at `field`.
fn int_or_percent(field: &str, value: &Value) -> Errors {
    let mut out = Vec::new();
    match value {
        Value::String(s) => {
            let number = s
                .strip_suffix('%')
                .filter(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
            match number {
                None => out.push(invalid(field, value, PERCENT)),
                Some(n) => {
                    if n.parse::<u64>().map_or(true, |n| n > 100) {
                        out.push(invalid(field, value, "must not be greater than 100%"));
                    }
                }
            }
        }
        Value::Null => {}
        other => {
            if other.as_i64().is_some_and(|n| n < 0) {
                out.push(invalid(field, other, "must be greater than or equal to 0"));
            }
        }
    }
    out
}

/// `ValidatePodDisruptionBudget` (without the metadata).
pub fn pod_disruption_budget(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    if !spec["minAvailable"].is_null() && !spec["maxUnavailable"].is_null() {
        out.push(invalid_text(
            "spec",
            &spec_as_go(spec),
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    out.extend(int_or_percent("spec.minAvailable", &spec["minAvailable"]));
    out.extend(int_or_percent(
        "spec.maxUnavailable",
        &spec["maxUnavailable"],
    ));
    if spec["selector"].is_object() {
        out.extend(label_selector(&spec["selector"], "spec.selector"));
    }
    if let Some(p) = spec["unhealthyPodEvictionPolicy"].as_str()
        && !EVICTION_POLICIES.contains(&p)
    {
        out.push(not_supported(
            "spec.unhealthyPodEvictionPolicy",
            p,
            EVICTION_POLICIES,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_bounds_print_the_go_struct() {
        let pdb = json!({"spec": {"minAvailable": 1, "maxUnavailable": "50%",
            "selector": {"matchExpressions": [{"key": "a", "operator": "Exists"}], "matchLabels": {"b": "c"}}}});
        let errs = pod_disruption_budget(&pdb);
        assert_eq!(errs.len(), 1);
        assert_eq!(
            errs[0].message,
            "Invalid value: {\"MinAvailable\":1,\"Selector\":{\"matchLabels\":{\"b\":\"c\"},\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\"}]},\"MaxUnavailable\":\"50%\",\"UnhealthyPodEvictionPolicy\":null}: minAvailable and maxUnavailable cannot be both set"
        );
    }

    #[test]
    fn percentages() {
        assert!(int_or_percent("f", &json!("100%")).is_empty());
        assert_eq!(
            int_or_percent("f", &json!("101%"))[0].message,
            "Invalid value: \"101%\": must not be greater than 100%"
        );
        assert_eq!(int_or_percent("f", &json!("half")).len(), 1);
        assert_eq!(int_or_percent("f", &json!(-1)).len(), 1);
    }
}
