//! `storage.k8s.io`: a StorageClass's provisioning fields never change, and the class
//! marked default is given to claims that name none (the DefaultStorageClass plugin).

use serde_json::json;

use crate::common::env;
use crate::support::raw::{eventually, send};

#[tokio::test]
async fn storage_classes_are_fixed_and_the_default_one_is_given_to_claims() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let name = format!("fast-{ns}");
    let class = json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": name,
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "example.com/fast"});
    let base = "/apis/storage.k8s.io/v1/storageclasses";
    let (code, created) = send(&client, "POST", base, "application/json", Some(class)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        (&created["reclaimPolicy"], &created["volumeBindingMode"]),
        (&json!("Delete"), &json!("Immediate"))
    );
    let path = format!("{base}/{name}");
    let merge = "application/merge-patch+json";
    let patch = json!({"provisioner": "example.com/slow", "parameters": {"a": "b"},
        "reclaimPolicy": "Retain", "volumeBindingMode": "WaitForFirstConsumer"});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "StorageClass.storage.k8s.io \"{name}\" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden., reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden., volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable]"
        ))
    );
    let patch = json!({"allowVolumeExpansion": true, "mountOptions": ["ro"]});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(
        (code, &body["allowVolumeExpansion"]),
        (200, &json!(true)),
        "{body}"
    );

    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = |name: &str, class: Option<&str>| {
        let mut c = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
        if let Some(class) = class {
            c["spec"]["storageClassName"] = json!(class);
        }
        c
    };
    let (code, given) = send(
        &client,
        "POST",
        &claims,
        "application/json",
        Some(claim("given", None)),
    )
    .await;
    assert_eq!(code, 201, "{given}");
    assert_eq!(given["spec"]["storageClassName"], json!(name));
    // An empty class name asks for no class at all: it is kept.
    let (code, none) = send(
        &client,
        "POST",
        &claims,
        "application/json",
        Some(claim("none", Some(""))),
    )
    .await;
    assert_eq!(code, 201, "{none}");
    assert_eq!(none["spec"]["storageClassName"], "");
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn claims_in_use_are_protected_from_deletion() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = |name: &str| {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                "resources": {"requests": {"storage": "1Gi"}}}})
    };
    for name in ["free", "used"] {
        let (code, created) = send(
            &client,
            "POST",
            &claims,
            "application/json",
            Some(claim(name)),
        )
        .await;
        assert_eq!(code, 201, "{created}");
        assert_eq!(
            created["metadata"]["finalizers"],
            json!(["kubernetes.io/pvc-protection"])
        );
    }
    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "used"}}]}});
    let (code, body) = send(&client, "POST", &pods, "application/json", Some(pod)).await;
    assert_eq!(code, 201, "{body}");
    // Only a pod on a node holds its claim.
    let binding = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "user"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "node-a"}});
    let (code, body) = send(
        &client,
        "POST",
        &format!("{pods}/user/binding"),
        "application/json",
        Some(binding),
    )
    .await;
    assert_eq!(code, 201, "{body}");

    let gone = |name: &'static str| {
        let client = client.clone();
        let path = format!("{claims}/{name}");
        async move {
            eventually(20, || async {
                let (code, _) = send(&client, "GET", &path, "", None).await;
                (code == 404).then_some(())
            })
            .await
        }
    };
    for name in ["free", "used"] {
        let (code, body) = send(&client, "DELETE", &format!("{claims}/{name}"), "", None).await;
        assert_eq!(code, 200, "{body}");
    }
    assert_eq!(gone("free").await, Some(()), "an unused claim goes");
    let (code, held) = send(&client, "GET", &format!("{claims}/used"), "", None).await;
    assert_eq!(code, 200, "a claim in use stays: {held}");
    assert!(held["metadata"]["deletionTimestamp"].is_string(), "{held}");
    let (code, body) = send(
        &client,
        "DELETE",
        &format!("{pods}/user?gracePeriodSeconds=0"),
        "",
        None,
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        gone("used").await,
        Some(()),
        "released once its pod is gone"
    );
}
