//! Controllers against the embedded API server: reconcile on create, on an owned object's
//! update, on delete with a finalizer; backoff; per-object serialisation; terminal errors;
//! panic recovery.

use crate::common;

use common::*;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::{
    Api, ResourceExt,
    api::{DeleteParams, ObjectMeta, Patch, PatchParams},
};
use kubeforge::{
    Action, Controller, Manager, ReconcileError,
    controller::RateLimit,
    helpers::{finalizer, owner},
};
use serde_json::json;
use std::{
    collections::{HashMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

/// Writes `status.observed = spec.size`.
async fn write_status(client: kube::Client, w: &Widget) -> Result<(), kube::Error> {
    let api: Api<Widget> = Api::namespaced(client, &w.namespace().unwrap());
    api.patch_status(
        &w.name_any(),
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"observed": w.spec.size}})),
    )
    .await?;
    Ok(())
}

#[tokio::test]
async fn reconciles_on_create_and_on_owned_object_update() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    struct Ctx {
        client: kube::Client,
        runs: Mutex<HashMap<String, usize>>,
    }
    let ctx = Arc::new(Ctx {
        client: manager.client(),
        runs: Mutex::new(HashMap::new()),
    });
    async fn reconcile(w: Arc<Widget>, ctx: Arc<Ctx>) -> Result<Action, ReconcileError> {
        *ctx.runs.lock().unwrap().entry(w.name_any()).or_default() += 1;
        let mut cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some(format!("{}-config", w.name_any())),
                namespace: w.namespace(),
                ..Default::default()
            },
            ..Default::default()
        };
        owner::set_controller_reference(w.as_ref(), &mut cm).map_err(ReconcileError::wrap)?;
        let cms: Api<ConfigMap> = Api::namespaced(ctx.client.clone(), &w.namespace().unwrap());
        kubeforge::helpers::apply::create_or_update(&cms, cm, |_| {}).await?;
        write_status(ctx.client.clone(), &w).await?;
        Ok(Action::await_change())
    }
    manager.add(
        Controller::<Widget>::new(&manager, "widget")
            .owns::<ConfigMap>()
            .reconcile(reconcile, ctx.clone()),
    );
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());

    create_widget(&env, "a", 3).await;
    eventually(Duration::from_secs(10), "status.observed", || async {
        observed(&env, "a").await == Some(3)
    })
    .await;

    // Changing the owned ConfigMap reconciles the owner again.
    let before = ctx.runs.lock().unwrap()["a"];
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    cms.patch(
        "a-config",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"touched": "yes"}})),
    )
    .await
    .unwrap();
    eventually(Duration::from_secs(10), "owner reconcile", || async {
        ctx.runs.lock().unwrap()["a"] > before
    })
    .await;

    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}

#[tokio::test]
async fn delete_with_finalizer_runs_cleanup_then_object_goes() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    struct Ctx {
        client: kube::Client,
        cleaned: AtomicBool,
    }
    let ctx = Arc::new(Ctx {
        client: manager.client(),
        cleaned: AtomicBool::new(false),
    });
    async fn reconcile(
        w: Arc<Widget>,
        ctx: Arc<Ctx>,
    ) -> Result<Action, finalizer::FinalizerError<ReconcileError>> {
        let api: Api<Widget> = Api::namespaced(ctx.client.clone(), &w.namespace().unwrap());
        finalizer::finalizer(&api, "test.kubeforge.dev/cleanup", w, |event| async {
            match event {
                finalizer::Event::Apply(w) => {
                    write_status(ctx.client.clone(), &w).await?;
                }
                finalizer::Event::Cleanup(_) => ctx.cleaned.store(true, Ordering::SeqCst),
            }
            Ok::<_, ReconcileError>(Action::await_change())
        })
        .await
    }
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, ctx.clone()));
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());

    create_widget(&env, "f", 1).await;
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    eventually(
        Duration::from_secs(10),
        "finalizer added and status",
        || async {
            let w = api.get("f").await.unwrap();
            w.finalizers()
                .contains(&"test.kubeforge.dev/cleanup".to_string())
                && w.status.and_then(|s| s.observed) == Some(1)
        },
    )
    .await;
    api.delete("f", &DeleteParams::default()).await.unwrap();
    eventually(Duration::from_secs(10), "object deleted", || async {
        api.get_opt("f").await.unwrap().is_none()
    })
    .await;
    assert!(ctx.cleaned.load(Ordering::SeqCst));

    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn failed_reconciles_back_off_exponentially_then_succeed() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let attempts: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let reconcile = |_w: Arc<Widget>, attempts: Arc<Mutex<Vec<Instant>>>| async move {
        let mut a = attempts.lock().unwrap();
        a.push(Instant::now());
        if a.len() <= 4 {
            Err(ReconcileError::new("not yet"))
        } else {
            Ok(Action::await_change())
        }
    };
    manager.add(
        Controller::<Widget>::new(&manager, "widget")
            .rate_limit(RateLimit {
                base_delay: Duration::from_millis(40),
                ..RateLimit::default()
            })
            .reconcile(reconcile, attempts.clone()),
    );
    let metrics = manager.metrics();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "b", 1).await;
    eventually(Duration::from_secs(10), "five attempts", || async {
        attempts.lock().unwrap().len() >= 5
    })
    .await;
    let a = attempts.lock().unwrap().clone();
    for (i, pair) in a.windows(2).enumerate() {
        let gap = pair[1] - pair[0];
        let expected = Duration::from_millis(40 * (1 << i));
        assert!(
            gap >= expected,
            "retry {i} came after {gap:?}, expected >= {expected:?}"
        );
    }
    // Success resets the backoff; no further attempts without a change.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(attempts.lock().unwrap().len(), 5);
    let text = metrics.render();
    assert!(
        text.contains("workqueue_retries_total{name=\"widget\",controller=\"widget\"} 4"),
        "{text}"
    );
    assert!(
        text.contains("controller_runtime_reconcile_errors_total{controller=\"widget\"} 4"),
        "{text}"
    );
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn one_object_is_never_reconciled_twice_at_once() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    #[derive(Default)]
    struct Ctx {
        in_flight: Mutex<HashSet<String>>,
        max_parallel: AtomicUsize,
        overlap: AtomicBool,
        runs: AtomicUsize,
    }
    let ctx = Arc::new(Ctx::default());
    async fn reconcile(w: Arc<Widget>, ctx: Arc<Ctx>) -> Result<Action, ReconcileError> {
        let name = w.name_any();
        {
            let mut f = ctx.in_flight.lock().unwrap();
            if !f.insert(name.clone()) {
                ctx.overlap.store(true, Ordering::SeqCst);
            }
            ctx.max_parallel.fetch_max(f.len(), Ordering::SeqCst);
        }
        tokio::time::sleep(Duration::from_millis(15)).await;
        ctx.in_flight.lock().unwrap().remove(&name);
        ctx.runs.fetch_add(1, Ordering::SeqCst);
        Ok(Action::await_change())
    }
    manager.add(
        Controller::<Widget>::new(&manager, "widget")
            .max_concurrent_reconciles(4)
            .reconcile(reconcile, ctx.clone()),
    );
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    for i in 0..8 {
        create_widget(&env, &format!("w{i}"), 0).await;
    }
    // Hammer the same objects with updates while they are being reconciled.
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    for round in 1..=5 {
        for i in 0..8 {
            api.patch(
                &format!("w{i}"),
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"size": round}})),
            )
            .await
            .unwrap();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    eventually(Duration::from_secs(10), "reconciles", || async {
        ctx.runs.load(Ordering::SeqCst) >= 8 && ctx.in_flight.lock().unwrap().is_empty()
    })
    .await;
    assert!(
        !ctx.overlap.load(Ordering::SeqCst),
        "an object was reconciled concurrently"
    );
    let max = ctx.max_parallel.load(Ordering::SeqCst);
    assert!((2..=4).contains(&max), "parallelism {max} outside 2..=4");
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn terminal_errors_are_not_retried_and_panics_are_recovered() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let runs: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let reconcile = |w: Arc<Widget>, runs: Arc<Mutex<HashMap<String, usize>>>| async move {
        let n = {
            let mut r = runs.lock().unwrap();
            let n = r.entry(w.name_any()).or_default();
            *n += 1;
            *n
        };
        match w.name_any().as_str() {
            "terminal" => Err(ReconcileError::terminal("spec can never work")),
            "panics" if n == 1 => panic!("boom"),
            _ => Ok(Action::await_change()),
        }
    };
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, runs.clone()));
    let metrics = manager.metrics();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "terminal", 1).await;
    create_widget(&env, "panics", 1).await;
    eventually(
        Duration::from_secs(10),
        "panicking object retried",
        || async { runs.lock().unwrap().get("panics").copied() == Some(2) },
    )
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        runs.lock().unwrap()["terminal"],
        1,
        "terminal error was retried"
    );
    let text = metrics.render();
    for line in [
        "controller_runtime_terminal_reconcile_errors_total{controller=\"widget\"} 1",
        "controller_runtime_reconcile_panics_total{controller=\"widget\"} 1",
        "controller_runtime_reconcile_total{controller=\"widget\",result=\"success\"} 1",
    ] {
        assert!(text.contains(line), "missing {line}\n{text}");
    }
    assert!(!running.is_finished(), "a panic stopped the manager");
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn reconcile_timeout_cancels_and_retries() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let runs = Arc::new(AtomicUsize::new(0));
    let reconcile = |_w: Arc<Widget>, runs: Arc<AtomicUsize>| async move {
        if runs.fetch_add(1, Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
        Ok::<_, ReconcileError>(Action::await_change())
    };
    manager.add(
        Controller::<Widget>::new(&manager, "widget")
            .reconcile_timeout(Duration::from_millis(100))
            .reconcile(reconcile, runs.clone()),
    );
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "slow", 1).await;
    eventually(Duration::from_secs(5), "retry after timeout", || async {
        runs.load(Ordering::SeqCst) >= 2
    })
    .await;
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn requeue_results_use_controller_runtime_labels() {
    let env = env().await;
    let mut manager = Manager::new(env.client(), options_in(&env));
    let runs = Arc::new(AtomicUsize::new(0));
    let reconcile = |w: Arc<Widget>, runs: Arc<AtomicUsize>| async move {
        let n = runs.fetch_add(1, Ordering::SeqCst);
        Ok::<_, ReconcileError>(match (w.name_any().as_str(), n) {
            ("later", _) => Action::requeue(Duration::from_secs(3600)),
            (_, _) => Action::await_change(),
        })
    };
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, runs.clone()));
    let metrics = manager.metrics();
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "later", 1).await;
    create_widget(&env, "done", 1).await;
    eventually(Duration::from_secs(5), "two reconciles", || async {
        runs.load(Ordering::SeqCst) >= 2
    })
    .await;
    let text = metrics.render();
    for line in [
        "controller_runtime_reconcile_total{controller=\"widget\",result=\"requeue_after\"} 1",
        "controller_runtime_reconcile_total{controller=\"widget\",result=\"success\"} 1",
        "controller_runtime_reconcile_total{controller=\"widget\",result=\"requeue\"} 0",
        "controller_runtime_reconcile_total{controller=\"widget\",result=\"error\"} 0",
    ] {
        assert!(text.contains(line), "missing {line}\n{text}");
    }
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}
