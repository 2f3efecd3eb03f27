//! `batch`: a Job's defaults and the selector the server generates from its uid (with the
//! labels it puts on the template and the Job), an Indexed Job's name that must leave room
//! for its pods' hostnames, the `orphan` and `foregroundDeletion` finalizers refused together
//! (once on create, twice on a Job's update), and a CronJob's defaults.

use serde_json::json;

use crate::common::env;
use crate::support::raw::send;

const JSON: &str = "application/json";

#[tokio::test]
async fn jobs_are_defaulted_and_get_a_selector_on_their_uid() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/batch/v1/namespaces/{}/jobs", env.namespace());
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"},
        "spec": {"template": {"metadata": {"labels": {"team": "a"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}});
    let (code, created) = send(&client, "POST", &base, JSON, Some(job)).await;
    assert_eq!(code, 201, "{created}");
    let uid = created["metadata"]["uid"].as_str().unwrap();
    let spec = &created["spec"];
    assert_eq!(
        (
            &spec["parallelism"],
            &spec["completions"],
            &spec["backoffLimit"]
        ),
        (&json!(1), &json!(1), &json!(6))
    );
    assert_eq!(
        (
            &spec["completionMode"],
            &spec["suspend"],
            &spec["podReplacementPolicy"]
        ),
        (
            &json!("NonIndexed"),
            &json!(false),
            &json!("TerminatingOrFailed")
        )
    );
    assert_eq!(spec["manualSelector"], false);
    assert_eq!(
        spec["selector"],
        json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}})
    );
    let labels = json!({"team": "a", "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "once", "controller-uid": uid, "job-name": "once"});
    assert_eq!(spec["template"]["metadata"]["labels"], labels);
    assert_eq!(
        created["metadata"]["labels"], labels,
        "a Job without labels takes its template's"
    );
    assert_eq!(spec["template"]["spec"]["restartPolicy"], "Never");

    // A Job with labels of its own keeps them.
    let job = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "labelled", "labels": {"own": "yes"}},
        "spec": {"template": {"spec": {"restartPolicy": "OnFailure",
            "containers": [{"name": "c", "image": "busybox"}]}}}});
    let (code, created) = send(&client, "POST", &base, JSON, Some(job)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["metadata"]["labels"], json!({"own": "yes"}));
    let uid = created["metadata"]["uid"].as_str().unwrap();
    assert_eq!(
        created["spec"]["template"]["metadata"]["labels"]["batch.kubernetes.io/controller-uid"],
        uid
    );
}

#[tokio::test]
async fn cron_jobs_are_defaulted() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/batch/v1/namespaces/{}/cronjobs", env.namespace());
    let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
        "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}}});
    let (code, created) = send(&client, "POST", &base, JSON, Some(cron)).await;
    assert_eq!(code, 201, "{created}");
    let spec = &created["spec"];
    assert_eq!(
        (
            &spec["concurrencyPolicy"],
            &spec["suspend"],
            &spec["successfulJobsHistoryLimit"],
            &spec["failedJobsHistoryLimit"]
        ),
        (&json!("Allow"), &json!(false), &json!(3), &json!(1))
    );
    assert_eq!(spec["schedule"], "0 3 * * *");
    let pod = &spec["jobTemplate"]["spec"]["template"]["spec"];
    assert_eq!(
        (&pod["dnsPolicy"], &pod["terminationGracePeriodSeconds"]),
        (&json!("ClusterFirst"), &json!(30))
    );
    assert_eq!(
        spec["jobTemplate"]["spec"].get("backoffLimit"),
        None,
        "the job template gets no Job defaults"
    );
    assert_eq!(created["status"], json!({}));
}

#[tokio::test]
async fn cron_job_time_zones_come_from_the_iana_database() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!(
        "/apis/batch/v1/namespaces/{}/cronjobs?dryRun=All",
        env.namespace()
    );
    let cron_job = |zone: &str| {
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "zoned"},
            "spec": {"schedule": "0 3 * * *", "timeZone": zone, "jobTemplate": {"spec": {"template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}})
    };
    for zone in [
        "Europe/Paris",
        "America/Ciudad_Juarez",
        "US/Eastern",
        "Etc/GMT+5",
    ] {
        let (code, body) = send(&client, "POST", &base, JSON, Some(cron_job(zone))).await;
        assert_eq!(code, 201, "{zone}: {body}");
    }
    for (zone, why) in [
        ("Mars/Olympus", "unknown time zone Mars/Olympus"),
        ("europe/paris", "unknown time zone europe/paris"),
    ] {
        let (code, body) = send(&client, "POST", &base, JSON, Some(cron_job(zone))).await;
        assert_eq!(code, 422, "{zone}: {body}");
        assert_eq!(
            body["details"]["causes"][0]["message"],
            format!("Invalid value: \"{zone}\": {why}"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn indexed_job_names_leave_room_for_the_pod_hostnames() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!(
        "/apis/batch/v1/namespaces/{}/jobs?dryRun=All",
        env.namespace()
    );
    let job = |name: &str, mode: &str, completions: i64| {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"completionMode": mode, "completions": completions, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}})
    };
    let long = "a".repeat(62);
    let (code, body) = send(
        &client,
        "POST",
        &base,
        JSON,
        Some(job(&long, "Indexed", 10)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"],
        json!([{"reason": "FieldValueInvalid", "field": "metadata.name",
            "message": format!("Invalid value: \"{long}\": will not able to create pod with invalid DNS label: {long}-9")}])
    );
    let (code, body) = send(&client, "POST", &base, JSON, Some(job("a.b", "Indexed", 2))).await;
    assert_eq!(code, 422, "{body}");
    // The last index fits, or the pods are not indexed: accepted.
    for (name, mode, completions) in [
        (&long[1..], "Indexed", 10),
        (&long[..], "NonIndexed", 10),
        ("a.b", "NonIndexed", 2),
    ] {
        let (code, body) = send(
            &client,
            "POST",
            &base,
            JSON,
            Some(job(name, mode, completions)),
        )
        .await;
        assert_eq!(code, 201, "{name} {mode}: {body}");
    }
}

#[tokio::test]
async fn orphan_and_foreground_finalizers_are_refused_together() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/batch/v1/namespaces/{}/jobs", env.namespace());
    let both = json!(["orphan", "foregroundDeletion"]);
    let cause = json!({"reason": "FieldValueInvalid", "field": "metadata.finalizers",
        "message": "Invalid value: [\"orphan\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be both set"});
    let job = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "final", "finalizers": both},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox"}]}}}});
    let (code, body) = send(&client, "POST", &base, JSON, Some(job.clone())).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["details"]["causes"], json!([cause]), "once on create");
    let mut one = job;
    one["metadata"]["finalizers"] = json!(["orphan"]);
    let (code, body) = send(&client, "POST", &base, JSON, Some(one)).await;
    assert_eq!(code, 201, "{body}");
    // A Job's update checks the object meta in the generic registry and again when its
    // strategy validates the Job as a new one.
    let patch = json!({"metadata": {"finalizers": both}});
    let path = format!("{base}/final");
    let merge = "application/merge-patch+json";
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["details"]["causes"], json!([cause, cause]));
    let clear = json!({"metadata": {"finalizers": null}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(clear)).await;
    assert_eq!(code, 200, "{body}");
}

#[tokio::test]
async fn job_failure_and_success_policies_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!(
        "/apis/batch/v1/namespaces/{}/jobs?dryRun=All",
        env.namespace()
    );
    let job = |spec: serde_json::Value| {
        let mut spec = spec;
        spec["template"] = json!({"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox"}]}});
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "rules"}, "spec": spec})
    };
    let failure = job(json!({"podFailurePolicy": {"rules": [
        {"action": "Explode", "onExitCodes": {"operator": "In", "values": [0, 1, 1]}},
        {"action": "Ignore"}]}}));
    let (code, body) = send(&client, "POST", &base, JSON, Some(failure)).await;
    assert_eq!(code, 422, "{body}");
    let messages: Vec<&str> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "Unsupported value: \"Explode\": supported values: \"Count\", \"FailIndex\", \"FailJob\", \"Ignore\"",
            "Invalid value: 0: must not be 0 for the In operator",
            "Duplicate value: 1",
            "Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
        ]
    );
    let success = job(json!({"completions": 3, "completionMode": "Indexed",
        "successPolicy": {"rules": [{"succeededIndexes": "5-1", "succeededCount": 9}]}}));
    let (code, body) = send(&client, "POST", &base, JSON, Some(success)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"][0],
        json!({"reason": "FieldValueInvalid", "field": "spec.successPolicy.rules[0].succeededIndexes",
            "message": "Invalid value: \"5-1\": error parsing succeededIndexes: too large index: \"5\""})
    );
}

#[tokio::test]
async fn an_indexed_jobs_completions_change_with_its_parallelism() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/batch/v1/namespaces/{}/jobs", env.namespace());
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "elastic"},
        "spec": {"suspend": true, "completionMode": "Indexed", "completions": 2, "parallelism": 2,
            "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox"}]}}}});
    let (code, body) = send(&client, "POST", &base, JSON, Some(job)).await;
    assert_eq!(code, 201, "{body}");
    let path = format!("{base}/elastic?dryRun=All");
    let merge = "application/merge-patch+json";
    let alone = json!({"spec": {"completions": 3}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(alone)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"],
        json!([{"reason": "FieldValueInvalid", "field": "spec.completions",
            "message": "Invalid value: 3: can only be modified in tandem with spec.parallelism"}])
    );
    let together = json!({"spec": {"completions": 3, "parallelism": 3}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(together)).await;
    assert_eq!(code, 200, "{body}");
    let mode = json!({"spec": {"completionMode": "NonIndexed"}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(mode)).await;
    assert_eq!(code, 422, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("spec.completionMode: Invalid value: \"NonIndexed\": field is immutable"),
        "{body}"
    );
}

/// A DELETE's status, body and `Warning` headers.
async fn delete_warned(
    client: &kube::Client,
    path: &str,
    options: Option<serde_json::Value>,
) -> (u16, serde_json::Value, Vec<String>) {
    let headers: &[(&str, &str)] = if options.is_some() {
        &[("Content-Type", "application/json")]
    } else {
        &[]
    };
    let (code, headers, bytes) =
        crate::support::raw::exchange(client, "DELETE", path, headers, options.as_ref()).await;
    let warnings = crate::support::raw::warnings(&headers);
    let body = serde_json::from_slice(&bytes).unwrap_or_default();
    (code, body, warnings)
}

#[tokio::test]
async fn deleting_a_job_without_a_policy_warns_and_orphans_its_pods() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/batch/v1/namespaces/{}/jobs", env.namespace());
    let warning = "299 - \"child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning\"";
    // Before anything is looked up: a missing Job warns too, a collection too.
    let (code, _, warnings) = delete_warned(&client, &format!("{base}/missing"), None).await;
    assert_eq!((code, warnings), (404, vec![warning.to_string()]));
    let none = format!("{base}?labelSelector=none%3Dat-all");
    let (code, _, warnings) = delete_warned(&client, &none, None).await;
    assert_eq!((code, warnings), (200, vec![warning.to_string()]));
    let named = format!("{base}/missing?propagationPolicy=Background");
    let (code, _, warnings) = delete_warned(&client, &named, None).await;
    assert_eq!((code, warnings.len()), (404, 0));

    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "kept-pods"},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox"}]}}}});
    let (code, body) = send(&client, "POST", &base, JSON, Some(job)).await;
    assert_eq!(code, 201, "{body}");
    let path = format!("{base}/kept-pods");
    // Without a policy a Job still orphans its pods: it is marked, with the orphan finalizer.
    let dry_run = Some(json!({"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]}));
    let (code, body, warnings) = delete_warned(&client, &path, dry_run).await;
    assert_eq!((code, warnings), (200, vec![warning.to_string()]));
    assert_eq!(
        (&body["kind"], &body["metadata"]["finalizers"]),
        (&json!("Job"), &json!(["orphan"])),
        "{body}"
    );
    let background = format!("{path}?propagationPolicy=Background");
    let (code, body, warnings) = delete_warned(&client, &background, None).await;
    assert_eq!((code, warnings.len()), (200, 0), "{body}");
}

#[tokio::test]
async fn cron_job_templates_may_not_choose_their_selector() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/batch/v1/namespaces/{}/cronjobs", env.namespace());
    let cron = |job: serde_json::Value| {
        let mut spec = job;
        spec["template"] = json!({"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox"}]}});
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "chosen"},
            "spec": {"schedule": "0 0 1 1 *", "suspend": true, "jobTemplate": {"spec": spec}}})
    };
    let chosen = json!({"selector": {"matchLabels": {"z": "y", "a": "b"}}, "manualSelector": true});
    let (code, body) = send(&client, "POST", &base, JSON, Some(cron(chosen))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "CronJob.batch \"chosen\" is invalid: [spec.jobTemplate.spec.selector: Invalid value: {\"matchLabels\":{\"a\":\"b\",\"z\":\"y\"}}: `selector` will be auto-generated, spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: \"nil\", \"false\"]"
    );
    let (code, created) = send(
        &client,
        "POST",
        &base,
        JSON,
        Some(cron(json!({"manualSelector": false}))),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    let path = format!("{base}/chosen");
    let patch = json!({"spec": {"jobTemplate": {"spec": {"selector": {}}}}});
    let merge = "application/merge-patch+json";
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "CronJob.batch \"chosen\" is invalid: spec.jobTemplate.spec.selector: Invalid value: {}: `selector` will be auto-generated"
    );
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn indexed_jobs_with_many_completions_have_tighter_per_index_limits() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!(
        "/apis/batch/v1/namespaces/{}/jobs?dryRun=All",
        env.namespace()
    );
    let job = |spec: serde_json::Value| {
        let mut spec = spec;
        spec["completionMode"] = json!("Indexed");
        spec["template"] = json!({"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox"}]}});
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "many"},
            "spec": spec})
    };
    let body = job(json!({"completions": 200_000, "backoffLimitPerIndex": 1}));
    let (code, body) = send(&client, "POST", &path, JSON, Some(body)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        crate::support::raw::causes(&body),
        [
            "spec.maxFailedIndexes: Required value: must be specified when completions is above 100000"
        ]
    );
    let body = job(json!({"completions": 100_001, "parallelism": 10_001,
        "backoffLimitPerIndex": 1, "maxFailedIndexes": 10_001}));
    let (code, body) = send(&client, "POST", &path, JSON, Some(body)).await;
    assert_eq!(code, 422, "{body}");
    let why = "must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index";
    assert_eq!(
        crate::support::raw::causes(&body),
        [
            format!("spec.parallelism: Invalid value: 10001: {why}"),
            format!("spec.maxFailedIndexes: Invalid value: 10001: {why}"),
        ]
    );
}

#[tokio::test]
async fn a_jobs_failure_and_success_policies_are_immutable() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/batch/v1/namespaces/{}/jobs", env.namespace());
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "policies"},
        "spec": {"suspend": true, "completionMode": "Indexed", "completions": 2, "parallelism": 2,
            "podFailurePolicy": {"rules": [{"action": "FailJob",
                "onExitCodes": {"operator": "In", "values": [42]}}]},
            "successPolicy": {"rules": [{"succeededIndexes": "0"}]},
            "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox"}]}}}});
    let (code, created) = send(&client, "POST", &base, JSON, Some(job)).await;
    assert_eq!(code, 201, "{created}");
    let path = format!("{base}/policies");
    let merge = "application/merge-patch+json";
    let patch = json!({"spec": {"podFailurePolicy": {"rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
        {"action": "FailJob", "onExitCodes": {"containerName": "c", "operator": "NotIn", "values": [1]}}]},
        "successPolicy": {"rules": [{"succeededCount": 1}]}}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Job.batch \"policies\" is invalid: [spec.podFailurePolicy: Invalid value: {\"Rules\":[{\"Action\":\"Ignore\",\"OnExitCodes\":null,\"OnPodConditions\":[{\"Type\":\"DisruptionTarget\",\"Status\":\"True\"}]},{\"Action\":\"FailJob\",\"OnExitCodes\":{\"ContainerName\":\"c\",\"Operator\":\"NotIn\",\"Values\":[1]},\"OnPodConditions\":null}]}: field is immutable, spec.successPolicy: Invalid value: {\"Rules\":[{\"SucceededIndexes\":null,\"SucceededCount\":1}]}: field is immutable]"
    );
    let patch = json!({"spec": {"podFailurePolicy": null, "successPolicy": null}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Job.batch \"policies\" is invalid: [spec.podFailurePolicy: Invalid value: null: field is immutable, spec.successPolicy: Invalid value: null: field is immutable]"
    );
    let (code, body) = send(
        &client,
        "DELETE",
        &format!("{path}?propagationPolicy=Background"),
        "",
        None,
    )
    .await;
    assert_eq!(code, 200, "{body}");
}

#[tokio::test]
async fn a_job_updated_without_its_selector_needs_one() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let jobs = format!("/apis/batch/v1/namespaces/{}/jobs", env.namespace());
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "unselected"},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i"}]}}}});
    let (code, body) = send(
        &client,
        "POST",
        &jobs,
        "application/json",
        Some(job.clone()),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    // A replacement without the generated selector: required, matching no template, reported
    // by the Job's validation and again by the update's, before the fields that may not change.
    let path = format!("{jobs}/unselected?dryRun=All");
    let (code, body) = send(&client, "PUT", &path, "application/json", Some(job)).await;
    assert_eq!(code, 422, "{body}");
    let listed = crate::support::raw::causes(&body);
    let required = "spec.selector: Required value";
    let mismatch = "spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`";
    assert_eq!(listed[..4], [required, mismatch, required, mismatch]);
    assert_eq!(
        listed[4],
        "spec.selector: Invalid value: null: field is immutable"
    );
    send(
        &client,
        "DELETE",
        &format!("{jobs}/unselected?propagationPolicy=Background"),
        "",
        None,
    )
    .await;
}
