//! `events.k8s.io/v1`: the Events recorders write, one storage with the core `v1` Events
//! seen through another shape (`note` is `message`, `regarding` is `involvedObject`,
//! `reportingController` is `reportingComponent`).

use serde_json::json;

use crate::common::env;
use crate::support::raw::send;

const JSON: &str = "application/json";

#[tokio::test]
async fn events_v1_and_core_events_are_the_same_objects() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let regarding = json!({"kind": "Pod", "namespace": ns, "name": "web-0", "apiVersion": "v1"});
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "web-0.synced"},
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example.com/operator",
        "reportingInstance": "operator-1", "action": "Reconcile", "reason": "Synced",
        "type": "Normal", "note": "synced the pod", "regarding": regarding});
    let events = format!("/apis/events.k8s.io/v1/namespaces/{ns}/events");
    let (code, created) = send(&client, "POST", &events, JSON, Some(event)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        (&created["kind"], &created["apiVersion"]),
        (&json!("Event"), &json!("events.k8s.io/v1"))
    );
    assert_eq!(created["eventTime"], "2024-01-01T00:00:00.000000Z");
    assert_eq!(created["regarding"], regarding);

    let core = format!("/api/v1/namespaces/{ns}/events");
    let (code, seen) = send(&client, "GET", &format!("{core}/web-0.synced"), "", None).await;
    assert_eq!(code, 200, "{seen}");
    assert_eq!(seen["involvedObject"], regarding);
    assert_eq!(
        (
            &seen["message"],
            &seen["reportingComponent"],
            &seen["reportingInstance"],
            &seen["action"],
            &seen["reason"],
            &seen["type"]
        ),
        (
            &json!("synced the pod"),
            &json!("example.com/operator"),
            &json!("operator-1"),
            &json!("Reconcile"),
            &json!("Synced"),
            &json!("Normal")
        )
    );
    assert_eq!(seen["metadata"]["uid"], created["metadata"]["uid"]);

    // An Event written the old way reads back in the new shape.
    let old = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web-0.pulled"},
        "involvedObject": regarding, "reason": "Pulled", "message": "pulled the image",
        "type": "Warning", "source": {"component": "kubelet", "host": "node-1"}, "count": 3});
    let (code, body) = send(&client, "POST", &core, JSON, Some(old)).await;
    assert_eq!(code, 201, "{body}");
    let (code, seen) = send(&client, "GET", &format!("{events}/web-0.pulled"), "", None).await;
    assert_eq!(code, 200, "{seen}");
    assert_eq!(
        (
            &seen["note"],
            &seen["reason"],
            &seen["type"],
            &seen["regarding"]
        ),
        (
            &json!("pulled the image"),
            &json!("Pulled"),
            &json!("Warning"),
            &regarding
        )
    );
    assert_eq!(
        seen["deprecatedSource"],
        json!({"component": "kubelet", "host": "node-1"})
    );
    assert_eq!(seen["deprecatedCount"], 3);
    let (code, list) = send(&client, "GET", &events, "", None).await;
    assert_eq!(code, 200, "{list}");
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["metadata"]["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"web-0.synced") && names.contains(&"web-0.pulled"),
        "{names:?}"
    );
}

#[tokio::test]
async fn new_events_say_what_happened_and_who_reported_it() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let events = format!("/apis/events.k8s.io/v1/namespaces/{ns}/events");
    let core = format!("/api/v1/namespaces/{ns}/events");
    let name_rule = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let full = |name: &str| {
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name},
            "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example.com/operator",
            "reportingInstance": "operator-1", "action": "Reconcile", "reason": "Synced",
            "type": "Normal", "regarding": {"kind": "Pod", "namespace": ns, "name": "web-0"}})
    };
    let refused = |body: serde_json::Value| {
        let (client, events) = (client.clone(), events.clone());
        async move {
            let (code, body) = send(&client, "POST", &events, JSON, Some(body)).await;
            assert_eq!(code, 422, "{body}");
            assert_eq!(body["details"]["kind"], "Event");
            body["message"].as_str().unwrap().to_string()
        }
    };

    let bare = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "bare"}, "reason": "Synced", "regarding": {"namespace": "kube-public"}});
    assert_eq!(
        refused(bare).await,
        "Event \"bare\" is invalid: [involvedObject.namespace: Invalid value: \"kube-public\": does not match event.namespace, eventTime: Required value, type: Invalid value: \"\": has invalid value: ]"
    );
    let mut odd = full("odd");
    odd["type"] = json!("Info");
    odd["reportingController"] = json!("Bad Controller");
    assert_eq!(
        refused(odd).await,
        format!(
            "Event \"odd\" is invalid: [reportingController: Invalid value: \"Bad Controller\": {name_rule}, type: Invalid value: \"\": has invalid value: Info]"
        )
    );
    let mut anonymous = full("anonymous");
    anonymous
        .as_object_mut()
        .unwrap()
        .remove("reportingController");
    assert_eq!(
        refused(anonymous).await,
        format!(
            "Event \"anonymous\" is invalid: [reportingController: Required value, reportingController: Invalid value: \"\": name part must be non-empty, reportingController: Invalid value: \"\": {name_rule}]"
        )
    );
    let (code, body) = send(&client, "POST", &events, JSON, Some(full("fine"))).await;
    assert_eq!(code, 201, "{body}");

    // Core Events get the legacy checks only: with an eventTime, who and what; without,
    // a namespace that agrees with the object's.
    let timed = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "timed"},
        "eventTime": "2024-01-01T00:00:00.000000Z", "involvedObject": {"namespace": ns}});
    let (code, body) = send(&client, "POST", &core, JSON, Some(timed)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "Event \"timed\" is invalid: [reportingComponent: Required value, reportingComponent: Invalid value: \"\": name part must be non-empty, reportingComponent: Invalid value: \"\": {name_rule}, reportingInstance: Required value, action: Required value, reason: Required value]"
        ))
    );
    let elsewhere = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "elsewhere"},
        "reason": "Pulled", "involvedObject": {"namespace": "kube-public"}});
    let (code, body) = send(&client, "POST", &core, JSON, Some(elsewhere)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Event \"elsewhere\" is invalid: involvedObject.namespace: Invalid value: \"kube-public\": does not match event.namespace"
    );
    let plain = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "plain"},
        "reason": "Pulled", "involvedObject": {"namespace": ns}});
    let (code, body) = send(&client, "POST", &core, JSON, Some(plain)).await;
    assert_eq!(code, 201, "{body}");
}

#[tokio::test]
async fn events_v1_may_change_only_their_series() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let events = format!("/apis/events.k8s.io/v1/namespaces/{ns}/events");
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "web-0.synced"},
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example.com/operator",
        "reportingInstance": "operator-1", "action": "Reconcile", "reason": "Synced",
        "type": "Normal", "note": "synced", "regarding": {"kind": "Pod", "namespace": ns, "name": "web-0"}});
    let (code, body) = send(&client, "POST", &events, JSON, Some(event)).await;
    assert_eq!(code, 201, "{body}");
    let one = format!("{events}/web-0.synced");
    const MERGE: &str = "application/merge-patch+json";

    // What a recorder does when the same thing happens again.
    let series = json!({"series": {"count": 2, "lastObservedTime": "2024-01-01T00:01:00.000000Z"}});
    let (code, body) = send(&client, "PATCH", &one, MERGE, Some(series)).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["series"]["count"], 2);
    let (code, body) = send(
        &client,
        "PATCH",
        &one,
        MERGE,
        Some(json!({"series": {"count": 1}})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Event \"web-0.synced\" is invalid: series.count: Invalid value: \"\": should be at least 2"
    );

    // Everything else is fixed, named by the Go type's fields (`message`, `involvedObject`),
    // `reason` checked twice.
    let change = json!({"note": "again", "reason": "Other", "regarding": {"name": "web-1"},
        "deprecatedCount": 4});
    let (code, body) = send(&client, "PATCH", &one, MERGE, Some(change)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["details"]["kind"], "Event");
    let fields: Vec<&str> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        ["involvedObject", "reason", "message", "count", "reason"]
    );
    assert_eq!(
        body["details"]["causes"][0]["message"],
        json!(format!(
            "Invalid value: {{\"Kind\":\"Pod\",\"Namespace\":\"{ns}\",\"Name\":\"web-1\",\"UID\":\"\",\"APIVersion\":\"\",\"ResourceVersion\":\"\",\"FieldPath\":\"\"}}: field is immutable"
        ))
    );

    // Through the core group, only the legacy checks run.
    let core = format!("/api/v1/namespaces/{ns}/events/web-0.synced");
    let (code, body) = send(
        &client,
        "PATCH",
        &core,
        MERGE,
        Some(json!({"message": "again"})),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["message"], "again");
    let (code, body) = send(
        &client,
        "PATCH",
        &core,
        MERGE,
        Some(json!({"reason": "r".repeat(129)})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Event \"web-0.synced\" is invalid: reason: Invalid value: \"\": can have at most 128 characters"
    );
}

/// The fields of a 422's causes, in order.
fn cause_fields(body: &serde_json::Value) -> Vec<String> {
    body["details"]["causes"]
        .as_array()
        .map(|causes| {
            causes
                .iter()
                .map(|c| c["field"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn an_events_own_errors_come_with_its_metadata_errors() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let core = format!("/api/v1/namespaces/{ns}/events");
    let v1 = format!("/apis/events.k8s.io/v1/namespaces/{ns}/events");
    let dry = |path: &str| format!("{path}?dryRun=All");

    // Core v1: the event's own errors alone; the name is then only a path segment.
    let event = json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "Bad_Name", "labels": {"bad key!": "v"}},
        "involvedObject": {"namespace": "other"}});
    let (code, body) = send(&client, "POST", &dry(&core), JSON, Some(event)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Event \"Bad_Name\" is invalid: involvedObject.namespace: Invalid value: \"other\": does not match event.namespace"
    );
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "Bad_Name"},
        "involvedObject": {"namespace": ns}});
    let (code, body) = send(&client, "POST", &dry(&core), JSON, Some(event)).await;
    assert_eq!(code, 201, "{body}");
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "a%b"},
        "involvedObject": {"namespace": ns}});
    let (code, body) = send(&client, "POST", &dry(&core), JSON, Some(event)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Event \"a%b\" is invalid: metadata.name: Invalid value: \"a%b\": may not contain '%'"
    );

    // events.k8s.io/v1: the legacy rules, the metadata, then the strict rules, as a core Event.
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "Bad_Name"}, "regarding": {"namespace": "other"},
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "bad comp!",
        "deprecatedCount": 3});
    let (code, body) = send(&client, "POST", &dry(&v1), JSON, Some(event)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["details"]["kind"], "Event");
    assert_eq!(body["details"]["group"], json!(null));
    assert_eq!(
        cause_fields(&body),
        [
            "reportingController",
            "reportingInstance",
            "action",
            "reason",
            "metadata.name",
            "type",
            "count"
        ]
    );

    // Updates: the generic metadata checks first; through events.k8s.io/v1 the metadata once
    // more between the legacy rules and the strict ones.
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "ev-220"},
        "involvedObject": {"namespace": ns, "kind": "Pod", "name": "p"},
        "reason": "R", "message": "m"});
    let (code, body) = send(&client, "POST", &core, JSON, Some(event)).await;
    assert_eq!(code, 201, "{body}");
    let update = json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "ev-220", "labels": {"bad key!": "v"}},
        "involvedObject": {"namespace": "other", "kind": "Pod", "name": "p"},
        "reason": "R", "message": "m"});
    let one = format!("{core}/ev-220");
    let (code, body) = send(&client, "PUT", &one, JSON, Some(update)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        cause_fields(&body),
        [
            "metadata.labels",
            "metadata.labels",
            "involvedObject.namespace"
        ]
    );
    let update = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "ev-220", "labels": {"bad key!": "v"}},
        "regarding": {"namespace": ns, "kind": "Pod", "name": "q"}, "reason": "R2", "note": "m",
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "bad comp!",
        "series": {"count": 1, "lastObservedTime": "2024-01-01T00:00:00.000000Z"}});
    let (code, body) = send(&client, "PUT", &format!("{v1}/ev-220"), JSON, Some(update)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        cause_fields(&body),
        [
            "metadata.labels",
            "metadata.labels",
            "reportingController",
            "reportingInstance",
            "action",
            "metadata.labels",
            "series.count",
            "involvedObject",
            "reason",
            "reason",
            "eventTime",
            "reportingController"
        ]
    );
    send(&client, "DELETE", &one, "", None).await;
}
