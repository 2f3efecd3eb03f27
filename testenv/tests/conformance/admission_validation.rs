//! Validating webhooks and the transport: denials, warnings, failurePolicy, timeouts,
//! selectors, DELETE, service references and caBundle verification.

use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::{Value, json};

use crate::admission::{Ctx, recording_server, rules, widget_json};
use crate::common::api_error;
use crate::support::webhook_server::{self, WebhookServer};

fn configmap(name: &str, labels: Value) -> ConfigMap {
    serde_json::from_value(
        json!({"metadata": {"name": name, "labels": labels}, "data": {"a": "b"}}),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denial_message_and_code() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) = recording_server(&[], |review| {
        let replicas = review["request"]["object"]["spec"]["replicas"]
            .as_i64()
            .unwrap_or(0);
        if replicas > 3 {
            webhook_server::deny(review, 422, "replicas must be at most 3")
        } else {
            webhook_server::allow(review)
        }
    })
    .await;
    ctx.validating(
        "limit-replicas",
        vec![ctx.hook(
            "limit.conformance.kubeforge.dev",
            server.client_config("/validate"),
            rules(
                "conformance.kubeforge.dev",
                &["widgets"],
                &["CREATE", "UPDATE"],
            ),
            json!({}),
        )],
    )
    .await;
    let err = api_error(
        ctx.widgets()
            .create(
                &PostParams::default(),
                &widget_json("big", json!({"color": "red", "replicas": 5})),
            )
            .await,
    );
    assert_eq!(err.code, 422);
    assert_eq!(
        err.message,
        "admission webhook \"limit.conformance.kubeforge.dev\" denied the request: replicas must be at most 3"
    );
    assert_eq!(api_error(ctx.widgets().get("big").await).code, 404);
    // Validating webhooks see the final object: schema defaults applied (replicas: 0).
    ctx.widgets()
        .create(
            &PostParams::default(),
            &widget_json("small", json!({"color": "red"})),
        )
        .await
        .unwrap();
    let last = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last["request"]["object"]["spec"]["replicas"], 0);
    assert!(last["request"]["object"]["metadata"]["uid"].is_string());
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warnings_reach_clients() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, _) = recording_server(&[], |review| {
        webhook_server::respond(
            review,
            json!({"allowed": true, "warnings": ["configmaps are deprecated here"]}),
        )
    })
    .await;
    ctx.validating(
        "warn",
        vec![ctx.hook(
            "warn.conformance.kubeforge.dev",
            server.client_config("/validate"),
            rules("", &["configmaps"], &["CREATE"]),
            json!({}),
        )],
    )
    .await;
    let body = serde_json::to_vec(&configmap("warned", json!({}))).unwrap();
    let request = http::Request::post(format!("/api/v1/namespaces/{}/configmaps", ctx.ns()))
        .header("content-type", "application/json")
        .body(kube::client::Body::from(body))
        .unwrap();
    let response = ctx.env.client().send(request).await.unwrap();
    assert_eq!(response.status(), 201);
    let warnings = crate::support::raw::warnings(response.headers());
    assert!(
        warnings.contains(&"299 - \"configmaps are deprecated here\"".to_string()),
        "{warnings:?}"
    );
    let _ = response.into_body().collect().await;

    // kubectl prints them.
    if let Some(kubectl) = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
    {
        let kubeconfig = ctx.env.kubeconfig_path().to_path_buf();
        let ns = ctx.ns().to_string();
        let output = tokio::task::spawn_blocking(move || {
            std::process::Command::new(kubectl)
                .arg("--kubeconfig")
                .arg(kubeconfig)
                .args(["-n", &ns, "create", "configmap", "from-kubectl"])
                .output()
                .unwrap()
        })
        .await
        .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(
            stderr.contains("Warning: configmaps are deprecated here"),
            "{stderr}"
        );
    } else {
        eprintln!("kubectl is not installed: its part of the test is skipped");
    }
    ctx.cleanup().await;
}

/// An https URL on 127.0.0.1 where nothing listens.
async fn dead_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("https://{}:{port}/dead", webhook_server::webhook_host())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_policy_with_a_dead_endpoint() {
    let Some(ctx) = Ctx::new().await else { return };
    let url = dead_url().await;
    ctx.validating(
        "dead-ignore",
        vec![ctx.hook(
            "ignore.conformance.kubeforge.dev",
            json!({"url": url}),
            rules("", &["configmaps"], &["CREATE"]),
            json!({"failurePolicy": "Ignore"}),
        )],
    )
    .await;
    ctx.configmaps()
        .create(&PostParams::default(), &configmap("ignored", json!({})))
        .await
        .expect("failurePolicy Ignore lets the request through");
    ctx.validating(
        "dead-fail",
        vec![ctx.hook(
            "fail.conformance.kubeforge.dev",
            json!({"url": url}),
            rules("", &["configmaps"], &["CREATE"]),
            json!({"failurePolicy": "Fail"}),
        )],
    )
    .await;
    let err = api_error(
        ctx.configmaps()
            .create(&PostParams::default(), &configmap("failed", json!({})))
            .await,
    );
    assert_eq!(err.code, 500);
    assert_eq!(err.reason, "InternalError");
    let prefix = format!(
        "Internal error occurred: failed calling webhook \"fail.conformance.kubeforge.dev\": failed to call webhook: Post \"{url}?timeout=5s\": "
    );
    assert!(err.message.starts_with(&prefix), "{}", err.message);
    assert_eq!(api_error(ctx.configmaps().get("failed").await).code, 404);
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_applies() {
    let Some(ctx) = Ctx::new().await else { return };
    let slow = WebhookServer::start(&[], |_, review| async move {
        tokio::time::sleep(Duration::from_secs(4)).await;
        webhook_server::allow(&review)
    })
    .await;
    ctx.validating(
        "slow",
        vec![ctx.hook(
            "slow.conformance.kubeforge.dev",
            slow.client_config("/slow"),
            rules("", &["configmaps"], &["CREATE"]),
            json!({"timeoutSeconds": 1}),
        )],
    )
    .await;
    let started = Instant::now();
    let err = api_error(
        ctx.configmaps()
            .create(&PostParams::default(), &configmap("slow", json!({})))
            .await,
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the 1 s timeout cut the call short"
    );
    assert_eq!(err.code, 500);
    assert!(
        err.message
            .contains("failed calling webhook \"slow.conformance.kubeforge.dev\""),
        "{}",
        err.message
    );
    assert!(err.message.contains("?timeout=1s"), "{}", err.message);
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_and_selectors_decide_which_requests_are_sent() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) =
        recording_server(&[], |review| webhook_server::deny(review, 403, "denied")).await;
    ctx.validating(
        "selective",
        vec![ctx.hook(
            "selective.conformance.kubeforge.dev",
            server.client_config("/v"),
            rules("", &["configmaps"], &["CREATE"]),
            json!({"objectSelector": {"matchExpressions": [
                {"key": "guarded", "operator": "In", "values": ["yes"]}]}}),
        )],
    )
    .await;
    // Rules: another resource, or another operation, is not sent.
    let cms = ctx.configmaps();
    cms.create(&PostParams::default(), &configmap("free", json!({})))
        .await
        .expect("objectSelector does not match");
    let err = api_error(
        cms.create(
            &PostParams::default(),
            &configmap("guarded", json!({"guarded": "yes"})),
        )
        .await,
    );
    assert_eq!(err.code, 403);
    let mut free = cms.get("free").await.unwrap();
    free.metadata.labels = Some([("guarded".to_string(), "yes".to_string())].into());
    cms.replace("free", &PostParams::default(), &free)
        .await
        .expect("UPDATE is not in the rules");
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(ctx.env.client(), ctx.ns());
    secrets
        .create(
            &PostParams::default(),
            &serde_json::from_value(
                json!({"metadata": {"name": "s", "labels": {"guarded": "yes"}}}),
            )
            .unwrap(),
        )
        .await
        .expect("secrets are not in the rules");
    assert_eq!(seen.lock().unwrap().len(), 1);

    // namespaceSelector: the hook is limited to this test's namespace.
    if !ctx.env.is_existing_cluster() {
        let namespaces: Api<Namespace> = Api::all(ctx.env.client());
        namespaces
            .create(
                &PostParams::default(),
                &serde_json::from_value(json!({"metadata": {"name": "elsewhere"}})).unwrap(),
            )
            .await
            .unwrap();
        let other: Api<ConfigMap> = Api::namespaced(ctx.env.client(), "elsewhere");
        other
            .create(
                &PostParams::default(),
                &configmap("guarded", json!({"guarded": "yes"})),
            )
            .await
            .expect("namespaceSelector does not match another namespace");
        assert_eq!(seen.lock().unwrap().len(), 1);
    }
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_is_validated_with_the_old_object() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) = recording_server(&[], |review| {
        let old = &review["request"]["oldObject"];
        if old["metadata"]["labels"]["protected"] == "true" {
            webhook_server::deny(review, 403, "protected")
        } else {
            webhook_server::allow(review)
        }
    })
    .await;
    let cms = ctx.configmaps();
    cms.create(
        &PostParams::default(),
        &configmap("keep", json!({"protected": "true"})),
    )
    .await
    .unwrap();
    cms.create(&PostParams::default(), &configmap("drop", json!({})))
        .await
        .unwrap();
    ctx.validating(
        "protect",
        vec![ctx.hook(
            "protect.conformance.kubeforge.dev",
            server.client_config("/v"),
            rules("", &["configmaps"], &["DELETE"]),
            json!({}),
        )],
    )
    .await;
    let err = api_error(cms.delete("keep", &DeleteParams::default()).await);
    assert_eq!(err.code, 403);
    assert_eq!(
        err.message,
        "admission webhook \"protect.conformance.kubeforge.dev\" denied the request: protected"
    );
    cms.get("keep").await.expect("still there");
    cms.delete("drop", &DeleteParams::default()).await.unwrap();
    assert_eq!(api_error(cms.get("drop").await).code, 404);
    let request = seen.lock().unwrap()[0]["request"].clone();
    assert_eq!(request["operation"], "DELETE");
    assert!(request["object"].is_null());
    assert_eq!(request["oldObject"]["metadata"]["name"], "keep");
    assert_eq!(request["options"]["kind"], "DeleteOptions");

    // A collection delete asks for each object: the allowed ones go, the refusal is the answer.
    cms.create(
        &PostParams::default(),
        &configmap("batch-a", json!({"batch": "1"})),
    )
    .await
    .unwrap();
    cms.create(
        &PostParams::default(),
        &configmap("batch-b", json!({"batch": "1", "protected": "true"})),
    )
    .await
    .unwrap();
    let calls_before = seen.lock().unwrap().len();
    let err = api_error(
        cms.delete_collection(
            &DeleteParams::default(),
            &kube::api::ListParams::default().labels("batch=1"),
        )
        .await,
    );
    assert_eq!(err.code, 403);
    assert_eq!(seen.lock().unwrap().len(), calls_before + 2);
    assert_eq!(api_error(cms.get("batch-a").await).code, 404);
    cms.get("batch-b").await.expect("the protected one stays");
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_references_follow_registered_routes() {
    let Some(ctx) = Ctx::new().await else { return };
    if ctx.env.is_real_cluster() {
        eprintln!(
            "skipping: a real cluster resolves services itself (routes are the embedded server's)"
        );
        return;
    }
    let ns = ctx.ns().to_string();
    let dns = format!("hook.{ns}.svc");
    let (server, seen) = recording_server(&[&dns], webhook_server::allow).await;
    let service = json!({"service": {"namespace": ns, "name": "hook", "path": "/validate"},
        "caBundle": server.ca_bundle()});
    ctx.validating(
        "routed",
        vec![ctx.hook(
            "routed.conformance.kubeforge.dev",
            service,
            rules("", &["configmaps"], &["CREATE"]),
            json!({}),
        )],
    )
    .await;
    let err = api_error(
        ctx.configmaps()
            .create(&PostParams::default(), &configmap("unrouted", json!({})))
            .await,
    );
    assert_eq!(err.code, 500);
    assert!(
        err.message.contains(&format!(
            "Post \"https://hook.{ns}.svc:443/validate?timeout=5s\": service \"{ns}/hook\" is not routed"
        )),
        "{}",
        err.message
    );
    ctx.env.route_service(&ns, "hook", server.addr()).unwrap();
    ctx.configmaps()
        .create(&PostParams::default(), &configmap("routed", json!({})))
        .await
        .expect("the routed service answers");
    assert_eq!(seen.lock().unwrap().len(), 1);
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ca_bundle_is_verified() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) = recording_server(&[], webhook_server::allow).await;
    let (other, _) = recording_server(&[], webhook_server::allow).await;
    ctx.validating(
        "wrong-ca",
        vec![ctx.hook(
            "wrongca.conformance.kubeforge.dev",
            json!({"url": server.url("/v"), "caBundle": other.ca_bundle()}),
            rules("", &["configmaps"], &["CREATE"]),
            json!({}),
        )],
    )
    .await;
    let err = api_error(
        ctx.configmaps()
            .create(&PostParams::default(), &configmap("untrusted", json!({})))
            .await,
    );
    assert_eq!(err.code, 500);
    assert!(
        err.message.contains("failed to call webhook"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains(
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
        ),
        "{}",
        err.message
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "the request never reached the webhook"
    );
    // A certificate that does not name the service is refused too (service routes are the
    // embedded server's: a real cluster resolves services itself).
    if !ctx.env.is_real_cluster() {
        ctx.env
            .route_service(ctx.ns(), "misnamed", server.addr())
            .unwrap();
        ctx.validating(
            "wrong-name",
            vec![ctx.hook(
                "wrongname.conformance.kubeforge.dev",
                json!({"service": {"namespace": ctx.ns(), "name": "misnamed"}, "caBundle": server.ca_bundle()}),
                rules("", &["secrets"], &["CREATE"]),
                json!({}),
            )],
        )
        .await;
        let secrets: Api<k8s_openapi::api::core::v1::Secret> =
            Api::namespaced(ctx.env.client(), ctx.ns());
        let err = api_error(
            secrets
                .create(
                    &PostParams::default(),
                    &serde_json::from_value(json!({"metadata": {"name": "s"}})).unwrap(),
                )
                .await,
        );
        let expected = format!(
            "x509: certificate is not valid for misnamed.{}.svc",
            ctx.ns()
        );
        assert!(err.message.contains(&expected), "{}", err.message);
    }
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_to_a_webhook_are_kept_alive() {
    let Some(ctx) = Ctx::new().await else { return };
    if ctx.env.is_real_cluster() {
        eprintln!("skipping: how a real cluster pools connections is its own business");
        return;
    }
    let (server, seen) = recording_server(&[], webhook_server::allow).await;
    ctx.validating(
        "keepalive",
        vec![ctx.hook(
            "keepalive.conformance.kubeforge.dev",
            server.client_config("/v"),
            rules("", &["configmaps"], &["CREATE"]),
            json!({}),
        )],
    )
    .await;
    for i in 0..3 {
        ctx.configmaps()
            .create(
                &PostParams::default(),
                &configmap(&format!("kept-{i}"), json!({})),
            )
            .await
            .unwrap();
    }
    assert_eq!(seen.lock().unwrap().len(), 3);
    assert_eq!(server.connections(), 1, "one connection for three calls");
    ctx.cleanup().await;
}
