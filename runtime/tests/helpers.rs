//! Helpers against the embedded API server: create-or-update, server-side apply, events,
//! finalizer add/remove.

mod common;

use common::*;
use k8s_openapi::api::{core::v1::ConfigMap, events::v1::Event};
use kube::{
    Api, ResourceExt,
    api::{ListParams, ObjectMeta},
};
use kubeforge::helpers::{
    apply::{self, OperationResult},
    events::EventRecorder,
    finalizer,
};

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
async fn finalizers_are_added_and_removed_once() {
    let env = env().await;
    let w = create_widget(&env, "fin", 1).await;
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let w = finalizer::add(&api, &w, "a/b").await.unwrap();
    let w = finalizer::add(&api, &w, "a/b").await.unwrap();
    assert_eq!(w.finalizers(), ["a/b".to_string()]);
    let w = finalizer::remove(&api, &w, "a/b").await.unwrap();
    assert!(w.finalizers().is_empty());
    assert!(api.get("fin").await.unwrap().finalizers().is_empty());
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
