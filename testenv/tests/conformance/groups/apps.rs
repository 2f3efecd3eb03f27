//! `apps`: the defaults of Deployments, StatefulSets and DaemonSets, a selector that is
//! required, selects the template and never changes, the scale subresource, and the status
//! subresource that keeps spec and status apart.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::send;

const JSON: &str = "application/json";
const MERGE: &str = "application/merge-patch+json";
const SMP: &str = "application/strategic-merge-patch+json";

fn workload(kind: &str, name: &str, selector: Option<Value>, labels: Value) -> Value {
    let mut spec = json!({"template": {"metadata": {"labels": labels},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}});
    if let Some(selector) = selector {
        spec["selector"] = selector;
    }
    json!({"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name}, "spec": spec})
}

fn selecting(app: &str) -> Option<Value> {
    Some(json!({"matchLabels": {"app": app}}))
}

#[tokio::test]
async fn deployments_are_defaulted_and_keep_the_selector_of_their_template() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/apps/v1/namespaces/{}/deployments", env.namespace());
    let web = workload("Deployment", "web", selecting("web"), json!({"app": "web"}));
    let (code, created) = send(&client, "POST", &base, JSON, Some(web)).await;
    assert_eq!(code, 201, "{created}");
    let spec = &created["spec"];
    assert_eq!(spec["replicas"], 1);
    assert_eq!(
        spec["strategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
    );
    assert_eq!(
        (
            &spec["revisionHistoryLimit"],
            &spec["progressDeadlineSeconds"]
        ),
        (&json!(10), &json!(600))
    );
    let pod = &spec["template"]["spec"];
    assert_eq!(
        (
            &pod["restartPolicy"],
            &pod["dnsPolicy"],
            &pod["schedulerName"],
            &pod["terminationGracePeriodSeconds"]
        ),
        (
            &json!("Always"),
            &json!("ClusterFirst"),
            &json!("default-scheduler"),
            &json!(30)
        )
    );
    assert_eq!(pod["containers"][0]["imagePullPolicy"], "Always");

    let (code, body) = send(
        &client,
        "POST",
        &base,
        JSON,
        Some(workload(
            "Deployment",
            "other",
            selecting("other"),
            json!({"app": "web"}),
        )),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Deployment.apps \"other\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"
    );
    let (code, body) = send(
        &client,
        "POST",
        &base,
        JSON,
        Some(workload("Deployment", "none", None, json!({"app": "web"}))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Deployment.apps \"none\" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`]"
    );

    let path = format!("{base}/web");
    let both = json!({"spec": {"selector": {"matchLabels": {"app": "web", "tier": "front"}},
        "template": {"metadata": {"labels": {"tier": "front"}}}}});
    let (code, body) = send(&client, "PATCH", &path, MERGE, Some(both)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"web\",\"tier\":\"front\"}}: field is immutable"
    );
    let only = json!({"spec": {"selector": {"matchLabels": {"app": "api"}}}});
    let (code, body) = send(&client, "PATCH", &path, MERGE, Some(only)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Deployment.apps \"web\" is invalid: [spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`, spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"api\"}}: field is immutable]"
    );
    // More template labels than the selector asks for are fine.
    let more = json!({"spec": {"template": {"metadata": {"labels": {"tier": "front"}}}}});
    let (code, body) = send(&client, "PATCH", &path, MERGE, Some(more)).await;
    assert_eq!(
        (code, &body["metadata"]["generation"]),
        (200, &json!(2)),
        "{body}"
    );
}

#[tokio::test]
async fn the_scale_subresource_reads_and_writes_replicas() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/apps/v1/namespaces/{}/deployments", env.namespace());
    let web = workload("Deployment", "web", selecting("web"), json!({"app": "web"}));
    let (code, created) = send(&client, "POST", &base, JSON, Some(web)).await;
    assert_eq!(code, 201, "{created}");
    let scale = format!("{base}/web/scale");
    let (code, body) = send(&client, "GET", &scale, "", None).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        (&body["kind"], &body["apiVersion"]),
        (&json!("Scale"), &json!("autoscaling/v1"))
    );
    assert_eq!(body["metadata"]["uid"], created["metadata"]["uid"]);
    assert_eq!(body["spec"], json!({"replicas": 1}));
    assert_eq!(body["status"]["selector"], "app=web");

    let (code, body) = send(
        &client,
        "PATCH",
        &scale,
        MERGE,
        Some(json!({"spec": {"replicas": 3}})),
    )
    .await;
    assert_eq!(
        (code, &body["spec"]["replicas"]),
        (200, &json!(3)),
        "{body}"
    );
    let (_, deployment) = send(&client, "GET", &format!("{base}/web"), "", None).await;
    assert_eq!(deployment["spec"]["replicas"], 3);
    assert_eq!(deployment["metadata"]["generation"], 2);
    let (code, body) = send(
        &client,
        "PATCH",
        &scale,
        MERGE,
        Some(json!({"spec": {"replicas": -1}})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    );
}

#[tokio::test]
async fn the_status_subresource_keeps_spec_and_status_apart() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/apps/v1/namespaces/{}/replicasets", env.namespace());
    let rs = workload("ReplicaSet", "rs", selecting("rs"), json!({"app": "rs"}));
    let (code, created) = send(&client, "POST", &base, JSON, Some(rs)).await;
    assert_eq!(code, 201, "{created}");
    let path = format!("{base}/rs");
    let patch = json!({"spec": {"replicas": 5}, "status": {"replicas": 9}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{path}/status"),
        MERGE,
        Some(patch),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        body["spec"]["replicas"], 1,
        "status writes leave spec alone"
    );
    assert_eq!(body["status"]["replicas"], 9);
    assert_eq!(body["metadata"]["generation"], 1);
    let patch = json!({"spec": {"replicas": 2}, "status": {"replicas": 7}});
    let (code, body) = send(&client, "PATCH", &path, MERGE, Some(patch)).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["spec"]["replicas"], 2);
    assert_ne!(
        body["status"]["replicas"], 7,
        "spec writes leave status alone"
    );
    assert_eq!(body["metadata"]["generation"], 2);
}

#[tokio::test]
async fn stateful_sets_and_daemon_sets_are_defaulted_and_keep_their_fixed_fields() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let apps = format!("/apis/apps/v1/namespaces/{}", env.namespace());
    let sts = workload("StatefulSet", "db", selecting("db"), json!({"app": "db"}));
    let (code, created) = send(
        &client,
        "POST",
        &format!("{apps}/statefulsets"),
        JSON,
        Some(sts),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    let mut spec = created["spec"].clone();
    spec.as_object_mut().unwrap().remove("template");
    assert_eq!(
        spec,
        json!({"replicas": 1, "selector": {"matchLabels": {"app": "db"}}, "serviceName": "",
            "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "revisionHistoryLimit": 10,
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"}})
    );
    let patch = json!({"spec": {"podManagementPolicy": "Parallel"}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{apps}/statefulsets/db"),
        MERGE,
        Some(patch),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "StatefulSet.apps \"db\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
    );
    let patch = json!({"spec": {"replicas": 0, "minReadySeconds": 5}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{apps}/statefulsets/db"),
        MERGE,
        Some(patch),
    )
    .await;
    assert_eq!(
        (code, &body["spec"]["minReadySeconds"]),
        (200, &json!(5)),
        "{body}"
    );

    let ds = workload(
        "DaemonSet",
        "agent",
        selecting("agent"),
        json!({"app": "agent"}),
    );
    let (code, created) = send(
        &client,
        "POST",
        &format!("{apps}/daemonsets"),
        JSON,
        Some(ds),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
    );
    assert_eq!(created["spec"]["revisionHistoryLimit"], 10);
    let patch = json!({"spec": {"selector": {"matchLabels": {"app": "other"}}}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{apps}/daemonsets/agent"),
        MERGE,
        Some(patch),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "DaemonSet.apps \"agent\" is invalid: [spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"other\"}}: field is immutable, spec.template.metadata.labels: Invalid value: {\"app\":\"agent\"}: `selector` does not match template `labels`]"
    );
    let mut bare = workload("DaemonSet", "bare", selecting("agent"), json!({}));
    bare["spec"]["template"]["metadata"] = json!({});
    let (code, body) = send(
        &client,
        "POST",
        &format!("{apps}/daemonsets"),
        JSON,
        Some(bare),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "DaemonSet.apps \"bare\" is invalid: spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`"
    );
}

#[tokio::test]
async fn a_deployments_annotations_bump_its_generation() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let path = format!("/apis/apps/v1/namespaces/{ns}/deployments");
    let labels = json!({"app": "annotated"});
    let body = workload(
        "Deployment",
        "annotated",
        Some(json!({"matchLabels": labels})),
        labels,
    );
    let (code, body) = send(&client, "POST", &path, JSON, Some(body)).await;
    assert_eq!(code, 201, "{body}");
    let one = format!("{path}/annotated");
    // A patch at the resourceVersion just read (a real deployment controller writes the
    // object too): the generation it answers is one more than the one read, for annotations
    // as for the spec, and not for labels.
    let bumped = |patch: Value| {
        let (client, one) = (client.clone(), one.clone());
        async move {
            loop {
                let (_, current) = send(&client, "GET", &one, "", None).await;
                let mut patch = patch.clone();
                patch["metadata"]["resourceVersion"] =
                    current["metadata"]["resourceVersion"].clone();
                let (code, after) = send(&client, "PATCH", &one, MERGE, Some(patch)).await;
                if code == 409 {
                    continue;
                }
                assert_eq!(code, 200, "{after}");
                let generation = |o: &Value| o["metadata"]["generation"].as_i64().unwrap();
                return generation(&after) - generation(&current);
            }
        }
    };
    assert_eq!(
        bumped(json!({"metadata": {"annotations": {"a": "1"}}})).await,
        1
    );
    assert_eq!(bumped(json!({"metadata": {"labels": {"l": "1"}}})).await, 0);
    assert_eq!(
        bumped(json!({"metadata": {"annotations": {"a": null}}})).await,
        1
    );
    assert_eq!(bumped(json!({"spec": {"minReadySeconds": 3}})).await, 1);
}

/// Sends `body` as it is written (the JSON helpers would write it again with sorted keys):
/// the status code and the answer's bytes.
async fn send_text(
    client: &kube::Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: &str,
) -> (u16, String) {
    let headers = [("Content-Type", content_type)];
    let (code, _, bytes) =
        crate::support::raw::exchange_text(client, method, path, &headers, body).await;
    (code, String::from_utf8_lossy(&bytes).into_owned())
}

#[tokio::test]
async fn a_controller_revisions_data_is_written_back_as_it_was_sent() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let revisions = format!("/apis/apps/v1/namespaces/{ns}/controllerrevisions");
    // Members out of order, nested, repeated; numbers and escapes as written; white space.
    let data = r#"{ "z": 1.0, "a": [1e3, -0, 1E+2, 0.50], "m": {"y": "x\u0041\/<&>", "b": true, "b": false}, "s": "é" }"#;
    let body = format!(
        r#"{{"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {{"name": "spaced"}}, "revision": 1, "data": {data}}}"#
    );
    // Written back compacted, `<`, `>` and `&` escaped as Go's encoder escapes them.
    let written = r#""data":{"z":1.0,"a":[1e3,-0,1E+2,0.50],"m":{"y":"x\u0041\/\u003c\u0026\u003e","b":true,"b":false},"s":"é"}"#;
    // The repeated member inside the raw value is no strict decoding error.
    let strict = format!("{revisions}?fieldValidation=Strict");
    let (code, created) = send_text(&client, "POST", &strict, JSON, &body).await;
    assert_eq!(code, 201, "{created}");
    assert!(created.contains(written), "{created}");
    let (code, read) = send_text(&client, "GET", &format!("{revisions}/spaced"), "", "").await;
    assert_eq!(code, 200, "{read}");
    assert!(read.contains(written), "{read}");
    let (code, listed) = send_text(&client, "GET", &revisions, "", "").await;
    assert_eq!(code, 200, "{listed}");
    assert!(listed.contains(written), "{listed}");
    let watch = format!("{revisions}?watch=1&resourceVersion=0&timeoutSeconds=1");
    let (code, events) = send_text(&client, "GET", &watch, "", "").await;
    assert_eq!(code, 200, "{events}");
    assert!(events.contains(written), "{events}");
    // The parsed value is what the rest of the server sees (the last of repeated members).
    let parsed: Value = serde_json::from_str(&read).unwrap();
    assert_eq!(parsed["data"]["m"], json!({"y": "xA/<&>", "b": false}));

    // Sent compact, the data survives a merge patch of the labels byte for byte.
    let compact = r#"{"z":{"b":2,"a":1},"a":0.50}"#;
    let body = format!(
        r#"{{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{{"name":"compact"}},"revision":2,"data":{compact}}}"#
    );
    let (code, created) = send_text(&client, "POST", &revisions, JSON, &body).await;
    assert_eq!(code, 201, "{created}");
    let one = format!("{revisions}/compact");
    let patch = r#"{"metadata":{"labels":{"l":"1"}}}"#;
    let (code, patched) = send_text(&client, "PATCH", &one, MERGE, patch).await;
    assert_eq!(code, 200, "{patched}");
    let (_, read) = send_text(&client, "GET", &one, "", "").await;
    assert!(read.contains(&format!(r#""data":{compact}"#)), "{read}");
    assert!(read.contains(r#""labels":{"l":"1"}"#), "{read}");
}

#[tokio::test]
async fn a_scale_keeps_its_name_and_shows_the_selector() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let rc = json!({"apiVersion": "v1", "kind": "ReplicationController",
        "metadata": {"name": "scaled"},
        "spec": {"replicas": 1, "selector": {"a": "b", "k": "v"},
            "template": {"metadata": {"labels": {"a": "b", "k": "v"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let base = format!("/api/v1/namespaces/{ns}/replicationcontrollers");
    let (code, created) = send(&client, "POST", &base, JSON, Some(rc)).await;
    assert_eq!(code, 201, "{created}");
    let scale = format!("{base}/scaled/scale");
    let (code, answer) = send(&client, "GET", &scale, "", None).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["status"]["selector"], "a=b,k=v");
    let body = |name: &str, replicas: i64| {
        json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name},
            "spec": {"replicas": replicas}})
    };
    let (code, answer) = send(&client, "PUT", &scale, JSON, Some(body("other", 2))).await;
    assert_eq!(code, 400, "{answer}");
    assert_eq!(
        answer["message"],
        "the name of the object (other) does not match the name on the URL (scaled)"
    );
    let (code, answer) = send(&client, "PUT", &scale, JSON, Some(body("", 2))).await;
    assert_eq!(code, 400, "{answer}");
    assert_eq!(
        answer["message"],
        "the name of the object (scaled based on URL) was undeterminable: name must be provided"
    );
    let rename = json!({"metadata": {"name": "other"}});
    let (code, answer) = send(&client, "PATCH", &scale, MERGE, Some(rename)).await;
    assert_eq!(code, 400, "{answer}");
    let (code, answer) = send(&client, "PUT", &scale, JSON, Some(body("scaled", -3))).await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        answer["message"],
        "Scale.autoscaling \"scaled\" is invalid: spec.replicas: Invalid value: -3: must be greater than or equal to 0"
    );
    let (code, answer) = send(&client, "PUT", &scale, JSON, Some(body("scaled", 3))).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["spec"]["replicas"], 3);
    send(&client, "DELETE", &format!("{base}/scaled"), "", None).await;
}

#[tokio::test]
async fn a_controller_revisions_data_is_compared_as_the_bytes_kept() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let revisions = format!("/apis/apps/v1/namespaces/{ns}/controllerrevisions");
    let one = format!("{revisions}/bytes");
    let with = |labels: &str, data: &str| {
        format!(
            r#"{{"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {{"name": "bytes"{labels}}}, "revision": 1, "data": {data}}}"#
        )
    };
    let spaced = r#"{ "z": 1.0, "a": [1e3] }"#;
    let (code, created) = send_text(&client, "POST", &revisions, JSON, &with("", spaced)).await;
    assert_eq!(code, 201, "{created}");
    // The same bytes again are no change.
    let labelled = with(r#", "labels": {"a": "1"}"#, spaced);
    let (code, replaced) = send_text(&client, "PUT", &one, JSON, &labelled).await;
    assert_eq!(code, 200, "{replaced}");
    // The same value in another spelling is one, and so is any patch that writes it again.
    let refused = |data: &str| {
        format!(
            r#""message":"ControllerRevision.apps \"bytes\" is invalid: data: Invalid value: {}: field is immutable""#,
            data.replace('"', "\\\"")
        )
    };
    let (code, answer) = send_text(
        &client,
        "PUT",
        &one,
        JSON,
        &with("", r#"{"z":1.0,"a":[1e3]}"#),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    assert!(
        answer.contains(&refused(r#"{"z":1.0,"a":[1e3]}"#)),
        "{answer}"
    );
    let labels = r#"{"metadata":{"labels":{"b":"2"}}}"#;
    let (code, answer) = send_text(&client, "PATCH", &one, MERGE, labels).await;
    assert_eq!(code, 422, "{answer}");
    assert!(
        answer.contains(&refused(r#"{"z":1.0,"a":[1e3]}"#)),
        "{answer}"
    );
    let strategic = "application/strategic-merge-patch+json";
    let (code, answer) = send_text(&client, "PATCH", &one, strategic, labels).await;
    assert_eq!(code, 422, "{answer}");
    assert!(
        answer.contains(&refused(r#"{"a":[1000],"z":1}"#)),
        "{answer}"
    );
    send_text(&client, "DELETE", &one, "", "").await;
}

#[tokio::test]
async fn workload_strategies_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let template = json!({"metadata": {"labels": {"a": "b"}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let object = |kind: &str, spec: Value| {
        let mut spec = spec;
        spec["selector"] = json!({"matchLabels": {"a": "b"}});
        spec["template"] = template.clone();
        json!({"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "strategy"}, "spec": spec})
    };
    let cases = [
        (
            "deployments",
            object(
                "Deployment",
                json!({"strategy": {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}},
                "minReadySeconds": 10, "progressDeadlineSeconds": 5}),
            ),
            json!([
                {"reason": "FieldValueForbidden", "field": "spec.strategy.rollingUpdate",
                 "message": "Forbidden: may not be specified when strategy `type` is 'Recreate'"},
                {"reason": "FieldValueInvalid", "field": "spec.progressDeadlineSeconds",
                 "message": "Invalid value: 5: must be greater than minReadySeconds"},
            ]),
        ),
        (
            "statefulsets",
            object(
                "StatefulSet",
                json!({"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 1}}}),
            ),
            json!([{"reason": "FieldValueInvalid", "field": "spec.updateStrategy.rollingUpdate",
                "message": "Invalid value: {\"Partition\":1,\"MaxUnavailable\":null}: only allowed for updateStrategy 'RollingUpdate'"}]),
        ),
        (
            "daemonsets",
            object("DaemonSet", json!({"updateStrategy": {"type": "Wrong"}})),
            json!([{"reason": "FieldValueNotSupported", "field": "spec.updateStrategy",
                "message": "Unsupported value: {\"Type\":\"Wrong\",\"RollingUpdate\":null}: supported values: \"RollingUpdate\", \"OnDelete\""}]),
        ),
    ];
    for (plural, body, causes) in cases {
        let path = format!("/apis/apps/v1/namespaces/{ns}/{plural}?dryRun=All");
        let (code, answer) = send(&client, "POST", &path, JSON, Some(body)).await;
        assert_eq!(code, 422, "{plural}: {answer}");
        assert_eq!(answer["details"]["causes"], causes, "{plural}");
    }
}

#[tokio::test]
async fn a_scale_checks_its_uid_and_takes_strategic_merge_patches() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let base = format!("/apis/apps/v1/namespaces/{ns}/deployments");
    let mut deployment = workload(
        "Deployment",
        "scale-uid",
        Some(json!({"matchLabels": {"a": "scale-uid"}})),
        json!({"a": "scale-uid"}),
    );
    deployment["spec"]["replicas"] = json!(1);
    let (code, created) = send(&client, "POST", &base, JSON, Some(deployment)).await;
    assert_eq!(code, 201, "{created}");
    let uid = created["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let scale = format!("{base}/scale-uid/scale");
    let wrong = "00000000-0000-0000-0000-000000000001";
    // A PUT's uid is the storage's precondition, on the object's key.
    let put = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
        "metadata": {"name": "scale-uid", "uid": wrong}, "spec": {"replicas": 2}});
    let (code, answer) = send(&client, "PUT", &scale, JSON, Some(put)).await;
    assert_eq!(code, 409, "{answer}");
    assert_eq!(
        answer["message"],
        format!(
            "Operation cannot be fulfilled on deployments.apps \"scale-uid\": StorageError: invalid object, Code: 4, Key: /registry/deployments/{ns}/scale-uid, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {wrong}, UID in object meta: {uid}"
        )
    );
    // A patch's is the scale handler's, named after the subresource.
    let patch = json!({"metadata": {"uid": wrong}});
    let (code, answer) = send(&client, "PATCH", &scale, SMP, Some(patch)).await;
    assert_eq!(code, 409, "{answer}");
    assert_eq!(
        answer["message"],
        format!(
            "Operation cannot be fulfilled on deployments/scale.apps \"scale-uid\": Precondition failed: UID in precondition: {wrong}, UID in object meta: {uid}"
        )
    );
    assert_eq!(answer["details"]["kind"], "deployments/scale");
    // A strategic merge patch: a null or a `$patch: delete` leaves no replicas (zero, which
    // the Scale omits); a `$patch: replace` of the whole Scale leaves it without a name.
    let (code, answer) = send(
        &client,
        "PATCH",
        &scale,
        SMP,
        Some(json!({"spec": {"replicas": 3}})),
    )
    .await;
    assert_eq!(
        (code, &answer["spec"]),
        (200, &json!({"replicas": 3})),
        "{answer}"
    );
    let null = json!({"spec": {"replicas": null}});
    let (code, answer) = send(&client, "PATCH", &scale, SMP, Some(null)).await;
    assert_eq!((code, &answer["spec"]), (200, &json!({})), "{answer}");
    send(
        &client,
        "PATCH",
        &scale,
        SMP,
        Some(json!({"spec": {"replicas": 2}})),
    )
    .await;
    let delete = json!({"spec": {"$patch": "delete"}});
    let (code, answer) = send(&client, "PATCH", &scale, SMP, Some(delete)).await;
    assert_eq!((code, &answer["spec"]), (200, &json!({})), "{answer}");
    let replace = json!({"$patch": "replace", "spec": {"replicas": 1}});
    let (code, answer) = send(&client, "PATCH", &scale, SMP, Some(replace)).await;
    assert_eq!(code, 400, "{answer}");
    assert_eq!(
        answer["message"],
        "the name of the object (scale-uid based on URL) was undeterminable: name must be provided"
    );
    send(&client, "DELETE", &format!("{base}/scale-uid"), "", None).await;
}

/// The causes of a dry-run create of `body` into `plural`, which must be refused.
async fn refused_causes(client: &kube::Client, ns: &str, plural: &str, body: Value) -> Vec<String> {
    let path = format!("/apis/apps/v1/namespaces/{ns}/{plural}?dryRun=All");
    let (code, answer) = send(client, "POST", &path, JSON, Some(body)).await;
    assert_eq!(code, 422, "{plural}: {answer}");
    crate::support::raw::causes(&answer)
}

#[tokio::test]
async fn stateful_set_claim_templates_are_validated_as_the_pods_volumes() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let claim = |name: &str| {
        json!({"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}}}})
    };
    // A mount of a claim template's volume is found.
    let mut mounted = workload(
        "StatefulSet",
        "claims",
        selecting("claims"),
        json!({"app": "claims"}),
    );
    mounted["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] =
        json!([{"name": "data", "mountPath": "/data"}]);
    mounted["spec"]["volumeClaimTemplates"] = json!([claim("data")]);
    let path = format!("/apis/apps/v1/namespaces/{ns}/statefulsets?dryRun=All");
    let (code, answer) = send(&client, "POST", &path, JSON, Some(mounted)).await;
    assert_eq!(code, 201, "{answer}");
    // The claims come first, the template's own volumes after them.
    let mut bad = workload(
        "StatefulSet",
        "claims",
        selecting("claims"),
        json!({"app": "claims"}),
    );
    bad["spec"]["template"]["spec"]["volumes"] = json!([{"name": "Bad_T", "emptyDir": {}}]);
    bad["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] =
        json!([{"name": "nf", "mountPath": "/nf"}]);
    bad["spec"]["volumeClaimTemplates"] = json!([claim("Bad_V")]);
    let label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    assert_eq!(
        refused_causes(&client, ns, "statefulsets", bad).await,
        [
            format!("spec.template.spec.volumes[0].name: Invalid value: \"Bad_V\": {label}"),
            format!("spec.template.spec.volumes[1].name: Invalid value: \"Bad_T\": {label}"),
            "spec.template.spec.containers[0].volumeMounts[0].name: Not found: \"nf\"".to_string(),
        ]
    );
    // A service name that is a subdomain but no label is told only of its dots.
    let mut dotted = workload(
        "StatefulSet",
        "claims",
        selecting("claims"),
        json!({"app": "claims"}),
    );
    dotted["spec"]["serviceName"] = json!("a.b");
    assert_eq!(
        refused_causes(&client, ns, "statefulsets", dotted).await,
        ["spec.serviceName: Invalid value: \"a.b\": must not contain dots"]
    );
}

#[tokio::test]
async fn a_selector_that_cannot_be_converted_skips_the_template_comparison() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let selector = json!({"matchExpressions": [{"key": "app", "operator": "Bad"}]});
    let printed = "{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"Bad\"}]}";
    let operator = "spec.selector.matchExpressions[0].operator: Invalid value: \"Bad\": not a valid selector operator";
    let cases = [
        (
            "deployments",
            "Deployment",
            Some(format!(
                "spec.selector: Invalid value: {printed}: invalid label selector"
            )),
        ),
        (
            "replicasets",
            "ReplicaSet",
            Some(format!(
                "spec.selector: Invalid value: {printed}: invalid label selector"
            )),
        ),
        (
            "statefulsets",
            "StatefulSet",
            Some(format!("spec.selector: Invalid value: {printed}")),
        ),
        ("daemonsets", "DaemonSet", None),
    ];
    for (plural, kind, extra) in cases {
        let body = workload(
            kind,
            "unconvertible",
            Some(selector.clone()),
            json!({"app": "other"}),
        );
        let mut expected = vec![operator.to_string()];
        expected.extend(extra);
        assert_eq!(
            refused_causes(&client, ns, plural, body).await,
            expected,
            "{plural}"
        );
    }
}

#[tokio::test]
async fn a_daemon_set_rolling_update_given_with_on_delete_gets_zero_values() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let mut body = workload(
        "DaemonSet",
        "on-delete",
        selecting("on-delete"),
        json!({"app": "on-delete"}),
    );
    body["spec"]["updateStrategy"] = json!({"type": "OnDelete", "rollingUpdate": {"maxSurge": 1}});
    let path = format!("/apis/apps/v1/namespaces/{ns}/daemonsets?dryRun=All");
    let (code, answer) = send(&client, "POST", &path, JSON, Some(body)).await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(
        answer["spec"]["updateStrategy"],
        json!({"type": "OnDelete", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}})
    );
}

/// A ControllerRevision's `data` (a RawExtension) is owned whole.
#[tokio::test]
async fn controller_revision_data_is_owned_whole() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let revision = json!({"apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": "whole"}, "revision": 3, "data": {"spec": {"a": {"b": 1}}}});
    let path = format!(
        "/apis/apps/v1/namespaces/{}/controllerrevisions?dryRun=All",
        env.namespace()
    );
    let (code, body) = send(&client, "POST", &path, "application/json", Some(revision)).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["metadata"]["managedFields"][0]["fieldsV1"],
        json!({"f:data": {}, "f:revision": {}})
    );
}

/// A merge or JSON patch writing into a ControllerRevision's `data` writes the objects it
/// opens again with sorted keys and keeps the bytes of the rest and of its own values.
#[tokio::test]
async fn a_patch_into_a_controller_revisions_data_sorts_only_what_it_opens() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let revisions = format!("/apis/apps/v1/namespaces/{ns}/controllerrevisions");
    let data = r#"{"a":{"k":1.0,"j":2},"b":{"y":1e3,"a":-0},"z":1.50}"#;
    let body = format!(
        r#"{{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{{"name":"opened"}},"revision":1,"data":{data}}}"#
    );
    let (code, created) = send_text(&client, "POST", &revisions, JSON, &body).await;
    assert_eq!(code, 201, "{created}");
    let one = format!("{revisions}/opened");
    // Written again as it was: no change.
    let (code, patched) = send_text(&client, "PATCH", &one, MERGE, r#"{"data":{"z":1.50}}"#).await;
    assert_eq!(code, 200, "{patched}");
    assert!(patched.contains(&format!(r#""data":{data}"#)), "{patched}");
    let refused = |message: &str, expected: &str| {
        let message = serde_json::from_str::<Value>(message).unwrap_or_default()["message"].clone();
        let expected = format!(
            "ControllerRevision.apps \"opened\" is invalid: data: Invalid value: {expected}: field is immutable"
        );
        assert_eq!(message, expected);
    };
    let merge = r#"{"data":{"b":{"n":{"y":1,"x":null}},"z":2.50}}"#;
    let (code, answer) = send_text(&client, "PATCH", &one, MERGE, merge).await;
    assert_eq!(code, 422, "{answer}");
    refused(
        &answer,
        r#"{"a":{"k":1.0,"j":2},"b":{"a":-0,"n":{"y":1},"y":1e3},"z":2.50}"#,
    );
    let json_patch = r#"[{"op":"replace","path":"/data/a/k","value":2.0}]"#;
    let content_type = "application/json-patch+json";
    let (code, answer) = send_text(&client, "PATCH", &one, content_type, json_patch).await;
    assert_eq!(code, 422, "{answer}");
    refused(
        &answer,
        r#"{"a":{"j":2,"k":2.0},"b":{"y":1e3,"a":-0},"z":1.50}"#,
    );
    send_text(&client, "DELETE", &one, "", "").await;
}
