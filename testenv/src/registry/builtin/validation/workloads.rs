//! The workload kinds: label selectors, pod templates (the selector must match the
//! template's labels; the restart policy each controller allows), CronJob schedules, and
//! the selector that may not change after creation.

use serde_json::{Map, Value};

use super::cron::{schedule_error, time_zone_error};
use super::errors::{
    Errors, check_labels, check_nonnegative, child, forbidden, immutable, invalid, invalid_str,
    invalid_text, not_supported, required, required_because,
};
use super::go_struct::selector_as_go;
use super::job_spec;
pub(super) use super::label_selector::label_selector;
use super::pod::pod_spec;
use crate::support::meta::annotation_errors;
use crate::support::selector::label::LabelSelector;
use crate::support::status::Cause;

const CONCURRENCY: &[&str] = &["Allow", "Forbid", "Replace"];

/// Whether `labels` satisfy `selector` (matchLabels and matchExpressions); a missing
/// selector (Go's `labels.Nothing()`) matches nothing.
pub(super) fn matches(selector: &Value, labels: Option<&Map<String, Value>>) -> bool {
    if selector.is_null() {
        return false;
    }
    let labels = Value::Object(labels.cloned().unwrap_or_default());
    LabelSelector::from_metav1(selector).matches(&labels)
}

/// A selector with neither labels nor expressions.
pub(super) fn is_empty_selector(selector: &Value) -> bool {
    selector["matchLabels"]
        .as_object()
        .is_none_or(Map::is_empty)
        && selector["matchExpressions"]
            .as_array()
            .is_none_or(Vec::is_empty)
}

/// A template's labels and annotations (`ValidateLabels`, `ValidateAnnotations`): the
/// template's metadata is embedded in Go, so they are at `<path>.labels` and
/// `<path>.annotations`.
pub(super) fn template_labels(template: &Value, path: &str) -> Errors {
    let mut out = check_labels(
        &child(path, "labels"),
        template["metadata"]["labels"].as_object(),
    );
    if let Some(annotations) = template["metadata"]["annotations"].as_object() {
        out.extend(annotation_errors(annotations, &child(path, "annotations")));
    }
    out
}

/// `ValidatePodTemplateSpec`: the template's labels and annotations, then its pod spec.
pub(super) fn template(template: &Value, path: &str) -> Errors {
    let mut out = template_labels(template, path);
    let (meta, spec) = (&template["metadata"], &template["spec"]);
    out.extend(super::pod_annotations::specific(
        meta,
        spec,
        &child(path, "annotations"),
    ));
    out.extend(pod_spec(spec, &child(path, "spec")));
    out.extend(super::pod_annotations::seccomp_fields_match(
        meta,
        spec,
        &child(path, "spec"),
    ));
    out.extend(super::apparmor::fields_match(
        meta,
        spec,
        &child(path, "spec"),
        false,
    ));
    out
}

/// `ValidatePodTemplate` (without the metadata): the template a PodTemplate holds.
pub fn pod_template(object: &Value) -> Errors {
    template(&object["template"], "template")
}

/// The restart policies a controller's pods may have, when the template's is not one.
pub(super) fn restart_policy(template: &Value, path: &str, allowed: &[&str]) -> Errors {
    let policy = template["spec"]["restartPolicy"]
        .as_str()
        .unwrap_or_default();
    if allowed.contains(&policy) {
        return Vec::new();
    }
    vec![not_supported(
        &child(&child(path, "spec"), "restartPolicy"),
        policy,
        allowed,
    )]
}

/// `ValidateReplicationControllerSpec`: a non-negative `minReadySeconds`, a selector
/// (required, non-empty) that matches the template, non-negative replicas, and pods that
/// always restart (the apps/v1 kinds are [`super::apps`]').
pub fn replication_controller(object: &Value) -> Errors {
    let spec = &object["spec"];
    // The selector's values are not checked: an empty selector is the template's labels.
    let mut out = check_nonnegative("spec.minReadySeconds", spec.get("minReadySeconds"));
    let selector = &spec["selector"];
    let tpl = &spec["template"];
    let labels = selector.as_object().filter(|m| !m.is_empty());
    if labels.is_none() {
        out.push(required("spec.selector"));
    }
    out.extend(check_nonnegative("spec.replicas", spec.get("replicas")));
    let want = Value::Object(Map::from_iter([(
        "matchLabels".to_string(),
        selector.clone(),
    )]));
    if labels.is_some() && !matches(&want, tpl["metadata"]["labels"].as_object()) {
        out.push(invalid(
            "spec.template.metadata.labels",
            &tpl["metadata"]["labels"],
            "`selector` does not match template `labels`",
        ));
    }
    if tpl.is_object() {
        out.extend(template(tpl, "spec.template"));
        out.extend(restart_policy(tpl, "spec.template", &["Always"]));
    } else {
        out.push(required("spec.template"));
    }
    out
}

/// The selector of an apps/v1 workload may not change.
pub fn selector_update(object: &Value, old: &Value) -> Errors {
    let (new, old) = (&object["spec"]["selector"], &old["spec"]["selector"]);
    if new == old {
        Vec::new()
    } else {
        vec![immutable("spec.selector", new)]
    }
}

/// The spec fields of a StatefulSet an update may change.
const STATEFUL_SET_MUTABLE: &[&str] = &[
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
];

/// A StatefulSet's spec may change only in [`STATEFUL_SET_MUTABLE`] (its selector included).
pub fn stateful_set_update(object: &Value, old: &Value) -> Errors {
    let rest = |o: &Value| {
        let mut spec = o["spec"].as_object().cloned().unwrap_or_default();
        spec.retain(|k, _| !STATEFUL_SET_MUTABLE.contains(&k.as_str()));
        spec
    };
    if rest(old) == rest(object) {
        return Vec::new();
    }
    vec![forbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    )]
}

/// `validateJobSpec`: the counters, the rules of [`job_spec`], then a template whose pods
/// restart on failure or never.
fn validate_job_spec(spec: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for f in ["parallelism", "completions", "activeDeadlineSeconds"] {
        out.extend(check_nonnegative(&child(path, f), spec.get(f)));
    }
    out.extend(job_spec::rules(spec, path));
    let tpl_path = child(path, "template");
    let policy_path = child(&child(&tpl_path, "spec"), "restartPolicy");
    let allowed = ["OnFailure", "Never"];
    // A Job's pods need a policy said explicitly: a missing one (or `Always`, which
    // defaulting may have written) is reported once, with the values a Job allows.
    if spec["template"]["spec"]["restartPolicy"]
        .as_str()
        .is_none_or(|p| p.is_empty() || p == "Always")
    {
        out.extend(
            template(&spec["template"], &tpl_path)
                .into_iter()
                .filter(|c| c.field != policy_path),
        );
        let mut c = required(&policy_path);
        c.message = "Required value: valid values: \"OnFailure\", \"Never\"".into();
        out.push(c);
        return out;
    }
    out.extend(template(&spec["template"], &tpl_path));
    out.extend(restart_policy(&spec["template"], &tpl_path, &allowed));
    out.extend(job_spec::failure_policy_restart(spec, path));
    out
}

/// `ValidateJob` (without the metadata): the spec, then the name of an Indexed Job, which
/// must leave room for the hostname of its last pod (`<name>-<completions - 1>`, a DNS label).
/// `updating` says whether the Job is an update (see [`job_spec_of`]).
pub fn job(object: &Value, updating: bool) -> Errors {
    let mut out = generated_selector(object);
    out.extend(job_spec_of(object, updating));
    out.extend(indexed_job_name(object));
    out
}

/// A Job's spec checks alone (`ValidateJobSpec`: the spec, its selector and whether the
/// template matches it), which an update reports a second time. A created Job's selector is
/// generated before validation unless `manualSelector` is set (here after it, so a missing
/// one is not reported then); an update generates none, so one it leaves out is required,
/// and matches no template.
pub fn job_spec_of(object: &Value, updating: bool) -> Errors {
    let spec = &object["spec"];
    let mut out = validate_job_spec(spec, "spec");
    let selector = &spec["selector"];
    if selector.is_null() {
        if !updating && spec["manualSelector"] != true {
            return out;
        }
        out.push(required("spec.selector"));
    } else {
        out.extend(label_selector(selector, "spec.selector"));
    }
    let labels = &spec["template"]["metadata"]["labels"];
    if !matches(selector, labels.as_object()) {
        out.push(invalid(
            "spec.template.metadata.labels",
            labels,
            "`selector` does not match template `labels`",
        ));
    }
    out
}

/// `validateGeneratedSelector`: unless `manualSelector` is set, a Job's selector and its
/// template's labels are the ones generated from its uid and name.
fn generated_selector(object: &Value) -> Errors {
    let spec = &object["spec"];
    if spec["manualSelector"] == true || spec["selector"].is_null() {
        return Vec::new();
    }
    let uid = object["metadata"]["uid"].as_str().unwrap_or_default();
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    if uid.is_empty() {
        out.push(required("metadata.uid"));
    }
    let labels = &spec["template"]["metadata"]["labels"];
    for (key, want) in [
        ("controller-uid", uid),
        ("job-name", name),
        ("batch.kubernetes.io/controller-uid", uid),
        ("batch.kubernetes.io/job-name", name),
    ] {
        let field = format!("spec.template.metadata.labels[{key}]");
        match labels.get(key).and_then(Value::as_str) {
            None => out.push(required_because(&field, &format!("must be '{want}'"))),
            Some(v) if v != want => out.push(invalid(&field, labels, &format!("must be '{want}'"))),
            Some(_) => {}
        }
    }
    let expected = serde_json::json!({
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
    });
    if !matches(&spec["selector"], expected.as_object()) {
        out.push(invalid(
            "spec.selector",
            &spec["selector"],
            "`selector` not auto-generated",
        ));
    }
    out
}

/// The name of an Indexed Job with completions: its pods' hostnames are the name and the
/// completion index, and the highest index must still make a DNS label.
fn indexed_job_name(object: &Value) -> Errors {
    let spec = &object["spec"];
    let completions = spec["completions"].as_i64().unwrap_or_default();
    if spec["completionMode"] != "Indexed" || completions <= 0 {
        return Vec::new();
    }
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let hostname = format!("{name}-{}", completions - 1);
    if crate::support::meta::dns1123_label(&hostname).is_empty() {
        return Vec::new();
    }
    vec![invalid_str(
        "metadata.name",
        name,
        &format!("will not able to create pod with invalid DNS label: {hostname}"),
    )]
}

/// `validateTimeZone` of a CronJob's `spec.timeZone`.
fn time_zone_errors(zone: &str) -> Errors {
    time_zone_error(zone)
        .iter()
        .map(|why| invalid_str("spec.timeZone", zone, why))
        .collect()
}

/// The rest of `ValidateJobTemplateSpec`: the Job controller generates a CronJob's jobs'
/// selectors, so the template may neither give one nor ask for a manual one.
fn template_selector(job: &Value) -> Errors {
    let mut out = Vec::new();
    if let Some(selector) = job.get("selector").filter(|s| !s.is_null()) {
        out.push(invalid_text(
            "spec.jobTemplate.spec.selector",
            &selector_as_go(selector),
            "`selector` will be auto-generated",
        ));
    }
    if job["manualSelector"] == true {
        out.push(Cause {
            reason: "FieldValueNotSupported".into(),
            message: "Unsupported value: true: supported values: \"nil\", \"false\"".into(),
            field: "spec.jobTemplate.spec.manualSelector".into(),
        });
    }
    out
}

/// `ValidateCronJob` (without the metadata): the schedule, the concurrency policy and the
/// job template.
pub fn cron_job(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = Vec::new();
    match spec["schedule"].as_str().unwrap_or_default() {
        "" => out.push(required("spec.schedule")),
        schedule => {
            if let Some(why) = schedule_error(schedule) {
                out.push(invalid_str("spec.schedule", schedule, &why));
            }
            if schedule.contains("TZ") {
                out.push(invalid_str(
                    "spec.schedule",
                    schedule,
                    "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
                ));
            }
        }
    }
    out.extend(check_nonnegative(
        "spec.startingDeadlineSeconds",
        spec.get("startingDeadlineSeconds"),
    ));
    if let Some(zone) = spec.get("timeZone").filter(|z| !z.is_null()) {
        out.extend(time_zone_errors(zone.as_str().unwrap_or_default()));
    }
    let policy = spec["concurrencyPolicy"].as_str().unwrap_or_default();
    if policy.is_empty() {
        out.push(required("spec.concurrencyPolicy"));
    } else if !CONCURRENCY.contains(&policy) {
        out.push(not_supported("spec.concurrencyPolicy", policy, CONCURRENCY));
    }
    out.extend(validate_job_spec(
        &spec["jobTemplate"]["spec"],
        "spec.jobTemplate.spec",
    ));
    out.extend(template_selector(&spec["jobTemplate"]["spec"]));
    for f in ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"] {
        out.extend(check_nonnegative(&child("spec", f), spec.get(f)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn controller_selector_must_match_template() {
        let rc = |selector: Value| {
            json!({"spec": {"replicas": 1, "selector": selector, "template": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
                         "containers": [{"name": "c", "image": "i", "terminationMessagePolicy": "File"}]}}}})
        };
        assert!(replication_controller(&rc(json!({"a": "b"}))).is_empty());
        let errs = replication_controller(&rc(json!({"a": "c"})));
        assert_eq!(errs[0].field, "spec.template.metadata.labels");
    }

    #[test]
    fn cron_schedule() {
        let cj = json!({"spec": {"schedule": "every day", "concurrencyPolicy": "Allow",
            "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
                "dnsPolicy": "ClusterFirst", "containers": [{"name": "c", "image": "i", "terminationMessagePolicy": "File"}]}}}}}});
        let errs = cron_job(&cj);
        assert_eq!(errs.len(), 1);
        assert_eq!(
            errs[0].message,
            "Invalid value: \"every day\": expected exactly 5 fields, found 2: [every day]"
        );
    }

    #[test]
    fn indexed_job_name_leaves_room_for_the_last_index() {
        let job_named = |name: &str, mode: &str, completions: i64| {
            json!({"metadata": {"name": name}, "spec": {"completionMode": mode,
                "completions": completions}})
        };
        let long = "a".repeat(62);
        let errs = indexed_job_name(&job_named(&long, "Indexed", 10));
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "metadata.name");
        assert!(
            errs[0]
                .message
                .ends_with(&format!("invalid DNS label: {long}-9"))
        );
        assert_eq!(indexed_job_name(&job_named("a.b", "Indexed", 2)).len(), 1);
        assert!(indexed_job_name(&job_named(&long[1..], "Indexed", 10)).is_empty());
        assert!(indexed_job_name(&job_named(&long, "NonIndexed", 10)).is_empty());
        assert!(indexed_job_name(&job_named(&long, "Indexed", 0)).is_empty());
    }
}
