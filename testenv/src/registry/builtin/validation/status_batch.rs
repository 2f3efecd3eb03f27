//! The status rules of a Job's status update (`ValidateJobStatusUpdate` with the options
//! the Job status strategy computes): counts, uncounted pods, the terminal conditions and
//! the fields that must agree with them, completed and failed indexes, and the transitions
//! the stored status allows. Most rules apply only when the fields they read change, so a
//! status that was already inconsistent can still be updated elsewhere.

use serde_json::{Value, json};

use super::errors::{Errors, check_nonnegative, duplicate, invalid, required_because};
use crate::support::status::Cause;

/// `field.Invalid` with the value left out (`field.OmitValueType`).
fn omitted(field: &str, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {why}"),
        field: field.into(),
    }
}

/// Whether a condition of `kind` is `True` in `status`.
fn condition(status: &Value, kind: &str) -> bool {
    status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == kind && c["status"] == "True")
}

/// Complete or Failed.
fn finished(status: &Value) -> bool {
    condition(status, "Complete") || condition(status, "Failed")
}

fn count(status: &Value, field: &str) -> i64 {
    status[field].as_i64().unwrap_or(0)
}

/// A time as the real server prints a `*metav1.Time` in a field error: quoted, as sent.
fn go_time(value: &Value) -> String {
    json!(value.as_str().unwrap_or_default()).to_string()
}

/// The first and last index of one interval (`3` or `3-5`) of an index list.
fn interval(text: &str, completions: i64) -> Result<(i64, i64), String> {
    let parts: Vec<&str> = text.split('-').collect();
    if parts.len() > 2 {
        return Err(format!(
            "the fragment {text:?} violates the requirement that an index interval can have at most two parts separated by '-'"
        ));
    }
    let number = |s: &str| -> Result<i64, String> {
        let n: i64 = s
            .parse()
            .map_err(|_| format!("cannot convert string to integer for index: {s:?}"))?;
        if n >= completions {
            return Err(format!("too large index: {s:?}"));
        }
        Ok(n)
    };
    let x = number(parts[0])?;
    if let Some(second) = parts.get(1) {
        let y = number(second)?;
        if x >= y {
            return Err(format!("non-increasing order, previous: {x}, current: {y}"));
        }
        return Ok((x, y));
    }
    Ok((x, x))
}

/// The intervals of an index list (`1,3-5`), in order, or why it cannot be read.
fn intervals(text: &str, completions: i64) -> Result<Vec<(i64, i64)>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<(i64, i64)> = Vec::new();
    for part in text.split(',') {
        let (x, y) = interval(part, completions)?;
        if let Some(&(_, last)) = out.last()
            && last >= x
        {
            return Err(format!(
                "non-increasing order, previous: {last}, current: {x}"
            ));
        }
        out.push((x, y));
    }
    Ok(out)
}

/// The first index both lists hold (intervals that cannot be read are skipped).
fn overlap(completed: &str, failed: &str, completions: i64) -> Option<i64> {
    let read = |s: &str| -> Vec<(i64, i64)> {
        if s.is_empty() {
            return Vec::new();
        }
        s.split(',')
            .filter_map(|p| interval(p, completions).ok())
            .collect()
    };
    let (c, f) = (read(completed), read(failed));
    let (mut i, mut j) = (0, 0);
    while i < c.len() && j < f.len() {
        let ((cx, cy), (fx, fy)) = (c[i], f[j]);
        if cx <= fy && fx <= cy {
            return Some(cx.max(fx));
        }
        if cx <= fx {
            i += 1;
        } else {
            j += 1;
        }
    }
    None
}

/// The uncounted pods as Go prints the internal struct.
fn uncounted_as_go(uncounted: &Value) -> String {
    let list = |f: &str| match uncounted[f].as_array() {
        Some(items) if !items.is_empty() => json!(items).to_string(),
        _ => "null".to_string(),
    };
    format!(
        "{{\"Succeeded\":{},\"Failed\":{}}}",
        list("succeeded"),
        list("failed")
    )
}

/// Counts and uncounted pods, which are checked whatever changed.
fn counts(status: &Value) -> Errors {
    let mut out: Errors = ["active", "succeeded", "failed", "ready", "terminating"]
        .iter()
        .flat_map(|f| check_nonnegative(&format!("status.{f}"), status.get(*f)))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for list in ["succeeded", "failed"] {
        for (i, uid) in status["uncountedTerminatedPods"][list]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let field = format!("status.uncountedTerminatedPods.{list}[{i}]");
            let text = uid.as_str().unwrap_or_default();
            if text.is_empty() {
                out.push(invalid(&field, uid, "must not be empty"));
            } else if !seen.insert(text.to_string()) {
                out.push(duplicate(&field, uid));
            }
        }
    }
    out
}

/// Every error of a Job's status update, after its metadata's.
pub fn job(object: &Value, old: &Value) -> Errors {
    let (new_status, old_status) = (&object["status"], &old["status"]);
    let spec = &object["spec"];
    let changed = |f: &str| new_status.get(f) != old_status.get(f);
    let flips = |kind: &str| condition(new_status, kind) != condition(old_status, kind);
    let is_finished = finished(new_status);
    let finished_changed = is_finished != finished(old_status);
    let complete = condition(new_status, "Complete");
    let failed = condition(new_status, "Failed");
    let failure_target = condition(new_status, "FailureTarget");
    let criteria_met = condition(new_status, "SuccessCriteriaMet");
    let indexed = spec["completionMode"] == "Indexed";
    let completions = spec["completions"].as_i64();
    let completed_indexes = new_status["completedIndexes"].as_str().unwrap_or_default();
    let failed_indexes = new_status["failedIndexes"].as_str();
    let indexes_changed = changed("completedIndexes");
    let failed_indexes_changed = changed("failedIndexes");
    let conditions = "status.conditions";

    let mut out = counts(new_status);
    if (flips("Complete") || flips("Failed")) && complete && failed {
        out.push(omitted(
            conditions,
            "cannot set Complete=True and Failed=true conditions",
        ));
    }
    if (flips("Complete") || flips("FailureTarget")) && complete && failure_target {
        out.push(omitted(
            conditions,
            "cannot set Complete=True and FailureTarget=true conditions",
        ));
    }
    let completion_time = new_status.get("completionTime").filter(|t| !t.is_null());
    let start_time = new_status.get("startTime").filter(|t| !t.is_null());
    let completion_rules = flips("Complete") || changed("completionTime");
    if completion_rules
        && !complete
        && let Some(t) = completion_time
    {
        out.push(super::errors::invalid_text(
            "status.completionTime",
            &go_time(t),
            "cannot set completionTime when there is no Complete=True condition",
        ));
    }
    if completion_rules && complete && completion_time.is_none() {
        out.push(required_because(
            "status.completionTime",
            "completionTime is required for Complete jobs",
        ));
    }
    if (changed("startTime") || changed("completionTime"))
        && let (Some(s), Some(c)) = (start_time, completion_time)
        && let (Ok(s), Ok(c)) = (
            chrono::DateTime::parse_from_rfc3339(s.as_str().unwrap_or_default()),
            chrono::DateTime::parse_from_rfc3339(c.as_str().unwrap_or_default()),
        )
        && c < s
    {
        out.push(super::errors::invalid_text(
            "status.completionTime",
            &go_time(completion_time.unwrap_or(&Value::Null)),
            "must be equal to or after `startTime`",
        ));
    }
    if (flips("Failed") || failed_indexes_changed) && failed && !failure_target {
        out.push(omitted(
            conditions,
            "cannot set Failed=True condition without the FailureTarget=true condition",
        ));
    }
    if (flips("Complete") || flips("SuccessCriteriaMet")) && complete && !criteria_met {
        out.push(omitted(
            conditions,
            "cannot set Complete=True condition without the SuccessCriteriaMet=true condition",
        ));
    }
    let active = count(new_status, "active");
    if (finished_changed || changed("active")) && active > 0 && is_finished {
        out.push(invalid(
            "status.active",
            &active.into(),
            "active>0 is invalid for finished job",
        ));
    }
    if (finished_changed || changed("startTime")) && start_time.is_none() && is_finished {
        out.push(required_because(
            "status.startTime",
            "startTime is required for finished job",
        ));
    }
    let uncounted = &new_status["uncountedTerminatedPods"];
    let uncounted_pods = ["succeeded", "failed"]
        .iter()
        .map(|f| uncounted[*f].as_array().map_or(0, Vec::len))
        .sum::<usize>();
    if (finished_changed || changed("uncountedTerminatedPods")) && is_finished && uncounted_pods > 0
    {
        out.push(super::errors::invalid_text(
            "status.uncountedTerminatedPods",
            &uncounted_as_go(uncounted),
            "must be empty for finished job",
        ));
    }
    if indexes_changed
        && let Some(n) = completions
        && let Err(why) = intervals(completed_indexes, n)
    {
        out.push(invalid(
            "status.completedIndexes",
            &json!(completed_indexes),
            &format!("error parsing completedIndexes: {why}"),
        ));
    }
    let per_index = spec.get("backoffLimitPerIndex").filter(|v| !v.is_null());
    if failed_indexes_changed
        && let (Some(n), Some(_), Some(f)) = (completions, per_index, failed_indexes)
        && let Err(why) = intervals(f, n)
    {
        out.push(invalid(
            "status.failedIndexes",
            &json!(f),
            &format!("error parsing failedIndexes: {why}"),
        ));
    }
    if indexes_changed && !completed_indexes.is_empty() && !indexed {
        out.push(invalid(
            "status.completedIndexes",
            &json!(completed_indexes),
            "cannot set non-empty completedIndexes when non-indexed completion mode",
        ));
    }
    if failed_indexes_changed
        && per_index.is_none()
        && let Some(f) = failed_indexes
    {
        out.push(invalid(
            "status.failedIndexes",
            &json!(f),
            "cannot set non-null failedIndexes when backoffLimitPerIndex is null",
        ));
    }
    if (failed_indexes_changed || indexes_changed)
        && let (Some(n), Some(f)) = (completions, failed_indexes)
        && let Some(at) = overlap(completed_indexes, f, n)
    {
        out.push(invalid(
            "status.failedIndexes",
            &json!(f),
            &format!("failedIndexes and completedIndexes overlap at index: {at}"),
        ));
    }
    let terminating = count(new_status, "terminating");
    if (finished_changed || changed("terminating")) && terminating > 0 && is_finished {
        out.push(invalid(
            "status.terminating",
            &terminating.into(),
            "terminating>0 is invalid for finished job",
        ));
    }
    let ready = new_status["ready"].as_i64();
    if (changed("ready") || changed("active"))
        && let Some(r) = ready
        && r > active
    {
        out.push(invalid(
            "status.ready",
            &r.into(),
            "cannot set more ready pods than active",
        ));
    }
    if criteria_met && failed {
        out.push(omitted(
            conditions,
            "cannot set SuccessCriteriaMet=True and Failed=true conditions",
        ));
    }
    if criteria_met && failure_target {
        out.push(omitted(
            conditions,
            "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions",
        ));
    }
    let success_policy = spec.get("successPolicy").is_some_and(|p| !p.is_null());
    if success_policy && !criteria_met && complete {
        out.push(omitted(
            conditions,
            "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True",
        ));
    }
    out.extend(transitions(object, old));
    out
}

/// The checks of the status against the stored one.
fn transitions(object: &Value, old: &Value) -> Errors {
    let (new_status, old_status) = (&object["status"], &old["status"]);
    let mut out = Vec::new();
    for kind in ["Failed", "Complete", "FailureTarget"] {
        if condition(old_status, kind) && !condition(new_status, kind) {
            out.push(omitted(
                "status.conditions",
                &format!("cannot disable the terminal {kind}=True condition"),
            ));
        }
    }
    for (field, name) in [("failed", "failed"), ("succeeded", "succeeded")] {
        let (now, before) = (count(new_status, field), count(old_status, field));
        let may_decrease = field == "succeeded"
            && object["spec"]["completionMode"] == "Indexed"
            && object["spec"]["completions"] == object["spec"]["parallelism"];
        if now < before && !may_decrease {
            out.push(invalid(
                &format!("status.{field}"),
                &now.into(),
                &format!("cannot decrease the {name} counter"),
            ));
        }
    }
    let time = |s: &Value, f: &str| s.get(f).filter(|t| !t.is_null()).cloned();
    if let (Some(now), Some(before)) = (
        time(new_status, "completionTime"),
        time(old_status, "completionTime"),
    ) && now != before
    {
        out.push(super::errors::invalid_text(
            "status.completionTime",
            &go_time(&now),
            "completionTime cannot be mutated",
        ));
    }
    let suspended = object["spec"]["suspend"].as_bool().unwrap_or(false);
    if let Some(before) = time(old_status, "startTime")
        && time(new_status, "startTime") != Some(before)
        && !suspended
    {
        out.push(required_because(
            "status.startTime",
            "startTime cannot be removed for unsuspended job",
        ));
    }
    let met = |s: &Value| condition(s, "SuccessCriteriaMet");
    if met(old_status) && !met(new_status) {
        out.push(omitted(
            "status.conditions",
            "cannot disable the SuccessCriteriaMet=True condition",
        ));
    }
    if condition(old_status, "Complete") && !met(old_status) && met(new_status) {
        out.push(omitted(
            "status.conditions",
            "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::errors::field_messages as messages;

    #[test]
    fn a_complete_job_needs_its_times_and_success_criteria() {
        let old = json!({"spec": {"completions": 1}, "status": {}});
        let new = json!({"spec": {"completions": 1}, "status": {
            "completedIndexes": "1",
            "conditions": [{"type": "Complete", "status": "True"}]}});
        assert_eq!(
            messages(&job(&new, &old)),
            [
                "status.completionTime: Required value: completionTime is required for Complete jobs",
                "status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition",
                "status.startTime: Required value: startTime is required for finished job",
                "status.completedIndexes: Invalid value: \"1\": error parsing completedIndexes: too large index: \"1\"",
                "status.completedIndexes: Invalid value: \"1\": cannot set non-empty completedIndexes when non-indexed completion mode",
            ]
        );
    }

    #[test]
    fn counters_and_terminal_conditions_stay() {
        let old = json!({"spec": {}, "status": {"failed": 2, "succeeded": 1,
            "conditions": [{"type": "FailureTarget", "status": "True"}]}});
        let new = json!({"spec": {}, "status": {"failed": 1, "succeeded": 1}});
        assert_eq!(
            messages(&job(&new, &old)),
            [
                "status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition",
                "status.failed: Invalid value: 1: cannot decrease the failed counter",
            ]
        );
    }

    #[test]
    fn index_lists_are_ordered_and_disjoint() {
        assert_eq!(intervals("1,3-5", 6), Ok(vec![(1, 1), (3, 5)]));
        assert_eq!(
            intervals("3,1", 6),
            Err("non-increasing order, previous: 3, current: 1".into())
        );
        assert_eq!(overlap("1,3-5", "0,4", 6), Some(4));
        assert_eq!(overlap("1", "2", 6), None);
        assert_eq!(
            go_time(&json!("2020-01-01T00:00:00Z")),
            "\"2020-01-01T00:00:00Z\""
        );
    }
}
