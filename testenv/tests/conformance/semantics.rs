//! Object semantics: generateName, dryRun, namespaces, validation errors, defaulting.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Service};
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use serde_json::json;

use crate::common::{Widget, api_error, env, widget};

fn cm(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[tokio::test]
async fn generate_name_and_dry_run() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let generated = ConfigMap {
        metadata: ObjectMeta {
            generate_name: Some("gen-".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let created = cms
        .create(&PostParams::default(), &generated)
        .await
        .unwrap();
    let name = created.metadata.name.unwrap();
    assert!(name.starts_with("gen-") && name.len() == 9, "{name}");

    let dry = PostParams {
        dry_run: true,
        ..Default::default()
    };
    cms.create(&dry, &cm("dry")).await.unwrap();
    assert_eq!(api_error(cms.get("dry").await).code, 404);

    let missing = api_error(
        cms.create(&PostParams::default(), &ConfigMap::default())
            .await,
    );
    assert_eq!((missing.code, missing.reason.as_str()), (422, "Invalid"));
    let bad_name = api_error(cms.create(&PostParams::default(), &cm("Not_Valid")).await);
    assert_eq!((bad_name.code, bad_name.reason.as_str()), (422, "Invalid"));
}

#[tokio::test]
async fn namespaces_missing_and_terminating() {
    let env = env().await;
    let client = env.client();
    let in_missing: Api<ConfigMap> = Api::namespaced(client.clone(), "kubeforge-no-such-namespace");
    let err = api_error(in_missing.create(&PostParams::default(), &cm("x")).await);
    assert_eq!((err.code, err.reason.as_str()), (404, "NotFound"));

    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns_name = format!("{}-child", env.namespace());
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some(ns_name.clone()),
            ..Default::default()
        },
        ..Default::default()
    };
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
    let inside: Api<ConfigMap> = Api::namespaced(client.clone(), &ns_name);
    let mut held = cm("held");
    held.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    inside.create(&PostParams::default(), &held).await.unwrap();
    inside
        .create(&PostParams::default(), &cm("plain"))
        .await
        .unwrap();
    namespaces
        .delete(&ns_name, &DeleteParams::default())
        .await
        .unwrap();

    let terminating = namespaces.get(&ns_name).await.unwrap();
    assert!(terminating.metadata.deletion_timestamp.is_some());
    assert_eq!(
        terminating.status.and_then(|s| s.phase).as_deref(),
        Some("Terminating")
    );
    let refused = api_error(inside.create(&PostParams::default(), &cm("late")).await);
    assert_eq!((refused.code, refused.reason.as_str()), (403, "Forbidden"));

    // Contents are deleted; the finalizer holds one object and with it the namespace.
    wait_for(|| async {
        matches!(inside.get("plain").await, Err(kube::Error::Api(s)) if s.code == 404)
    })
    .await;
    let held_now = inside.get("held").await.unwrap();
    assert!(held_now.metadata.deletion_timestamp.is_some());
    inside
        .patch(
            "held",
            &Default::default(),
            &kube::api::Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .unwrap();
    wait_for(|| async {
        matches!(namespaces.get(&ns_name).await, Err(kube::Error::Api(s)) if s.code == 404)
    })
    .await;
}

/// Polls until `check` holds (a real cluster's namespace controller is asynchronous).
pub async fn wait_for<F, Fut>(check: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..600 {
        if check().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("condition not reached within 60s");
}

#[tokio::test]
async fn schema_validation_and_pruning() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let raw: Api<kube::api::DynamicObject> = Api::namespaced_with(
        env.client(),
        env.namespace(),
        &kube::api::ApiResource::erase::<Widget>(&()),
    );
    let wrong_type: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
        "metadata": {"name": "bad"}, "spec": {"color": 5},
    }))
    .unwrap();
    let err = api_error(raw.create(&PostParams::default(), &wrong_type).await);
    assert_eq!((err.code, err.reason.as_str()), (422, "Invalid"));
    let causes = err.details.unwrap().causes;
    assert!(causes.iter().any(|c| c.field == "spec.color"), "{causes:?}");

    let extra: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
        "metadata": {"name": "extra"}, "spec": {"color": "red", "shade": "dark"},
    }))
    .unwrap();
    let created = raw.create(&PostParams::default(), &extra).await.unwrap();
    assert!(
        created.data["spec"].get("shade").is_none(),
        "unknown fields are pruned"
    );
    let mut extra2 = extra.clone();
    extra2.metadata.name = Some("extra2".into());
    // A strict create names the unknown field in a 400...
    let post = http::Request::post(format!(
        "/apis/conformance.kubeforge.dev/v1/namespaces/{}/widgets?fieldValidation=Strict",
        env.namespace()
    ))
    .header("Content-Type", "application/json")
    .body(serde_json::to_vec(&extra2).unwrap())
    .unwrap();
    let err = api_error(env.client().request::<serde_json::Value>(post).await);
    assert_eq!((err.code, err.reason.as_str()), (400, "BadRequest"));
    assert!(
        err.message
            .contains("strict decoding error: unknown field \"spec.shade\""),
        "{}",
        err.message
    );
    // ...while server-side apply cannot type a configuration with a field the schema does not
    // declare, whatever the field validation: a 500 without a reason.
    for params in [
        kube::api::PatchParams::apply("conformance").validation_strict(),
        kube::api::PatchParams::apply("conformance").validation_ignore(),
    ] {
        let err = api_error(
            raw.patch("extra2", &params, &kube::api::Patch::Apply(&extra2))
                .await,
        );
        assert_eq!((err.code, err.reason.as_str()), (500, ""));
        assert!(
            err.message.starts_with("failed to create typed patch object (")
                && err.message.ends_with(
                    "/extra2; conformance.kubeforge.dev/v1, Kind=Widget): .spec.shade: field not declared in schema"
                ),
            "{}",
            err.message
        );
    }
    // The typed API sees the defaulted replicas field.
    assert_eq!(widgets.get("extra").await.unwrap().spec.replicas, 0);
    let _ = widget("unused", "red");
}

#[tokio::test]
async fn builtin_defaulting() {
    let env = env().await;
    let deployments: Api<Deployment> = Api::namespaced(env.client(), env.namespace());
    let d: Deployment = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]}},
        },
    }))
    .unwrap();
    let created = deployments
        .create(&PostParams::default(), &d)
        .await
        .unwrap();
    let spec = created.spec.unwrap();
    assert_eq!(spec.replicas, Some(1));
    assert_eq!(spec.revision_history_limit, Some(10));
    assert_eq!(spec.progress_deadline_seconds, Some(600));
    assert_eq!(
        spec.strategy.and_then(|s| s.type_).as_deref(),
        Some("RollingUpdate")
    );
    let pod = spec.template.spec.unwrap();
    assert_eq!(pod.restart_policy.as_deref(), Some("Always"));
    assert_eq!(pod.dns_policy.as_deref(), Some("ClusterFirst"));
    assert_eq!(pod.scheduler_name.as_deref(), Some("default-scheduler"));
    assert_eq!(pod.termination_grace_period_seconds, Some(30));
    let c = &pod.containers[0];
    assert_eq!(
        c.image_pull_policy.as_deref(),
        Some("Always"),
        "image without tag pulls Always"
    );
    assert_eq!(
        c.termination_message_path.as_deref(),
        Some("/dev/termination-log")
    );
    assert_eq!(c.termination_message_policy.as_deref(), Some("File"));
    assert_eq!(
        c.ports.as_ref().unwrap()[0].protocol.as_deref(),
        Some("TCP")
    );

    let services: Api<Service> = Api::namespaced(env.client(), env.namespace());
    let s: Service = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
    }))
    .unwrap();
    let created = services
        .create(&PostParams::default(), &s)
        .await
        .unwrap()
        .spec
        .unwrap();
    assert_eq!(created.type_.as_deref(), Some("ClusterIP"));
    let ip = created
        .cluster_ip
        .clone()
        .expect("a cluster IP is allocated");
    assert_eq!(
        created.cluster_ips.clone().unwrap_or_default(),
        vec![ip.clone()]
    );
    assert_eq!(created.ports.unwrap()[0].protocol.as_deref(), Some("TCP"));
    // An update that omits the allocated address keeps it.
    let replaced = services
        .patch(
            "web",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(json!({"spec": {"clusterIP": null, "clusterIPs": null}})),
        )
        .await;
    if let Ok(svc) = replaced {
        assert_eq!(svc.spec.unwrap().cluster_ip.as_deref(), Some(ip.as_str()));
    }
}

#[tokio::test]
async fn events_are_one_resource_in_two_groups() {
    use k8s_openapi::api::core::v1::Event as CoreEvent;
    use k8s_openapi::api::events::v1::Event;
    let env = env().await;
    let events: Api<Event> = Api::namespaced(env.client(), env.namespace());
    let event: Event = serde_json::from_value(json!({
        "metadata": {"name": "widget-ready.1"},
        "eventTime": "2025-01-01T00:00:00.000000Z",
        "reportingController": "example.com/widget-controller",
        "reportingInstance": "widget-controller-0",
        "action": "Reconcile", "reason": "Ready", "type": "Normal", "note": "the widget is ready",
        "regarding": {"kind": "Widget", "name": "w", "namespace": env.namespace()},
    }))
    .unwrap();
    events.create(&PostParams::default(), &event).await.unwrap();
    let core: Api<CoreEvent> = Api::namespaced(env.client(), env.namespace());
    let seen = core.get("widget-ready.1").await.unwrap();
    assert_eq!(seen.message.as_deref(), Some("the widget is ready"));
    assert_eq!(seen.involved_object.name.as_deref(), Some("w"));
    assert_eq!(
        seen.reporting_component.as_deref(),
        Some("example.com/widget-controller")
    );
    let back = events.get("widget-ready.1").await.unwrap();
    assert_eq!(back.note.as_deref(), Some("the widget is ready"));
}

#[tokio::test]
async fn dry_run_update_and_delete_change_nothing() {
    use kube::api::{Patch, PatchParams};
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let created = cms
        .create(&PostParams::default(), &cm("dry-target"))
        .await
        .unwrap();
    let pp = PatchParams {
        dry_run: true,
        ..Default::default()
    };
    let answered = cms
        .patch(
            "dry-target",
            &pp,
            &Patch::Merge(json!({"data": {"k": "v"}})),
        )
        .await
        .unwrap();
    assert_eq!(answered.data.unwrap()["k"], "v");
    assert!(cms.get("dry-target").await.unwrap().data.is_none());
    let dp = DeleteParams {
        dry_run: true,
        ..Default::default()
    };
    cms.delete("dry-target", &dp).await.unwrap();
    let still = cms.get("dry-target").await.unwrap();
    assert_eq!(
        still.metadata.resource_version,
        created.metadata.resource_version
    );
}

#[tokio::test]
async fn bad_requests_get_status_errors() {
    let env = env().await;
    let client = env.client();
    let call = |method: &str, path: String, body: &str, content_type: &str| {
        let req = http::Request::builder()
            .method(method)
            .uri(path)
            .header("Content-Type", content_type)
            .body(body.as_bytes().to_vec())
            .unwrap();
        let client = client.clone();
        async move {
            match client.request::<serde_json::Value>(req).await {
                Err(kube::Error::Api(s)) => (s.code, s.reason),
                other => panic!("expected a Status error, got {other:?}"),
            }
        }
    };
    let ns = env.namespace();
    let cms = format!("/api/v1/namespaces/{ns}/configmaps");
    assert_eq!(
        call("POST", cms.clone(), "{not json", "application/json")
            .await
            .0,
        400
    );
    let wrong_kind = r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}"#;
    assert_eq!(
        call("POST", cms.clone(), wrong_kind, "application/json")
            .await
            .0,
        400
    );
    let other_ns =
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"elsewhere"}}"#;
    assert_eq!(
        call("POST", cms.clone(), other_ns, "application/json")
            .await
            .0,
        400
    );
    assert_eq!(
        call(
            "GET",
            "/apis/nothing.example.com/v1/things".into(),
            "",
            "application/json"
        )
        .await
        .0,
        404
    );
    let patch = format!("{cms}/missing");
    assert_eq!(call("PATCH", patch, "{}", "text/plain").await.0, 415);
}

#[tokio::test]
async fn label_values_are_validated() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let mut long = cm("long-label");
    long.metadata.labels = Some([("app".to_string(), "x".repeat(64))].into());
    let err = api_error(cms.create(&PostParams::default(), &long).await);
    assert_eq!((err.code, err.reason.as_str()), (422, "Invalid"));
    assert!(
        err.message.contains("must be no more than 63 characters"),
        "{}",
        err.message
    );
    let mut fine = cm("fine-label");
    fine.metadata.labels =
        Some([("app.kubernetes.io/name".to_string(), "web_1.0".to_string())].into());
    cms.create(&PostParams::default(), &fine).await.unwrap();
}

#[tokio::test]
async fn generate_name_is_checked_on_updates_and_may_change() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let path = format!("/api/v1/namespaces/{ns}/configmaps");
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gn-update"}});
    let (code, created) =
        crate::support::raw::send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(code, 201, "{created}");
    let one = format!("{path}/gn-update");
    let patch = |prefix: &str| json!({"metadata": {"generateName": prefix}});
    // The generic registry's check (a path segment), then the ConfigMap's (a DNS subdomain).
    let (code, answer) = crate::support::raw::send(
        &client,
        "PATCH",
        &one,
        "application/merge-patch+json",
        Some(patch("a/b_")),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    let messages: Vec<&str> = answer["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["message"].as_str())
        .collect();
    assert_eq!(messages.len(), 2, "{answer}");
    assert_eq!(messages[0], r#"Invalid value: "a/b_": may not contain '/'"#);
    assert!(
        messages[1].starts_with(r#"Invalid value: "a/b_": a lowercase RFC 1123 subdomain"#),
        "{answer}"
    );
    // A valid one is stored and may change.
    for prefix in ["good-", "other-"] {
        let (code, answer) = crate::support::raw::send(
            &client,
            "PATCH",
            &one,
            "application/merge-patch+json",
            Some(patch(prefix)),
        )
        .await;
        assert_eq!(code, 200, "{answer}");
        assert_eq!(answer["metadata"]["generateName"], prefix);
        assert_eq!(answer["metadata"]["name"], "gn-update");
    }
    crate::support::raw::send(&client, "DELETE", &one, "", None).await;
}
