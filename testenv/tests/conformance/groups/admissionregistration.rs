//! `admissionregistration.k8s.io`: ValidatingAdmissionPolicies and their bindings refuse or
//! warn about writes with the real server's messages (the webhook configurations have their
//! own modules, `admission` and `admission_validation`).

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{causes, client, eventually, send};

fn deployment(name: &str, replicas: i64, labels: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})
}

#[tokio::test]
async fn policies_refuse_and_warn_with_the_real_messages() {
    let env = env().await;
    let ns = env.namespace().to_string();
    let client = client(&env).await;
    let suffix = ns.clone();
    let policy_name = format!("max-replicas-{suffix}");
    let binding_name = format!("max-replicas-{suffix}-binding");
    // Only this test's namespace is covered, whatever else runs on the cluster.
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .patch(
            &ns,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"vap-test": suffix}}})),
        )
        .await
        .unwrap();
    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let limits: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "limits"}, "data": {"max": "5"}}))
            .unwrap();
    maps.create(&PostParams::default(), &limits).await.unwrap();
    let policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": policy_name},
        "spec": {"failurePolicy": "Fail", "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}]},
            "matchConditions": [{"name": "not-exempt", "expression": "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)"}],
            "variables": [{"name": "max", "expression": "int(params.data.max)"}],
            "validations": [
                {"expression": "object.spec.replicas <= variables.max",
                 "messageExpression": "'replicas must be at most ' + string(variables.max)", "reason": "Forbidden"},
                {"expression": "object.metadata.name.startsWith('app-')", "message": "name must start with app-"},
                {"expression": "object.spec.replicas != 3"}]}});
    let (code, created) = send(&client, "POST", policies, "application/json", Some(policy)).await;
    assert_eq!(code, 201, "{created}");
    let bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": binding_name},
        "spec": {"policyName": policy_name, "validationActions": ["Deny"],
            "paramRef": {"name": "limits", "namespace": ns, "parameterNotFoundAction": "Deny"},
            "matchResources": {"namespaceSelector": {"matchLabels": {"vap-test": suffix}}}}});
    let (code, body) = send(&client, "POST", bindings, "application/json", Some(binding)).await;
    assert_eq!(code, 201, "{body}");

    let deployments = format!("/apis/apps/v1/namespaces/{ns}/deployments");
    let prefix = format!("ValidatingAdmissionPolicy '{policy_name}' with binding '{binding_name}'");
    // A real server applies new policies within a moment (writes before that go through).
    let attempt = std::sync::atomic::AtomicUsize::new(0);
    let (code, body, name) = eventually(20, || async {
        let name = format!(
            "app-{}",
            attempt.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        );
        let (code, body) = send(
            &client,
            "POST",
            &deployments,
            "application/json",
            Some(deployment(&name, 7, json!({}))),
        )
        .await;
        (code != 201).then_some((code, body, name))
    })
    .await
    .expect("the policy refuses seven replicas");
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "deployments.apps \"{name}\" is forbidden: {prefix} denied request: replicas must be at most 5"
        ))
    );
    assert_eq!(
        body["details"]["causes"],
        json!([{"message": format!("{prefix} denied request: replicas must be at most 5")}])
    );
    let (code, body) = send(
        &client,
        "POST",
        &deployments,
        "application/json",
        Some(deployment("bad", 1, json!({}))),
    )
    .await;
    assert_eq!((code, &body["reason"]), (422, &json!("Invalid")));
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .ends_with("denied request: name must start with app-"),
        "{body}"
    );
    let (code, body) = send(
        &client,
        "POST",
        &deployments,
        "application/json",
        Some(deployment("app-c", 3, json!({}))),
    )
    .await;
    assert_eq!(code, 422);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .ends_with("denied request: failed expression: object.spec.replicas != 3"),
        "{body}"
    );
    let (code, _) = send(
        &client,
        "POST",
        &deployments,
        "application/json",
        Some(deployment("exempted", 9, json!({"exempt": "yes"}))),
    )
    .await;
    assert_eq!(code, 201, "match conditions leave it out");
    let (code, body) = send(
        &client,
        "POST",
        &deployments,
        "application/json",
        Some(deployment("app-ok", 2, json!({}))),
    )
    .await;
    assert_eq!(code, 201, "{body}");

    // Warn: the write goes through with one warning per failed validation.
    let path = format!("{bindings}/{binding_name}");
    let warn = json!({"spec": {"validationActions": ["Warn"]}});
    let (code, _) = send(
        &client,
        "PATCH",
        &path,
        "application/merge-patch+json",
        Some(warn),
    )
    .await;
    assert_eq!(code, 200);
    let warned = eventually(20, || async {
        let request = http::Request::post(&deployments)
            .header("Content-Type", "application/json")
            .body(deployment("warned", 7, json!({})).to_string().into_bytes())
            .unwrap();
        let response = client
            .send(request.map(kube::client::Body::from))
            .await
            .unwrap();
        let warnings: Vec<String> = response
            .headers()
            .get_all("Warning")
            .iter()
            .filter_map(|w| w.to_str().ok().map(String::from))
            .collect();
        (response.status().as_u16() == 201).then_some(warnings)
    })
    .await
    .expect("the warned write is stored");
    assert_eq!(
        warned,
        vec![
            format!("299 - \"Validation failed for {prefix}: replicas must be at most 5\""),
            format!("299 - \"Validation failed for {prefix}: name must start with app-\""),
        ]
    );

    // Params that are not there, with `Deny`: every write is refused.
    let missing = json!({"spec": {"validationActions": ["Deny"], "paramRef": {"name": "nowhere"}}});
    send(
        &client,
        "PATCH",
        &path,
        "application/merge-patch+json",
        Some(missing),
    )
    .await;
    let refused = eventually(20, || async {
        let (code, body) = send(
            &client,
            "POST",
            &deployments,
            "application/json",
            Some(deployment("app-z", 1, json!({}))),
        )
        .await;
        (code == 422).then_some(body)
    })
    .await
    .expect("no params: refused");
    assert!(
        refused["message"].as_str().unwrap().ends_with(
            "denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
        ),
        "{refused}"
    );
    let (_, policy) = send(
        &client,
        "GET",
        &format!("{policies}/{policy_name}"),
        "",
        None,
    )
    .await;
    assert_eq!(policy["status"]["observedGeneration"], 1, "{policy}");
    send(&client, "DELETE", &path, "", None).await;
    send(
        &client,
        "DELETE",
        &format!("{policies}/{policy_name}"),
        "",
        None,
    )
    .await;
}

#[tokio::test]
async fn policies_that_do_not_compile_are_refused() {
    let env = env().await;
    let client = client(&env).await;
    let name = format!("bad-expr-{}", env.namespace());
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
            "operations": ["CREATE"], "resources": ["configmaps"]}]},
            "validations": [{"expression": "object.data.x =="}, {"expression": "foo.bar"}]}});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
        "application/json",
        Some(policy),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let causes = body["details"]["causes"].as_array().unwrap();
    assert_eq!(causes.len(), 2, "{body}");
    assert_eq!(causes[0]["field"], "spec.validations[0].expression");
    assert!(
        causes[1]["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid value: \"foo.bar\": compilation failed: ERROR: <input>:"),
        "{body}"
    );
    assert!(
        causes[1]["message"]
            .as_str()
            .unwrap()
            .contains("undeclared reference to 'foo'")
    );
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name}, "spec": {"policyName": "x"}});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
        "application/json",
        Some(binding),
    )
    .await;
    assert_eq!(code, 422);
    assert_eq!(
        body["message"],
        json!(format!(
            "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io \"{name}\" is invalid: spec.validationActions: Required value: at least one validation action is required"
        ))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_called_only_when_their_match_conditions_hold() {
    use crate::admission::{Ctx, recording_server, rules};
    use crate::support::webhook_server;
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) =
        recording_server(&[], |review| webhook_server::deny(review, 403, "no")).await;
    ctx.validating(
        "conditions",
        vec![ctx.hook(
            "conditions.conformance.kubeforge.dev",
            server.client_config("/v"),
            rules("", &["configmaps"], &["CREATE"]),
            json!({"matchConditions": [
                {"name": "not-skipped", "expression": "object.metadata.name != 'skipped'"},
                {"name": "by-anyone", "expression": "request.operation == 'CREATE'"},
            ]}),
        )],
    )
    .await;
    let maps: Api<ConfigMap> = Api::namespaced(ctx.env.client(), ctx.ns());
    let map = |name: &str| -> ConfigMap {
        serde_json::from_value(json!({"metadata": {"name": name}})).unwrap()
    };
    // A real server applies new configurations within a moment.
    let attempt = std::sync::atomic::AtomicUsize::new(0);
    let denied = eventually(20, || async {
        let name = format!(
            "called-{}",
            attempt.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        );
        maps.create(&PostParams::default(), &map(&name)).await.err()
    })
    .await
    .expect("the webhook denies what its conditions let through");
    assert!(
        denied.to_string().contains("denied the request: no"),
        "{denied}"
    );
    let calls = seen.lock().unwrap().len();
    maps.create(&PostParams::default(), &map("skipped"))
        .await
        .expect("not called for what its conditions leave out");
    assert_eq!(
        seen.lock().unwrap().len(),
        calls,
        "the webhook was not called"
    );
    ctx.cleanup().await;
}

#[tokio::test]
async fn policy_bindings_are_validated() {
    let env = env().await;
    let client = client(&env).await;
    let path = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings?dryRun=All";
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "bad"},
        "spec": {"policyName": "", "validationActions": ["Deny", "Warn", "Deny", "Nope"],
            "paramRef": {"name": "x", "selector": {}, "parameterNotFoundAction": "Maybe"},
            "matchResources": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": ["*"],
                "apiVersions": ["*"], "resources": ["pods/*", "pods/log", "*/*"]}],
                "matchPolicy": "Sometimes"}}});
    let (code, answer) = send(&client, "POST", path, "application/json", Some(binding)).await;
    assert_eq!(code, 422, "{answer}");
    let causes: Vec<String> = answer["details"]["causes"]
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
        .collect();
    assert_eq!(
        causes,
        [
            "spec.policyName: Required value",
            "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
            "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
            r#"spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow""#,
            r#"spec.matchResources.matchPolicy: Unsupported value: "Sometimes": supported values: "Equivalent", "Exact""#,
            r#"spec.matchResources.resourceRules[0].resources[1]: Invalid value: "pods/log": if 'pods/*' is present, must not specify pods/log"#,
            r#"spec.matchResources.resourceRules[0].resources: Invalid value: ["pods/*","pods/log","*/*"]: if '*/*' is present, must not specify other resources"#,
            r#"spec.validationActions[2]: Duplicate value: "Deny""#,
            r#"spec.validationActions[3]: Unsupported value: "Nope": supported values: "Audit", "Deny", "Warn""#,
            r#"spec.validationActions: Invalid value: ["Deny","Warn","Deny","Nope"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"#,
        ]
    );
}

#[tokio::test]
async fn webhook_configurations_are_validated_in_the_real_order() {
    let env = env().await;
    let client = client(&env).await;
    let hook = |name: &str, config: Value| json!({"name": name, "clientConfig": config, "sideEffects": "None", "admissionReviewVersions": ["v1"]});
    let mut first = hook(
        "a.example.com",
        json!({"service": {"namespace": "", "name": "", "port": 0, "path": "x/y"}}),
    );
    first["reinvocationPolicy"] = json!("Sometimes");
    first["matchConditions"] = json!([{"name": "", "expression": " "}]);
    let body = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "mwc-checks"},
        "webhooks": [first, hook("a.example.com", json!({"url": "http://u@h/x?q#f"}))]});
    let (code, answer) = send(
        &client,
        "POST",
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations?dryRun=All",
        "application/json",
        Some(body),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        causes(&answer),
        [
            "webhooks[0].reinvocationPolicy: Unsupported value: \"Sometimes\": supported values: \"IfNeeded\", \"Never\"",
            "webhooks[0].clientConfig.service.name: Required value",
            "webhooks[0].clientConfig.service.namespace: Required value",
            "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
            "webhooks[0].clientConfig.service.path: Invalid value: \"x/y\": must start with a '/'",
            "webhooks[0].clientConfig.service.path: Invalid value: \"x/y\": segment[0] may not be empty",
            "webhooks[0].matchConditions[0].expression: Required value",
            "webhooks[0].matchConditions[0].name: Required value",
            "webhooks[1].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
            "webhooks[1].clientConfig.url: Invalid value: \"u\": user information is not permitted in the URL",
            "webhooks[1].clientConfig.url: Invalid value: \"f\": fragments are not permitted in the URL",
            "webhooks[1].clientConfig.url: Invalid value: \"q\": query parameters are not permitted in the URL",
            "webhooks[1].name: Duplicate value: \"a.example.com\"",
        ]
    );
}

/// A webhook service's empty name is reported at `namespace` and its empty namespace at
/// `name`: kube-apiserver passes the two to its check in each other's place.
#[tokio::test]
async fn webhook_service_names_and_namespaces_are_reported_crosswise() {
    let env = env().await;
    let client = client(&env).await;
    let hook = |name: &str, service: Value| {
        json!({"name": name, "clientConfig": {"service": service}, "sideEffects": "None",
            "admissionReviewVersions": ["v1"]})
    };
    let config = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "crosswise"},
        "webhooks": [hook("a.example.com", json!({"namespace": "ns", "name": ""})),
            hook("b.example.com", json!({"namespace": "", "name": "a"}))]});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?dryRun=All",
        "application/json",
        Some(config),
    )
    .await;
    assert_eq!(code, 422);
    assert_eq!(
        causes(&body),
        [
            "webhooks[0].clientConfig.service.namespace: Required value",
            "webhooks[1].clientConfig.service.name: Required value",
        ]
    );
}

/// A ValidatingAdmissionPolicy's own rules, in the real server's order, with its
/// expressions' compilation errors in their places.
#[tokio::test]
async fn validating_admission_policy_specs_are_checked_in_order() {
    let env = env().await;
    let client = client(&env).await;
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "vap"},
        "spec": {"failurePolicy": "Never", "paramKind": {"apiVersion": "v1", "kind": "Bad_Value!"},
            "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                "operations": ["CREATE"], "resources": ["deployments"]}]},
            "matchConditions": [{"name": "", "expression": "1"}],
            "variables": [{"name": "in", "expression": "1"}],
            "validations": [{"expression": "", "reason": "Gone"}],
            "auditAnnotations": [{"key": "a", "valueExpression": "string(1)"},
                {"key": "a", "valueExpression": "string(2)"}]}});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies?dryRun=All",
        "application/json",
        Some(policy),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.failurePolicy: Unsupported value: \"Never\": supported values: \"Fail\", \"Ignore\"",
            "spec.paramKind.kind: Invalid value: \"Bad_Value!\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            "spec.matchConditions[0].expression: Invalid value: \"1\": must evaluate to bool but got int",
            "spec.matchConditions[0].name: Required value",
            "spec.variables[0].name: Invalid value: \"in\": must be a valid CEL identifier",
            "spec.validations[0].expression: Required value: expression is not specified",
            "spec.validations[0].reason: Unsupported value: \"Gone\": supported values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\"",
            "spec.auditAnnotations[1].key: Duplicate value: \"a\"",
        ]
    );
}
