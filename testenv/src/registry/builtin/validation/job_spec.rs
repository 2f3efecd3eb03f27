//! The rules of a Job's spec past its first counters (`validateJobSpec` of
//! `pkg/apis/batch/validation`): the backoff and cleanup limits, the per-index backoff, the
//! completion mode, the pod failure and success policies and the pod replacement policy; and
//! what an update may change (`ValidateJobSpecUpdate`). Jobs and CronJobs' job templates share
//! them.

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, check_nonnegative, child, duplicate, immutable, index, invalid, invalid_text,
    not_supported, required_because,
};
use super::go_diff::marshal;
use super::job_go::{pod_failure_policy_go, success_policy_go};
use super::pod_go;
use crate::support::meta::qualified_name_errors;
use crate::support::status::Cause;

const ACTIONS: &[&str] = &["Count", "FailIndex", "FailJob", "Ignore"];
const OPERATORS: &[&str] = &["In", "NotIn"];
const STATUSES: &[&str] = &["False", "True", "Unknown"];
const REPLACEMENT: &[&str] = &["Failed", "TerminatingOrFailed"];
const COMPLETION_MODES: &[&str] = &["NonIndexed", "Indexed"];
/// `maxParallelismForIndexedJob` and `maxFailedIndexesForIndexedJob`.
const INDEXED_LIMIT: i64 = 100_000;
/// `maxParallelismForIndexedJobWithBackoffLimitPerIndex` (and of `maxFailedIndexes`).
const PER_INDEX_LIMIT: i64 = 10_000;

/// `fmt.Sprintf("valid values: %q", list)`: Go's quoted slice.
fn valid_values(list: &[&str]) -> String {
    let quoted: Vec<String> = list.iter().map(|s| format!("{s:?}")).collect();
    format!("valid values: [{}]", quoted.join(" "))
}

fn int(spec: &Value, field: &str) -> Option<i64> {
    spec[field].as_i64()
}

/// The tighter limits of an Indexed Job with more than [`INDEXED_LIMIT`] completions and a
/// backoff limit per index: `maxFailedIndexes` set, it and `parallelism` at most
/// [`PER_INDEX_LIMIT`].
fn many_completions_per_index(spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let many = int(spec, "completions").is_some_and(|c| c > INDEXED_LIMIT);
    if !many || spec["backoffLimitPerIndex"].is_null() {
        return out;
    }
    let max_failed_path = child(path, "maxFailedIndexes");
    if spec["maxFailedIndexes"].is_null() {
        out.push(required_because(
            &max_failed_path,
            &format!("must be specified when completions is above {INDEXED_LIMIT}"),
        ));
    }
    let why = format!(
        "must be less than or equal to {PER_INDEX_LIMIT} when completions are above {INDEXED_LIMIT} and used with backoff limit per index"
    );
    for (field, at) in [
        ("parallelism", child(path, "parallelism")),
        ("maxFailedIndexes", max_failed_path),
    ] {
        if let Some(n) = int(spec, field).filter(|n| *n > PER_INDEX_LIMIT) {
            out.push(invalid(&at, &n.into(), &why));
        }
    }
    out
}

/// `validateJobSpec` from `backoffLimit` to the pod replacement policy.
pub(super) fn rules(spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for f in [
        "backoffLimit",
        "ttlSecondsAfterFinished",
        "backoffLimitPerIndex",
    ] {
        out.extend(check_nonnegative(&child(path, f), spec.get(f)));
    }
    let per_index_path = child(path, "backoffLimitPerIndex");
    let max_failed_path = child(path, "maxFailedIndexes");
    if spec.get("maxFailedIndexes").is_some_and(|v| !v.is_null()) {
        out.extend(check_nonnegative(
            &max_failed_path,
            spec.get("maxFailedIndexes"),
        ));
        if spec["backoffLimitPerIndex"].is_null() {
            out.push(required_because(
                &per_index_path,
                "when maxFailedIndexes is specified",
            ));
        }
    }
    let mode = spec["completionMode"].as_str();
    if let Some(mode) = mode {
        let mode_path = child(path, "completionMode");
        if !COMPLETION_MODES.contains(&mode) {
            out.push(not_supported(&mode_path, mode, COMPLETION_MODES));
        }
        if mode == "Indexed" {
            if spec["completions"].is_null() {
                out.push(required_because(
                    &child(path, "completions"),
                    "when completion mode is Indexed",
                ));
            }
            if let Some(p) = int(spec, "parallelism").filter(|p| *p > INDEXED_LIMIT) {
                out.push(invalid(
                    &child(path, "parallelism"),
                    &p.into(),
                    &format!(
                        "must be less than or equal to {INDEXED_LIMIT} when completion mode is Indexed"
                    ),
                ));
            }
            if let (Some(c), Some(m)) = (int(spec, "completions"), int(spec, "maxFailedIndexes"))
                && m > c
            {
                out.push(invalid(
                    &max_failed_path,
                    &m.into(),
                    "must be less than or equal to completions",
                ));
            }
            if let Some(m) = int(spec, "maxFailedIndexes").filter(|m| *m > INDEXED_LIMIT) {
                out.push(invalid(
                    &max_failed_path,
                    &m.into(),
                    &format!("must be less than or equal to {INDEXED_LIMIT}"),
                ));
            }
            out.extend(many_completions_per_index(spec, path));
        }
    }
    if mode.is_none_or(|m| m == "NonIndexed") {
        for (f, at) in [
            ("backoffLimitPerIndex", &per_index_path),
            ("maxFailedIndexes", &max_failed_path),
        ] {
            if let Some(v) = int(spec, f) {
                out.push(invalid(at, &v.into(), "requires indexed completion mode"));
            }
        }
    }
    if spec["podFailurePolicy"].is_object() {
        out.extend(pod_failure_policy(spec, &child(path, "podFailurePolicy")));
    }
    if spec["successPolicy"].is_object() {
        out.extend(success_policy(spec, &child(path, "successPolicy")));
    }
    if let Some(policy) = spec["podReplacementPolicy"].as_str() {
        let at = child(path, "podReplacementPolicy");
        if spec["podFailurePolicy"].is_object() {
            if policy != "Failed" {
                out.push(not_supported(&at, policy, &["Failed"]));
            }
        } else if !REPLACEMENT.contains(&policy) {
            out.push(not_supported(&at, policy, REPLACEMENT));
        }
    }
    out
}

/// The restart policy a pod failure policy allows (`Never`), checked after the template.
pub(super) fn failure_policy_restart(spec: &Value, path: &str) -> Errors {
    if spec["podFailurePolicy"].is_object()
        && spec["template"]["spec"]["restartPolicy"] == "OnFailure"
    {
        return vec![invalid(
            &child(&child(&child(path, "template"), "spec"), "restartPolicy"),
            &Value::from("OnFailure"),
            "only \"Never\" is supported when podFailurePolicy is specified",
        )];
    }
    Vec::new()
}

/// `validatePodFailurePolicy`.
fn pod_failure_policy(spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let rules_path = child(path, "rules");
    let rules = spec["podFailurePolicy"]["rules"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    if rules.len() > 20 {
        out.push(too_many(&rules_path, rules.len(), 20));
    }
    let pod = &spec["template"]["spec"];
    let names: HashSet<&str> = ["containers", "initContainers"]
        .iter()
        .flat_map(|list| pod[*list].as_array().into_iter().flatten())
        .filter_map(|c| c["name"].as_str())
        .collect();
    for (i, rule) in rules.iter().enumerate() {
        out.extend(failure_rule(spec, rule, &index(&rules_path, i), &names));
    }
    out
}

/// `field.TooMany`.
fn too_many(path: &str, actual: usize, max: usize) -> Cause {
    Cause {
        reason: "FieldValueTooMany".into(),
        message: format!("Too many: {actual}: must have at most {max} items"),
        field: path.into(),
    }
}

/// `field.Invalid` with the value left out (`field.OmitValueType`).
fn invalid_omitted(path: &str, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {why}"),
        field: path.into(),
    }
}

/// `validatePodFailurePolicyRule`.
fn failure_rule(spec: &Value, rule: &Value, path: &str, names: &HashSet<&str>) -> Errors {
    let mut out = Vec::new();
    let action_path = child(path, "action");
    match rule["action"].as_str().unwrap_or_default() {
        "" => out.push(required_because(&action_path, &valid_values(ACTIONS))),
        "FailIndex" if spec["backoffLimitPerIndex"].is_null() => out.push(invalid(
            &action_path,
            &Value::from("FailIndex"),
            "requires the backoffLimitPerIndex to be set",
        )),
        a if !ACTIONS.contains(&a) => out.push(not_supported(&action_path, a, ACTIONS)),
        _ => {}
    }
    let exit_codes = &rule["onExitCodes"];
    let conditions = rule["onPodConditions"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    if exit_codes.is_object() {
        out.extend(on_exit_codes(
            exit_codes,
            &child(path, "onExitCodes"),
            names,
        ));
    }
    if !conditions.is_empty() {
        out.extend(on_pod_conditions(
            conditions,
            &child(path, "onPodConditions"),
        ));
    }
    match (exit_codes.is_object(), conditions.is_empty()) {
        (true, false) => out.push(invalid_omitted(
            path,
            "specifying both OnExitCodes and OnPodConditions is not supported",
        )),
        (false, true) => out.push(invalid_omitted(
            path,
            "specifying one of OnExitCodes and OnPodConditions is required",
        )),
        _ => {}
    }
    out
}

/// `validatePodFailurePolicyRuleOnExitCodes`.
fn on_exit_codes(codes: &Value, path: &str, names: &HashSet<&str>) -> Errors {
    let mut out = Vec::new();
    let operator = codes["operator"].as_str().unwrap_or_default();
    let operator_path = child(path, "operator");
    if operator.is_empty() {
        out.push(required_because(&operator_path, &valid_values(OPERATORS)));
    } else if !OPERATORS.contains(&operator) {
        out.push(not_supported(&operator_path, operator, OPERATORS));
    }
    if let Some(name) = codes["containerName"].as_str()
        && !names.contains(name)
    {
        out.push(invalid(
            &child(path, "containerName"),
            &Value::from(name),
            "must be one of the container or initContainer names in the pod template",
        ));
    }
    let values_path = child(path, "values");
    let values: Vec<i64> = codes["values"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    if values.is_empty() {
        out.push(invalid(
            &values_path,
            &codes["values"],
            "at least one value is required",
        ));
    } else if values.len() > 255 {
        out.push(too_many(&values_path, values.len(), 255));
    } else {
        let mut seen = HashSet::new();
        for (j, v) in values.iter().enumerate() {
            let at = index(&values_path, j);
            if operator == "In" && *v == 0 {
                out.push(invalid(&at, &0.into(), "must not be 0 for the In operator"));
            }
            if !seen.insert(*v) {
                out.push(duplicate(&at, &(*v).into()));
            }
        }
        if values.windows(2).any(|w| w[0] > w[1]) {
            out.push(invalid(&values_path, &codes["values"], "must be ordered"));
        }
    }
    out
}

/// `validatePodFailurePolicyRuleOnPodConditions`.
fn on_pod_conditions(conditions: &[Value], path: &str) -> Errors {
    let mut out = Vec::new();
    if conditions.len() > 20 {
        out.push(too_many(path, conditions.len(), 20));
    }
    for (j, pattern) in conditions.iter().enumerate() {
        let at = index(path, j);
        let kind = pattern["type"].as_str().unwrap_or_default();
        for why in qualified_name_errors(kind) {
            out.push(invalid(&child(&at, "type"), &Value::from(kind), &why));
        }
        let status_path = child(&at, "status");
        match pattern["status"].as_str().unwrap_or_default() {
            "" => out.push(required_because(&status_path, &valid_values(STATUSES))),
            s if !STATUSES.contains(&s) => out.push(not_supported(&status_path, s, STATUSES)),
            _ => {}
        }
    }
    out
}

/// `validateIndexesFormat`: the number of indexes an interval list names, or why it is not
/// one (Go's wording).
fn indexes(text: &str, completions: i64) -> Result<i64, String> {
    if text.is_empty() {
        return Ok(0);
    }
    let number = |s: &str| {
        s.parse::<i64>()
            .map_err(|_| format!("cannot convert string to integer for index: {s:?}"))
    };
    let mut last: Option<i64> = None;
    let mut total = 0;
    for interval in text.split(',') {
        let limits: Vec<&str> = interval.split('-').collect();
        if limits.len() > 2 {
            return Err(format!(
                "the fragment {interval:?} violates the requirement that an index interval can have at most two parts separated by '-'"
            ));
        }
        let mut bound = |s: &str| -> Result<i64, String> {
            let x = number(s)?;
            if x >= completions {
                return Err(format!("too large index: {s:?}"));
            }
            if let Some(prev) = last.filter(|prev| *prev >= x) {
                return Err(format!(
                    "non-increasing order, previous: {prev}, current: {x}"
                ));
            }
            last = Some(x);
            Ok(x)
        };
        let x = bound(limits[0])?;
        total += 1;
        if let Some(end) = limits.get(1) {
            total += bound(end)? - x;
        }
    }
    Ok(total)
}

/// `validateSuccessPolicy`.
fn success_policy(spec: &Value, path: &str) -> Errors {
    let policy = &spec["successPolicy"];
    if spec["completionMode"] != "Indexed" {
        return vec![invalid_text(
            path,
            &success_policy_go(policy),
            "requires indexed completion mode",
        )];
    }
    let mut out = Vec::new();
    let rules_path = child(path, "rules");
    let rules = policy["rules"].as_array().map_or(&[][..], Vec::as_slice);
    if rules.is_empty() {
        out.push(required_because(
            &rules_path,
            "at least one rules must be specified when the successPolicy is specified",
        ));
    }
    if rules.len() > 20 {
        out.push(too_many(&rules_path, rules.len(), 20));
    }
    let completions = int(spec, "completions").unwrap_or(0);
    for (i, rule) in rules.iter().enumerate() {
        let at = index(&rules_path, i);
        if rule["succeededCount"].is_null() && rule["succeededIndexes"].is_null() {
            out.push(required_because(
                &at,
                "at least one of succeededCount or succeededIndexes must be specified",
            ));
        }
        let mut total = 0;
        if let Some(text) = rule["succeededIndexes"].as_str() {
            let indexes_path = child(&at, "succeededIndexes");
            if text.len() > 64 * 1024 {
                out.push(Cause {
                    reason: "FieldValueTooLong".into(),
                    message: format!("Too long: may not be more than {} bytes", 64 * 1024),
                    field: indexes_path.clone(),
                });
            }
            match indexes(text, completions) {
                Ok(n) => total = n,
                Err(why) => out.push(invalid(
                    &indexes_path,
                    &Value::from(text),
                    &format!("error parsing succeededIndexes: {why}"),
                )),
            }
        }
        if let Some(count) = rule["succeededCount"].as_i64() {
            let count_path = child(&at, "succeededCount");
            out.extend(check_nonnegative(&count_path, Some(&count.into())));
            if count > completions {
                out.push(invalid(
                    &count_path,
                    &count.into(),
                    &format!(
                        "must be less than or equal to {completions} (the number of specified completions)"
                    ),
                ));
            }
            if !rule["succeededIndexes"].is_null() && count > total {
                out.push(invalid(
                    &count_path,
                    &count.into(),
                    &format!(
                        "must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)"
                    ),
                ));
            }
        }
    }
    out
}

/// The template fields a suspended Job that never started may change
/// (`AllowMutableSchedulingDirectives`).
const SCHEDULING: &[&str] = &["affinity", "nodeSelector", "tolerations", "schedulingGates"];

/// A pod template as Go prints the internal `PodTemplateSpec`: its object meta's tagged fields
/// in place, then `Spec`.
fn template_go(template: &Value) -> String {
    let mut parts = Vec::new();
    for f in ["labels", "annotations"] {
        if let Some(m) = template["metadata"][f]
            .as_object()
            .filter(|m| !m.is_empty())
        {
            parts.push(format!("\"{f}\":{}", Value::Object(m.clone())));
        }
    }
    parts.push(format!(
        "\"Spec\":{}",
        marshal(&pod_go::pod_spec(&template["spec"]))
    ));
    format!("{{{}}}", parts.join(","))
}

/// `ValidateJobSpecUpdate` past the spec's own rules: completions (an Indexed Job's change
/// with its parallelism), the selector, the template (a suspended Job that never started may
/// change its scheduling directives, labels and annotations), the completion mode, the
/// per-index backoff and `managedBy`.
pub fn job_update(object: &Value, old: &Value) -> Errors {
    let (spec, old_spec) = (&object["spec"], &old["spec"]);
    let mut out = Vec::new();
    let same =
        |f: &str| spec.get(f).unwrap_or(&Value::Null) == old_spec.get(f).unwrap_or(&Value::Null);
    if !same("completions") {
        let completions = &spec["completions"];
        if spec["completionMode"] != "Indexed" {
            out.push(immutable("spec.completions", completions));
        } else if !completions.is_null() && *completions != spec["parallelism"] {
            out.push(invalid(
                "spec.completions",
                completions,
                "can only be modified in tandem with spec.parallelism",
            ));
        }
    }
    if !same("selector") {
        out.push(invalid_text(
            "spec.selector",
            &super::go_struct::selector_as_go(&spec["selector"]),
            "field is immutable",
        ));
    }
    let mut old_template = old_spec["template"].clone();
    let suspended_fresh = spec["suspend"] == true && object["status"]["startTime"].is_null();
    if suspended_fresh {
        for f in SCHEDULING {
            match spec["template"]["spec"].get(*f) {
                Some(v) => old_template["spec"][*f] = v.clone(),
                None => {
                    if let Some(m) = old_template["spec"].as_object_mut() {
                        m.remove(*f);
                    }
                }
            }
        }
        old_template["metadata"] = spec["template"]["metadata"].clone();
    }
    if old_template != spec["template"] {
        out.push(invalid_text(
            "spec.template",
            &template_go(&spec["template"]),
            "field is immutable",
        ));
    }
    for f in [
        "completionMode",
        "podFailurePolicy",
        "backoffLimitPerIndex",
        "managedBy",
        "successPolicy",
    ] {
        if same(f) {
            continue;
        }
        let path = format!("spec.{f}");
        match (f, spec.get(f).filter(|v| !v.is_null())) {
            ("podFailurePolicy", Some(policy)) => {
                out.push(invalid_text(
                    &path,
                    &pod_failure_policy_go(policy),
                    "field is immutable",
                ));
            }
            ("successPolicy", Some(policy)) => {
                out.push(invalid_text(
                    &path,
                    &success_policy_go(policy),
                    "field is immutable",
                ));
            }
            _ => out.push(immutable(&path, &spec[f])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::builtin::validation::errors::field_messages;
    use serde_json::json;

    #[test]
    fn index_intervals() {
        assert_eq!(indexes("0,2-4", 5), Ok(4));
        assert_eq!(indexes("5-1", 3), Err("too large index: \"5\"".into()));
        assert_eq!(
            indexes("2,1", 5),
            Err("non-increasing order, previous: 2, current: 1".into())
        );
        assert_eq!(
            indexes("1-2-3", 5),
            Err("the fragment \"1-2-3\" violates the requirement that an index interval can have at most two parts separated by '-'".into())
        );
    }

    #[test]
    fn failure_policy_rules() {
        let spec = json!({"podFailurePolicy": {"rules": [
            {"action": "Explode", "onExitCodes": {"operator": "In", "values": [0, 1, 1]},
             "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
            {"action": "Ignore"}]},
            "template": {"spec": {"containers": [{"name": "c"}]}}});
        assert_eq!(
            field_messages(&rules(&spec, "spec")),
            [
                "spec.podFailurePolicy.rules[0].action: Unsupported value: \"Explode\": supported values: \"Count\", \"FailIndex\", \"FailJob\", \"Ignore\"",
                "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
                "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 1",
                "spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
                "spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
            ]
        );
    }

    #[test]
    fn completions_change_with_parallelism() {
        let old =
            json!({"spec": {"completions": 1, "parallelism": 1, "completionMode": "NonIndexed"}});
        let new =
            json!({"spec": {"completions": 5, "parallelism": 2, "completionMode": "NonIndexed"}});
        assert_eq!(
            field_messages(&job_update(&new, &old)),
            ["spec.completions: Invalid value: 5: field is immutable"]
        );
    }
}
