//! Admission of CONNECT requests (`pods/exec`, `pods/attach`, `pods/portforward` and the
//! proxies): webhooks whose rules name `CONNECT` and the subresource get the options object
//! (`PodExecOptions`, ...) before the server connects, mutating ones can change the options
//! the connection uses, and ValidatingAdmissionPolicies apply too. Webhooks run in the test
//! process, as in [`crate::admission`]; the pods have no node, so what is left after
//! admission is the answer of a control plane without nodes.

use std::sync::{Arc, Mutex};

use http_body_util::BodyExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

use crate::admission::{Ctx, rules};
use crate::common::env;
use crate::support::raw::{client, eventually, send};
use crate::support::webhook_server::{self, WebhookServer};

/// Reviews received, in arrival order, with the path they came to.
type Calls = Arc<Mutex<Vec<(String, Value)>>>;

/// Sends a request without a body: status code, JSON body and `Warning` headers.
async fn connect(client: &kube::Client, method: &str, path: &str) -> (u16, Value, Vec<String>) {
    let request = http::Request::builder()
        .method(method)
        .uri(path)
        .body(Vec::new())
        .unwrap();
    let response = client
        .send(request.map(kube::client::Body::from))
        .await
        .unwrap();
    let code = response.status().as_u16();
    let warnings = crate::support::raw::warnings(response.headers());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        code,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        warnings,
    )
}

async fn lonely_pod(ctx: &Ctx) {
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "lonely"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }))
    .unwrap();
    Api::<Pod>::namespaced(ctx.env.client(), ctx.ns())
        .create(&PostParams::default(), &pod)
        .await
        .unwrap();
}

/// `/m` (mutating) sends an exec of `ls` to the `sidecar` container and gives an attach a
/// `stdout` its type cannot hold; `/v` (validating) refuses an exec of `rm` and warns about
/// everything else.
async fn connect_hooks(ctx: &Ctx) -> (WebhookServer, Calls) {
    let calls: Calls = Arc::default();
    let record = calls.clone();
    let server = WebhookServer::start(&[], move |path, review| {
        record.lock().unwrap().push((path.clone(), review.clone()));
        async move {
            let command = review["request"]["object"]["command"][0].clone();
            let attach = review["request"]["subResource"] == "attach";
            match (path.as_str(), command.as_str()) {
                ("/m", _) if attach => webhook_server::patch(
                    &review,
                    json!([{"op": "add", "path": "/stdout", "value": "yes"}]),
                ),
                ("/m", Some("ls")) => webhook_server::patch(
                    &review,
                    json!([{"op": "add", "path": "/container", "value": "sidecar"}]),
                ),
                ("/v", Some("rm")) => webhook_server::deny(&review, 403, "no rm"),
                ("/v", _) => webhook_server::respond(
                    &review,
                    json!({"allowed": true, "warnings": ["seen by v"]}),
                ),
                _ => webhook_server::allow(&review),
            }
        }
    })
    .await;
    let rule = || {
        rules(
            "",
            &["pods/exec", "pods/attach", "pods/portforward", "pods/proxy"],
            &["CONNECT"],
        )
    };
    ctx.mutating(
        "connect-m",
        vec![ctx.hook(
            "m-connect.conformance.kubeforge.dev",
            server.client_config("/m"),
            rule(),
            json!({}),
        )],
    )
    .await;
    ctx.validating(
        "connect-v",
        vec![ctx.hook(
            "v-connect.conformance.kubeforge.dev",
            server.client_config("/v"),
            rule(),
            json!({}),
        )],
    )
    .await;
    (server, calls)
}

fn take(calls: &Calls) -> Vec<(String, Value)> {
    std::mem::take(&mut *calls.lock().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_requests_reach_webhooks_with_their_options() {
    let Some(ctx) = Ctx::new().await else { return };
    lonely_pod(&ctx).await;
    let (_server, calls) = connect_hooks(&ctx).await;
    let client = client(&ctx.env).await;
    let ns = ctx.ns().to_string();
    let base = format!("/api/v1/namespaces/{ns}/pods");

    // The mutating webhook's patch changes the container the exec goes to.
    let (code, body, warnings) = connect(
        &client,
        "POST",
        &format!("{base}/lonely/exec?command=ls&command=-l&stdout=true"),
    )
    .await;
    assert_eq!(
        (code, body["message"].as_str()),
        (400, Some("container sidecar is not valid for pod lonely")),
        "{body}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("seen by v")),
        "{warnings:?}"
    );
    let seen = take(&calls);
    let paths: Vec<&str> = seen.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["/m", "/v"]);
    let request = &seen[0].1["request"];
    assert_eq!(request["operation"], "CONNECT");
    assert_eq!(
        request["kind"],
        json!({"group": "", "version": "v1", "kind": "PodExecOptions"})
    );
    assert_eq!(request["requestKind"], request["kind"]);
    assert_eq!(
        request["resource"],
        json!({"group": "", "version": "v1", "resource": "pods"})
    );
    assert_eq!(request["subResource"], "exec");
    assert_eq!(request["requestSubResource"], "exec");
    assert_eq!(request["name"], "lonely");
    assert_eq!(request["namespace"], json!(ns));
    assert_eq!(
        request["object"],
        json!({"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true, "command": ["ls", "-l"]})
    );
    assert_eq!(request["oldObject"], Value::Null);
    assert_eq!(request["options"], Value::Null);
    assert_eq!(request["dryRun"], false);
    assert!(
        request["userInfo"]["username"]
            .as_str()
            .is_some_and(|u| !u.is_empty())
    );
    assert_eq!(seen[1].1["request"]["object"]["container"], "sidecar");

    // A refusal comes before the server looks for the pod.
    let (code, body, _) = connect(
        &client,
        "POST",
        &format!("{base}/missing/exec?command=rm&stdout=true"),
    )
    .await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "admission webhook \"v-connect.conformance.kubeforge.dev\" denied the request: no rm"
    );
    take(&calls);

    // Options the server cannot read, and dry runs, are refused before admission.
    let (code, body, _) = connect(
        &client,
        "POST",
        &format!("{base}/lonely/exec?command=ls&dryRun=All"),
    )
    .await;
    assert_eq!(
        (code, body["message"].as_str()),
        (400, Some("dryRun is not supported"))
    );
    let (code, body, _) = connect(
        &client,
        "POST",
        &format!("{base}/lonely/portforward?ports=70000"),
    )
    .await;
    assert_eq!(
        (code, body["message"].as_str()),
        (
            400,
            Some(
                "cannot convert to []int32: strconv.ParseUint: parsing \"70000\": value out of range"
            )
        )
    );
    assert!(take(&calls).is_empty(), "no webhook was called");

    let (code, body, _) = connect(
        &client,
        "POST",
        &format!("{base}/lonely/portforward?ports=80,81"),
    )
    .await;
    assert_eq!(
        (code, body["message"].as_str()),
        (400, Some("pod lonely does not have a host assigned"))
    );
    let seen = take(&calls);
    assert_eq!(
        seen[1].1["request"]["object"],
        json!({"kind": "PodPortForwardOptions", "apiVersion": "v1", "ports": [80, 81]})
    );
    assert_eq!(seen[1].1["request"]["subResource"], "portforward");

    // The options are decoded as the mutating webhooks left them, before validation.
    let (code, body, _) =
        connect(&client, "POST", &format!("{base}/lonely/attach?stdin=true")).await;
    assert_eq!(code, 500, "{body}");
    assert_eq!(
        body["message"],
        "Internal error occurred: json: cannot unmarshal string into Go struct field PodAttachOptions.stdout of type bool"
    );
    let paths: Vec<String> = take(&calls).into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["/m"]);

    let (code, body, _) =
        connect(&client, "GET", &format!("{base}/lonely:8080/proxy/healthz")).await;
    assert_eq!(
        (code, body["message"].as_str()),
        (400, Some("address not allowed"))
    );
    let seen = take(&calls);
    let request = &seen[1].1["request"];
    assert_eq!(request["name"], "lonely:8080");
    assert_eq!(
        request["object"],
        json!({"kind": "PodProxyOptions", "apiVersion": "v1", "path": "/healthz"})
    );
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_webhooks_follow_selectors_and_match_conditions() {
    let Some(ctx) = Ctx::new().await else { return };
    lonely_pod(&ctx).await;
    let calls: Calls = Arc::default();
    let record = calls.clone();
    let server = WebhookServer::start(&[], move |path, review| {
        record.lock().unwrap().push((path, review.clone()));
        async move { webhook_server::deny(&review, 403, "no") }
    })
    .await;
    let exec = || rules("", &["pods/exec"], &["CONNECT"]);
    ctx.validating(
        "connect-selectors",
        vec![
            // The options object has no labels: a selector asking for a label to be absent
            // does not select it either.
            ctx.hook(
                "labels.conformance.kubeforge.dev",
                server.client_config("/labels"),
                exec(),
                json!({"objectSelector": {"matchExpressions": [{"key": "x", "operator": "DoesNotExist"}]}}),
            ),
            ctx.hook(
                "rm.conformance.kubeforge.dev",
                server.client_config("/rm"),
                exec(),
                json!({"matchConditions": [{"name": "rm", "expression": "request.subResource == 'exec' && oldObject == null && object.command[0] == 'rm'"}]}),
            ),
            ctx.hook(
                "broken.conformance.kubeforge.dev",
                server.client_config("/broken"),
                rules("", &["pods/attach"], &["CONNECT"]),
                json!({"matchConditions": [{"name": "broken", "expression": "object.nope == 1"}]}),
            ),
        ],
    )
    .await;
    let client = client(&ctx.env).await;
    let base = format!("/api/v1/namespaces/{}/pods/lonely", ctx.ns());
    let (code, body, _) = connect(&client, "POST", &format!("{base}/exec?command=ls")).await;
    assert_eq!(
        (code, body["message"].as_str()),
        (400, Some("pod lonely does not have a host assigned"))
    );
    let (code, body, _) = connect(&client, "POST", &format!("{base}/exec?command=rm")).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "admission webhook \"rm.conformance.kubeforge.dev\" denied the request: no"
    );
    // A condition that cannot be evaluated refuses the request (failurePolicy Fail).
    let (code, body, _) = connect(&client, "POST", &format!("{base}/attach?stdout=true")).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(body["reason"], "Forbidden");
    assert_eq!(
        body["message"],
        "pods \"lonely\" is forbidden: expression 'object.nope == 1' resulted in error: no such key: nope"
    );
    let paths: Vec<String> = take(&calls).into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["/rm"]);
    ctx.cleanup().await;
}

#[tokio::test]
async fn connect_requests_meet_validating_admission_policies() {
    let env = env().await;
    let ns = env.namespace().to_string();
    let client = client(&env).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "lonely"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let policy_name = format!("one-word-exec-{ns}");
    let binding_name = format!("{policy_name}-binding");
    let policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
    let bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": policy_name},
        "spec": {"failurePolicy": "Fail",
            "matchConstraints": {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
                "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                    "operations": ["CONNECT"], "resources": ["pods/exec"]}]},
            "validations": [{"expression": "object.command.size() < 2", "message": "one word only"}]}});
    let (code, body) = send(&client, "POST", policies, "application/json", Some(policy)).await;
    assert_eq!(code, 201, "{body}");
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": binding_name},
        "spec": {"policyName": policy_name, "validationActions": ["Deny"]}});
    let (code, body) = send(&client, "POST", bindings, "application/json", Some(binding)).await;
    assert_eq!(code, 201, "{body}");
    let exec = format!("/api/v1/namespaces/{ns}/pods/lonely/exec");
    // A real server applies new policies within a moment.
    let (code, body) = eventually(20, || async {
        let (code, body, _) =
            connect(&client, "POST", &format!("{exec}?command=ls&command=-l")).await;
        (code != 400).then_some((code, body))
    })
    .await
    .expect("the policy refuses a two-word command");
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "pods \"lonely\" is forbidden: ValidatingAdmissionPolicy '{policy_name}' with binding '{binding_name}' denied request: one word only"
        ))
    );
    let (code, body, _) = connect(&client, "POST", &format!("{exec}?command=ls")).await;
    assert_eq!(
        (code, body["message"].as_str()),
        (400, Some("pod lonely does not have a host assigned"))
    );
    send(
        &client,
        "DELETE",
        &format!("{bindings}/{binding_name}"),
        "",
        None,
    )
    .await;
    send(
        &client,
        "DELETE",
        &format!("{policies}/{policy_name}"),
        "",
        None,
    )
    .await;
}

/// Mutating webhooks answering by path: `/first` gives an exec of `bad` a `stdout` its type
/// cannot hold and any other exec a field the options type lacks (and a key in another
/// case), a zero value; `/h1` refuses a CONNECT in `gone1`, `/h3` one in `gone3`; the others
/// allow. The configuration of `h1`, `h2` (with the namespaceSelector) and `h3` comes first
/// by name.
async fn decoding_hooks(ctx: &Ctx, gone1: String, gone3: String) -> (WebhookServer, Calls) {
    let calls: Calls = Arc::default();
    let record = calls.clone();
    let server = WebhookServer::start(&[], move |path, review| {
        record.lock().unwrap().push((path.clone(), review.clone()));
        let namespace = review["request"]["namespace"].clone();
        let refused = match path.as_str() {
            "/h1" => namespace == json!(gone1),
            "/h3" => namespace == json!(gone3),
            _ => false,
        };
        async move {
            let command = review["request"]["object"]["command"][0].clone();
            match path.as_str() {
                "/first" if command == "bad" => webhook_server::patch(
                    &review,
                    json!([{"op": "add", "path": "/stdout", "value": "yes"}]),
                ),
                "/first" => webhook_server::patch(
                    &review,
                    json!([{"op": "add", "path": "/extra", "value": "x"},
                        {"op": "add", "path": "/CONTAINER", "value": "upper"},
                        {"op": "add", "path": "/stdin", "value": false}]),
                ),
                _ if refused => webhook_server::deny(&review, 403, "not there"),
                _ => webhook_server::allow(&review),
            }
        }
    })
    .await;
    let exec = || rules("", &["pods/exec"], &["CONNECT"]);
    ctx.mutating(
        "connect-1decode",
        vec![
            ctx.hook(
                "first.conformance.kubeforge.dev",
                server.client_config("/first"),
                exec(),
                json!({}),
            ),
            ctx.hook(
                "second.conformance.kubeforge.dev",
                server.client_config("/second"),
                exec(),
                json!({}),
            ),
        ],
    )
    .await;
    // Without a namespaceSelector, h1 and h3 are called for a missing namespace too.
    let everywhere = json!({"namespaceSelector": {}});
    ctx.mutating(
        "connect-0missing",
        vec![
            ctx.hook(
                "h1.conformance.kubeforge.dev",
                server.client_config("/h1"),
                exec(),
                everywhere.clone(),
            ),
            ctx.hook(
                "h2.conformance.kubeforge.dev",
                server.client_config("/h2"),
                exec(),
                json!({}),
            ),
            ctx.hook(
                "h3.conformance.kubeforge.dev",
                server.client_config("/h3"),
                exec(),
                everywhere,
            ),
        ],
    )
    .await;
    (server, calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_webhooks_see_decoded_options_and_run_in_order_before_a_missing_namespace() {
    let Some(ctx) = Ctx::new().await else { return };
    lonely_pod(&ctx).await;
    let ns = ctx.ns().to_string();
    let (gone1, gone3) = (format!("gone1-{ns}"), format!("gone3-{ns}"));
    let (_server, calls) = decoding_hooks(&ctx, gone1.clone(), gone3.clone()).await;
    let client = client(&ctx.env).await;
    let exec = |namespace: &str, query: &str| {
        format!("/api/v1/namespaces/{namespace}/pods/lonely/exec?{query}")
    };

    // The options are decoded after each webhook: the next one sees them as the options
    // type holds them (no unknown field, no key in another case, no zero value), and so
    // does the connection.
    let (code, body, _) = connect(
        &client,
        "POST",
        &exec(&ns, "command=ls&stdout=true&stdin=true"),
    )
    .await;
    assert_eq!(
        (code, body["message"].as_str()),
        (400, Some("pod lonely does not have a host assigned")),
        "{body}"
    );
    let seen = take(&calls);
    let second = seen
        .iter()
        .find(|(p, _)| p == "/second")
        .expect("second called");
    assert_eq!(
        second.1["request"]["object"],
        json!({"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true, "command": ["ls"]})
    );
    // Without a command the options still say `command` (Go writes it as null).
    connect(&client, "POST", &exec(&ns, "stdout=true")).await;
    let seen = take(&calls);
    let first = seen
        .iter()
        .find(|(p, _)| p == "/first")
        .expect("first called");
    assert_eq!(
        first.1["request"]["object"],
        json!({"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true, "command": null})
    );

    // A value the type cannot hold fails at the webhook that wrote it.
    let (code, body, _) = connect(&client, "POST", &exec(&ns, "command=bad&stdout=true")).await;
    assert_eq!(code, 500, "{body}");
    assert_eq!(
        body["message"],
        "Internal error occurred: json: cannot unmarshal string into Go struct field PodExecOptions.stdout of type bool"
    );
    let paths: Vec<String> = take(&calls)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p == "/first" || p == "/second")
        .collect();
    assert_eq!(paths, ["/first"]);

    // In a missing namespace, the webhooks listed before the first one with a
    // namespaceSelector are called before the 404; those after it are not.
    let (code, body, _) = connect(&client, "POST", &exec(&gone1, "command=ls")).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "admission webhook \"h1.conformance.kubeforge.dev\" denied the request: not there"
    );
    let (code, body, _) = connect(&client, "POST", &exec(&gone3, "command=ls")).await;
    assert_eq!(
        (code, body["message"].as_str()),
        (
            404,
            Some(format!("namespaces \"{gone3}\" not found").as_str())
        ),
        "{body}"
    );
    let paths: Vec<String> = take(&calls)
        .into_iter()
        .filter(|(_, r)| r["request"]["namespace"] == json!(gone3))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(paths, ["/h1"]);
    ctx.cleanup().await;
}
