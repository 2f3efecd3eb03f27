//! The core group's namespace limits: a LimitRange fills in and bounds the resources of the
//! Pods created in its namespace, a ResourceQuota counts what the namespace uses and refuses
//! the Pods that would go over it (or that do not say what they ask for).

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{eventually, send};

const JSON: &str = "application/json";

fn pod(name: &str, containers: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": containers}})
}

fn container(name: &str, resources: Value) -> Value {
    json!({"name": name, "image": "busybox", "resources": resources})
}

#[tokio::test]
async fn limit_ranges_default_and_bound_container_resources() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let range = json!({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits"},
        "spec": {"limits": [{"type": "Container",
            "default": {"cpu": "500m", "memory": "256Mi"}, "defaultRequest": {"cpu": "100m"},
            "min": {"cpu": "50m"}, "max": {"memory": "1Gi"}, "maxLimitRequestRatio": {"cpu": "10"}}]}});
    let ranges = format!("/api/v1/namespaces/{ns}/limitranges");
    let (code, created) = send(&client, "POST", &ranges, JSON, Some(range)).await;
    assert_eq!(code, 201, "{created}");
    // The default request of a resource is its default limit.
    assert_eq!(
        created["spec"]["limits"][0]["defaultRequest"],
        json!({"cpu": "100m", "memory": "256Mi"})
    );

    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let (code, plain) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("plain", json!([{"name": "c", "image": "busybox"}]))),
    )
    .await;
    assert_eq!(code, 201, "{plain}");
    assert_eq!(
        plain["metadata"]["annotations"]["kubernetes.io/limit-ranger"],
        "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c"
    );
    assert_eq!(
        plain["spec"]["containers"][0]["resources"],
        json!({"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "256Mi"}})
    );
    assert_eq!(plain["status"]["qosClass"], "Burstable");
    // A limit alone is the request too (Pod defaulting), before the LimitRanger looks.
    let (code, capped) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod(
            "capped",
            json!([container("c", json!({"limits": {"cpu": "200m"}}))]),
        )),
    )
    .await;
    assert_eq!(code, 201, "{capped}");
    assert_eq!(
        capped["metadata"]["annotations"]["kubernetes.io/limit-ranger"],
        "LimitRanger plugin set: memory request for container c; memory limit for container c"
    );
    assert_eq!(
        capped["spec"]["containers"][0]["resources"],
        json!({"limits": {"cpu": "200m", "memory": "256Mi"}, "requests": {"cpu": "200m", "memory": "256Mi"}})
    );

    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod(
            "big",
            json!([container("c", json!({"limits": {"memory": "2Gi"}}))]),
        )),
    )
    .await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "pods \"big\" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi"
    );
    let resources = json!({"requests": {"cpu": "10m"}, "limits": {"cpu": "2", "memory": "2Gi"}});
    let (code, body) = send(
        &client,
        "POST",
        &pods,
        JSON,
        Some(pod("bad", json!([container("c", resources)]))),
    )
    .await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "pods \"bad\" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, maximum memory usage per Container is 1Gi, but limit is 2Gi, cpu max limit to request ratio per Container is 10, but provided ratio is 200.000000]"
    );
    assert_eq!(body["details"], json!({"name": "bad", "kind": "pods"}));
}

#[tokio::test]
async fn resource_quotas_count_usage_and_refuse_pods_over_it() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let quota = json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
        "spec": {"hard": {"pods": "1", "requests.cpu": "1", "limits.memory": "1Gi"}}});
    let quotas = format!("/api/v1/namespaces/{ns}/resourcequotas");
    let (code, created) = send(&client, "POST", &quotas, JSON, Some(quota)).await;
    assert_eq!(code, 201, "{created}");
    let status = |used: Value| json!({"hard": {"limits.memory": "1Gi", "pods": "1", "requests.cpu": "1"}, "used": used});
    let read = || async {
        send(&client, "GET", &format!("{quotas}/q"), "", None)
            .await
            .1["status"]
            .clone()
    };
    let empty = status(json!({"limits.memory": "0", "pods": "0", "requests.cpu": "0"}));
    let seen = eventually(20, || async { Some(read().await).filter(|s| *s == empty) }).await;
    assert_eq!(
        seen,
        Some(empty),
        "the quota controller counts the namespace"
    );

    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let vague = pod(
        "unsized",
        json!([{"name": "c", "image": "busybox"}, container("d", json!({"requests": {"cpu": "1m"}}))]),
    );
    let (code, body) = send(&client, "POST", &pods, JSON, Some(vague)).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "pods \"unsized\" is forbidden: failed quota: q: must specify limits.memory for: c,d; requests.cpu for: c"
    );
    let sized = |name: &str| {
        pod(
            name,
            json!([container(
                "c",
                json!({"requests": {"cpu": "600m"}, "limits": {"memory": "100Mi"}})
            )]),
        )
    };
    let (code, body) = send(&client, "POST", &pods, JSON, Some(sized("first"))).await;
    assert_eq!(code, 201, "{body}");
    let used = status(json!({"limits.memory": "100Mi", "pods": "1", "requests.cpu": "600m"}));
    let seen = eventually(20, || async { Some(read().await).filter(|s| *s == used) }).await;
    assert_eq!(seen, Some(used));
    let (code, body) = send(&client, "POST", &pods, JSON, Some(sized("second"))).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "pods \"second\" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=600m, used: pods=1,requests.cpu=600m, limited: pods=1,requests.cpu=1"
    );
    // Objects the quota does not name are not counted against it.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "free"}});
    let (code, body) = send(
        &client,
        "POST",
        &format!("/api/v1/namespaces/{ns}/configmaps"),
        JSON,
        Some(cm),
    )
    .await;
    assert_eq!(code, 201, "{body}");
}

#[tokio::test]
async fn resource_quota_scope_selectors_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!(
        "/api/v1/namespaces/{}/resourcequotas?dryRun=All",
        env.namespace()
    );
    let quota = |hard: Value, scopes: Value, expressions: Value| {
        json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
            "spec": {"hard": hard, "scopes": scopes,
                "scopeSelector": {"matchExpressions": expressions}}})
    };
    let body = quota(
        json!({"memory": "1Gi", "requests.storage": "1Gi"}),
        Value::Null,
        json!([{"scopeName": "Terminating", "operator": "In", "values": ["x"]},
            {"scopeName": "NotTerminating", "operator": "Exists"},
            {"scopeName": "Bogus", "operator": "Nope"},
            {"operator": "DoesNotExist", "values": ["a"]}]),
    );
    let (code, body) = send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(code, 422, "{body}");
    let e = "spec.scopeSelector.matchExpressions";
    let selector = r#"{"MatchExpressions":[{"ScopeName":"Terminating","Operator":"In","Values":["x"]},{"ScopeName":"NotTerminating","Operator":"Exists","Values":null},{"ScopeName":"Bogus","Operator":"Nope","Values":null},{"ScopeName":"","Operator":"DoesNotExist","Values":["a"]}]}"#;
    let unfit = format!("{e}: Invalid value: {selector}: unsupported scope applied to resource");
    assert_eq!(
        crate::support::raw::causes(&body),
        [
            unfit.clone(),
            format!(
                "{e}.operator: Invalid value: \"In\": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
            ),
            unfit,
            format!("{e}.scopeName: Invalid value: \"Bogus\": unsupported scope"),
            format!("{e}.operator: Invalid value: \"Nope\": not a valid selector operator"),
            format!("{e}.scopeName: Invalid value: \"\": unsupported scope"),
            format!(
                "{e}.values: Invalid value: [\"a\"]: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"
            ),
            format!("{e}: Invalid value: null: conflicting scopes"),
        ]
    );
    // The conflict prints the quota's `scopes`, whatever they are.
    let body = quota(
        json!({"pods": "1"}),
        json!(["BestEffort"]),
        json!([{"scopeName": "BestEffort", "operator": "Exists"},
            {"scopeName": "NotBestEffort", "operator": "Exists"},
            {"scopeName": "PriorityClass", "operator": "In"}]),
    );
    let (code, body) = send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        crate::support::raw::causes(&body),
        [
            format!(
                "{e}.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"
            ),
            format!("{e}: Invalid value: [\"BestEffort\"]: conflicting scopes"),
        ]
    );
}

/// ResourceQuota is the last validating plugin, on an update as on a create: an update that
/// a ValidatingAdmissionPolicy and a quota both refuse is refused by the policy; the quota
/// refuses the same update of a Service the policy does not select.
#[tokio::test]
async fn resource_quota_is_checked_after_the_admission_policies() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let quota = json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "ports"},
        "spec": {"hard": {"services.nodeports": "0"}}});
    let quotas = format!("/api/v1/namespaces/{ns}/resourcequotas");
    let (code, body) = send(&client, "POST", &quotas, JSON, Some(quota)).await;
    assert_eq!(code, 201, "{body}");
    let services = format!("/api/v1/namespaces/{ns}/services");
    for (name, labels) in [("cf-p", json!({"cf-policy": "yes"})), ("cf-q", json!({}))] {
        let service = json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "labels": labels}, "spec": {"ports": [{"port": 80}]}});
        let (code, body) = send(&client, "POST", &services, JSON, Some(service)).await;
        assert_eq!(code, 201, "{body}");
    }
    let policy_name = format!("cf-{ns}-clusterip");
    let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy", "metadata": {"name": policy_name},
        "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"], "resources": ["services"]}]},
            "validations": [{"expression": "object.spec.type == 'ClusterIP'",
                "message": "only ClusterIP services"}]}});
    let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": policy_name},
        "spec": {"policyName": policy_name, "validationActions": ["Deny"],
            "matchResources": {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
                "objectSelector": {"matchLabels": {"cf-policy": "yes"}}}}});
    let admission = "/apis/admissionregistration.k8s.io/v1";
    let (code, body) = send(
        &client,
        "POST",
        &format!("{admission}/validatingadmissionpolicies"),
        JSON,
        Some(policy),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let (code, body) = send(
        &client,
        "POST",
        &format!("{admission}/validatingadmissionpolicybindings"),
        JSON,
        Some(binding),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let to_node_port = json!({"spec": {"type": "NodePort"}});
    let patch = |name: &str| {
        let client = client.clone();
        let path = format!("{services}/{name}?dryRun=All");
        let body = to_node_port.clone();
        async move {
            send(
                &client,
                "PATCH",
                &path,
                "application/merge-patch+json",
                Some(body),
            )
            .await
        }
    };
    // The real server's policy and quota caches see them a moment later.
    let refused = eventually(30, || async {
        let (code, body) = patch("cf-p").await;
        (code == 422).then_some(body)
    })
    .await
    .expect("the policy refuses the update");
    assert_eq!(
        refused["message"],
        "services \"cf-p\" is forbidden: ValidatingAdmissionPolicy 'cf-NS-clusterip' with binding 'cf-NS-clusterip' denied request: only ClusterIP services"
            .replace("NS", ns)
    );
    let refused = eventually(30, || async {
        let (code, body) = patch("cf-q").await;
        (code == 403).then_some(body)
    })
    .await
    .expect("the quota refuses the update");
    assert_eq!(
        refused["message"],
        "services \"cf-q\" is forbidden: exceeded quota: ports, requested: services.nodeports=1, used: services.nodeports=0, limited: services.nodeports=0"
    );
    for path in [
        format!("{admission}/validatingadmissionpolicybindings/{policy_name}"),
        format!("{admission}/validatingadmissionpolicies/{policy_name}"),
    ] {
        send(&client, "DELETE", &path, "", None).await;
    }
}

#[tokio::test]
async fn a_pods_resize_is_charged_to_the_quota_for_what_it_grows() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let quota = json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
        "spec": {"hard": {"requests.cpu": "1", "limits.cpu": "2"}}});
    let quotas = format!("/api/v1/namespaces/{ns}/resourcequotas");
    let (code, created) = send(&client, "POST", &quotas, JSON, Some(quota)).await;
    assert_eq!(code, 201, "{created}");
    // The quota controller counts the namespace first (the real plugin's informer may not
    // see a new quota at once, and then admits anything).
    let counted = eventually(20, || async {
        let (_, quota) = send(&client, "GET", &format!("{quotas}/q"), "", None).await;
        quota["status"]["used"].is_object().then_some(())
    })
    .await;
    assert!(
        counted.is_some(),
        "the quota controller counts the namespace"
    );
    let cpu = |cpu: &str| json!({"requests": {"cpu": cpu}, "limits": {"cpu": cpu}});
    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let sized = pod("p", json!([container("c", cpu("500m"))]));
    let (code, body) = send(&client, "POST", &pods, JSON, Some(sized)).await;
    assert_eq!(code, 201, "{body}");
    let resize = format!("{pods}/p/resize");
    let smp = "application/strategic-merge-patch+json";
    let to =
        |resources: Value| json!({"spec": {"containers": [{"name": "c", "resources": resources}]}});
    let (code, body) = send(&client, "PATCH", &resize, smp, Some(to(cpu("800m")))).await;
    assert_eq!(code, 200, "{body}");
    let (code, body) = send(&client, "PATCH", &resize, smp, Some(to(cpu("1500m")))).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "pods \"p\" is forbidden: exceeded quota: q, requested: requests.cpu=700m, used: requests.cpu=800m, limited: requests.cpu=1"
    );
    // Shrinking is free.
    let (code, body) = send(&client, "PATCH", &resize, smp, Some(to(cpu("100m")))).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["spec"]["containers"][0]["resources"], cpu("100m"));
}
