//! Fault injection seen from the outside: every fault is observed by a plain `kube::Client`
//! or by raw HTTP (status, headers, body), as a test of an operator would see it.

use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use http_body_util::BodyExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kubeforge_testenv::faults::{Failure, Faults, Matcher};
use kubeforge_testenv::{Error, MODE_VAR, TestEnv};
use serde_json::{Value, json};
use tokio::sync::RwLock;

/// Tests here start environments while one test switches `KUBEFORGE_TEST_CLUSTER`: starting
/// takes the lock shared, the switch takes it exclusively.
static MODE: RwLock<()> = RwLock::const_new(());

async fn env() -> (TestEnv, Faults) {
    let _guard = MODE.read().await;
    let env = TestEnv::start().await.expect("test API server starts");
    let faults = env.faults().expect("embedded server has faults");
    (env, faults)
}

/// A client without kube's built-in retry of 429/503/504, to see each answer as sent.
async fn raw_client(env: &TestEnv) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig_path()).unwrap();
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    config.default_retry = false;
    kube::Client::try_from(config).unwrap()
}

/// Sends a request and returns status, headers and the JSON body.
async fn send(
    client: &kube::Client,
    method: http::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, http::HeaderMap, Value) {
    let mut builder = http::Request::builder().method(method).uri(path);
    if body.is_some() {
        builder = builder.header("Content-Type", "application/json");
    }
    let bytes = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
    let response = client
        .send(builder.body(kube::client::Body::from(bytes)).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (parts.status.as_u16(), parts.headers, json)
}

fn configmap(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        data: Some([("v".to_string(), "1".to_string())].into()),
        ..Default::default()
    }
}

async fn set_value(api: &Api<ConfigMap>, name: &str, value: &str) -> ConfigMap {
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"v": value}})),
    )
    .await
    .unwrap()
}

const CMS: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::test]
async fn failures_answer_the_real_status_with_headers() {
    let (env, faults) = env().await;
    let client = raw_client(&env).await;
    faults.fail_next(
        Matcher::any().verb("list").resource("configmaps"),
        1,
        Failure::status(500),
    );
    faults.fail_next(Matcher::any().verb("list"), 1, Failure::status(503));
    faults.fail_next(Matcher::any().verb("list"), 1, Failure::status(504));
    faults.fail_next(
        Matcher::any().verb("list"),
        1,
        Failure::too_many_requests(Duration::from_secs(3)),
    );
    faults.fail_next(Matcher::any().verb("list"), 1, Failure::status(418));

    let (code, headers, body) = send(&client, http::Method::GET, CMS, None).await;
    assert_eq!(code, 500);
    assert_eq!(body["kind"], "Status");
    assert_eq!(body["status"], "Failure");
    assert_eq!(body["reason"], "InternalError");
    assert_eq!(body["code"], 500);
    assert_eq!(body["message"], "Internal error occurred: injected fault");
    assert_eq!(headers["content-type"], "application/json");
    assert!(headers.get("retry-after").is_none());

    let (code, _, body) = send(&client, http::Method::GET, CMS, None).await;
    assert_eq!(
        (code, body["reason"].as_str()),
        (503, Some("ServiceUnavailable"))
    );
    let (code, _, body) = send(&client, http::Method::GET, CMS, None).await;
    assert_eq!((code, body["reason"].as_str()), (504, Some("Timeout")));
    let (code, headers, body) = send(&client, http::Method::GET, CMS, None).await;
    assert_eq!(
        (code, body["reason"].as_str()),
        (429, Some("TooManyRequests"))
    );
    assert_eq!(headers["retry-after"], "3");
    assert_eq!(body["details"]["retryAfterSeconds"], 3);
    let (code, _, body) = send(&client, http::Method::GET, CMS, None).await;
    assert_eq!((code, body["code"].as_u64()), (418, Some(418)));

    // All consumed: the list is served again, and nothing else was touched.
    let (code, _, body) = send(&client, http::Method::GET, CMS, None).await;
    assert_eq!((code, body["kind"].as_str()), (200, Some("ConfigMapList")));
    assert_eq!(faults.injected(), 5);
}

#[tokio::test]
async fn conflict_hits_only_the_named_object_and_writes_nothing() {
    let (env, faults) = env().await;
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    let x = api
        .create(&PostParams::default(), &configmap("x"))
        .await
        .unwrap();
    let y = api
        .create(&PostParams::default(), &configmap("y"))
        .await
        .unwrap();
    faults.fail_next(
        Matcher::any().verb("update").name("x"),
        1,
        Failure::status(409),
    );
    let mut changed = x.clone();
    changed.data = Some([("v".to_string(), "2".to_string())].into());
    let err = api
        .replace("x", &PostParams::default(), &changed)
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("expected an API error, got {err:?}")
    };
    assert_eq!((status.code, status.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        status.message,
        "Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your changes to the latest version and try again"
    );
    let stored = api.get("x").await.unwrap();
    assert_eq!(
        stored.metadata.resource_version,
        x.metadata.resource_version
    );
    // Another object and a patch (another verb) are not affected; the retry succeeds.
    api.replace("y", &PostParams::default(), &y).await.unwrap();
    set_value(&api, "x", "3").await;
    let fresh = api.get("x").await.unwrap();
    api.replace("x", &PostParams::default(), &fresh)
        .await
        .unwrap();
    assert_eq!(faults.injected(), 1);
}

#[tokio::test]
async fn kube_client_retries_throttling_and_unavailability_by_itself() {
    let (env, faults) = env().await;
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    api.create(&PostParams::default(), &configmap("a"))
        .await
        .unwrap();
    // kube 5's default client retries 429/503/504 (honouring Retry-After): callers see success.
    faults.fail_next(
        Matcher::any().verb("list").resource("configmaps"),
        3,
        Failure::status(503),
    );
    assert_eq!(api.list(&Default::default()).await.unwrap().items.len(), 1);
    assert_eq!(faults.injected(), 3);
    faults.fail_next(
        Matcher::any().verb("patch"),
        1,
        Failure::too_many_requests(Duration::from_secs(1)),
    );
    let started = Instant::now();
    set_value(&api, "a", "2").await;
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "the client waited for Retry-After"
    );
    assert_eq!(faults.injected(), 4);
    // A 500 is not retried: the caller sees it.
    faults.fail_next(Matcher::any().verb("get"), 1, Failure::status(500));
    let err = api.get("a").await.unwrap_err();
    assert!(
        matches!(&err, kube::Error::Api(s) if s.code == 500),
        "{err:?}"
    );
}

#[tokio::test]
async fn latency_is_added_to_matching_requests_until_cleared() {
    let (env, faults) = env().await;
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    api.create(&PostParams::default(), &configmap("a"))
        .await
        .unwrap();
    faults.latency(
        Matcher::any().verb("get").resource("configmaps"),
        Duration::from_millis(200),
    );
    let started = Instant::now();
    api.get("a").await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(faults.injected(), 1);
    api.list(&Default::default()).await.unwrap();
    assert_eq!(faults.injected(), 1, "a list is another verb");
    faults.clear();
    api.get("a").await.unwrap();
    assert_eq!(faults.injected(), 1, "cleared");
}

#[tokio::test]
async fn clear_removes_pending_failures_and_drops() {
    let (env, faults) = env().await;
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    faults.fail_next(Matcher::any(), 10, Failure::status(500));
    faults.drop_watch_events(Matcher::any(), 10);
    faults.clear();
    api.create(&PostParams::default(), &configmap("a"))
        .await
        .unwrap();
    let mut events = api
        .watch(&WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    let first = tokio::time::timeout(Duration::from_secs(5), events.try_next())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(first, Some(WatchEvent::Added(_))));
    assert_eq!(faults.injected(), 0);
}

/// The next event of a watch, or None when it ends or stays silent for `wait`.
async fn next_event(
    events: &mut (impl futures::Stream<Item = kube::Result<WatchEvent<ConfigMap>>> + Unpin),
    wait: Duration,
) -> Option<WatchEvent<ConfigMap>> {
    match tokio::time::timeout(wait, events.next()).await {
        Ok(Some(Ok(e))) => Some(e),
        Ok(Some(Err(e))) => panic!("watch failed: {e}"),
        Ok(None) | Err(_) => None,
    }
}

fn name_and_value(event: &WatchEvent<ConfigMap>) -> (String, String) {
    match event {
        WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o) => (
            o.metadata.name.clone().unwrap_or_default(),
            o.data
                .as_ref()
                .and_then(|d| d.get("v"))
                .cloned()
                .unwrap_or_default(),
        ),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn dropped_event_is_missing_from_watches_while_the_object_changed() {
    let (env, faults) = env().await;
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    let a = api
        .create(&PostParams::default(), &configmap("a"))
        .await
        .unwrap();
    api.create(&PostParams::default(), &configmap("b"))
        .await
        .unwrap();
    let from = a.metadata.resource_version.clone().unwrap();
    let list_rv = api
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut events = api
        .watch(&WatchParams::default(), &list_rv)
        .await
        .unwrap()
        .boxed();

    faults.drop_watch_events(Matcher::any().resource("configmaps").name("a"), 1);
    set_value(&api, "a", "lost").await;
    set_value(&api, "b", "seen").await;
    set_value(&api, "a", "later").await;
    let wait = Duration::from_secs(5);
    let first = next_event(&mut events, wait).await.expect("an event");
    assert_eq!(name_and_value(&first), ("b".into(), "seen".into()));
    let second = next_event(&mut events, wait).await.expect("an event");
    assert_eq!(name_and_value(&second), ("a".into(), "later".into()));
    assert_eq!(faults.injected(), 1);

    // The store did change: a list at that point in history shows the lost state...
    let lost_rv = (from.parse::<u64>().unwrap() + 2).to_string();
    let (code, _, body) = send(
        &raw_client(&env).await,
        http::Method::GET,
        &format!("{CMS}?resourceVersion={lost_rv}&resourceVersionMatch=Exact"),
        None,
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let at = |name: &str| {
        body["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["metadata"]["name"] == name)
            .unwrap()["data"]["v"]
            .clone()
    };
    assert_eq!(at("a"), "lost");
    // ...and a watch resuming from before it does not replay the lost event either.
    let mut replay = api
        .watch(&WatchParams::default(), &list_rv)
        .await
        .unwrap()
        .boxed();
    let replayed: Vec<_> = [
        next_event(&mut replay, wait).await,
        next_event(&mut replay, wait).await,
    ]
    .iter()
    .map(|e| name_and_value(e.as_ref().expect("an event")))
    .collect();
    assert_eq!(
        replayed,
        [
            ("b".to_string(), "seen".to_string()),
            ("a".into(), "later".into())
        ]
    );
}

#[tokio::test]
async fn close_watches_ends_open_streams_and_clients_resume() {
    let (env, faults) = env().await;
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    let list_rv = api
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut first = api
        .watch(&WatchParams::default(), &list_rv)
        .await
        .unwrap()
        .boxed();
    let mut second = api
        .watch(&WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    // The watch requests have been answered; both streams are open.
    assert_eq!(faults.open_watches(), 2);
    assert_eq!(faults.close_watches(), 2);
    assert!(
        next_event(&mut first, Duration::from_secs(5))
            .await
            .is_none()
    );
    assert!(matches!(
        tokio::time::timeout(Duration::from_secs(5), second.next()).await,
        Ok(None)
    ));
    assert_eq!(faults.injected(), 2);
    // Resuming from the last resourceVersion sees what happened meanwhile.
    api.create(&PostParams::default(), &configmap("during"))
        .await
        .unwrap();
    let mut resumed = api
        .watch(&WatchParams::default(), &list_rv)
        .await
        .unwrap()
        .boxed();
    let event = next_event(&mut resumed, Duration::from_secs(5))
        .await
        .expect("an event");
    assert_eq!(name_and_value(&event).0, "during");
    assert_eq!(faults.close_watches(), 1);
}

#[tokio::test]
async fn compaction_makes_older_versions_gone() {
    let (env, faults) = env().await;
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    let old = api
        .create(&PostParams::default(), &configmap("a"))
        .await
        .unwrap();
    let old_rv = old.metadata.resource_version.unwrap();
    let now = set_value(&api, "a", "2")
        .await
        .metadata
        .resource_version
        .unwrap();
    faults.compact();
    // Resuming a watch from before the compaction: an ERROR event with 410 Expired.
    let mut events = api
        .watch(&WatchParams::default(), &old_rv)
        .await
        .unwrap()
        .boxed();
    match tokio::time::timeout(Duration::from_secs(5), events.next()).await {
        Ok(Some(Ok(WatchEvent::Error(e)))) => {
            assert_eq!((e.code, e.reason.as_str()), (410, "Expired"));
            assert!(
                e.message.contains("too old resource version"),
                "{}",
                e.message
            );
        }
        other => panic!("expected 410, got {other:?}"),
    }
    // A list at the old version is gone too; from the current version all works.
    let (code, _, body) = send(
        &raw_client(&env).await,
        http::Method::GET,
        &format!("{CMS}?resourceVersion={old_rv}&resourceVersionMatch=Exact"),
        None,
    )
    .await;
    assert_eq!((code, body["reason"].as_str()), (410, Some("Expired")));
    let mut events = api
        .watch(&WatchParams::default(), &now)
        .await
        .unwrap()
        .boxed();
    set_value(&api, "a", "3").await;
    let event = next_event(&mut events, Duration::from_secs(5))
        .await
        .expect("an event");
    assert_eq!(name_and_value(&event), ("a".into(), "3".into()));
}

#[tokio::test]
async fn restart_drops_connections_keeps_data_and_serves_again() {
    let (env, faults) = env().await;
    let url = env.url();
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    api.create(&PostParams::default(), &configmap("kept"))
        .await
        .unwrap();
    let mut events = api
        .watch(&WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    assert!(
        next_event(&mut events, Duration::from_secs(5))
            .await
            .is_some()
    );
    faults.restart().await;
    // The watch connection was cut: the stream fails or ends, without more events.
    match tokio::time::timeout(Duration::from_secs(5), events.next()).await {
        Ok(None | Some(Err(_))) => {}
        other => panic!("the watch should have been cut, got {other:?}"),
    }
    assert_eq!(faults.open_watches(), 0);
    // Same address, same data, the same client works again.
    assert_eq!(env.url(), url);
    assert_eq!(
        api.get("kept").await.unwrap().metadata.name.as_deref(),
        Some("kept")
    );
    api.create(&PostParams::default(), &configmap("after"))
        .await
        .unwrap();
    faults.restart().await;
    assert_eq!(api.list(&Default::default()).await.unwrap().items.len(), 2);
}

#[tokio::test]
async fn faults_handle_outlives_the_server_harmlessly() {
    let (env, faults) = env().await;
    drop(env);
    assert_eq!(faults.close_watches(), 0);
    faults.compact();
    faults.restart().await;
    assert_eq!(faults.injected(), 0);
}

#[tokio::test]
async fn faults_are_refused_clearly_in_real_cluster_mode() {
    // The embedded server plays the existing cluster, as in existing_cluster.rs.
    let (cluster, _) = env().await;
    let _exclusive = MODE.write().await;
    // SAFETY: every other test of this binary reads the environment only while holding
    // `MODE` shared, and this test holds it exclusively.
    unsafe {
        std::env::set_var(MODE_VAR, "existing");
        std::env::set_var("KUBECONFIG", cluster.kubeconfig_path());
    }
    let existing = TestEnv::start().await;
    unsafe {
        std::env::remove_var(MODE_VAR);
        std::env::remove_var("KUBECONFIG");
    }
    let existing = existing.expect("existing-cluster mode starts against the embedded server");
    assert!(existing.is_existing_cluster());
    let err = existing.faults().unwrap_err();
    assert!(matches!(err, Error::FaultsUnavailable { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("embedded"), "{message}");
    assert!(message.contains("KUBEFORGE_TEST_CLUSTER"), "{message}");
    assert!(message.contains(&cluster.url()), "{message}");
}

#[tokio::test]
async fn a_failure_after_handling_loses_the_answer_but_not_the_write() {
    let (env, faults) = env().await;
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    faults.fail_next(
        Matcher::any().verb("create").resource("configmaps"),
        1,
        Failure::status(500).after_handling(),
    );
    let err = api
        .create(&PostParams::default(), &configmap("done"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, kube::Error::Api(s) if s.code == 500),
        "{err:?}"
    );
    // It happened anyway: the object exists, and retrying the create says so.
    assert!(api.get_opt("done").await.unwrap().is_some());
    let err = api
        .create(&PostParams::default(), &configmap("done"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, kube::Error::Api(s) if s.reason == "AlreadyExists"),
        "{err:?}"
    );
    assert_eq!(faults.injected(), 1);
}
