//! Small pieces of a control plane users meet: the ServiceCIDR controller of
//! kube-controller-manager (every ServiceCIDR gets the `networking.k8s.io/service-cidr-finalizer`
//! finalizer and a `Ready` condition; a ServiceCIDR being deleted is held, `Ready=False` with
//! reason `Terminating`, while an address the allocator manages lies in its range alone), the
//! default ServiceCIDR the API server creates again once it is gone, and the warnings a
//! workload's pod template gets (deprecated node labels, volume plugins and annotations,
//! duplicates, fractional bytes, ports, an Indexed Job's completions).

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{eventually, exchange, send};

const FINALIZER: &str = "networking.k8s.io/service-cidr-finalizer";
const CIDRS: &str = "/apis/networking.k8s.io/v1/servicecidrs";

/// The object at `path` once `done` holds for it (within 30 s).
async fn once(client: &kube::Client, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let seen = eventually(30, || async {
        let (code, v) = send(client, "GET", path, "", None).await;
        (code == 200 && done(&v)).then_some(v)
    })
    .await;
    match seen {
        Some(v) => v,
        None => {
            let (_, v) = send(client, "GET", path, "", None).await;
            panic!("{path} never reached the expected state: {v}")
        }
    }
}

/// The `Ready` condition of a ServiceCIDR.
fn ready(cidr: &Value) -> Value {
    cidr["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready")
        .cloned()
        .unwrap_or(Value::Null)
}

/// A second octet of 10.x.0.0/24 that no other test process of this cluster picks at the
/// same time (ServiceCIDRs and IPAddresses are cluster-scoped).
fn octet(ns: &str) -> u32 {
    100 + ns.bytes().map(u32::from).sum::<u32>() % 100
}

#[tokio::test]
async fn service_cidrs_get_the_finalizer_and_are_held_while_an_address_is_in_use() {
    let env = env().await;
    let client = env.client();
    let ns = env.namespace();
    let name = format!("conformance-{ns}");
    let range = octet(ns);
    let body = json!({"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR",
        "metadata": {"name": name}, "spec": {"cidrs": [format!("10.{range}.0.0/24")]}});
    let (code, created) = send(&client, "POST", CIDRS, "application/json", Some(body)).await;
    assert_eq!(code, 201, "{created}");
    let path = format!("{CIDRS}/{name}");
    let cidr = once(&client, &path, |c| ready(c)["status"] == "True").await;
    assert_eq!(cidr["metadata"]["finalizers"], json!([FINALIZER]));
    let condition = ready(&cidr);
    assert_eq!(condition["message"], "Kubernetes Service CIDR is ready");
    assert_eq!(condition["reason"], "");

    // The default ServiceCIDR of the API server is protected the same way.
    let default = once(&client, &format!("{CIDRS}/kubernetes"), |c| {
        ready(c)["status"] == "True" && c["metadata"]["finalizers"] == json!([FINALIZER])
    })
    .await;
    assert!(default["spec"]["cidrs"][0].is_string(), "{default}");

    // An address of the range holds the deletion.
    let ip = format!("10.{range}.0.9");
    let address = json!({"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
        "metadata": {"name": ip, "labels": {"ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
            "ipaddress.kubernetes.io/ip-family": "IPv4"}},
        "spec": {"parentRef": {"resource": "services", "namespace": ns, "name": "x"}}});
    let ips = "/apis/networking.k8s.io/v1/ipaddresses";
    let (code, answer) = send(&client, "POST", ips, "application/json", Some(address)).await;
    assert_eq!(code, 201, "{answer}");
    let (code, deleted) = send(&client, "DELETE", &path, "", None).await;
    assert_eq!(code, 200, "{deleted}");
    assert_eq!(deleted["metadata"]["finalizers"], json!([FINALIZER]));
    let held = once(&client, &path, |c| ready(c)["reason"] == "Terminating").await;
    assert_eq!(ready(&held)["status"], "False");
    assert_eq!(
        ready(&held)["message"],
        "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR"
    );
    assert_eq!(held["metadata"]["finalizers"], json!([FINALIZER]));

    // Once the address is gone, so is the ServiceCIDR (after the controller's 10 s grace).
    let (code, answer) = send(&client, "DELETE", &format!("{ips}/{ip}"), "", None).await;
    assert_eq!(code, 200, "{answer}");
    let gone = eventually(30, || async {
        let (code, _) = send(&client, "GET", &path, "", None).await;
        (code == 404).then_some(())
    })
    .await;
    assert!(gone.is_some(), "{path} was not removed");
}

#[tokio::test]
async fn deployments_with_deprecated_node_labels_are_warned_of() {
    let env = env().await;
    let client = env.client();
    let ns = env.namespace();
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "labels"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
            "metadata": {"labels": {"a": "b"}},
            "spec": {"nodeSelector": {"beta.kubernetes.io/arch": "amd64"},
                "topologySpreadConstraints": [{"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule",
                    "topologyKey": "failure-domain.beta.kubernetes.io/zone",
                    "labelSelector": {"matchLabels": {"a": "b"}}}],
                "containers": [{"name": "c", "image": "i"}]}}}});
    let path = format!("/apis/apps/v1/namespaces/{ns}/deployments");
    let headers = [("Content-Type", "application/json")];
    let (code, answer, _) = exchange(&client, "POST", &path, &headers, Some(&deployment)).await;
    assert_eq!(code, 201);
    let warnings: Vec<&str> = answer
        .get_all("warning")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            "299 - \"spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use \\\"kubernetes.io/arch\\\" instead\"",
            "299 - \"spec.template.spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use \\\"topology.kubernetes.io/zone\\\" instead\"",
        ]
    );

    // A label change does not bump the generation and warns of nothing.
    let patch = json!({"metadata": {"labels": {"x": "y"}}});
    let headers = [("Content-Type", "application/merge-patch+json")];
    let (code, answer, _) = exchange(
        &client,
        "PATCH",
        &format!("{path}/labels"),
        &headers,
        Some(&patch),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(answer.get_all("warning").iter().count(), 0);
}

#[tokio::test]
async fn the_default_service_cidr_is_created_again_once_gone() {
    let env = env().await;
    let client = env.client();
    let ns = env.namespace();
    let path = format!("{CIDRS}/kubernetes");
    let old = once(&client, &path, |c| {
        c["metadata"]["finalizers"] == json!([FINALIZER])
    })
    .await;
    // A twin holding the same range lets the default go (nothing in use is its alone).
    let twin = format!("conformance-twin-{ns}");
    let body = json!({"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR",
        "metadata": {"name": twin}, "spec": {"cidrs": old["spec"]["cidrs"]}});
    let (code, created) = send(&client, "POST", CIDRS, "application/json", Some(body)).await;
    assert_eq!(code, 201, "{created}");
    let (code, deleted) = send(&client, "DELETE", &path, "", None).await;
    assert_eq!(code, 200, "{deleted}");
    let again = once(&client, &path, |c| {
        c["metadata"]["uid"] != old["metadata"]["uid"]
            && c["metadata"]["finalizers"] == json!([FINALIZER])
            && ready(c)["message"] == "Kubernetes Service CIDR is ready"
    })
    .await;
    assert_eq!(again["spec"]["cidrs"], old["spec"]["cidrs"]);
    assert_eq!(ready(&again)["status"], "True");
    assert!(again["metadata"]["deletionTimestamp"].is_null(), "{again}");
    let managers: Vec<&str> = again["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["manager"].as_str())
        .collect();
    assert!(managers.contains(&"kube-apiserver"), "{managers:?}");
    assert!(
        managers.contains(&"kubernetes-service-cidr-controller"),
        "{managers:?}"
    );
    let (code, answer) = send(&client, "DELETE", &format!("{CIDRS}/{twin}"), "", None).await;
    assert_eq!(code, 200, "{answer}");
}

/// The warnings of an answer, as sent (`299 - "..."`), their text unquoted.
fn warnings_of(answer: &http::HeaderMap) -> Vec<String> {
    answer
        .get_all("warning")
        .iter()
        .map(|v| {
            let text = v.to_str().unwrap();
            let quoted = text.strip_prefix("299 - ").unwrap_or(text);
            serde_json::from_str::<String>(quoted).unwrap_or_else(|_| quoted.to_string())
        })
        .collect()
}

#[tokio::test]
async fn pod_templates_get_the_pod_spec_warnings_in_order() {
    let env = env().await;
    let client = env.client();
    let ns = env.namespace();
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "warned"},
        "spec": {"completionMode": "Indexed", "completions": 100_001, "parallelism": 10_001,
            "suspend": true, "template": {
            "metadata": {"annotations": {"scheduler.alpha.kubernetes.io/critical-pod": ""}},
            "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": -1,
                "imagePullSecrets": [{"name": "s"}, {"name": "s"}],
                "volumes": [{"name": "g", "gitRepo": {"repository": "r"}}],
                "containers": [{"name": "c", "image": "i",
                    "env": [{"name": "A", "value": "1"}, {"name": "A", "value": "$(A)-2"},
                        {"name": "A", "value": "3"}],
                    "ports": [{"containerPort": 80, "hostIP": "1.2.3.4"}, {"containerPort": 80}],
                    "resources": {"requests": {"memory": "1.5"}}}]}}}});
    let path = format!("/apis/batch/v1/namespaces/{ns}/jobs?dryRun=All");
    let headers = [("Content-Type", "application/json")];
    let (code, answer, _) = exchange(&client, "POST", &path, &headers, Some(&job)).await;
    assert_eq!(code, 201);
    assert_eq!(
        warnings_of(&answer),
        [
            "spec: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail",
            "spec.template.metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the \"priorityClassName\" field instead",
            "spec.template.spec.volumes[0].gitRepo: deprecated in v1.11, and disabled by default in v1.33+",
            "spec.template.spec.imagePullSecrets[1].name: duplicate name \"s\"",
            "spec.template.spec.containers[0].resources.requests[memory]: fractional byte value \"1500m\" is invalid, must be an integer",
            "spec.template.spec.containers[0].env[2]: hides previous definition of \"A\", which may be dropped when using apply",
            "spec.template.spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:TCP HostIP:1.2.3.4}",
            "spec.template.spec.containers[0].ports[1]: overlapping port definition with spec.template.spec.containers[0].ports[0]",
            "spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1",
        ]
    );

    // A Pod's AppArmor annotation without the field is warned of before anything else.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a.b",
        "annotations": {"container.apparmor.security.beta.kubernetes.io/c": "runtime/default"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let path = format!("/api/v1/namespaces/{ns}/pods?dryRun=All");
    let (code, answer, _) = exchange(&client, "POST", &path, &headers, Some(&pod)).await;
    assert_eq!(code, 201);
    assert_eq!(
        warnings_of(&answer),
        [
            "metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the \"appArmorProfile\" field instead",
            "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
        ]
    );
}
