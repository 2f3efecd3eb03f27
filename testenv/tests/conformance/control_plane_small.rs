//! Small pieces of a control plane users meet: the ServiceCIDR controller of
//! kube-controller-manager (every ServiceCIDR gets the `networking.k8s.io/service-cidr-finalizer`
//! finalizer and a `Ready` condition; a ServiceCIDR being deleted is held, `Ready=False` with
//! reason `Terminating`, while an address the allocator manages lies in its range alone), and
//! the warnings a workload's pod template gets for deprecated node labels.

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
