//! `flowcontrol.apiserver.k8s.io`: the FlowSchemas and PriorityLevelConfigurations every
//! server starts with, what a new one gets and may not claim, the `Dangling` condition that
//! says whether a FlowSchema's priority level exists, and the schema and level each request is
//! classified into, named by UID in its answer's headers (with its `Audit-Id`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{eventually, exchange, send};

const FC: &str = "/apis/flowcontrol.apiserver.k8s.io/v1";

#[tokio::test]
async fn the_bootstrap_flow_schemas_and_priority_levels_are_there() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let (code, schemas) = send(&client, "GET", &format!("{FC}/flowschemas"), "", None).await;
    assert_eq!(code, 200, "{schemas}");
    let bootstrap: BTreeMap<String, (Value, Value)> = schemas["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"] == "true")
        .map(|s| {
            (
                s["metadata"]["name"].as_str().unwrap().to_string(),
                (
                    s["spec"]["matchingPrecedence"].clone(),
                    s["spec"]["priorityLevelConfiguration"]["name"].clone(),
                ),
            )
        })
        .collect();
    let expected: BTreeMap<String, (Value, Value)> = [
        ("catch-all", 10000, "catch-all"),
        ("exempt", 1, "exempt"),
        ("global-default", 9900, "global-default"),
        ("kube-controller-manager", 800, "workload-high"),
        ("kube-scheduler", 800, "workload-high"),
        ("kube-system-service-accounts", 900, "workload-high"),
        ("probes", 2, "exempt"),
        ("service-accounts", 9000, "workload-low"),
        ("system-leader-election", 100, "leader-election"),
        ("system-node-high", 400, "node-high"),
        ("system-nodes", 500, "system"),
    ]
    .into_iter()
    .map(|(n, p, l)| (n.to_string(), (json!(p), json!(l))))
    .collect();
    assert_eq!(bootstrap, expected);

    let (code, levels) = send(
        &client,
        "GET",
        &format!("{FC}/prioritylevelconfigurations"),
        "",
        None,
    )
    .await;
    assert_eq!(code, 200, "{levels}");
    let types: BTreeMap<&str, &str> = levels["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["metadata"]["name"].as_str().unwrap(),
                l["spec"]["type"].as_str().unwrap(),
            )
        })
        .collect();
    for (name, kind) in [
        ("catch-all", "Limited"),
        ("exempt", "Exempt"),
        ("global-default", "Limited"),
        ("leader-election", "Limited"),
        ("node-high", "Limited"),
        ("system", "Limited"),
        ("workload-high", "Limited"),
        ("workload-low", "Limited"),
    ] {
        assert_eq!(types.get(name), Some(&kind), "{name}");
    }
    // The mandatory ones: everything from system:masters is exempt, the rest is caught.
    let (_, exempt) = send(
        &client,
        "GET",
        &format!("{FC}/flowschemas/exempt"),
        "",
        None,
    )
    .await;
    assert_eq!(
        exempt["spec"]["rules"][0]["subjects"],
        json!([{"kind": "Group", "group": {"name": "system:masters"}}])
    );
    let (_, catch_all) = send(
        &client,
        "GET",
        &format!("{FC}/prioritylevelconfigurations/catch-all"),
        "",
        None,
    )
    .await;
    assert_eq!(
        catch_all["spec"]["limited"]["limitResponse"],
        json!({"type": "Reject"})
    );
}

#[tokio::test]
async fn new_priority_levels_are_defaulted_and_only_exempt_comes_first() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let json_type = "application/json";
    let ns = env.namespace();
    let level = format!("batch-{ns}");
    let body = json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration", "metadata": {"name": level},
        "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}});
    let levels = format!("{FC}/prioritylevelconfigurations");
    let (code, created) = send(&client, "POST", &levels, json_type, Some(body)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"]["limited"],
        json!({"nominalConcurrencyShares": 30, "lendablePercent": 0,
            "limitResponse": {"type": "Reject"}})
    );
    assert_eq!(created["status"], json!({}));

    let schema = |name: &str, precedence: i64| {
        json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
            "metadata": {"name": name},
            "spec": {"priorityLevelConfiguration": {"name": level}, "matchingPrecedence": precedence}})
    };
    let schemas = format!("{FC}/flowschemas");
    let first = format!("first-{ns}");
    let (code, body) = send(
        &client,
        "POST",
        &schemas,
        json_type,
        Some(schema(&first, 1)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "FlowSchema.flowcontrol.apiserver.k8s.io \"{first}\" is invalid: spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"
        ))
    );
    let mine = format!("batch-{ns}");
    let (code, created) = send(
        &client,
        "POST",
        &schemas,
        json_type,
        Some(schema(&mine, 5000)),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["status"], json!({}));
    assert_eq!(created["spec"]["matchingPrecedence"], 5000);
    let dangling = |name: String| {
        let (client, path) = (client.clone(), format!("{schemas}/{name}"));
        async move {
            eventually(10, || async {
                let (_, schema) = send(&client, "GET", &path, "", None).await;
                let condition = schema["status"]["conditions"]
                    .as_array()?
                    .iter()
                    .find(|c| c["type"] == "Dangling")?
                    .clone();
                Some((
                    condition["status"].clone(),
                    condition["reason"].clone(),
                    condition["message"].clone(),
                ))
            })
            .await
            .expect("the FlowSchema gets a Dangling condition")
        }
    };
    assert_eq!(
        dangling(mine.clone()).await,
        (
            json!("False"),
            json!("Found"),
            json!(format!(
                "This FlowSchema references the PriorityLevelConfiguration object named \"{level}\" and it exists"
            ))
        )
    );
    let mut lost = schema(&format!("lost-{ns}"), 6000);
    lost["spec"]["priorityLevelConfiguration"]["name"] = json!("no-such-level");
    let (code, created) = send(&client, "POST", &schemas, json_type, Some(lost)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        dangling(format!("lost-{ns}")).await,
        (
            json!("True"),
            json!("NotFound"),
            json!(
                "This FlowSchema references the PriorityLevelConfiguration object named \"no-such-level\" but there is no such object"
            )
        )
    );
    assert_eq!(
        dangling("exempt".into()).await.1,
        json!("Found"),
        "the bootstrap schemas are not dangling"
    );
    send(&client, "DELETE", &format!("{schemas}/lost-{ns}"), "", None).await;
    send(&client, "DELETE", &format!("{schemas}/{mine}"), "", None).await;
    send(&client, "DELETE", &format!("{levels}/{level}"), "", None).await;
}

/// The `field: message` of each cause of a refusal.
fn flow_causes(answer: &Value) -> Vec<String> {
    answer["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{}: {}",
                c["field"].as_str().unwrap_or(""),
                c["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[tokio::test]
async fn priority_levels_and_flow_schemas_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let json_type = "application/json";
    let levels = format!("{FC}/prioritylevelconfigurations?dryRun=All");
    let level = |name: &str, spec: Value| {
        json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1",
            "kind": "PriorityLevelConfiguration", "metadata": {"name": name}, "spec": spec})
    };
    let bad = level(
        "bad",
        json!({"type": "Limited", "exempt": {}, "limited": {"nominalConcurrencyShares": -1,
            "lendablePercent": 101, "borrowingLimitPercent": -2,
            "limitResponse": {"type": "Queue", "queuing": {"queues": 10000000, "handSize": 8}}}}),
    );
    let (code, answer) = send(&client, "POST", &levels, json_type, Some(bad)).await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        flow_causes(&answer),
        [
            "spec.exempt: Forbidden: must be nil if the type is Limited",
            "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
            "spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 10000000 and handSize 8 should not be greater than 60",
            "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
            "spec.limited.borrowingLimitPercent: Invalid value: -2: if specified, must be a non-negative integer",
        ]
    );
    let repurposed = level("catch-all", json!({"type": "Exempt"}));
    let (code, answer) = send(&client, "POST", &levels, json_type, Some(repurposed)).await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        flow_causes(&answer),
        [
            "spec.type: Invalid value: \"Exempt\": must be 'Exempt' if and only if `name` is 'exempt'",
            r#"spec: Invalid value: {"Type":"Exempt","Limited":null,"Exempt":null}: spec of 'catch-all' must equal the fixed value"#,
        ]
    );
    let schemas = format!("{FC}/flowschemas?dryRun=All");
    let schema = json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
        "metadata": {"name": "bad"},
        "spec": {"priorityLevelConfiguration": {"name": ""}, "matchingPrecedence": 20000,
            "distinguisherMethod": {"type": "ByNothing"},
            "rules": [{"subjects": [{"kind": "User"}],
                "resourceRules": [{"verbs": ["fly"], "apiGroups": ["*", "apps"],
                    "resources": ["pods"], "namespaces": ["*", "x"]}],
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["bad", "/ok/*/x"]}]}]}});
    let (code, answer) = send(&client, "POST", &schemas, json_type, Some(schema)).await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        flow_causes(&answer),
        [
            "spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000",
            r#"spec.distinguisherMethod.type: Unsupported value: {"Type":"ByNothing"}: supported values: "ByNamespace", "ByUser""#,
            "spec.priorityLevelConfiguration.name: Required value: must reference a priority level",
            "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'",
            r#"spec.rules[0].resourceRules[0].verbs: Unsupported value: ["fly"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch""#,
            r#"spec.rules[0].resourceRules[0].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other api groups"#,
            r#"spec.rules[0].resourceRules[0].namespaces: Invalid value: ["*","x"]: if '*' is present, must not specify other namespaces"#,
            r#"spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "bad": must start with slash"#,
            r#"spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/ok/*/x": wildcard can only do suffix matching"#,
        ]
    );
}

/// The UIDs of the FlowSchemas and PriorityLevelConfigurations, by name.
async fn flow_uids(client: &kube::Client) -> BTreeMap<String, String> {
    let mut uids = BTreeMap::new();
    for plural in ["flowschemas", "prioritylevelconfigurations"] {
        let (code, list) = send(client, "GET", &format!("{FC}/{plural}"), "", None).await;
        assert_eq!(code, 200, "{list}");
        for item in list["items"].as_array().unwrap() {
            let name = item["metadata"]["name"].as_str().unwrap();
            let uid = item["metadata"]["uid"].as_str().unwrap();
            uids.insert(format!("{plural}/{name}"), uid.to_string());
        }
    }
    uids
}

/// The flow schema and priority level UIDs an answer names (empty when it names none).
fn classified(headers: &http::HeaderMap) -> (String, String) {
    let header = |name: &str| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    (
        header("x-kubernetes-pf-flowschema-uid"),
        header("x-kubernetes-pf-prioritylevel-uid"),
    )
}

/// Each request is classified into the first FlowSchema by precedence (then name) whose rules
/// match the user it acts as and what it asks for, and its answer names that schema and its
/// priority level by UID: after impersonation, before authorization (a 403 is classified, a
/// 401 is not), watches included, other long-running requests (a pod's log) not. A new
/// FlowSchema takes the requests it matches; one whose priority level is missing takes none.
/// Every answer has an `Audit-Id`, the client's own if it sent one.
#[tokio::test]
async fn requests_are_classified_into_flow_schemas_by_their_user() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let uids = flow_uids(&client).await;
    let expect = |schema: &str, level: &str| {
        (
            uids[&format!("flowschemas/{schema}")].clone(),
            uids[&format!("prioritylevelconfigurations/{level}")].clone(),
        )
    };
    let path = format!("/api/v1/namespaces/{ns}/configmaps");
    let as_user = |user: &str| {
        let client = client.clone();
        let (path, user) = (path.clone(), user.to_string());
        async move {
            let (code, headers, _) =
                exchange(&client, "GET", &path, &[("Impersonate-User", &user)], None).await;
            (code, classified(&headers))
        }
    };
    // Anyone authenticated: global-default, refused by authorization or not.
    assert_eq!(
        as_user("flow-alice").await,
        (403, expect("global-default", "global-default"))
    );
    assert_eq!(
        as_user(&format!("system:serviceaccount:{ns}:robot")).await,
        (403, expect("service-accounts", "workload-low"))
    );
    assert_eq!(
        as_user("system:serviceaccount:kube-system:robot").await,
        (403, expect("kube-system-service-accounts", "workload-high"))
    );
    // A watch is classified; a pod's log, long-running, is not.
    let (code, headers, _) = exchange(
        &client,
        "GET",
        &format!("{path}?watch=1&timeoutSeconds=1"),
        &[
            ("Impersonate-User", "flow-alice"),
            ("Impersonate-Group", "system:masters"),
        ],
        None,
    )
    .await;
    assert_eq!(
        (code, classified(&headers)),
        (200, expect("exempt", "exempt"))
    );
    let (code, headers, _) = exchange(
        &client,
        "GET",
        &format!("/api/v1/namespaces/{ns}/pods/absent/log"),
        &[],
        None,
    )
    .await;
    assert_eq!(
        (code, classified(&headers)),
        (404, (String::new(), String::new()))
    );
    // An unauthenticated request is refused before classification, with its audit ID.
    // (The embedded server takes a token it does not know; one that looks like its own but
    // is not is refused, as the real server refuses any token it cannot verify.)
    let forged = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.AAAA";
    let stranger = crate::support::raw::client_with_token(&env, forged).await;
    let (code, headers, _) = exchange(&stranger, "GET", &path, &[], None).await;
    assert_eq!(
        (code, classified(&headers)),
        (401, (String::new(), String::new()))
    );
    assert_eq!(headers["audit-id"].len(), 36, "{headers:?}");
    let (_, headers, _) = exchange(
        &client,
        "GET",
        "/version",
        &[("Audit-ID", "flow-audit-1")],
        None,
    )
    .await;
    assert_eq!(headers["audit-id"], "flow-audit-1");

    // A schema of one's own, before global-default; and one whose level does not exist.
    let name = format!("{ns}-flow");
    let schema = |name: &str, level: &str, precedence: u32| {
        json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
            "metadata": {"name": name},
            "spec": {"priorityLevelConfiguration": {"name": level}, "matchingPrecedence": precedence,
                "rules": [{"subjects": [{"kind": "User", "user": {"name": "flow-alice"}}],
                    "resourceRules": [{"verbs": ["get", "list"], "apiGroups": [""],
                        "resources": ["configmaps"], "namespaces": ["*"]}]}]}})
    };
    let dangling = format!("{ns}-flow-dangling");
    let created = send(
        &client,
        "POST",
        &format!("{FC}/flowschemas"),
        "application/json",
        Some(schema(&dangling, &format!("{ns}-missing"), 400)),
    )
    .await;
    assert_eq!(created.0, 201, "{}", created.1);
    let created = send(
        &client,
        "POST",
        &format!("{FC}/flowschemas"),
        "application/json",
        Some(schema(&name, "workload-low", 500)),
    )
    .await;
    assert_eq!(created.0, 201, "{}", created.1);
    let own = created.1["metadata"]["uid"].as_str().unwrap().to_string();
    let workload_low = expect("service-accounts", "workload-low").1;
    let taken = eventually(10, || async {
        let (_, flow) = as_user("flow-alice").await;
        (flow.0 == own).then_some(flow)
    })
    .await;
    for gone in [&name, &dangling] {
        send(
            &client,
            "DELETE",
            &format!("{FC}/flowschemas/{gone}"),
            "",
            None,
        )
        .await;
    }
    assert_eq!(taken, Some((own, workload_low)));
}
