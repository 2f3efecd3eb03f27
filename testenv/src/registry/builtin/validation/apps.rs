//! The `apps/v1` workloads as `pkg/apis/apps/validation` validates them, each in the order
//! the real server reports: Deployments (strategy, minimum ready time, history, progress
//! deadline), ReplicaSets, StatefulSets (pod management, update strategy, claim retention,
//! claim templates, ordinals, service name) and DaemonSets (update strategy). The selector
//! and pod template rules they share are [`super::workloads`]'.

use serde_json::Value;

use super::errors::{
    Errors, check_dns1123_label, check_nonnegative, child, forbidden, go_value, invalid,
    invalid_str, invalid_text, not_supported, required, required_because,
};
use super::storage::claim_spec_errors;
use super::workloads::{
    is_empty_selector, label_selector, matches, restart_policy, template, template_labels,
};
use crate::support::status::Cause;

const PERCENT: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
const RETENTION: &[&str] = &["Retain", "Delete"];
const MISMATCH: &str = "`selector` does not match template `labels`";

/// The percent of an `IntOrString` written as a percent string (`"25%"`), if it is one.
fn percent(value: &Value) -> Option<i64> {
    let digits = value.as_str()?.strip_suffix('%')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse().unwrap_or(i64::MAX))
}

/// `getIntOrPercentValue`: a percent string's number, else the integer (a string that is
/// no number counts as 0, as `IntValue` reads it).
fn int_or_percent(value: &Value) -> i64 {
    percent(value).unwrap_or_else(|| match value {
        Value::String(s) => s.parse().unwrap_or(0),
        other => other.as_i64().unwrap_or(0),
    })
}

/// `ValidatePositiveIntOrPercent`: a percent string, or a non-negative integer.
fn positive_int_or_percent(value: &Value, path: &str) -> Errors {
    match value {
        Value::String(s) if percent(value).is_none() => vec![invalid_str(path, s, PERCENT)],
        Value::Number(_) => check_nonnegative(path, Some(value)),
        _ => Vec::new(),
    }
}

/// `IsNotMoreThan100Percent`.
fn not_more_than_100(value: &Value, path: &str) -> Errors {
    match percent(value) {
        Some(p) if p > 100 => vec![invalid(path, value, "must not be greater than 100%")],
        _ => Vec::new(),
    }
}

/// An `IntOrString` value field of an internal struct as `encoding/json` writes it.
fn int_or_string_go(value: Option<&Value>) -> String {
    match value {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.to_string(),
        _ => "0".into(),
    }
}

/// A strategy struct (`{"Type":...,"RollingUpdate":...}`) as Go prints it in an error, the
/// rolling update's fields written by `rolling`.
fn strategy_go(strategy: &Value, rolling: impl Fn(&Value) -> String) -> String {
    let kind = Value::String(strategy["type"].as_str().unwrap_or_default().into());
    let update = match &strategy["rollingUpdate"] {
        ru @ Value::Object(_) => rolling(ru),
        _ => "null".into(),
    };
    format!("{{\"Type\":{kind},\"RollingUpdate\":{update}}}")
}

/// Both `IntOrString` fields of a Deployment's or a DaemonSet's rolling update (values in the
/// internal structs, so 0 when absent).
fn surge_fields(ru: &Value) -> String {
    format!(
        "{{\"MaxUnavailable\":{},\"MaxSurge\":{}}}",
        int_or_string_go(ru.get("maxUnavailable")),
        int_or_string_go(ru.get("maxSurge"))
    )
}

fn unsupported_strategy(path: &str, printed: &str, supported: &[&str]) -> Cause {
    let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    Cause {
        reason: "FieldValueNotSupported".into(),
        message: format!(
            "Unsupported value: {printed}: supported values: {}",
            list.join(", ")
        ),
        field: path.into(),
    }
}

/// A selector's own errors (required, label selector rules, empty) for `kind`'s wording.
fn selector(spec: &Value, word: &str) -> Errors {
    let selector = &spec["selector"];
    if selector.is_null() {
        return vec![required("spec.selector")];
    }
    let mut out = label_selector(selector, "spec.selector");
    if is_empty_selector(selector) {
        out.push(invalid(
            "spec.selector",
            selector,
            &format!("empty selector is invalid for {word}"),
        ));
    }
    out
}

/// Whether `LabelSelectorAsSelector` would refuse the selector (an operator, key or value
/// its own rules refuse): the template is then not compared, nor (but for a DaemonSet's)
/// validated.
fn unconvertible(spec: &Value) -> bool {
    let selector = &spec["selector"];
    selector.is_object() && !label_selector(selector, "spec.selector").is_empty()
}

/// A StatefulSet's pod template as its pods get it, validated so: each claim template a
/// `persistentVolumeClaim` volume of its name (once per name) ahead of the template's own
/// volumes of other names.
fn template_with_claims(spec: &Value) -> Value {
    let mut template = spec["template"].clone();
    let Some(claims) = spec["volumeClaimTemplates"]
        .as_array()
        .filter(|c| !c.is_empty())
    else {
        return template;
    };
    let mut names: Vec<&str> = Vec::new();
    for claim in claims {
        let name = claim["metadata"]["name"].as_str().unwrap_or_default();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let mut volumes: Vec<Value> = names
        .iter()
        .map(|n| serde_json::json!({"name": n, "persistentVolumeClaim": {"claimName": n}}))
        .collect();
    let own = template["spec"]["volumes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    volumes.extend(
        own.into_iter()
            .filter(|v| !names.contains(&v["name"].as_str().unwrap_or_default())),
    );
    if let Some(pod) = template.get_mut("spec").and_then(Value::as_object_mut) {
        pod.insert("volumes".into(), Value::Array(volumes));
    }
    template
}

/// Whether the template's labels fail the selector (a missing one matches nothing; an empty
/// one, already refused, is not compared).
fn mismatch(spec: &Value) -> Errors {
    let selector = &spec["selector"];
    let labels = spec["template"]["metadata"]["labels"].as_object();
    if (selector.is_object() && is_empty_selector(selector)) || matches(selector, labels) {
        return Vec::new();
    }
    vec![invalid(
        "spec.template.metadata.labels",
        &spec["template"]["metadata"]["labels"],
        MISMATCH,
    )]
}

/// The pod template's rules of a controller whose pods always restart, and the deadline it
/// may not have (`activeDeadlineSeconds in <Kind> is not Supported`).
fn always_restarting(spec: &Value, word: &str) -> Errors {
    let tpl = &spec["template"];
    let mut out = restart_policy(tpl, "spec.template", &["Always"]);
    if !tpl["spec"]["activeDeadlineSeconds"].is_null() {
        out.push(forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            &format!("activeDeadlineSeconds in {word} is not Supported"),
        ));
    }
    out
}

/// `ValidatePodTemplateSpecForReplicaSet`: the selector match, the template, the restart
/// policy and the deadline (worded for ReplicaSets, a Deployment's too).
fn replica_set_template(spec: &Value) -> Errors {
    if !spec["template"].is_object() {
        return vec![required("spec.template")];
    }
    if unconvertible(spec) {
        return vec![invalid_text(
            "spec.selector",
            &super::go_struct::selector_as_go(&spec["selector"]),
            "invalid label selector",
        )];
    }
    let mut out = mismatch(spec);
    out.extend(template(&spec["template"], "spec.template"));
    out.extend(always_restarting(spec, "ReplicaSet"));
    out
}

/// `ValidateDeploymentStrategy`.
fn deployment_strategy(strategy: &Value) -> Errors {
    let path = "spec.strategy";
    let ru = &strategy["rollingUpdate"];
    match strategy["type"].as_str().unwrap_or_default() {
        "Recreate" if !ru.is_null() => vec![forbidden(
            &child(path, "rollingUpdate"),
            "may not be specified when strategy `type` is 'Recreate'",
        )],
        "Recreate" => Vec::new(),
        "RollingUpdate" if ru.is_null() => vec![required_because(
            &child(path, "rollingUpdate"),
            "this should be defaulted and never be nil",
        )],
        "RollingUpdate" => {
            let at = child(path, "rollingUpdate");
            let (unavailable_path, surge_path) =
                (child(&at, "maxUnavailable"), child(&at, "maxSurge"));
            let zero = Value::from(0);
            let unavailable = ru.get("maxUnavailable").unwrap_or(&zero);
            let surge = ru.get("maxSurge").unwrap_or(&zero);
            let mut out = positive_int_or_percent(unavailable, &unavailable_path);
            out.extend(positive_int_or_percent(surge, &surge_path));
            if int_or_percent(unavailable) == 0 && int_or_percent(surge) == 0 {
                out.push(invalid(
                    &unavailable_path,
                    unavailable,
                    "may not be 0 when `maxSurge` is 0",
                ));
            }
            out.extend(not_more_than_100(unavailable, &unavailable_path));
            out
        }
        _ => vec![unsupported_strategy(
            path,
            &strategy_go(strategy, surge_fields),
            &["Recreate", "RollingUpdate"],
        )],
    }
}

/// `ValidateDeploymentSpec`.
pub fn deployment(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = check_nonnegative("spec.replicas", spec.get("replicas"));
    out.extend(selector(spec, "deployment"));
    out.extend(replica_set_template(spec));
    out.extend(deployment_strategy(&spec["strategy"]));
    out.extend(check_nonnegative(
        "spec.minReadySeconds",
        spec.get("minReadySeconds"),
    ));
    out.extend(check_nonnegative(
        "spec.revisionHistoryLimit",
        spec.get("revisionHistoryLimit"),
    ));
    if let Some(deadline) = spec["progressDeadlineSeconds"].as_i64() {
        let path = "spec.progressDeadlineSeconds";
        out.extend(check_nonnegative(path, spec.get("progressDeadlineSeconds")));
        if deadline <= spec["minReadySeconds"].as_i64().unwrap_or(0) {
            out.push(invalid(
                path,
                &Value::from(deadline),
                "must be greater than minReadySeconds",
            ));
        }
    }
    out
}

/// `ValidateReplicaSetSpec`.
pub fn replica_set(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = check_nonnegative("spec.replicas", spec.get("replicas"));
    out.extend(check_nonnegative(
        "spec.minReadySeconds",
        spec.get("minReadySeconds"),
    ));
    // The real server words a ReplicaSet's empty selector as a Deployment's.
    out.extend(selector(spec, "deployment"));
    out.extend(replica_set_template(spec));
    out
}

/// A StatefulSet's update strategy (`validateRollingUpdateStatefulSet` for a rolling one:
/// only the partition, `maxUnavailable` being dropped as its gate is off).
fn stateful_set_strategy(strategy: &Value) -> Errors {
    let path = "spec.updateStrategy";
    let ru = &strategy["rollingUpdate"];
    // `maxUnavailable` is always dropped by then (its gate is off): Go prints it `null`.
    let partition_go = |ru: &Value| {
        format!(
            "{{\"Partition\":{},\"MaxUnavailable\":null}}",
            ru["partition"].as_i64().unwrap_or(0)
        )
    };
    match strategy["type"].as_str().unwrap_or_default() {
        "" => vec![required(path)],
        "OnDelete" if !ru.is_null() => vec![invalid_text(
            &child(path, "rollingUpdate"),
            &partition_go(ru),
            "only allowed for updateStrategy 'RollingUpdate'",
        )],
        "OnDelete" => Vec::new(),
        "RollingUpdate" => check_nonnegative(
            &child(&child(path, "rollingUpdate"), "partition"),
            ru.get("partition"),
        ),
        _ => vec![invalid_text(
            path,
            &strategy_go(strategy, partition_go),
            "must be 'RollingUpdate' or 'OnDelete'",
        )],
    }
}

/// `ValidateStatefulSetSpec`. An update (`updating`) does not check the claim templates or
/// the service name, which only a create may set (an update changing them is refused as a
/// whole, see [`super::workloads::stateful_set_update`]).
pub fn stateful_set(object: &Value, updating: bool) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    match spec["podManagementPolicy"].as_str().unwrap_or_default() {
        "" => out.push(required("spec.podManagementPolicy")),
        "OrderedReady" | "Parallel" => {}
        other => out.push(invalid_str(
            "spec.podManagementPolicy",
            other,
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    out.extend(stateful_set_strategy(&spec["updateStrategy"]));
    let retention = &spec["persistentVolumeClaimRetentionPolicy"];
    if retention.is_object() {
        for f in ["whenDeleted", "whenScaled"] {
            let value = retention[f].as_str().unwrap_or_default();
            if !RETENTION.contains(&value) {
                let path = child("spec.persistentVolumeClaimRetentionPolicy", f);
                out.push(not_supported(&path, value, RETENTION));
            }
        }
    }
    let claims = spec["volumeClaimTemplates"]
        .as_array()
        .filter(|_| !updating)
        .into_iter()
        .flatten();
    for (i, claim) in claims.enumerate() {
        let path = format!("spec.volumeClaimTemplates[{i}].spec");
        out.extend(claim_spec_errors(&claim["spec"], &path));
    }
    out.extend(check_nonnegative("spec.replicas", spec.get("replicas")));
    out.extend(check_nonnegative(
        "spec.minReadySeconds",
        spec.get("minReadySeconds"),
    ));
    out.extend(check_nonnegative(
        "spec.ordinals.start",
        spec["ordinals"].get("start"),
    ));
    if let Some(service) = spec["serviceName"]
        .as_str()
        .filter(|s| !s.is_empty() && !updating)
    {
        out.extend(check_dns1123_label("spec.serviceName", service));
    }
    out.extend(selector(spec, "statefulset"));
    if !spec["template"].is_object() {
        out.push(required("spec.template"));
        return out;
    }
    if unconvertible(spec) {
        // Go's `field.Invalid` with no detail: the value alone.
        out.push(Cause {
            reason: "FieldValueInvalid".into(),
            message: format!("Invalid value: {}", go_value(&spec["selector"])),
            field: "spec.selector".into(),
        });
    } else {
        out.extend(mismatch(spec));
        // `ValidatePodTemplateSpecForStatefulSet` checks the template (with the claims as
        // volumes), then its labels and annotations once more.
        out.extend(template(&template_with_claims(spec), "spec.template"));
        out.extend(template_labels(&spec["template"], "spec.template"));
    }
    out.extend(always_restarting(spec, "StatefulSet"));
    out
}

/// `ValidateRollingUpdateDaemonSet`.
fn daemon_set_rolling_update(ru: &Value, path: &str) -> Errors {
    let zero = Value::from(0);
    let unavailable = ru.get("maxUnavailable").unwrap_or(&zero);
    let surge = ru.get("maxSurge").unwrap_or(&zero);
    let (unavailable_path, surge_path) = (child(path, "maxUnavailable"), child(path, "maxSurge"));
    let mut out = positive_int_or_percent(unavailable, &unavailable_path);
    out.extend(positive_int_or_percent(surge, &surge_path));
    out.extend(not_more_than_100(unavailable, &unavailable_path));
    out.extend(not_more_than_100(surge, &surge_path));
    match (int_or_percent(unavailable) != 0, int_or_percent(surge) != 0) {
        (true, true) => out.push(invalid(
            &surge_path,
            surge,
            "may not be set when maxUnavailable is non-zero",
        )),
        (false, false) => out.push(required_because(
            &unavailable_path,
            "cannot be 0 when maxSurge is 0",
        )),
        _ => {}
    }
    out
}

/// `ValidateDaemonSetUpdateStrategy`.
fn daemon_set_strategy(strategy: &Value) -> Errors {
    let path = "spec.updateStrategy";
    match strategy["type"].as_str().unwrap_or_default() {
        "OnDelete" => Vec::new(),
        "RollingUpdate" => match &strategy["rollingUpdate"] {
            ru @ Value::Object(_) => daemon_set_rolling_update(ru, &child(path, "rollingUpdate")),
            _ => vec![required(&child(path, "rollingUpdate"))],
        },
        _ => vec![unsupported_strategy(
            path,
            &strategy_go(strategy, surge_fields),
            &["RollingUpdate", "OnDelete"],
        )],
    }
}

/// `ValidateDaemonSetSpec`.
pub fn daemon_set(object: &Value) -> Errors {
    let spec = &object["spec"];
    let selector = &spec["selector"];
    let mut out = if selector.is_object() {
        label_selector(selector, "spec.selector")
    } else {
        Vec::new()
    };
    if !unconvertible(spec)
        && !matches(selector, spec["template"]["metadata"]["labels"].as_object())
    {
        out.push(invalid(
            "spec.template.metadata.labels",
            &spec["template"]["metadata"]["labels"],
            MISMATCH,
        ));
    }
    if selector.is_object() && is_empty_selector(selector) {
        out.push(invalid(
            "spec.selector",
            selector,
            "empty selector is invalid for daemonset",
        ));
    }
    out.extend(template(&spec["template"], "spec.template"));
    out.extend(always_restarting(spec, "DaemonSet"));
    out.extend(check_nonnegative(
        "spec.minReadySeconds",
        spec.get("minReadySeconds"),
    ));
    out.extend(daemon_set_strategy(&spec["updateStrategy"]));
    out.extend(check_nonnegative(
        "spec.revisionHistoryLimit",
        spec.get("revisionHistoryLimit"),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::builtin::validation::errors::field_messages;
    use serde_json::json;

    fn spec(extra: Value) -> Value {
        let mut spec = json!({"replicas": 1, "selector": {"matchLabels": {"a": "b"}},
            "podManagementPolicy": "OrderedReady", "updateStrategy": {"type": "OnDelete"},
            "strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"restartPolicy": "Always",
                "dnsPolicy": "ClusterFirst", "containers": [{"name": "c", "image": "i", "terminationMessagePolicy": "File"}]}}});
        for (k, v) in extra.as_object().into_iter().flatten() {
            spec[k] = v.clone();
        }
        json!({ "spec": spec })
    }

    #[test]
    fn selectors_must_match_templates() {
        let ok = spec(json!({}));
        assert!(deployment(&ok).is_empty());
        let bad = spec(json!({"selector": {"matchLabels": {"a": "c"}}}));
        assert_eq!(deployment(&bad)[0].field, "spec.template.metadata.labels");
        let expr = spec(
            json!({"selector": {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]}}),
        );
        assert!(deployment(&expr).is_empty());
        let none = spec(json!({"selector": null}));
        assert_eq!(
            field_messages(&stateful_set(&none, false))[..2],
            [
                "spec.selector: Required value",
                "spec.template.metadata.labels: Invalid value: {\"a\":\"b\"}: `selector` does not match template `labels`",
            ]
        );
    }

    #[test]
    fn deployment_strategies() {
        let recreate = spec(
            json!({"strategy": {"type": "Recreate", "rollingUpdate": {}},
            "revisionHistoryLimit": -1, "minReadySeconds": 10, "progressDeadlineSeconds": 5}),
        );
        assert_eq!(
            field_messages(&deployment(&recreate)),
            [
                "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
                "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
                "spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds",
            ]
        );
        let zero = spec(json!({"strategy": {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}}}));
        assert_eq!(
            field_messages(&deployment(&zero)),
            [
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"
            ]
        );
        let wrong =
            spec(json!({"strategy": {"type": "Wrong", "rollingUpdate": {"maxSurge": "5%"}}}));
        assert_eq!(
            field_messages(&deployment(&wrong)),
            [
                "spec.strategy: Unsupported value: {\"Type\":\"Wrong\",\"RollingUpdate\":{\"MaxUnavailable\":0,\"MaxSurge\":\"5%\"}}: supported values: \"Recreate\", \"RollingUpdate\""
            ]
        );
    }

    #[test]
    fn daemon_set_surge_and_unavailable() {
        let both = spec(json!({"updateStrategy": {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": 2, "maxUnavailable": -1}}}));
        assert_eq!(
            field_messages(&daemon_set(&both)),
            [
                "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0",
                "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 2: may not be set when maxUnavailable is non-zero",
            ]
        );
        let none = spec(json!({"updateStrategy": {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}}));
        assert_eq!(
            field_messages(&daemon_set(&none)),
            [
                "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"
            ]
        );
    }

    #[test]
    fn stateful_set_strategy_and_retention() {
        let set = spec(json!({"podManagementPolicy": "Sometimes",
            "updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 1}},
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Keep", "whenScaled": "Retain"},
            "ordinals": {"start": -1}}));
        assert_eq!(
            field_messages(&stateful_set(&set, false)),
            [
                "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'",
                "spec.updateStrategy.rollingUpdate: Invalid value: {\"Partition\":1,\"MaxUnavailable\":null}: only allowed for updateStrategy 'RollingUpdate'",
                "spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: \"Keep\": supported values: \"Retain\", \"Delete\"",
                "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0",
            ]
        );
    }
}
