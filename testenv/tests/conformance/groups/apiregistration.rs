//! `apiregistration.k8s.io`: the local APIService of every built-in group version, made at
//! start-up and always available.

use std::collections::BTreeSet;

use serde_json::json;

use crate::common::env;
use crate::support::raw::send;

const SERVICES: &str = "/apis/apiregistration.k8s.io/v1/apiservices";

#[tokio::test]
async fn the_local_api_services_are_there_and_available() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let (code, list) = send(&client, "GET", SERVICES, "", None).await;
    assert_eq!(code, 200, "{list}");
    let local: BTreeSet<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            s["metadata"]["labels"]["kube-aggregator.kubernetes.io/automanaged"] == "onstart"
        })
        .map(|s| s["metadata"]["name"].as_str().unwrap())
        .collect();
    let expected: BTreeSet<&str> = [
        "v1.",
        "v1.admissionregistration.k8s.io",
        "v1.apiextensions.k8s.io",
        "v1.apps",
        "v1.authentication.k8s.io",
        "v1.authorization.k8s.io",
        "v1.autoscaling",
        "v1.batch",
        "v1.certificates.k8s.io",
        "v1.coordination.k8s.io",
        "v1.discovery.k8s.io",
        "v1.events.k8s.io",
        "v1.flowcontrol.apiserver.k8s.io",
        "v1.networking.k8s.io",
        "v1.node.k8s.io",
        "v1.policy",
        "v1.rbac.authorization.k8s.io",
        "v1.resource.k8s.io",
        "v1.scheduling.k8s.io",
        "v1.storage.k8s.io",
        "v2.autoscaling",
    ]
    .into_iter()
    .collect();
    assert_eq!(local, expected);

    let (code, apps) = send(&client, "GET", &format!("{SERVICES}/v1.apps"), "", None).await;
    assert_eq!(code, 200, "{apps}");
    assert_eq!(
        apps["spec"],
        json!({"group": "apps", "version": "v1", "groupPriorityMinimum": 17800, "versionPriority": 15})
    );
    let conditions = apps["status"]["conditions"].as_array().unwrap();
    assert_eq!(conditions.len(), 1, "{apps}");
    assert_eq!(
        (
            &conditions[0]["type"],
            &conditions[0]["status"],
            &conditions[0]["reason"],
            &conditions[0]["message"]
        ),
        (
            &json!("Available"),
            &json!("True"),
            &json!("Local"),
            &json!("Local APIServices are always available")
        )
    );
    let (_, core) = send(&client, "GET", &format!("{SERVICES}/v1."), "", None).await;
    assert_eq!(
        core["spec"],
        json!({"version": "v1", "groupPriorityMinimum": 18000, "versionPriority": 1})
    );
}
