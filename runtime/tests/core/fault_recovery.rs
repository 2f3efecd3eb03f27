//! Recovery from API server faults: kube-runtime's watcher (through the manager's shared
//! cache) and a `Manager` + `Controller` keep every reconcile when watches are closed, history
//! is compacted, the server restarts, list and watch fail for a while, writes are rejected, and
//! watch events are lost (healed by a re-list or a periodic requeue with a live read).
//!
//! Faults come from `kubeforge_testenv::faults`; each test asserts that its fault really fired
//! (`injected()`), then that the controller converged: `status.observed == spec.size` for every
//! widget changed during the fault, and the cache holds the latest resourceVersion.

use crate::common;

use common::*;
use kube::{
    Api, ResourceExt,
    api::{Patch, PatchParams, PostParams},
};
use kubeforge::{Action, Controller, Manager, ReconcileError};
use kubeforge_testenv::TestEnv;
use kubeforge_testenv::faults::{Failure, Faults, Matcher};
use serde_json::json;
use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

/// How long a test waits for convergence: generous, since watcher backoff after errors is
/// 0.8 s doubling (jittered) and the machine is shared.
const CONVERGE: Duration = Duration::from_secs(30);

/// What the test reconciler does and what it saw.
struct Ctx {
    client: kube::Client,
    /// Requeue after each successful reconcile (`None`: wait for the next change).
    requeue: Option<Duration>,
    /// Read the object from the API server instead of trusting the cached copy.
    live_read: bool,
    /// (name, spec.size of the cached object, spec.size acted on) per reconcile attempt.
    seen: Mutex<Vec<(String, i32, i32)>>,
    /// Names of the objects whose status write was attempted, once per attempt.
    writes: Mutex<Vec<String>>,
    /// (name, error) of every failed status write.
    failures: Mutex<Vec<(String, String)>>,
}

impl Ctx {
    fn new(client: kube::Client, requeue: Option<Duration>, live_read: bool) -> Ctx {
        Ctx {
            client,
            requeue,
            live_read,
            seen: Mutex::new(Vec::new()),
            writes: Mutex::new(Vec::new()),
            failures: Mutex::new(Vec::new()),
        }
    }

    fn attempts(&self, name: &str) -> usize {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.0 == name)
            .count()
    }

    fn writes(&self, name: &str) -> usize {
        self.writes
            .lock()
            .unwrap()
            .iter()
            .filter(|n| *n == name)
            .count()
    }
}

/// Writes `status.observed = spec.size` with an update of the status subresource (a PUT
/// with the resourceVersion, so it can conflict like real controllers' writes).
async fn reconcile(w: Arc<Widget>, ctx: Arc<Ctx>) -> Result<Action, ReconcileError> {
    let api: Api<Widget> = Api::namespaced(ctx.client.clone(), &w.namespace().unwrap());
    let current = if ctx.live_read {
        api.get(&w.name_any()).await?
    } else {
        (*w).clone()
    };
    ctx.seen
        .lock()
        .unwrap()
        .push((w.name_any(), w.spec.size, current.spec.size));
    if current.status.as_ref().and_then(|s| s.observed) != Some(current.spec.size) {
        ctx.writes.lock().unwrap().push(w.name_any());
        let mut updated = current.clone();
        updated.status = Some(WidgetStatus {
            observed: Some(current.spec.size),
        });
        if let Err(e) = api
            .replace_status(&w.name_any(), &PostParams::default(), &updated)
            .await
        {
            ctx.failures
                .lock()
                .unwrap()
                .push((w.name_any(), e.to_string()));
            return Err(e.into());
        }
    }
    Ok(match ctx.requeue {
        Some(after) => Action::requeue(after),
        None => Action::await_change(),
    })
}

/// A running manager with one Widget controller, and what the test needs around it.
struct Running {
    env: TestEnv,
    faults: Faults,
    manager: Manager,
    ctx: Arc<Ctx>,
}

impl Running {
    async fn new(requeue: Option<Duration>, live_read: bool) -> Running {
        Self::new_in(faulty_env().await, requeue, live_read)
    }

    fn new_in(env: TestEnv, requeue: Option<Duration>, live_read: bool) -> Running {
        let client = env.client();
        Self::with_client(env, client, requeue, live_read)
    }

    fn with_client(
        env: TestEnv,
        client: kube::Client,
        requeue: Option<Duration>,
        live_read: bool,
    ) -> Running {
        let faults = env.faults().expect("embedded server");
        let mut manager = Manager::new(client, options());
        let ctx = Arc::new(Ctx::new(manager.client(), requeue, live_read));
        manager
            .add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, ctx.clone()));
        Running {
            env,
            faults,
            manager,
            ctx,
        }
    }

    /// Starts the manager; returns the stop handle and the task.
    fn start(self) -> Started {
        let shutdown = self.manager.shutdown_handle();
        let cache = self.manager.cache();
        let task = tokio::spawn(self.manager.run());
        Started {
            env: self.env,
            faults: self.faults,
            ctx: self.ctx,
            cache,
            shutdown,
            task,
        }
    }
}

struct Started {
    env: TestEnv,
    faults: Faults,
    ctx: Arc<Ctx>,
    cache: kubeforge::cache::Cache,
    shutdown: kubeforge::ShutdownHandle,
    task: tokio::task::JoinHandle<Result<(), kubeforge::Error>>,
}

impl Started {
    fn api(&self) -> Api<Widget> {
        Api::namespaced(self.env.client(), self.env.namespace())
    }

    async fn resize(&self, name: &str, size: i32) -> Widget {
        self.api()
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"size": size}})),
            )
            .await
            .expect("resize")
    }

    /// Waits until `name` is reconciled to `size` (status written) and the cache holds the
    /// server's latest version of it.
    async fn converged(&self, name: &str, size: i32) {
        eventually(
            CONVERGE,
            &format!("{name} reconciled to {size}"),
            || async { observed(&self.env, name).await == Some(size) },
        )
        .await;
        let live = self.api().get(name).await.unwrap();
        let store = self.cache.informer::<Widget>().store();
        eventually(
            CONVERGE,
            &format!("the cache has {name}'s latest version"),
            || {
                let cached = store
                    .get(
                        &kube::runtime::reflector::ObjectRef::new(name)
                            .within(self.env.namespace()),
                    )
                    .and_then(|w| w.metadata.resource_version.clone());
                let want = live.metadata.resource_version.clone();
                async move { cached >= want && cached.is_some() }
            },
        )
        .await;
    }

    async fn stop(self) {
        self.shutdown.shutdown();
        self.task.await.unwrap().expect("manager ends cleanly");
    }
}

/// The one watch the manager's cache holds on widgets is open.
async fn watching(faults: &Faults) {
    eventually(CONVERGE, "the cache's watch is open", || async {
        faults.open_watches() >= 1
    })
    .await;
}

fn widget_watch() -> Matcher {
    Matcher::any().verb("watch").resource("widgets")
}

#[tokio::test]
async fn reconciles_objects_changed_while_the_watch_was_closed() {
    let running = Running::new(None, false).await.start();
    create_widget(&running.env, "a", 1).await;
    create_widget(&running.env, "b", 1).await;
    running.converged("a", 1).await;
    running.converged("b", 1).await;
    watching(&running.faults).await;

    // Hold re-watches back so the changes below happen while no watch is open.
    running
        .faults
        .latency(widget_watch(), Duration::from_millis(500));
    assert_eq!(running.faults.close_watches(), 1);
    running.resize("a", 2).await;
    running.resize("b", 3).await;
    create_widget(&running.env, "c", 4).await;
    assert_eq!(running.faults.open_watches(), 0, "no watch while changing");
    running.converged("a", 2).await;
    running.converged("b", 3).await;
    running.converged("c", 4).await;
    // The closed watch and the delayed re-watch both fired.
    assert!(running.faults.injected() >= 2);
    running.stop().await;
}

#[tokio::test]
async fn compaction_while_disconnected_forces_a_relist_that_reconciles_the_changes() {
    let running = Running::new(None, false).await.start();
    create_widget(&running.env, "a", 1).await;
    create_widget(&running.env, "gone", 1).await;
    running.converged("a", 1).await;
    running.converged("gone", 1).await;
    watching(&running.faults).await;

    running
        .faults
        .latency(widget_watch(), Duration::from_millis(500));
    assert_eq!(running.faults.close_watches(), 1);
    running.resize("a", 5).await;
    running
        .api()
        .delete("gone", &Default::default())
        .await
        .unwrap();
    create_widget(&running.env, "new", 6).await;
    running.faults.compact();
    // The resumed watch gets 410 Expired and the watcher re-lists: the list below is
    // answered 503 once (kube's client retries it at once), which proves a re-list happened.
    running.faults.fail_next(
        Matcher::any().verb("list").resource("widgets"),
        1,
        Failure::status(503),
    );
    let before = running.faults.injected();
    running.converged("a", 5).await;
    running.converged("new", 6).await;
    assert!(
        running.faults.injected() > before + 1,
        "the watcher re-listed after 410 Gone"
    );
    let store = running.cache.informer::<Widget>().store();
    eventually(CONVERGE, "the deleted widget left the cache", || async {
        store.state().iter().all(|w| w.name_any() != "gone")
    })
    .await;
    running.stop().await;
}

#[tokio::test]
async fn reconciles_across_a_server_restart() {
    let running = Running::new(None, false).await.start();
    create_widget(&running.env, "a", 1).await;
    running.converged("a", 1).await;
    watching(&running.faults).await;

    running.faults.restart().await;
    assert_eq!(
        running.faults.open_watches(),
        0,
        "the restart cut the watch"
    );
    // Changed right after the restart, while the watcher backs off from the cut connection.
    running.resize("a", 2).await;
    create_widget(&running.env, "b", 3).await;
    running.converged("a", 2).await;
    running.converged("b", 3).await;
    // And the new watch keeps delivering.
    watching(&running.faults).await;
    running.resize("b", 4).await;
    running.converged("b", 4).await;
    running.stop().await;
}

#[tokio::test]
async fn initial_list_failing_for_a_while_is_retried_until_the_cache_syncs() {
    let running = Running::new(None, false).await;
    create_widget(&running.env, "a", 7).await;
    let list = || Matcher::any().verb("list").resource("widgets");
    // 500s reach the watcher (backoff); 503 and 429 are retried inside kube's client.
    running.faults.fail_next(list(), 2, Failure::status(500));
    running.faults.fail_next(list(), 2, Failure::status(503));
    running.faults.fail_next(
        list(),
        1,
        Failure::too_many_requests(Duration::from_secs(1)),
    );
    let running = running.start();
    running.converged("a", 7).await;
    assert_eq!(running.faults.injected(), 5);
    running.stop().await;
}

#[tokio::test]
async fn watch_failing_for_a_while_backs_off_then_delivers_every_change() {
    let running = Running::new(None, false).await.start();
    create_widget(&running.env, "a", 1).await;
    running.converged("a", 1).await;
    watching(&running.faults).await;

    running
        .faults
        .fail_next(widget_watch(), 2, Failure::status(500));
    running
        .faults
        .fail_next(widget_watch(), 1, Failure::status(503));
    running.faults.fail_next(
        widget_watch(),
        1,
        Failure::too_many_requests(Duration::from_secs(1)),
    );
    assert_eq!(running.faults.close_watches(), 1);
    running.resize("a", 2).await;
    create_widget(&running.env, "b", 3).await;
    running.converged("a", 2).await;
    running.converged("b", 3).await;
    assert_eq!(
        running.faults.injected(),
        5,
        "one close and four failed watches"
    );
    running.stop().await;
}

/// A client that returns 429/503/504 to the caller instead of retrying inside kube's client,
/// so the reconcile's error policy is what retries.
async fn no_retry_client(env: &TestEnv) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig_path()).unwrap();
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    config.default_retry = false;
    kube::Client::try_from(config).unwrap()
}

#[tokio::test]
async fn rejected_writes_are_retried_by_the_error_policy() {
    let env = faulty_env().await;
    let faults = env.faults().unwrap();
    let status_update = |name: &str| {
        Matcher::any()
            .verb("update")
            .resource("widgets/status")
            .name(name)
    };
    faults.fail_next(status_update("conflicted"), 2, Failure::status(409));
    faults.fail_next(
        status_update("throttled"),
        1,
        Failure::too_many_requests(Duration::from_secs(1)),
    );
    let client = no_retry_client(&env).await;
    let running = Running::with_client(env, client, None, false).start();
    create_widget(&running.env, "conflicted", 2).await;
    create_widget(&running.env, "throttled", 3).await;
    running.converged("conflicted", 2).await;
    running.converged("throttled", 3).await;
    assert_eq!(running.faults.injected(), 3);
    // Each rejected write failed its reconcile, and the error policy retried it.
    assert_eq!(running.ctx.writes("conflicted"), 3);
    assert_eq!(running.ctx.writes("throttled"), 2);
    running.stop().await;
}

#[tokio::test]
async fn a_lost_event_is_invisible_until_a_relist_heals_the_cache() {
    let running = Running::new(None, false).await.start();
    create_widget(&running.env, "a", 1).await;
    running.converged("a", 1).await;
    watching(&running.faults).await;

    running
        .faults
        .drop_watch_events(Matcher::any().resource("widgets").name("a"), 1);
    running.resize("a", 2).await;
    assert_eq!(running.faults.injected(), 1);
    // A per-object controller cannot know: nothing is reconciled, the cache stays stale.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(observed(&running.env, "a").await, Some(1));
    let cached = running
        .cache
        .informer::<Widget>()
        .store()
        .get(&kube::runtime::reflector::ObjectRef::new("a").within(running.env.namespace()))
        .unwrap();
    assert_eq!(cached.spec.size, 1, "the cache missed the change");
    let attempts = running.ctx.attempts("a");
    // A re-list heals it: force one with a compaction and a closed watch (410 on resume).
    running.faults.compact();
    assert_eq!(running.faults.close_watches(), 1);
    running.converged("a", 2).await;
    assert!(running.ctx.attempts("a") > attempts);
    running.stop().await;
}

#[tokio::test]
async fn a_lost_event_is_healed_by_a_periodic_requeue_that_reads_live() {
    let running = Running::new(Some(Duration::from_millis(300)), true)
        .await
        .start();
    create_widget(&running.env, "a", 1).await;
    running.converged("a", 1).await;
    watching(&running.faults).await;

    running
        .faults
        .drop_watch_events(Matcher::any().resource("widgets").name("a"), 1);
    running.resize("a", 2).await;
    assert_eq!(running.faults.injected(), 1);
    eventually(
        CONVERGE,
        "the requeued reconcile wrote the new size",
        || async { observed(&running.env, "a").await == Some(2) },
    )
    .await;
    // The requeue was handed the stale cached object (size 1) and acted on the live read.
    let seen = running.ctx.seen.lock().unwrap().clone();
    assert!(
        seen.iter()
            .any(|(name, cached, acted)| name == "a" && *cached == 1 && *acted == 2),
        "{seen:?}"
    );
    running.stop().await;
}

#[tokio::test]
async fn a_list_that_keeps_failing_ends_start_up_with_the_servers_error() {
    let env = faulty_env().await;
    let faults = env.faults().unwrap();
    faults.fail_next(
        Matcher::any().verb("list").resource("widgets"),
        usize::MAX,
        Failure::status(500).message("etcd is down"),
    );
    let mut options = options_in(&env);
    options.cache.sync_timeout = Duration::from_secs(2);
    let mut manager = Manager::new(env.client(), options);
    let reconcile =
        |_: Arc<Widget>, _: Arc<()>| async { Ok::<_, ReconcileError>(Action::await_change()) };
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, Arc::new(())));
    let err = manager.run().await.unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(err, kubeforge::Error::CacheSyncTimeout { .. }),
        "{message}"
    );
    assert!(message.contains("Widget"), "{message}");
    assert!(
        message.contains("Internal error occurred: etcd is down"),
        "{message}"
    );
    assert!(faults.injected() >= 1);
}

#[tokio::test]
async fn every_change_survives_rounds_of_mixed_faults() {
    let running = Running::new(None, false).await.start();
    let names: Vec<String> = (0..8).map(|i| format!("w{i}")).collect();
    for name in &names {
        create_widget(&running.env, name, 0).await;
    }
    for name in &names {
        running.converged(name, 0).await;
    }
    for round in 1..=4 {
        watching(&running.faults).await;
        match round {
            1 => assert_eq!(running.faults.close_watches(), 1),
            2 => {
                running.faults.compact();
                assert_eq!(running.faults.close_watches(), 1);
            }
            3 => running.faults.restart().await,
            _ => {
                running
                    .faults
                    .fail_next(widget_watch(), 1, Failure::status(500));
                assert_eq!(running.faults.close_watches(), 1);
            }
        }
        // Every widget changes while the cache recovers from the fault.
        for name in &names {
            running.resize(name, round).await;
        }
    }
    for name in &names {
        running.converged(name, 4).await;
    }
    running.stop().await;
}

#[tokio::test]
async fn a_reconcile_stuck_on_a_slow_server_times_out_and_is_retried() {
    let env = faulty_env().await;
    let faults = env.faults().unwrap();
    let mut manager = Manager::new(env.client(), options_in(&env));
    let ctx = Arc::new(Ctx::new(manager.client(), None, false));
    manager.add(
        Controller::<Widget>::new(&manager, "widget")
            .reconcile_timeout(Duration::from_millis(200))
            .reconcile(reconcile, ctx.clone()),
    );
    // Status writes hang for 2 s: longer than the reconcile may take.
    faults.latency(
        Matcher::any().verb("update").resource("widgets/status"),
        Duration::from_secs(2),
    );
    let running = Running {
        env,
        faults,
        manager,
        ctx,
    }
    .start();
    create_widget(&running.env, "slow", 5).await;
    eventually(CONVERGE, "a write attempt timed out", || async {
        running.ctx.writes("slow") >= 1
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The server recovers; the retried reconcile completes.
    running.faults.clear();
    running.converged("slow", 5).await;
    assert!(running.ctx.writes("slow") >= 2, "the write was retried");
    running.stop().await;
}

#[tokio::test]
async fn a_write_whose_answer_was_lost_is_reconciled_idempotently() {
    let env = faulty_env().await;
    env.faults().unwrap().fail_next(
        Matcher::any().verb("update").resource("widgets/status"),
        1,
        Failure::status(504).after_handling(),
    );
    let running = Running::new_in(env, None, false).start();
    create_widget(&running.env, "a", 3).await;
    running.converged("a", 3).await;
    assert_eq!(running.faults.injected(), 1);
    // The status was written, the 504 was retried by kube's client with the now stale
    // resourceVersion (409), and the error policy's retry found nothing left to do.
    // (The status is visible before the client sees its answer: wait for the reconcile's.)
    eventually(CONVERGE, "the reconcile saw its write fail", || async {
        !running.ctx.failures.lock().unwrap().is_empty()
    })
    .await;
    let failures = running.ctx.failures.lock().unwrap().clone();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].1.contains("Conflict") || failures[0].1.contains("modified"),
        "{failures:?}"
    );
    running.stop().await;
}
