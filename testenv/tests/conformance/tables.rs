//! `kubectl get`'s Tables (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) of built-in
//! kinds: the printer's columns (names, types, priorities: wide columns are always sent), the
//! cells it computes, the row objects `includeObject` asks for, the list's metadata, and the
//! default table of a kind without printer.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{client, exchange};

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/// GET `path` as kubectl does: the status code and the Table.
async fn get_table(client: &kube::Client, path: &str) -> (u16, Value) {
    let (code, headers, bytes) = exchange(client, "GET", path, &[("Accept", TABLE)], None).await;
    if code == 200 {
        // A Table is labelled plain JSON.
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert_eq!(content_type, "application/json");
    }
    (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

async fn write(client: &kube::Client, method: &str, path: &str, content_type: &str, body: Value) {
    let (code, _, bytes) = exchange(
        client,
        method,
        path,
        &[("Content-Type", content_type)],
        Some(&body),
    )
    .await;
    assert!(
        code < 300,
        "{method} {path}: {code} {}",
        String::from_utf8_lossy(&bytes)
    );
}

/// The cells of the first row.
fn first_cells(table: &Value) -> Vec<Value> {
    table["rows"][0]["cells"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// `[name, type, format, priority]` of each column.
fn columns(table: &Value) -> Vec<Value> {
    table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!([c["name"], c["type"], c["format"], c["priority"]]))
        .collect()
}

#[tokio::test]
async fn pods_print_readiness_status_restarts_and_the_wide_cells() {
    let env = env().await;
    let client = client(&env).await;
    let pods = format!("/api/v1/namespaces/{}/pods", env.namespace());
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "a", "image": "nginx"}, {"name": "b", "image": "busybox"}],
            "readinessGates": [{"conditionType": "example.com/gate"}]}});
    write(&client, "POST", &pods, "application/json", pod).await;

    let (code, table) = get_table(&client, &format!("{pods}/web")).await;
    assert_eq!(code, 200, "{table}");
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(
        columns(&table),
        vec![
            json!(["Name", "string", "name", 0]),
            json!(["Ready", "string", "", 0]),
            json!(["Status", "string", "", 0]),
            json!(["Restarts", "string", "", 0]),
            json!(["Age", "string", "", 0]),
            json!(["IP", "string", "", 1]),
            json!(["Node", "string", "", 1]),
            json!(["Nominated Node", "string", "", 1]),
            json!(["Readiness Gates", "string", "", 1]),
        ]
    );
    let cells = first_cells(&table);
    assert_eq!(
        cells[0..4],
        [json!("web"), json!("0/2"), json!("Pending"), json!("0")]
    );
    assert_eq!(
        cells[5..],
        [
            json!("<none>"),
            json!("<none>"),
            json!("<none>"),
            json!("0/1")
        ]
    );
    // The row's object is the pod's metadata, as a PartialObjectMetadata.
    let object = &table["rows"][0]["object"];
    assert_eq!(object["kind"], "PartialObjectMetadata");
    assert_eq!(object["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(object["metadata"]["name"], "web");
    assert!(object.get("spec").is_none());
    assert_eq!(
        table["metadata"]["resourceVersion"],
        object["metadata"]["resourceVersion"]
    );

    let status = json!({"status": {"phase": "Running", "podIPs": [{"ip": "10.1.0.5"}], "podIP": "10.1.0.5",
        "conditions": [{"type": "Ready", "status": "True"}, {"type": "example.com/gate", "status": "True"}],
        "containerStatuses": [
            {"name": "a", "image": "nginx", "imageID": "", "ready": true, "restartCount": 0,
             "state": {"running": {"startedAt": "2024-01-01T00:00:00Z"}}},
            {"name": "b", "image": "busybox", "imageID": "", "ready": false, "restartCount": 2,
             "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
    write(
        &client,
        "PATCH",
        &format!("{pods}/web/status"),
        "application/merge-patch+json",
        status,
    )
    .await;
    let (_, table) = get_table(&client, &format!("{pods}?includeObject=None")).await;
    let row = &table["rows"][0];
    let cells = first_cells(&table);
    assert_eq!(
        cells[1..4],
        [json!("1/2"), json!("CrashLoopBackOff"), json!("2")]
    );
    assert_eq!(cells[5], "10.1.0.5");
    assert_eq!(cells[8], "1/1");
    assert_eq!(row["object"], Value::Null);

    let (_, table) = get_table(&client, &format!("{pods}/web?includeObject=Object")).await;
    let object = &table["rows"][0]["object"];
    assert_eq!(object["kind"], "Pod");
    assert_eq!(object["apiVersion"], "v1");
    assert_eq!(object["status"]["phase"], "Running");
}

#[tokio::test]
async fn a_listed_table_carries_the_lists_metadata_and_number_cells() {
    let env = env().await;
    let client = client(&env).await;
    let maps = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    for (name, data) in [
        ("one", json!({"a": "1"})),
        ("two", json!({"a": "1", "b": "2"})),
    ] {
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"t": "x"}},
            "data": data, "binaryData": {"z": "eg=="}});
        write(&client, "POST", &maps, "application/json", map).await;
    }
    let (code, table) = get_table(&client, &format!("{maps}?labelSelector=t%3Dx&limit=1")).await;
    assert_eq!(code, 200, "{table}");
    assert_eq!(
        columns(&table),
        vec![
            json!(["Name", "string", "name", 0]),
            json!(["Data", "string", "", 0]),
            json!(["Age", "string", "", 0]),
        ]
    );
    // The Data column is declared a string; its cells are numbers (data and binaryData keys).
    assert_eq!(first_cells(&table)[0..2], [json!("one"), json!(2)]);
    assert_eq!(table["rows"].as_array().unwrap().len(), 1);
    let metadata = &table["metadata"];
    assert!(metadata["resourceVersion"].is_string(), "{metadata}");
    assert!(metadata["continue"].is_string(), "{metadata}");
    // A selected list does not count what remains; an unselected one does.
    assert!(metadata.get("remainingItemCount").is_none(), "{metadata}");
    let (_, table) = get_table(&client, &format!("{maps}?limit=1")).await;
    assert!(table["metadata"]["continue"].is_string(), "{table}");
    assert!(
        table["metadata"]["remainingItemCount"].as_i64() >= Some(1),
        "{table}"
    );
}

#[tokio::test]
async fn kinds_without_printer_get_the_default_table() {
    let env = env().await;
    let client = client(&env).await;
    let roles = format!(
        "/apis/rbac.authorization.k8s.io/v1/namespaces/{}/roles",
        env.namespace()
    );
    let (code, table) = get_table(&client, &roles).await;
    assert_eq!(code, 200, "{table}");
    assert_eq!(
        columns(&table),
        vec![
            json!(["Name", "string", "name", 0]),
            json!(["Created At", "date", "", 0]),
        ]
    );
    // An empty default table has no rows at all.
    assert_eq!(table["rows"], Value::Null);

    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "reader"}, "rules": []});
    write(&client, "POST", &roles, "application/json", role).await;
    let (_, table) = get_table(&client, &format!("{roles}/reader")).await;
    let cells = table["rows"][0]["cells"].as_array().unwrap().clone();
    assert_eq!(cells[0], "reader");
    // The creation time as RFC 3339, not an age.
    let created = cells[1].as_str().unwrap();
    assert!(created.ends_with('Z') && created.contains('T'), "{created}");
}

#[tokio::test]
async fn events_and_bindings_print_what_kubectl_shows() {
    let env = env().await;
    let client = client(&env).await;
    let ns = env.namespace();
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "started"},
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": ns, "fieldPath": "spec.containers{a}"},
        "reason": "Started", "message": " Started container a\n", "type": "Normal",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2024-01-01T00:00:00Z", "lastTimestamp": "2024-01-02T00:00:00Z", "count": 3});
    let events = format!("/api/v1/namespaces/{ns}/events");
    write(&client, "POST", &events, "application/json", event).await;
    let (_, table) = get_table(&client, &format!("{events}/started")).await;
    assert_eq!(
        columns(&table),
        vec![
            json!(["Last Seen", "string", "", 0]),
            json!(["Type", "string", "", 0]),
            json!(["Reason", "string", "", 0]),
            json!(["Object", "string", "", 0]),
            json!(["Subobject", "string", "", 1]),
            json!(["Source", "string", "", 1]),
            json!(["Message", "string", "", 0]),
            json!(["First Seen", "string", "", 1]),
            json!(["Count", "string", "", 1]),
            json!(["Name", "string", "name", 1]),
        ]
    );
    let cells = first_cells(&table);
    assert_eq!(
        cells[1..7],
        [
            json!("Normal"),
            json!("Started"),
            json!("pod/web"),
            json!("spec.containers{a}"),
            json!("kubelet, node-1"),
            json!("Started container a"),
        ]
    );
    assert_eq!(cells[8..], [json!(3), json!("started")]);

    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "readers"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [
            {"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"},
            {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"},
            {"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"},
            {"kind": "ServiceAccount", "name": "robot", "namespace": ns}]});
    let bindings = format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings");
    write(&client, "POST", &bindings, "application/json", binding).await;
    let (_, table) = get_table(&client, &format!("{bindings}/readers")).await;
    let cells = first_cells(&table);
    assert_eq!(cells[1], "ClusterRole/view");
    assert_eq!(
        cells[3..],
        [
            json!("alice, bob"),
            json!("devs"),
            json!(format!("{ns}/robot")),
        ]
    );
}

#[tokio::test]
async fn component_statuses_answer_a_table_without_resource_version() {
    let env = env().await;
    let client = client(&env).await;
    let (code, table) = get_table(&client, "/api/v1/componentstatuses/etcd-0").await;
    assert_eq!(code, 200, "{table}");
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["metadata"], json!({}));
    assert_eq!(
        table["rows"][0]["cells"],
        json!(["etcd-0", "Healthy", "ok", ""])
    );
    let (_, table) = get_table(
        &client,
        "/api/v1/componentstatuses?fieldSelector=metadata.name%3Dnone",
    )
    .await;
    assert_eq!(table["rows"], json!([]));
    assert_eq!(columns(&table).len(), 4);
}
