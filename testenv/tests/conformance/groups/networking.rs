//! `networking.k8s.io`: the IngressClass marked default is given to Ingresses that name no
//! class (the DefaultIngressClass plugin), and not to those that name one.

use serde_json::json;

use crate::common::env;
use crate::support::raw::{eventually, send};

#[tokio::test]
async fn the_default_ingress_class_is_given_to_ingresses_without_one() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let name = format!("nginx-{ns}");
    let class = json!({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
        "metadata": {"name": name,
            "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
        "spec": {"controller": "example.com/nginx"}});
    let base = "/apis/networking.k8s.io/v1/ingressclasses";
    let (code, created) = send(&client, "POST", base, "application/json", Some(class)).await;
    assert_eq!(code, 201, "{created}");
    let ingresses = format!("/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses");
    let ingress = |name: &str| {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": name},
            "spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}})
    };
    // A real server's admission sees the new class through an informer, a moment later.
    let seen = eventually(10, || {
        let (client, path) = (client.clone(), format!("{ingresses}?dryRun=All"));
        let name = name.clone();
        async move {
            let (_, probe) = send(
                &client,
                "POST",
                &path,
                "application/json",
                Some(ingress("probe")),
            )
            .await;
            (probe["spec"]["ingressClassName"] == json!(name)).then_some(())
        }
    })
    .await;
    assert_eq!(seen, Some(()), "the default class is never given");
    let (code, given) = send(
        &client,
        "POST",
        &ingresses,
        "application/json",
        Some(ingress("given")),
    )
    .await;
    assert_eq!(code, 201, "{given}");
    assert_eq!(given["spec"]["ingressClassName"], json!(name));
    let mut own = ingress("own");
    own["spec"]["ingressClassName"] = json!("other");
    let (code, kept) = send(&client, "POST", &ingresses, "application/json", Some(own)).await;
    assert_eq!(code, 201, "{kept}");
    assert_eq!(kept["spec"]["ingressClassName"], "other");
    let mut legacy = ingress("legacy");
    legacy["metadata"]["annotations"] = json!({"kubernetes.io/ingress.class": "old"});
    let (code, legacy) = send(
        &client,
        "POST",
        &ingresses,
        "application/json",
        Some(legacy),
    )
    .await;
    assert_eq!(code, 201, "{legacy}");
    assert_eq!(legacy["spec"].get("ingressClassName"), None);
    send(&client, "DELETE", &format!("{base}/{name}"), "", None).await;
}
