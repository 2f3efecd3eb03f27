//! Watches as kube-runtime's watcher uses them.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, PostParams};
use kube::runtime::watcher::{self, Event};

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
