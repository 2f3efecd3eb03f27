//! `scheduling.k8s.io`: PriorityClasses (reserved names, the user range, a value that never
//! changes) and the Priority and DefaultTolerationSeconds admission plugins they drive.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::send;

const CLASSES: &str = "/apis/scheduling.k8s.io/v1/priorityclasses";

fn class(name: &str, value: i64) -> Value {
    json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": name}, "value": value})
}

fn pod(name: &str, spec: Value) -> Value {
    let mut spec = spec;
    spec["containers"] = json!([{"name": "c", "image": "busybox"}]);
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
}

#[tokio::test]
async fn priority_classes_reserve_names_and_keep_their_value() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let json = "application/json";
    let (code, body) = send(
        &client,
        "POST",
        CLASSES,
        json,
        Some(class("system-mine", 10)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "PriorityClass.scheduling.k8s.io \"system-mine\" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"
    );
    let high = format!("too-high-{}", env.namespace());
    let (code, body) = send(
        &client,
        "POST",
        CLASSES,
        json,
        Some(class(&high, 1_000_000_001)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "PriorityClass.scheduling.k8s.io \"{high}\" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000"
        ))
    );

    let name = format!("important-{}", env.namespace());
    let (code, created) = send(&client, "POST", CLASSES, json, Some(class(&name, 1000))).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["preemptionPolicy"], "PreemptLowerPriority");
    let path = format!("{CLASSES}/{name}");
    let merge = "application/merge-patch+json";
    let patch = json!({"value": 5, "preemptionPolicy": "Never"});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "PriorityClass.scheduling.k8s.io \"{name}\" is invalid: [value: Forbidden: may not be changed in an update., preemptionPolicy: Invalid value: \"Never\": field is immutable]"
        ))
    );
    let (code, body) = send(
        &client,
        "PATCH",
        &path,
        merge,
        Some(json!({"description": "d"})),
    )
    .await;
    assert_eq!((code, &body["description"]), (200, &json!("d")), "{body}");

    // Pods take their priority from the class, or 0 without one, and tolerate a lost node
    // for five minutes.
    let pods = format!("/api/v1/namespaces/{}/pods", env.namespace());
    let (code, ranked) = send(
        &client,
        "POST",
        &pods,
        json,
        Some(pod("ranked", json!({"priorityClassName": name}))),
    )
    .await;
    assert_eq!(code, 201, "{ranked}");
    assert_eq!(ranked["spec"]["priority"], 1000);
    assert_eq!(ranked["spec"]["preemptionPolicy"], "PreemptLowerPriority");
    let tolerations: Vec<(Value, Value)> = ranked["spec"]["tolerations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["key"].clone(), t["tolerationSeconds"].clone()))
        .collect();
    assert_eq!(
        tolerations,
        [
            (json!("node.kubernetes.io/not-ready"), json!(300)),
            (json!("node.kubernetes.io/unreachable"), json!(300))
        ]
    );
    let (code, plain) = send(&client, "POST", &pods, json, Some(pod("plain", json!({})))).await;
    assert_eq!(code, 201, "{plain}");
    assert_eq!(plain["spec"]["priority"], 0);
    assert_eq!(plain["spec"].get("priorityClassName"), None);

    let (code, body) = send(
        &client,
        "POST",
        &pods,
        json,
        Some(pod("lost", json!({"priorityClassName": "no-such-class"}))),
    )
    .await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "pods \"lost\" is forbidden: no PriorityClass with name no-such-class was found"
    );
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        json,
        Some(pod("forced", json!({"priority": 7}))),
    )
    .await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "pods \"forced\" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name"
    );
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn priority_class_preemption_policies_and_system_names_are_checked_in_order() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let json = "application/json";
    let dry = format!("{CLASSES}?dryRun=All");
    let mut bad = class("system-mine", 10);
    bad["metadata"]["generateName"] = json!("a/");
    bad["preemptionPolicy"] = json!("Bad");
    let (code, body) = send(&client, "POST", &dry, json, Some(bad)).await;
    assert_eq!(code, 422, "{body}");
    let fields: Vec<&str> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["field"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        fields,
        ["metadata.generateName", "metadata.name", "preemptionPolicy"]
    );
    assert_eq!(
        body["details"]["causes"][2]["message"],
        "Unsupported value: \"Bad\": supported values: \"PreemptLowerPriority\", \"Never\""
    );
    let mut known = class("system-node-critical", 5);
    known["preemptionPolicy"] = json!("");
    let (code, body) = send(&client, "POST", &dry, json, Some(known)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "PriorityClass.scheduling.k8s.io \"system-node-critical\" is invalid: [metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000, preemptionPolicy: Required value]"
    );
    let mut never = class("never-dry", 10);
    never["preemptionPolicy"] = json!("Never");
    let (code, body) = send(&client, "POST", &dry, json, Some(never)).await;
    assert_eq!(
        (code, &body["preemptionPolicy"]),
        (201, &json!("Never")),
        "{body}"
    );

    let name = format!("policy-{}", env.namespace());
    let (code, created) = send(&client, "POST", CLASSES, json, Some(class(&name, 10))).await;
    assert_eq!(code, 201, "{created}");
    let path = format!("{CLASSES}/{name}");
    let merge = "application/merge-patch+json";
    let patch = json!({"metadata": {"generateName": "a/b%"}, "preemptionPolicy": "Bad"});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "PriorityClass.scheduling.k8s.io \"{name}\" is invalid: [metadata.generateName: Invalid value: \"a/b%\": may not contain '/', metadata.generateName: Invalid value: \"a/b%\": may not contain '%', preemptionPolicy: Invalid value: \"Bad\": field is immutable]"
        ))
    );
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn a_new_pods_affinity_label_keys_join_its_selectors() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let json = "application/json";
    let pods = format!("/api/v1/namespaces/{}/pods?dryRun=All", env.namespace());
    let mut merged = pod(
        "keys",
        json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"x": "y"}}, "topologyKey": "zone",
             "matchLabelKeys": ["app", "absent"], "mismatchLabelKeys": ["tier"]}]}},
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
            "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}, "matchLabelKeys": ["app"]}]}),
    );
    merged["metadata"]["labels"] = json!({"app": "web", "tier": "front"});
    let (code, body) = send(&client, "POST", &pods, json, Some(merged.clone())).await;
    assert_eq!(code, 201, "{body}");
    let term = &body["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        [0];
    assert_eq!(
        term["labelSelector"],
        json!({"matchLabels": {"x": "y"}, "matchExpressions": [
            {"key": "app", "operator": "In", "values": ["web"]},
            {"key": "tier", "operator": "NotIn", "values": ["front"]}]})
    );
    assert_eq!(
        body["spec"]["topologySpreadConstraints"][0]["labelSelector"],
        json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]})
    );

    // A key the sent selector names is named twice once merged; a key in both lists.
    let mut twice = merged;
    twice["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        [0] = json!({"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone",
            "matchLabelKeys": ["app", "Bad Key"], "mismatchLabelKeys": ["app"]});
    twice["spec"]["topologySpreadConstraints"][0]["labelSelector"] = Value::Null;
    let (code, body) = send(&client, "POST", &pods, json, Some(twice)).await;
    assert_eq!(code, 422, "{body}");
    let term = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]";
    let causes: Vec<(&str, &str)> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["field"].as_str().unwrap_or_default(),
                c["message"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let name_rule = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    assert_eq!(
        causes,
        [
            (
                format!("{term}.matchLabelKeys[1]").as_str(),
                format!("Invalid value: \"Bad Key\": {name_rule}").as_str()
            ),
            (
                format!("{term}[0]").as_str(),
                "Invalid value: \"app\": exists in both matchLabelKeys and labelSelector"
            ),
            (
                format!("{term}[0]").as_str(),
                "Invalid value: \"app\": exists in both matchLabelKeys and labelSelector"
            ),
            (
                format!("{term}.matchLabelKeys[0]").as_str(),
                "Invalid value: \"app\": exists in both matchLabelKeys and mismatchLabelKeys"
            ),
            (
                "spec.topologySpreadConstraints[0].matchLabelKeys",
                "Forbidden: must not be specified when labelSelector is not set"
            ),
        ]
    );
}
