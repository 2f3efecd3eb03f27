//! Real-cluster mode (`KUBEFORGE_TEST_CLUSTER=existing`): set-up and clean-up. An embedded
//! server plays the existing cluster (its kubeconfig is given as `KUBECONFIG`), so the mode
//! is exercised end to end without a real cluster: CRDs installed, a namespace per
//! environment, and everything the tests created removed once no environment uses it, while a
//! CRD the cluster already had stays.
//!
//! This binary holds one test because it sets process-wide environment variables.

use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use kube::core::GroupVersionKind;
use kubeforge_testenv::{MODE_VAR, TestEnv};
use serde_json::json;
use std::time::{Duration, Instant};

fn crd_yaml(plural: &str, kind: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.cleanup.kubeforge.dev
spec:
  group: cleanup.kubeforge.dev
  scope: Namespaced
  names: {{plural: {plural}, singular: {singular}, kind: {kind}, listKind: {kind}List}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"#,
        singular = kind.to_lowercase()
    )
}

fn crds(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition");
    Api::all_with(client.clone(), &ApiResource::from_gvk(&gvk))
}

fn namespaces(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("", "v1", "Namespace");
    Api::all_with(
        client.clone(),
        &ApiResource::from_gvk_with_plural(&gvk, "namespaces"),
    )
}

/// Whether `name` is gone or being deleted, polled for up to 10 s.
async fn eventually_gone(api: &Api<DynamicObject>, name: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match api.get_opt(name).await.unwrap() {
            None => return true,
            Some(o) if o.metadata.deletion_timestamp.is_some() => return true,
            Some(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn environments_share_crds_and_clean_up_what_they_created() {
    // The "existing cluster": it already has the gadgets CRD, which the tests must keep.
    let cluster = TestEnv::builder()
        .crd_yaml(crd_yaml("gadgets", "Gadget"))
        .start()
        .await
        .unwrap();
    let admin = cluster.client();
    // SAFETY: this test binary has this single test, and nothing else in the process reads
    // or writes the environment while these are set.
    unsafe {
        std::env::set_var("KUBECONFIG", cluster.kubeconfig_path());
        std::env::set_var(MODE_VAR, "existing");
    }

    let first = TestEnv::builder()
        .crd_yaml(crd_yaml("widgets", "Widget"))
        .crd_yaml(crd_yaml("gadgets", "Gadget"))
        .start()
        .await
        .unwrap();
    assert!(first.is_existing_cluster());
    let first_ns = first.namespace().to_string();
    assert!(first_ns.starts_with("kubeforge-test-"), "{first_ns}");
    let second = TestEnv::builder()
        .crd_yaml(crd_yaml("widgets", "Widget"))
        .start()
        .await
        .unwrap();
    let second_ns = second.namespace().to_string();
    assert_ne!(
        first_ns, second_ns,
        "each environment gets its own namespace"
    );

    // The installed CRD serves objects in the environment's namespace.
    let widget_gvk = GroupVersionKind::gvk("cleanup.kubeforge.dev", "v1", "Widget");
    let widgets: Api<DynamicObject> = Api::namespaced_with(
        first.client(),
        &first_ns,
        &ApiResource::from_gvk(&widget_gvk),
    );
    let widget: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cleanup.kubeforge.dev/v1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"size": 1},
    }))
    .unwrap();
    widgets
        .create(&PostParams::default(), &widget)
        .await
        .unwrap();

    drop(first);
    assert!(
        eventually_gone(&namespaces(&admin), &first_ns).await,
        "the first environment's namespace is deleted"
    );
    let widgets_crd = "widgets.cleanup.kubeforge.dev";
    let kept = crds(&admin).get(widgets_crd).await.unwrap();
    assert!(
        kept.metadata.deletion_timestamp.is_none(),
        "the second environment still uses the widgets CRD"
    );

    drop(second);
    assert!(eventually_gone(&namespaces(&admin), &second_ns).await);
    assert!(
        eventually_gone(&crds(&admin), widgets_crd).await,
        "the last user deletes the CRD the tests created"
    );
    let gadgets = crds(&admin)
        .get("gadgets.cleanup.kubeforge.dev")
        .await
        .unwrap();
    assert!(
        gadgets.metadata.deletion_timestamp.is_none(),
        "a CRD the cluster already had is kept"
    );
    let marks = gadgets.metadata.annotations.unwrap_or_default();
    assert!(
        !marks
            .keys()
            .any(|k| k.starts_with("testenv.kubeforge.dev/")),
        "no environment's mark is left behind: {marks:?}"
    );

    // A new environment after the CRD was deleted installs it again.
    let third = TestEnv::builder()
        .crd_yaml(crd_yaml("widgets", "Widget"))
        .start()
        .await
        .unwrap();
    let again = crds(&admin).get(widgets_crd).await.unwrap();
    assert!(again.metadata.deletion_timestamp.is_none());
    drop(third);
    assert!(eventually_gone(&crds(&admin), widgets_crd).await);
}
