//! The core group (`v1`) beyond plain CRUD: the pod subresources of a control plane without
//! nodes (log, exec, attach, port-forward, proxies, binding, ephemeral containers, resize),
//! component statuses, the objects every namespace gets, owner references of an update and
//! the repetition of object-meta errors (the pod rules are in `core_pod_rules`).

use k8s_openapi::api::core::v1::{ConfigMap, Pod, Service, ServiceAccount};
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{eventually, kubernetes_endpoint_slice, send};

fn pod(name: &str, containers: &[&str]) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"containers": containers.iter().map(|c| json!({"name": c, "image": "busybox"})).collect::<Vec<_>>()},
    }))
    .unwrap()
}

fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn pod_subresources_answer_as_without_a_node() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    pods.create(&PostParams::default(), &pod("lonely", &["c"]))
        .await
        .unwrap();
    pods.create(&PostParams::default(), &pod("two", &["a", "b"]))
        .await
        .unwrap();
    let base = format!("/api/v1/namespaces/{ns}/pods");
    // No node yet: no log at all.
    assert_eq!(
        send(&client, "GET", &format!("{base}/lonely/log"), "", None).await,
        (204, Value::Null)
    );
    let (code, body) = send(&client, "GET", &format!("{base}/two/log"), "", None).await;
    assert_eq!(code, 400);
    assert_eq!(
        message(&body),
        "a container name must be specified for pod two, choose one of: [a b]"
    );
    let (code, body) = send(
        &client,
        "GET",
        &format!("{base}/two/log?container=zz"),
        "",
        None,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (400, "container zz is not valid for pod two")
    );
    for sub in [
        "exec?command=ls&stdout=true",
        "attach?stdout=true",
        "portforward?ports=80",
    ] {
        let (code, body) = send(&client, "POST", &format!("{base}/lonely/{sub}"), "", None).await;
        assert_eq!(
            (code, message(&body)),
            (400, "pod lonely does not have a host assigned"),
            "{sub}"
        );
    }
    let (code, body) = send(
        &client,
        "GET",
        &format!("{base}/lonely/proxy/healthz"),
        "",
        None,
    )
    .await;
    assert_eq!((code, message(&body)), (400, "address not allowed"));
    let (code, body) = send(&client, "GET", &format!("{base}/missing/log"), "", None).await;
    assert_eq!((code, message(&body)), (404, "pods \"missing\" not found"));

    let services: Api<Service> = Api::namespaced(client.clone(), ns);
    let svc: Service = serde_json::from_value(
        json!({"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}}),
    )
    .unwrap();
    services.create(&PostParams::default(), &svc).await.unwrap();
    // The proxy goes where the service's Endpoints say: without any, the service is "missing".
    let path = format!("/api/v1/namespaces/{ns}/services/web:80/proxy/");
    let (code, body) = send(&client, "GET", &path, "", None).await;
    assert_eq!((code, message(&body)), (404, "services \"web\" not found"));
    let endpoints = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"}, "subsets": []});
    let eps = format!("/api/v1/namespaces/{ns}/endpoints");
    let (code, _) = send(&client, "POST", &eps, "application/json", Some(endpoints)).await;
    assert_eq!(code, 201);
    // A real server's proxy reads Endpoints from its cache: the new one is seen shortly.
    let answer = eventually(20, || async {
        let (code, body) = send(&client, "GET", &path, "", None).await;
        (code != 404).then(|| (code, message(&body).to_string()))
    })
    .await;
    assert_eq!(
        answer,
        Some((
            503,
            "no endpoints available for service \"web\"".to_string()
        ))
    );
    let (code, body) = send(
        &client,
        "GET",
        "/api/v1/nodes/no-such-node/proxy/",
        "",
        None,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (404, "nodes \"no-such-node\" not found")
    );
}

#[tokio::test]
async fn binding_assigns_a_node_once() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    pods.create(&PostParams::default(), &pod("bound", &["c"]))
        .await
        .unwrap();
    let binding = |node: &str| {
        json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "bound"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}})
    };
    let path = format!("/api/v1/namespaces/{ns}/pods/bound/binding");
    let (code, body) = send(
        &client,
        "POST",
        &path,
        "application/json",
        Some(binding("node-a")),
    )
    .await;
    assert_eq!(
        (code, body["status"].as_str()),
        (201, Some("Success")),
        "{body}"
    );
    let bound = pods.get("bound").await.unwrap();
    assert_eq!(bound.spec.unwrap().node_name.as_deref(), Some("node-a"));
    let conditions = bound.status.unwrap().conditions.unwrap_or_default();
    assert!(
        conditions
            .iter()
            .any(|c| c.type_ == "PodScheduled" && c.status == "True"),
        "{conditions:?}"
    );
    let (code, body) = send(
        &client,
        "POST",
        &path,
        "application/json",
        Some(binding("node-b")),
    )
    .await;
    assert_eq!(code, 409);
    assert_eq!(
        message(&body),
        "Operation cannot be fulfilled on pods/binding \"bound\": pod bound is already assigned to node \"node-a\""
    );
    // On a node that does not exist: the kubelet lookup fails (as a missing "pod").
    let base = format!("/api/v1/namespaces/{ns}/pods/bound");
    for (method, sub) in [("GET", "log"), ("POST", "exec?command=ls&stdout=true")] {
        let (code, body) = send(&client, method, &format!("{base}/{sub}"), "", None).await;
        assert_eq!(
            (code, message(&body)),
            (404, "pods \"node-a\" not found"),
            "{sub}"
        );
    }
}

#[tokio::test]
async fn ephemeral_containers_are_added_never_removed() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    pods.create(&PostParams::default(), &pod("debugged", &["app"]))
        .await
        .unwrap();
    let path = format!("/api/v1/namespaces/{ns}/pods/debugged/ephemeralcontainers");
    let add = json!({"spec": {"ephemeralContainers": [{"name": "debugger", "image": "busybox", "targetContainerName": "app"}]}});
    let (code, body) = send(
        &client,
        "PATCH",
        &path,
        "application/strategic-merge-patch+json",
        Some(add),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let ephemeral = &body["spec"]["ephemeralContainers"][0];
    assert_eq!(ephemeral["name"], "debugger");
    // Defaulted as containers are.
    assert_eq!(ephemeral["terminationMessagePolicy"], "File");
    assert_eq!(body["spec"]["containers"][0]["name"], "app");
    let remove = json!({"spec": {"ephemeralContainers": []}});
    let (code, body) = send(
        &client,
        "PATCH",
        &path,
        "application/merge-patch+json",
        Some(remove),
    )
    .await;
    assert_eq!(code, 422);
    assert_eq!(
        message(&body),
        "Pod \"debugged\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger\" may not be removed\n"
    );
    let bad = json!({"spec": {"ephemeralContainers": [{"name": "debugger", "image": "busybox", "targetContainerName": "app"}, {"name": "other", "image": "x", "targetContainerName": "zz"}]}});
    let (code, body) = send(
        &client,
        "PATCH",
        &path,
        "application/merge-patch+json",
        Some(bad),
    )
    .await;
    assert_eq!(code, 422);
    assert_eq!(
        body["details"]["causes"][0],
        json!({"reason": "FieldValueNotFound", "message": "Not found: \"zz\"", "field": "spec.ephemeralContainers[1].targetContainerName"})
    );
}

#[tokio::test]
async fn resize_keeps_the_qos_class() {
    let env = env().await;
    let ns = env.namespace();
    let pods: Api<Pod> = Api::namespaced(env.client(), ns);
    let guaranteed: Pod = serde_json::from_value(json!({
        "metadata": {"name": "sized"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {
            "requests": {"cpu": "100m", "memory": "10Mi"}, "limits": {"cpu": "100m", "memory": "10Mi"}}}]},
    }))
    .unwrap();
    pods.create(&PostParams::default(), &guaranteed)
        .await
        .unwrap();
    let resize = |cpu_request: &str, cpu_limit: &str| {
        Patch::Strategic(
            json!({"spec": {"containers": [{"name": "c", "image": "ignored",
            "resources": {"requests": {"cpu": cpu_request}, "limits": {"cpu": cpu_limit}}}]}}),
        )
    };
    let params = PatchParams::default();
    let resized = pods
        .patch_subresource("resize", "sized", &params, &resize("200m", "200m"))
        .await
        .unwrap();
    let c = &resized.spec.unwrap().containers[0];
    assert_eq!(c.image.as_deref(), Some("busybox"), "only resources change");
    let limits = c.resources.as_ref().unwrap().limits.as_ref().unwrap();
    assert_eq!(limits["cpu"].0, "200m");
    let refused = pods
        .patch_subresource("resize", "sized", &params, &resize("100m", "300m"))
        .await;
    let status = crate::common::api_error(refused);
    assert_eq!(status.code, 422);
    assert_eq!(
        status.message,
        "Pod \"sized\" is invalid: spec: Invalid value: \"Guaranteed\": Pod QOS Class may not change as a result of resizing"
    );
}

#[tokio::test]
async fn component_statuses_are_listed() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let (code, list) = send(&client, "GET", "/api/v1/componentstatuses", "", None).await;
    assert_eq!((code, &list["kind"]), (200, &json!("ComponentStatusList")));
    let mut names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["metadata"]["name"].as_str())
        .collect();
    // The real server lists them in no fixed order.
    names.sort_unstable();
    assert_eq!(names, ["controller-manager", "etcd-0", "scheduler"]);
    let (code, etcd) = send(&client, "GET", "/api/v1/componentstatuses/etcd-0", "", None).await;
    assert_eq!(code, 200);
    assert_eq!(
        etcd["conditions"],
        json!([{"type": "Healthy", "status": "True", "message": "ok"}])
    );
    let (code, _) = send(
        &client,
        "DELETE",
        "/api/v1/componentstatuses/etcd-0",
        "",
        None,
    )
    .await;
    assert_eq!(code, 405);
}

#[tokio::test]
async fn every_namespace_gets_its_service_account_and_root_ca() {
    if std::env::var("KUBEFORGE_TEST_CONTROLLER_MANAGER").as_deref() == Ok("off") {
        eprintln!("skipping: without kube-controller-manager a real control plane makes neither");
        return;
    }
    let env = env().await;
    let ns = env.namespace();
    let accounts: Api<ServiceAccount> = Api::namespaced(env.client(), ns);
    let maps: Api<ConfigMap> = Api::namespaced(env.client(), ns);
    let sa = eventually(20, || async { accounts.get_opt("default").await.unwrap() }).await;
    assert!(sa.is_some(), "the default service account appears");
    let ca = eventually(20, || async {
        maps.get_opt("kube-root-ca.crt").await.unwrap()
    })
    .await
    .expect("kube-root-ca.crt appears");
    let pem = &ca.data.unwrap()["ca.crt"];
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"), "{pem}");
    assert!(
        ca.metadata.annotations.unwrap()["kubernetes.io/description"]
            .starts_with("Contains a CA bundle")
    );
}

#[tokio::test]
async fn the_kubernetes_service_leads_to_the_api_server() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    let svc = services.get("kubernetes").await.unwrap();
    let labels = svc.metadata.labels.unwrap();
    assert_eq!(labels["component"], "apiserver");
    assert_eq!(labels["provider"], "kubernetes");
    let spec = svc.spec.unwrap();
    let port = &spec.ports.unwrap()[0];
    assert_eq!((port.name.as_deref(), port.port), (Some("https"), 443));
    assert!(spec.cluster_ip.is_some_and(|ip| ip.ends_with(".1")));
    if env.mode_name() == "binaries" {
        // envtest's flags advertise 127.0.0.1, for which kube-apiserver publishes no
        // endpoints; a cluster (and the embedded server) does.
        return;
    }
    let slice = kubernetes_endpoint_slice(&client).await;
    assert_eq!(
        slice["metadata"]["labels"]["kubernetes.io/service-name"],
        "kubernetes"
    );
    assert_eq!(slice["ports"][0]["name"], "https");
    let url: http::Uri = env.url().parse().unwrap();
    if !env.is_existing_cluster() {
        // The server's own port, as the real bootstrap controller writes it.
        assert_eq!(slice["ports"][0]["port"], json!(url.port_u16().unwrap()));
    }
}

/// The events of `name` in a watch of the namespace's ConfigMaps from `rv` (for `secs`
/// seconds): type and the names of its owners.
async fn config_map_events(
    client: &kube::Client,
    ns: &str,
    name: &str,
    rv: &str,
    secs: u32,
) -> Vec<(String, Vec<String>)> {
    let path = format!(
        "/api/v1/namespaces/{ns}/configmaps?watch=true&resourceVersion={rv}&timeoutSeconds={secs}&fieldSelector=metadata.name%3D{name}"
    );
    let (code, body) = send(client, "GET", &path, "", None).await;
    assert_eq!(code, 200, "{body}");
    let text = match &body {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let event: Value = serde_json::from_str(l).unwrap();
            let owners = event["object"]["metadata"]["ownerReferences"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| r["name"].as_str().unwrap_or_default().to_string())
                .collect();
            (
                event["type"].as_str().unwrap_or_default().to_string(),
                owners,
            )
        })
        .collect()
}

#[tokio::test]
async fn an_update_naming_an_absent_owner_is_collected() {
    if std::env::var("KUBEFORGE_TEST_CONTROLLER_MANAGER").as_deref() == Ok("off") {
        eprintln!("skipping: without kube-controller-manager nothing collects garbage");
        return;
    }
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let maps: Api<ConfigMap> = Api::namespaced(env.client(), ns);
    let made =
        |name: &str| serde_json::from_value::<ConfigMap>(json!({"metadata": {"name": name}}));
    let live = maps
        .create(&PostParams::default(), &made("upd-live").unwrap())
        .await
        .unwrap();
    let first = maps
        .create(&PostParams::default(), &made("upd-orphan").unwrap())
        .await
        .unwrap();
    maps.create(&PostParams::default(), &made("upd-mixed").unwrap())
        .await
        .unwrap();
    let rv = first.metadata.resource_version.unwrap();
    let ghost = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "upd-ghost",
        "uid": "00000000-0000-0000-0000-00000000abcd"});
    let owner = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "upd-live",
        "uid": live.metadata.uid.unwrap()});
    // The reply is the object as written; the collector acts right after.
    let written = maps
        .patch(
            "upd-orphan",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"ownerReferences": [ghost]}})),
        )
        .await
        .unwrap();
    assert_eq!(written.metadata.owner_references.unwrap().len(), 1);
    maps.patch(
        "upd-mixed",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"ownerReferences": [ghost, owner]}})),
    )
    .await
    .unwrap();
    let gone = eventually(20, || async {
        maps.get_opt("upd-orphan")
            .await
            .unwrap()
            .is_none()
            .then_some(())
    })
    .await;
    assert!(gone.is_some(), "a dependent with no owner left is deleted");
    let kept = eventually(20, || async {
        let map = maps.get("upd-mixed").await.unwrap();
        let refs = map.metadata.owner_references.unwrap_or_default();
        (refs.len() == 1).then_some(refs)
    })
    .await
    .expect("the dangling reference is removed");
    assert_eq!(kept[0].name, "upd-live");
    let orphan = config_map_events(&client, ns, "upd-orphan", &rv, 1).await;
    let ghost_only = vec!["upd-ghost".to_string()];
    assert_eq!(
        orphan,
        [
            ("MODIFIED".to_string(), ghost_only.clone()),
            ("DELETED".to_string(), ghost_only)
        ]
    );
    let mixed = config_map_events(&client, ns, "upd-mixed", &rv, 1).await;
    let types: Vec<&str> = mixed.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(types, ["ADDED", "MODIFIED", "MODIFIED"]);
    assert_eq!(mixed[2].1, ["upd-live"]);
}

/// The families of a 422's metadata causes, one letter each, in order: Labels, Annotations,
/// Owner references, Finalizer names (as apimachinery checks them), their Conflict, the core
/// API's rule on finalizer Names.
fn meta_families(body: &Value) -> String {
    let causes = body["details"]["causes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    causes
        .iter()
        .map(|c| {
            let field = c["field"].as_str().unwrap_or_default();
            match field {
                "metadata.labels" => 'L',
                "metadata.annotations" => 'A',
                "metadata.finalizers" if message(c).contains("cannot be both set") => 'C',
                "metadata.finalizers" => 'F',
                f if f.starts_with("metadata.ownerReferences") => 'O',
                f if f.starts_with("metadata.finalizers[") => 'N',
                _ => '?',
            }
        })
        .collect()
}

#[tokio::test]
async fn object_meta_errors_repeat_as_each_kind_checks_the_object_meta() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let bad = json!({
        "labels": {"bad key!": "v"},
        "annotations": {"a!": "v"},
        "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n"}],
        "finalizers": ["bad!", "orphan", "foregroundDeletion"],
    });
    let merge = "application/merge-patch+json";
    let configmaps = format!("/api/v1/namespaces/{ns}/configmaps");
    let leases = format!("/apis/coordination.k8s.io/v1/namespaces/{ns}/leases");
    // On create, once: the kind's own check of the object meta (a ConfigMap's with the core
    // API's finalizer rule, a Lease's with apimachinery's alone).
    for (path, api_version, kind, families) in [
        (&configmaps, "v1", "ConfigMap", "LAOFCN"),
        (&leases, "coordination.k8s.io/v1", "Lease", "LAOFC"),
    ] {
        let mut metadata = bad.clone();
        metadata["name"] = json!("meta-repeat");
        let object = json!({"apiVersion": api_version, "kind": kind, "metadata": metadata});
        let (code, body) = send(&client, "POST", path, "application/json", Some(object)).await;
        assert_eq!(code, 422, "{body}");
        assert_eq!(meta_families(&body), families, "{kind} create: {body}");
        let object = json!({"apiVersion": api_version, "kind": kind,
            "metadata": {"name": "meta-repeat"}});
        let (code, body) = send(&client, "POST", path, "application/json", Some(object)).await;
        assert_eq!(code, 201, "{body}");
    }
    // On a main update: the generic registry's check as it is and as an update, then the
    // strategy's: a ConfigMap's as an update and as a new object, a Lease's as an update.
    for (path, families) in [
        (&configmaps, "LAOFCLAOLAONLAOFCN"),
        (&leases, "LAOFCLAOLAO"),
    ] {
        let patch = json!({"metadata": bad});
        let (code, body) = send(
            &client,
            "PATCH",
            &format!("{path}/meta-repeat"),
            merge,
            Some(patch),
        )
        .await;
        assert_eq!(code, 422, "{body}");
        assert_eq!(meta_families(&body), families, "{path} update: {body}");
    }
}

#[tokio::test]
async fn docker_config_secrets_report_go_json_errors() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{}/secrets?dryRun=All", env.namespace());
    let cases = [
        (
            "kubernetes.io/dockerconfigjson",
            ".dockerconfigjson",
            "not json",
            Some("invalid character 'o' in literal null (expecting 'u')"),
        ),
        (
            "kubernetes.io/dockercfg",
            ".dockercfg",
            "{\"a\": 1,}",
            Some("invalid character '}' looking for beginning of object key string"),
        ),
        (
            "kubernetes.io/dockerconfigjson",
            ".dockerconfigjson",
            "{\"auths\": {}",
            Some("unexpected end of JSON input"),
        ),
        (
            "kubernetes.io/dockerconfigjson",
            ".dockerconfigjson",
            "[1, 2]",
            Some("json: cannot unmarshal array into Go value of type map[string]interface {}"),
        ),
        (
            "kubernetes.io/dockercfg",
            ".dockercfg",
            "{} x",
            Some("invalid character 'x' after top-level value"),
        ),
        ("kubernetes.io/dockercfg", ".dockercfg", "null", None),
    ];
    for (kind, key, text, why) in cases {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "docker"},
            "type": kind, "stringData": {key: text}});
        let (code, body) = send(&client, "POST", &path, "application/json", Some(secret)).await;
        match why {
            Some(why) => {
                assert_eq!(code, 422, "{text}: {body}");
                assert_eq!(
                    body["details"]["causes"][0]["message"],
                    format!("Invalid value: \"<secret contents redacted>\": {why}"),
                    "{text}"
                );
                assert_eq!(
                    body["details"]["causes"][0]["field"],
                    format!("data[{key}]")
                );
            }
            None => assert_eq!(code, 201, "{text}: {body}"),
        }
    }
}

/// A ServiceAccount whose `secrets` entry has no name (its key) cannot be typed by the
/// field manager: it is stored without managed fields.
#[tokio::test]
async fn an_item_without_its_list_key_leaves_no_managed_fields() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!(
        "/api/v1/namespaces/{}/serviceaccounts?dryRun=All",
        env.namespace()
    );
    let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "keyless"},
        "secrets": [{"name": ""}]});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(sa)).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["secrets"], json!([{}]));
    assert!(body["metadata"]["managedFields"].is_null(), "{body}");
}

/// A ReplicationController's `minReadySeconds` is checked first; its selector's values are
/// not (an empty selector is the template's labels, which are).
#[tokio::test]
async fn replication_controllers_check_min_ready_seconds_not_selector_values() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!(
        "/api/v1/namespaces/{}/replicationcontrollers?dryRun=All",
        env.namespace()
    );
    let rc = json!({"apiVersion": "v1", "kind": "ReplicationController",
        "metadata": {"name": "rc", "labels": {"a": "b"}},
        "spec": {"replicas": -1, "minReadySeconds": -1, "selector": {"app": "Bad_Value!"},
            "template": {"metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}}});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(rc)).await;
    assert_eq!(code, 422);
    assert_eq!(
        crate::support::raw::causes(&body),
        [
            "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            "spec.template.metadata.labels: Invalid value: {\"app\":\"x\"}: `selector` does not match template `labels`",
        ]
    );
}
