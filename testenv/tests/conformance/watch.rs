//! Watches as kube-runtime's watcher uses them, and the raw protocol: resume from a
//! resourceVersion, 410 Gone, bookmarks, selectors, timeouts.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::runtime::watcher::{self, Event};
use serde_json::json;

use crate::common::{Widget, env, widget};

async fn next_apply(
    stream: &mut (impl futures::Stream<Item = Result<Event<Widget>, watcher::Error>> + Unpin),
) -> Widget {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(10), stream.try_next())
            .await
            .expect("an event within 10s")
            .expect("no watch error")
            .expect("stream continues");
        match event {
            Event::Apply(w) | Event::InitApply(w) => return w,
            _ => continue,
        }
    }
}

async fn watcher_sees_changes(config: watcher::Config) {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    widgets
        .create(&PostParams::default(), &widget("before", "red"))
        .await
        .unwrap();
    let mut stream = watcher::watcher(widgets.clone(), config).boxed();
    let first = next_apply(&mut stream).await;
    assert_eq!(first.metadata.name.as_deref(), Some("before"));
    widgets
        .create(&PostParams::default(), &widget("after", "blue"))
        .await
        .unwrap();
    let second = next_apply(&mut stream).await;
    assert_eq!(second.metadata.name.as_deref(), Some("after"));
    assert_eq!(second.spec.color, "blue");
}

#[tokio::test]
async fn watcher_list_watch() {
    watcher_sees_changes(watcher::Config::default()).await;
}

#[tokio::test]
async fn watcher_streaming_list() {
    watcher_sees_changes(watcher::Config::default().streaming_lists()).await;
}

fn cm(name: &str, labels: serde_json::Value) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap()
}

async fn next_event<K>(
    stream: &mut (impl futures::Stream<Item = kube::Result<WatchEvent<K>>> + Unpin),
) -> WatchEvent<K> {
    tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("an event within 10s")
        .expect("stream continues")
        .expect("event decodes")
}

#[tokio::test]
async fn resume_from_resource_version_with_selector_transitions() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let created = cms
        .create(&PostParams::default(), &cm("w1", json!({"watched": "yes"})))
        .await
        .unwrap();
    let rv = created.metadata.resource_version.unwrap();
    cms.create(&PostParams::default(), &cm("w2", json!({"watched": "yes"})))
        .await
        .unwrap();
    let wp = WatchParams::default().labels("watched=yes");
    let mut stream = cms.watch(&wp, &rv).await.unwrap().boxed();
    // Events after `rv` are replayed: w2 was created after it.
    match next_event(&mut stream).await {
        WatchEvent::Added(o) => assert_eq!(o.metadata.name.as_deref(), Some("w2")),
        other => panic!("expected ADDED w2, got {other:?}"),
    }
    // Leaving the selector is a DELETED event, entering it an ADDED one.
    cms.patch(
        "w1",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"watched": "no"}}})),
    )
    .await
    .unwrap();
    match next_event(&mut stream).await {
        WatchEvent::Deleted(o) => assert_eq!(o.metadata.name.as_deref(), Some("w1")),
        other => panic!("expected DELETED w1, got {other:?}"),
    }
    cms.patch(
        "w1",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"watched": "yes"}}})),
    )
    .await
    .unwrap();
    match next_event(&mut stream).await {
        WatchEvent::Added(o) => assert_eq!(o.metadata.name.as_deref(), Some("w1")),
        other => panic!("expected ADDED w1, got {other:?}"),
    }
}

/// Needs fault injection: a real etcd compacts its history on its own schedule
/// (kube-apiserver asks every 5 minutes), so before that a watch from an old
/// resourceVersion replays the history instead of answering 410.
#[tokio::test]
async fn too_old_resource_version_is_gone() {
    let env = env().await;
    let Ok(faults) = env.faults() else {
        eprintln!(
            "skipping: needs fault injection (compaction), which only the embedded server has; a real etcd compacts on its own schedule"
        );
        return;
    };
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let old = cms
        .create(&PostParams::default(), &cm("old", json!({})))
        .await
        .unwrap();
    cms.create(&PostParams::default(), &cm("newer", json!({})))
        .await
        .unwrap();
    faults.compact();
    let rv = old.metadata.resource_version.unwrap();
    let mut stream = cms
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();
    match next_event(&mut stream).await {
        WatchEvent::Error(e) => assert_eq!((e.code, e.reason.as_str()), (410, "Expired")),
        other => panic!("expected a 410 ERROR event, got {other:?}"),
    }
}

#[tokio::test]
async fn streaming_list_ends_initial_events_with_a_bookmark() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    cms.create(
        &PostParams::default(),
        &cm("initial", json!({"stream": "yes"})),
    )
    .await
    .unwrap();
    let wp = WatchParams::default().labels("stream=yes").initial_events();
    let mut stream = cms.watch(&wp, "0").await.unwrap().boxed();
    match next_event(&mut stream).await {
        WatchEvent::Added(o) => assert_eq!(o.metadata.name.as_deref(), Some("initial")),
        other => panic!("expected ADDED, got {other:?}"),
    }
    match next_event(&mut stream).await {
        WatchEvent::Bookmark(b) => {
            assert_eq!(
                b.metadata
                    .annotations
                    .get("k8s.io/initial-events-end")
                    .map(String::as_str),
                Some("true")
            );
            assert!(!b.metadata.resource_version.is_empty());
        }
        other => panic!("expected the initial-events-end bookmark, got {other:?}"),
    }
}

#[tokio::test]
async fn watch_timeout_ends_the_stream() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let list = cms.list(&Default::default()).await.unwrap();
    let rv = list.metadata.resource_version.unwrap();
    let started = std::time::Instant::now();
    let mut stream = cms
        .watch(&WatchParams::default().timeout(1), &rv)
        .await
        .unwrap()
        .boxed();
    let end = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(e) = stream.next().await {
            if let Ok(WatchEvent::Error(e)) = e {
                panic!("unexpected error {e:?}");
            }
        }
    })
    .await;
    assert!(
        end.is_ok(),
        "the server closes the watch after timeoutSeconds"
    );
    assert!(started.elapsed() >= Duration::from_millis(900));
    let _ = ObjectMeta::default();
}
