//! Shared fixtures of the runtime's integration tests: a `Widget` CRD, an embedded API server,
//! and bounded polling.
#![allow(dead_code)]

use kube::{
    Api, CustomResource, ResourceExt,
    api::{ObjectMeta, PostParams},
};
use kubeforge_testenv::TestEnv;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::{future::Future, time::Duration};

/// The test kind.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[kube(
    group = "test.kubeforge.dev",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
pub struct WidgetSpec {
    pub size: i32,
}

/// The test kind's status.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema, PartialEq)]
pub struct WidgetStatus {
    pub observed: Option<i32>,
}

/// A test API server with the Widget CRD installed: the embedded one unless
/// `KUBEFORGE_TEST_CLUSTER` selects another (`binaries`, `existing`).
pub async fn env() -> TestEnv {
    use kube::CustomResourceExt;
    TestEnv::builder()
        .crd(Widget::crd())
        .start()
        .await
        .expect("test API server starts")
}

/// The embedded API server with the Widget CRD installed, whatever `KUBEFORGE_TEST_CLUSTER`
/// says: for tests that inject faults (lost events, outages, failing requests), which only the
/// embedded server takes. The other tests run against the server the variable selects.
pub async fn faulty_env() -> TestEnv {
    use kube::CustomResourceExt;
    TestEnv::builder()
        .mode(kubeforge_testenv::Mode::Embedded)
        .crd(Widget::crd())
        .start()
        .await
        .expect("embedded test API server starts")
}

/// A widget named `name` of `size` in the env's namespace.
pub async fn create_widget(env: &TestEnv, name: &str, size: i32) -> Widget {
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let w = Widget {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: WidgetSpec { size },
        status: None,
    };
    api.create(&PostParams::default(), &w)
        .await
        .expect("create widget")
}

/// Polls `check` every 10 ms until it returns true, failing after `limit`.
pub async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if check().await {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {limit:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Polls `progress` (done, total) every 10 ms until `done` reaches `total`, failing once
/// `done` has not grown for `stall`. For waits on many objects: on a loaded machine the work
/// goes slower but keeps moving, which a fixed deadline would fail; a stuck wait still fails.
pub async fn while_progressing<F, Fut>(stall: Duration, what: &str, mut progress: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = (usize, usize)>,
{
    let mut best = 0;
    let mut moved = tokio::time::Instant::now();
    loop {
        let (done, total) = progress().await;
        if done >= total {
            return;
        }
        if done > best {
            best = done;
            moved = tokio::time::Instant::now();
        }
        assert!(
            moved.elapsed() < stall,
            "no progress for {stall:?} waiting for {what}: {done} of {total}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Manager options for tests: no signal handling (several managers share the process).
pub fn options() -> kubeforge::ManagerOptions {
    kubeforge::ManagerOptions {
        handle_signals: false,
        ..Default::default()
    }
}

/// [`options`] with every cache scoped to the environment's namespace: on a real API server
/// shared by the tests of the process (binaries or existing-cluster mode), a cache of all
/// namespaces would also hold the objects of the other tests.
pub fn options_in(env: &TestEnv) -> kubeforge::ManagerOptions {
    let mut options = options();
    options.cache.default = kubeforge::cache::CacheOptions::default().namespace(env.namespace());
    options
}

/// The widget's observed size in its status, read live.
pub async fn observed(env: &TestEnv, name: &str) -> Option<i32> {
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    api.get_opt(name)
        .await
        .ok()
        .flatten()
        .and_then(|w| w.status)
        .and_then(|s| s.observed)
}

/// `namespace/name` of an object.
pub fn key<K: ResourceExt>(obj: &K) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}
