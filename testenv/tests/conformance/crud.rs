//! Create, get, update, status, optimistic concurrency, deletion.

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::common::{api_error, env, widget};

#[tokio::test]
async fn create_get_update_and_conflict() {
    let env = env().await;
    let widgets: Api<crate::common::Widget> = Api::namespaced(env.client(), env.namespace());
    let created = widgets
        .create(&PostParams::default(), &widget("a", "red"))
        .await
        .unwrap();
    let meta = &created.metadata;
    assert!(meta.uid.is_some());
    assert!(meta.creation_timestamp.is_some());
    assert_eq!(meta.generation, Some(1));
    let rv1 = meta.resource_version.clone().unwrap();

    let again = api_error(
        widgets
            .create(&PostParams::default(), &widget("a", "red"))
            .await,
    );
    assert_eq!((again.code, again.reason.as_str()), (409, "AlreadyExists"));

    let mut changed = created.clone();
    changed.spec.color = "blue".into();
    let updated = widgets
        .replace("a", &PostParams::default(), &changed)
        .await
        .unwrap();
    assert_eq!(updated.metadata.generation, Some(2));
    assert_ne!(
        updated.metadata.resource_version.as_deref(),
        Some(rv1.as_str())
    );

    // `changed` still carries the old resourceVersion.
    let stale = api_error(widgets.replace("a", &PostParams::default(), &changed).await);
    assert_eq!((stale.code, stale.reason.as_str()), (409, "Conflict"));

    let missing = api_error(widgets.get("nope").await);
    assert_eq!((missing.code, missing.reason.as_str()), (404, "NotFound"));
}

#[tokio::test]
async fn status_subresource_does_not_bump_generation() {
    let env = env().await;
    let widgets: Api<crate::common::Widget> = Api::namespaced(env.client(), env.namespace());
    widgets
        .create(&PostParams::default(), &widget("s", "red"))
        .await
        .unwrap();
    let patched = widgets
        .patch_status(
            "s",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"ready": true, "replicas": 0}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.status.as_ref().map(|s| s.ready), Some(true));
    assert_eq!(patched.metadata.generation, Some(1));
    // The main endpoint ignores status.
    let main = widgets
        .patch(
            "s",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"ready": false}})),
        )
        .await
        .unwrap();
    assert_eq!(main.status.as_ref().map(|s| s.ready), Some(true));
}

#[tokio::test]
async fn finalizers_hold_deletion() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("held".into()),
            finalizers: Some(vec!["example.com/hold".into()]),
            ..Default::default()
        },
        ..Default::default()
    };
    cms.create(&PostParams::default(), &cm).await.unwrap();
    cms.delete("held", &DeleteParams::default()).await.unwrap();
    let held = cms.get("held").await.unwrap();
    assert!(held.metadata.deletion_timestamp.is_some());
    let refused = api_error(
        cms.patch(
            "held",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": ["example.com/hold", "x.io/new"]}})),
        )
        .await,
    );
    assert_eq!((refused.code, refused.reason.as_str()), (422, "Invalid"));
    cms.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    let gone = api_error(cms.get("held").await);
    assert_eq!(gone.code, 404);
}
