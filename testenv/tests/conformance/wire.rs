//! Wire details real clients depend on: metadata-only objects by content negotiation (what
//! kube-rs's metadata watchers ask for), JSON field order, field selectors on unset fields
//! and each kind's list of selectable fields, and the ServiceAccount admission plugin.

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod, ServiceAccount};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use serde_json::{Value, json};

use crate::common::{api_error, env};
use crate::support::raw::client;

const METADATA: &str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

fn configmap(name: &str) -> ConfigMap {
    serde_json::from_value(
        json!({"metadata": {"name": name, "labels": {"wire": "yes"}}, "data": {"k": "v"}}),
    )
    .unwrap()
}

#[tokio::test]
async fn metadata_only_objects_on_get_list_watch_and_patch() {
    let env = env().await;
    let ns = env.namespace();
    let maps: Api<ConfigMap> = Api::namespaced(env.client(), ns);
    maps.create(&PostParams::default(), &configmap("meta"))
        .await
        .unwrap();
    let got = maps.get_metadata("meta").await.unwrap();
    assert_eq!(got.metadata.name.as_deref(), Some("meta"));
    let listed = maps
        .list_metadata(&ListParams::default().labels("wire=yes"))
        .await
        .unwrap();
    assert_eq!(listed.items.len(), 1);
    let patched = maps
        .patch_metadata(
            "meta",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"patched": "yes"}}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.metadata.labels.unwrap()["patched"], "yes");
    let mut events = maps
        .watch_metadata(&WatchParams::default().labels("wire=yes"), "0")
        .await
        .unwrap()
        .boxed();
    match events.try_next().await.unwrap() {
        Some(WatchEvent::Added(o)) => assert_eq!(o.metadata.name.as_deref(), Some("meta")),
        other => panic!("an ADDED event, got {other:?}"),
    }

    // On the wire: kind, apiVersion and metadata only.
    let raw = client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/configmaps/meta");
    let request = http::Request::get(&path)
        .header("Accept", METADATA)
        .body(Vec::new())
        .unwrap();
    let text = raw.request_text(request).await.unwrap();
    assert!(
        text.starts_with(r#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"meta","namespace":"#),
        "{text}"
    );
    let body: Value = serde_json::from_str(&text).unwrap();
    assert!(body.get("data").is_none(), "{body}");
    // A list asked for as one object is refused.
    let list = format!("/api/v1/namespaces/{ns}/configmaps");
    let request = http::Request::get(&list)
        .header("Accept", METADATA)
        .body(Vec::new())
        .unwrap();
    let refused = raw.request_text(request).await;
    let status = api_error(refused);
    assert_eq!(status.code, 406);
    assert_eq!(
        status.message,
        "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)"
    );
}

#[tokio::test]
async fn json_is_written_in_the_real_servers_field_order() {
    let env = env().await;
    let ns = env.namespace();
    let maps: Api<ConfigMap> = Api::namespaced(env.client(), ns);
    maps.create(&PostParams::default(), &configmap("ordered"))
        .await
        .unwrap();
    let raw = client(&env).await;
    let object = raw
        .request_text(
            http::Request::get(format!("/api/v1/namespaces/{ns}/configmaps/ordered"))
                .body(Vec::new())
                .unwrap(),
        )
        .await
        .unwrap();
    assert!(
        object.starts_with(&format!(
            r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"ordered","namespace":"{ns}","uid":"#
        )),
        "{object}"
    );
    let uid = object.find(r#""uid""#).unwrap();
    let rv = object.find(r#""resourceVersion""#).unwrap();
    let created = object.find(r#""creationTimestamp""#).unwrap();
    let labels = object.find(r#""labels""#).unwrap();
    let managed = object.find(r#""managedFields""#).unwrap();
    assert!(
        uid < rv && rv < created && created < labels && labels < managed,
        "{object}"
    );
    // The items of a built-in list carry no kind of their own.
    let list = raw
        .request_text(
            http::Request::get(format!(
                "/api/v1/namespaces/{ns}/configmaps?labelSelector=wire%3Dyes"
            ))
            .body(Vec::new())
            .unwrap(),
        )
        .await
        .unwrap();
    assert!(
        list.starts_with(
            r#"{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"#
        ),
        "{list}"
    );
    assert!(
        list.contains(r#""items":[{"metadata":{"name":"ordered""#),
        "{list}"
    );
}

/// `/api`'s `APIVersions` and aggregated discovery (whose Go types no OpenAPI schema records)
/// are written in their Go types' order too.
#[tokio::test]
async fn discovery_documents_are_written_in_their_go_types_order() {
    let env = env().await;
    let raw = client(&env).await;
    let get = |path: &str, accept: &str| {
        http::Request::get(path)
            .header("Accept", accept)
            .body(Vec::new())
            .unwrap()
    };
    let versions = raw
        .request_text(get("/api", "application/json"))
        .await
        .unwrap();
    assert!(
        versions.starts_with(r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"#),
        "{versions}"
    );
    let aggregated = raw
        .request_text(get(
            "/apis",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        ))
        .await
        .unwrap();
    assert!(
        aggregated.starts_with(r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"apiregistration.k8s.io"},"versions":[{"version":"v1","resources":[{"resource":"apiservices","responseKind":{"group":"","version":"","kind":"APIService"},"scope":"Cluster","singularResource":"apiservice","verbs":["#),
        "{aggregated}"
    );
    assert!(
        aggregated.contains(r#""subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"APIService"},"verbs":["#),
        "{aggregated}"
    );
    assert!(
        aggregated.contains(r#"]}],"freshness":"Current"}]}"#),
        "{aggregated}"
    );
}

#[tokio::test]
async fn field_selectors_read_unset_fields_as_their_zero_value() {
    let env = env().await;
    let nodes: Api<Node> = Api::all(env.client());
    let name = format!("wire-{}", env.namespace());
    let node: Node = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();
    let selected = |selector: String| {
        let nodes = nodes.clone();
        async move {
            nodes
                .list(&ListParams::default().fields(&selector))
                .await
                .unwrap()
                .items
                .len()
        }
    };
    assert_eq!(
        selected(format!("metadata.name={name},spec.unschedulable=false")).await,
        1
    );
    assert_eq!(
        selected(format!("metadata.name={name},spec.unschedulable==true")).await,
        0
    );
    assert_eq!(
        selected(format!("metadata.name={name},spec.unschedulable!=true")).await,
        1
    );
    nodes.delete(&name, &Default::default()).await.unwrap();

    let jobs: Api<Job> = Api::namespaced(env.client(), env.namespace());
    let job: Job = serde_json::from_value(json!({"metadata": {"name": "counted"},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox"}]}}}}))
    .unwrap();
    jobs.create(&PostParams::default(), &job).await.unwrap();
    let none_yet = jobs
        .list(&ListParams::default().fields("status.successful=0"))
        .await
        .unwrap();
    assert_eq!(none_yet.items.len(), 1);
}

#[tokio::test]
async fn each_kind_lists_its_own_selectable_fields() {
    let env = env().await;
    let ns = env.namespace();
    let deployments: Api<Deployment> = Api::namespaced(env.client(), ns);
    let refused = api_error(
        deployments
            .list(&ListParams::default().fields("status.replicas=1"))
            .await,
    );
    assert_eq!(
        (refused.code, refused.message.as_str()),
        (
            400,
            "\"status.replicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
        )
    );
    let pods: Api<Pod> = Api::namespaced(env.client(), ns);
    let refused = api_error(
        pods.list(&ListParams::default().fields("spec.image=x"))
            .await,
    );
    assert_eq!(refused.message, "field label not supported: spec.image");
    for field in [
        "spec.nodeName=",
        "status.podIPs=10.0.0.1",
        "spec.hostNetwork=false",
    ] {
        pods.list(&ListParams::default().fields(field))
            .await
            .unwrap();
    }
    let nodes: Api<Node> = Api::all(env.client());
    let refused = api_error(
        nodes
            .list(&ListParams::default().fields("metadata.namespace=x"))
            .await,
    );
    assert_eq!(
        refused.message,
        "field label not supported: metadata.namespace"
    );
    let jobs: Api<Job> = Api::namespaced(env.client(), ns);
    let refused = api_error(jobs.list(&ListParams::default().fields("spec.x=1")).await);
    assert_eq!(
        refused.message,
        "field label \"spec.x\" not supported for Job"
    );
}

#[tokio::test]
async fn pods_run_as_a_service_account_that_must_exist() {
    let env = env().await;
    let ns = env.namespace();
    let pods: Api<Pod> = Api::namespaced(env.client(), ns);
    let pod = |name: &str, extra: Value| -> Pod {
        let mut spec = json!({"initContainers": [{"name": "init", "image": "busybox"}],
            "containers": [{"name": "c", "image": "busybox"}]});
        for (k, v) in extra.as_object().unwrap() {
            spec[k] = v.clone();
        }
        serde_json::from_value(json!({"metadata": {"name": name}, "spec": spec})).unwrap()
    };
    let refused = api_error(
        pods.create(
            &PostParams::default(),
            &pod("lost", json!({"serviceAccountName": "ghost"})),
        )
        .await,
    );
    assert_eq!(refused.code, 403);
    assert_eq!(
        refused.message,
        format!(
            "pods \"lost\" is forbidden: error looking up service account {ns}/ghost: serviceaccount \"ghost\" not found"
        )
    );

    let created = pods
        .create(&PostParams::default(), &pod("mounted", json!({})))
        .await
        .unwrap();
    let spec = serde_json::to_value(created.spec.unwrap()).unwrap();
    assert_eq!(spec["serviceAccountName"], "default");
    let volume = spec["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"].as_str().unwrap().starts_with("kube-api-access-"))
        .unwrap_or_else(|| panic!("the token volume: {spec}"))
        .clone();
    let sources = &volume["projected"]["sources"];
    assert_eq!(sources[0]["serviceAccountToken"]["path"], "token");
    assert_eq!(sources[1]["configMap"]["name"], "kube-root-ca.crt");
    assert_eq!(
        sources[2]["downwardAPI"]["items"][0]["fieldRef"]["fieldPath"],
        "metadata.namespace"
    );
    for key in ["containers", "initContainers"] {
        assert_eq!(
            spec[key][0]["volumeMounts"][0],
            json!({"name": volume["name"], "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}),
            "{key}"
        );
    }

    let accounts: Api<ServiceAccount> = Api::namespaced(env.client(), ns);
    let puller: ServiceAccount = serde_json::from_value(json!({"metadata": {"name": "puller"},
        "automountServiceAccountToken": false, "imagePullSecrets": [{"name": "regcred"}]}))
    .unwrap();
    accounts
        .create(&PostParams::default(), &puller)
        .await
        .unwrap();
    let quiet = pods
        .create(
            &PostParams::default(),
            &pod("quiet", json!({"serviceAccountName": "puller"})),
        )
        .await
        .unwrap();
    let spec = serde_json::to_value(quiet.spec.unwrap()).unwrap();
    assert!(spec.get("volumes").is_none(), "no token volume: {spec}");
    assert_eq!(spec["imagePullSecrets"], json!([{"name": "regcred"}]));
}
