//! The shared cache against the embedded API server: one informer per kind shared by
//! controllers, the cache-backed client, field indexes, namespace and label scoping, and
//! `watches` with a mapping function and predicates.

use crate::common;

use common::*;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::{
    Api, ResourceExt,
    api::{ObjectMeta, Patch, PatchParams, PostParams},
    runtime::reflector::ObjectRef,
};
use kubeforge::{
    Action, Controller, Manager, ReconcileError,
    cache::{CacheConfig, CacheOptions},
    controller::predicate,
};
use serde_json::json;
use std::{
    collections::BTreeSet,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

fn names<K: ResourceExt>(objs: &[Arc<K>]) -> BTreeSet<String> {
    objs.iter().map(|o| o.name_any()).collect()
}

#[tokio::test]
async fn two_controllers_share_one_informer() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let counts = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    for (i, name) in ["first", "second"].into_iter().enumerate() {
        let counts = counts.clone();
        let reconcile = move |_w: Arc<Widget>, _: Arc<()>| {
            let counts = counts.clone();
            async move {
                counts[i].fetch_add(1, Ordering::SeqCst);
                Ok::<_, ReconcileError>(Action::await_change())
            }
        };
        manager.add(Controller::<Widget>::new(&manager, name).reconcile(reconcile, Arc::new(())));
    }
    let cache = manager.cache();
    assert!(Arc::ptr_eq(
        &cache.informer::<Widget>(),
        &cache.informer::<Widget>()
    ));
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "shared", 1).await;
    eventually(
        Duration::from_secs(5),
        "both controllers reconcile",
        || async { counts.iter().all(|c| c.load(Ordering::SeqCst) >= 1) },
    )
    .await;
    assert_eq!(cache.informer::<Widget>().store().len(), 1);
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn cached_client_reads_and_field_index_lookups() {
    let env = env().await;
    let manager = Manager::new(env.client(), options_in(&env));
    manager.index_field::<Widget>("spec.size", |w| vec![w.spec.size.to_string()]);
    for (name, size) in [("a", 1), ("b", 1), ("c", 2)] {
        create_widget(&env, name, size).await;
    }
    let client = manager.cached_client();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());

    let ns = env.namespace().to_string();
    let a = client
        .get::<Widget>(Some(&ns), "a")
        .await
        .unwrap()
        .expect("cached");
    assert_eq!(a.spec.size, 1);
    assert!(
        client
            .get::<Widget>(Some(&ns), "zzz")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(client.list::<Widget>(Some(&ns)).await.unwrap().len(), 3);
    let ones = client
        .list_by_index::<Widget>("spec.size", "1")
        .await
        .unwrap();
    assert_eq!(names(&ones), ["a", "b"].map(String::from).into());

    // Writes go to the API server; the index follows the watch.
    client
        .api::<Widget>(Some(&ns))
        .patch(
            "b",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 2}})),
        )
        .await
        .unwrap();
    eventually(Duration::from_secs(5), "index update", || async {
        names(
            &client
                .list_by_index::<Widget>("spec.size", "2")
                .await
                .unwrap(),
        ) == ["b", "c"].map(String::from).into()
    })
    .await;
    assert!(client.list_by_index::<Widget>("nope", "1").await.is_err());

    // A kind nobody asked for before is started lazily on first read.
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("lazy".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    Api::<ConfigMap>::namespaced(env.client(), &ns)
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();
    let got = client.get::<ConfigMap>(Some(&ns), "lazy").await.unwrap();
    assert!(got.is_some());
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn caches_are_scoped_by_namespace_and_labels() {
    let env = env().await;
    let namespaces: Api<Namespace> = Api::all(env.client());
    // Named after the environment's: unique on a cluster shared with other tests.
    let other_ns = format!("{}-other", env.namespace());
    let other = Namespace {
        metadata: ObjectMeta {
            name: Some(other_ns.clone()),
            ..Default::default()
        },
        ..Default::default()
    };
    namespaces
        .create(&PostParams::default(), &other)
        .await
        .unwrap();
    let ns = env.namespace().to_string();
    let mut options = options_in(&env);
    options.cache = CacheConfig::default()
        .by_kind::<Widget>(CacheOptions::default().namespace(ns.clone()))
        .by_kind::<ConfigMap>(CacheOptions::default().labels("app=web"));
    let manager = Manager::new(env.client(), options);
    let client = manager.cached_client();

    create_widget(&env, "here", 1).await;
    let elsewhere: Api<Widget> = Api::namespaced(env.client(), &other_ns);
    let mut w = Widget::new("there", WidgetSpec { size: 1 });
    w.metadata.namespace = Some(other_ns.clone());
    elsewhere.create(&PostParams::default(), &w).await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), &ns);
    for (name, app) in [("web", "web"), ("db", "db")] {
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                labels: Some([("app".to_string(), app.to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        };
        cms.create(&PostParams::default(), &cm).await.unwrap();
    }
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    assert_eq!(
        names(&client.list::<Widget>(None).await.unwrap()),
        ["here".to_string()].into()
    );
    assert_eq!(
        names(&client.list::<ConfigMap>(None).await.unwrap()),
        ["web".to_string()].into()
    );
    shutdown.shutdown();
    running.await.unwrap().unwrap();
    namespaces
        .delete(&other_ns, &Default::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn watches_maps_other_kinds_and_predicates_filter() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let reconcile = |w: Arc<Widget>, seen: Arc<Mutex<Vec<String>>>| async move {
        seen.lock().unwrap().push(w.name_any());
        Ok::<_, ReconcileError>(Action::await_change())
    };
    manager.add(
        Controller::<Widget>::new(&manager, "widget")
            .with_predicate(predicate::generation_changed)
            // A ConfigMap labelled widget=<name> reconciles that widget.
            .watches::<ConfigMap>(vec![], |cm| {
                cm.labels()
                    .get("widget")
                    .map(|w| ObjectRef::new(w).within(&cm.namespace().unwrap()))
                    .into_iter()
                    .collect()
            })
            .reconcile(reconcile, seen.clone()),
    );
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "p", 1).await;
    let count = |seen: &Arc<Mutex<Vec<String>>>| seen.lock().unwrap().len();
    eventually(Duration::from_secs(5), "first reconcile", || async {
        count(&seen) == 1
    })
    .await;

    // A status-only change does not pass generation_changed.
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    api.patch_status(
        "p",
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"observed": 9}})),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(count(&seen), 1, "status-only update was not filtered");

    // A spec change does.
    api.patch(
        "p",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"size": 2}})),
    )
    .await
    .unwrap();
    eventually(Duration::from_secs(5), "spec change reconcile", || async {
        count(&seen) == 2
    })
    .await;

    // A mapped ConfigMap triggers the widget it names.
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("trigger".into()),
            labels: Some([("widget".to_string(), "p".to_string())].into()),
            ..Default::default()
        },
        ..Default::default()
    };
    Api::<ConfigMap>::namespaced(env.client(), env.namespace())
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();
    eventually(Duration::from_secs(5), "mapped reconcile", || async {
        count(&seen) == 3
    })
    .await;
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}
