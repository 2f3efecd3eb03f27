//! Helpers against the embedded API server: create-or-update, server-side apply, events, and
//! the finalizer flow (kube-runtime's `finalizer`, re-exported).

use crate::common;

use common::*;
use k8s_openapi::api::{core::v1::ConfigMap, events::v1::Event};
use kube::{
    Api, ResourceExt,
    api::{DeleteParams, ListParams, ObjectMeta},
    runtime::controller::Action,
};
use kubeforge::helpers::{
    apply::{self, OperationResult},
    events::EventRecorder,
    finalizer,
};
use std::sync::Arc;

fn config_map(name: &str, value: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        data: Some([("key".to_string(), value.to_string())].into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn create_or_update_writes_only_changes() {
    let env = env().await;
    let api: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let set = |v: &'static str| {
        move |cm: &mut ConfigMap| {
            cm.data
                .get_or_insert_default()
                .insert("key".into(), v.into());
        }
    };
    let (r, _) = apply::create_or_update(&api, config_map("c", ""), set("1"))
        .await
        .unwrap();
    assert_eq!(r, OperationResult::Created);
    let (r, _) = apply::create_or_update(&api, config_map("c", ""), set("1"))
        .await
        .unwrap();
    assert_eq!(r, OperationResult::Unchanged);
    let (r, cm) = apply::create_or_update(&api, config_map("c", ""), set("2"))
        .await
        .unwrap();
    assert_eq!(r, OperationResult::Updated);
    assert_eq!(cm.data.unwrap()["key"], "2");
    assert_eq!(api.get("c").await.unwrap().data.unwrap()["key"], "2");
}

#[tokio::test]
async fn server_side_apply_creates_and_updates() {
    let env = env().await;
    let api: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let created = apply::apply(&api, &config_map("s", "a"), "kubeforge-test")
        .await
        .unwrap();
    assert_eq!(created.data.unwrap()["key"], "a");
    let updated = apply::apply(&api, &config_map("s", "b"), "kubeforge-test")
        .await
        .unwrap();
    assert_eq!(updated.data.unwrap()["key"], "b");
}

#[tokio::test]
async fn the_finalizer_is_added_first_and_removed_after_the_cleanup() {
    let env = env().await;
    create_widget(&env, "fin", 1).await;
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    #[derive(Debug, thiserror::Error)]
    #[error("reconcile failed")]
    struct Failed;
    // One reconcile through the finalizer flow; returns the event it saw, if any.
    let step = |api: Api<Widget>| async move {
        let obj = Arc::new(api.get("fin").await.unwrap());
        let mut seen = None;
        finalizer::finalizer(&api, "a/b", obj, |event| {
            seen = Some(match event {
                finalizer::Event::Apply(_) => "apply",
                finalizer::Event::Cleanup(_) => "cleanup",
            });
            async { Ok::<_, Failed>(Action::await_change()) }
        })
        .await
        .unwrap();
        seen
    };
    // First pass: only the finalizer is added, the reconcile is not called yet.
    assert_eq!(step(api.clone()).await, None);
    let w = api.get("fin").await.unwrap();
    assert_eq!(w.finalizers(), ["a/b".to_string()]);
    assert!(finalizer::has_finalizer(&w, "a/b") && !finalizer::is_deleting(&w));
    assert_eq!(step(api.clone()).await, Some("apply"));
    assert_eq!(api.get("fin").await.unwrap().finalizers().len(), 1);
    // Deleting: the object stays until the cleanup ran and the finalizer is gone.
    api.delete("fin", &DeleteParams::default()).await.unwrap();
    assert!(finalizer::is_deleting(&api.get("fin").await.unwrap()));
    assert_eq!(step(api.clone()).await, Some("cleanup"));
    assert!(api.get_opt("fin").await.unwrap().is_none());
}

#[tokio::test]
async fn recorder_publishes_events_about_an_object() {
    let env = env().await;
    let w = create_widget(&env, "ev", 1).await;
    let recorder = EventRecorder::new(env.client(), "widget-controller");
    recorder
        .normal(&w, "Created", "Reconcile", "made the config map")
        .await
        .unwrap();
    let events: Api<Event> = Api::namespaced(env.client(), env.namespace());
    let list = events.list(&ListParams::default()).await.unwrap();
    let ev = list
        .items
        .iter()
        .find(|e| e.reason.as_deref() == Some("Created"))
        .expect("event published");
    assert_eq!(ev.regarding.as_ref().unwrap().name.as_deref(), Some("ev"));
    assert_eq!(ev.note.as_deref(), Some("made the config map"));
    assert_eq!(
        ev.reporting_controller.as_deref(),
        Some("widget-controller")
    );
}
