//! `coordination.k8s.io`: Leases, the objects leader election and node heartbeats are made
//! of: their fields kept to the microsecond, their checks, and the fields of a feature that
//! is off by default dropped.

use serde_json::json;

use crate::common::env;
use crate::support::raw::send;

const JSON: &str = "application/json";

#[tokio::test]
async fn leases_keep_their_fields_and_refuse_impossible_durations() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let base = format!(
        "/apis/coordination.k8s.io/v1/namespaces/{}/leases",
        env.namespace()
    );
    let spec = json!({"holderIdentity": "manager-1", "leaseDurationSeconds": 15,
        "acquireTime": "2024-01-01T00:00:00.000000Z", "renewTime": "2024-01-01T00:00:01.123456Z",
        "leaseTransitions": 2});
    let mut sent = spec.clone();
    sent["strategy"] = json!("OldestEmulationVersion");
    sent["preferredHolder"] = json!("manager-2");
    let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": "leader"}, "spec": sent});
    let (code, created) = send(&client, "POST", &base, JSON, Some(lease)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"], spec,
        "the CoordinatedLeaderElection fields are dropped while the feature is off"
    );
    let path = format!("{base}/leader");
    let renew = json!({"spec": {"holderIdentity": "manager-2", "renewTime": "2024-01-01T00:00:16.000001Z",
        "leaseTransitions": 3}});
    let merge = "application/merge-patch+json";
    let (code, renewed) = send(&client, "PATCH", &path, merge, Some(renew)).await;
    assert_eq!(code, 200, "{renewed}");
    let (_, read) = send(&client, "GET", &path, "", None).await;
    assert_eq!(read["spec"]["renewTime"], "2024-01-01T00:00:16.000001Z");
    assert_eq!(read["spec"]["holderIdentity"], "manager-2");
    assert_eq!(read["spec"]["acquireTime"], "2024-01-01T00:00:00.000000Z");
    assert_eq!(read["metadata"].get("generation"), None);

    let bad = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": "bad"}, "spec": {"leaseDurationSeconds": 0, "leaseTransitions": -1}});
    let (code, body) = send(&client, "POST", &base, JSON, Some(bad)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Lease.coordination.k8s.io \"bad\" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]"
    );
    let (code, body) = send(
        &client,
        "PATCH",
        &path,
        merge,
        Some(json!({"spec": {"leaseDurationSeconds": -5}})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "Lease.coordination.k8s.io \"leader\" is invalid: spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0"
    );
    let (code, _) = send(&client, "DELETE", &path, "", None).await;
    assert_eq!(code, 200);
    let (code, _) = send(&client, "GET", &path, "", None).await;
    assert_eq!(code, 404);
}
