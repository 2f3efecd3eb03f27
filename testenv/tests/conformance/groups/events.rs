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
