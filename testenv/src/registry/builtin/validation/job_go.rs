//! A Job's policies as Go prints the internal `batch` structs in an error (no JSON tags: Go
//! field names, declaration order, `null` for a nil pointer or slice): what a Job's
//! validation quotes of its success and pod failure policies.

use serde_json::Value;

/// A `batch.SuccessPolicy` as Go prints it: `{"Rules":[{"SucceededIndexes":..,"SucceededCount":..}]}`.
pub(super) fn success_policy_go(policy: &Value) -> String {
    let rules: Vec<String> = policy["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            format!(
                "{{\"SucceededIndexes\":{},\"SucceededCount\":{}}}",
                r.get("succeededIndexes").unwrap_or(&Value::Null),
                r.get("succeededCount").unwrap_or(&Value::Null)
            )
        })
        .collect();
    rules_struct(policy, &rules)
}

/// A `batch.PodFailurePolicy` as Go prints it: each rule's `Action`, `OnExitCodes`
/// (`ContainerName`, `Operator`, `Values`) and `OnPodConditions` (`Type`, `Status`).
pub(super) fn pod_failure_policy_go(policy: &Value) -> String {
    let or_null = |v: &Value, f: &str| v.get(f).cloned().unwrap_or(Value::Null);
    let rules: Vec<String> = policy["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|rule| {
            let exit_codes = &rule["onExitCodes"];
            let exit_codes = if exit_codes.is_object() {
                format!(
                    "{{\"ContainerName\":{},\"Operator\":{},\"Values\":{}}}",
                    or_null(exit_codes, "containerName"),
                    exit_codes
                        .get("operator")
                        .cloned()
                        .unwrap_or(Value::from("")),
                    or_null(exit_codes, "values"),
                )
            } else {
                "null".into()
            };
            let conditions = match rule["onPodConditions"].as_array() {
                Some(patterns) => {
                    let patterns: Vec<String> = patterns
                        .iter()
                        .map(|p| {
                            format!(
                                "{{\"Type\":{},\"Status\":{}}}",
                                p.get("type").cloned().unwrap_or(Value::from("")),
                                p.get("status").cloned().unwrap_or(Value::from("")),
                            )
                        })
                        .collect();
                    format!("[{}]", patterns.join(","))
                }
                None => "null".into(),
            };
            format!(
                "{{\"Action\":{},\"OnExitCodes\":{exit_codes},\"OnPodConditions\":{conditions}}}",
                rule.get("action").cloned().unwrap_or(Value::from("")),
            )
        })
        .collect();
    rules_struct(policy, &rules)
}

/// A policy struct of `rules` (each printed already): `{"Rules":[...]}`, or `null` rules
/// when the policy has none.
fn rules_struct(policy: &Value, rules: &[String]) -> String {
    let rules = if policy["rules"].is_array() {
        format!("[{}]", rules.join(","))
    } else {
        "null".into()
    };
    format!("{{\"Rules\":{rules}}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn policies_print_as_the_internal_structs() {
        let policy = json!({"rules": [
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]});
        assert_eq!(
            pod_failure_policy_go(&policy),
            r#"{"Rules":[{"Action":"Ignore","OnExitCodes":null,"OnPodConditions":[{"Type":"DisruptionTarget","Status":"True"}]},{"Action":"FailJob","OnExitCodes":{"ContainerName":null,"Operator":"In","Values":[42]},"OnPodConditions":null}]}"#
        );
        assert_eq!(
            success_policy_go(&json!({"rules": [{"succeededCount": 1}]})),
            r#"{"Rules":[{"SucceededIndexes":null,"SucceededCount":1}]}"#
        );
    }
}
