//! A slow subscriber does not grow memory: with one per-object controller whose reconciles are
//! stuck and one state-of-world controller whose reconcile is stuck, thousands of updates flow
//! through the shared informer; its subscriber buffers stay within their bound, the stuck
//! controllers hold at most one entry per object, and a healthy controller on the same kind
//! keeps reconciling the latest versions.

use crate::common;

use common::*;
use kube::{
    Api, ResourceExt,
    api::{Patch, PatchParams},
};
use kubeforge::{
    Action, Controller, Manager, ReconcileError,
    world::{Changes, Snapshot, WorldController},
};
use serde_json::json;
use std::{
    collections::HashMap,
    convert::Infallible,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};
use tokio_util::sync::CancellationToken;

const BUFFER: usize = 16;
const OBJECTS: usize = 20;
const ROUNDS: usize = 100;

struct Ctx {
    /// Released at the end: the stuck reconciles return.
    release: CancellationToken,
    /// The size each object had when the healthy controller last reconciled it.
    seen: Mutex<HashMap<String, i32>>,
    /// Changes handed to each call of the state-of-world controller.
    world_calls: Mutex<Vec<usize>>,
    stuck_started: AtomicUsize,
}

async fn healthy(w: Arc<Widget>, ctx: Arc<Ctx>) -> Result<Action, ReconcileError> {
    ctx.seen.lock().unwrap().insert(w.name_any(), w.spec.size);
    Ok(Action::await_change())
}

async fn stuck(_: Arc<Widget>, ctx: Arc<Ctx>) -> Result<Action, ReconcileError> {
    ctx.stuck_started.fetch_add(1, Ordering::SeqCst);
    ctx.release.cancelled().await;
    Ok(Action::await_change())
}

async fn world(_: Arc<Snapshot>, changes: Changes, ctx: Arc<Ctx>) -> Result<(), Infallible> {
    ctx.world_calls.lock().unwrap().push(changes.len());
    ctx.release.cancelled().await;
    Ok(())
}

/// The value of `family{name="<controller>",controller="<controller>"}` in the metrics text.
fn depth(text: &str, controller: &str) -> usize {
    let prefix = format!("workqueue_depth{{name=\"{controller}\",controller=\"{controller}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn stuck_controllers_hold_bounded_memory_while_a_healthy_one_keeps_up() {
    let env = env().await;
    let mut options = options_in(&env);
    options.cache.subscriber_buffer = BUFFER;
    options.graceful_shutdown_timeout = Duration::from_secs(10);
    let mut manager = Manager::new(env.client(), options);
    let ctx = Arc::new(Ctx {
        release: CancellationToken::new(),
        seen: Mutex::new(HashMap::new()),
        world_calls: Mutex::new(Vec::new()),
        stuck_started: AtomicUsize::new(0),
    });
    manager.add(Controller::<Widget>::new(&manager, "healthy").reconcile(healthy, ctx.clone()));
    manager.add(Controller::<Widget>::new(&manager, "stuck").reconcile(stuck, ctx.clone()));
    manager.add(
        WorldController::new(&manager, "world")
            .watches::<Widget>()
            .debounce(Duration::from_millis(10))
            .reconcile(world, ctx.clone()),
    );
    let (cache, metrics) = (manager.cache(), manager.metrics());
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());

    // The world's first call (on the empty world) is stuck before any object exists.
    eventually(
        Duration::from_secs(10),
        "the world's first call",
        || async { !ctx.world_calls.lock().unwrap().is_empty() },
    )
    .await;
    for i in 0..OBJECTS {
        create_widget(&env, &format!("w{i:02}"), 0).await;
    }
    eventually(
        Duration::from_secs(10),
        "the other controllers busy",
        || async {
            ctx.seen.lock().unwrap().len() == OBJECTS
                && ctx.stuck_started.load(Ordering::SeqCst) >= 1
        },
    )
    .await;

    // Sample the buffers and queues while the updates flow.
    let sampling = CancellationToken::new();
    let sampler = tokio::spawn({
        let (cache, metrics, sampling) = (cache.clone(), metrics.clone(), sampling.clone());
        async move {
            let (mut queued, mut stuck_depth, mut world_depth) = (0, 0, 0);
            while !sampling.is_cancelled() {
                queued = queued.max(cache.informer::<Widget>().queued());
                let text = metrics.render();
                stuck_depth = stuck_depth.max(depth(&text, "stuck"));
                world_depth = world_depth.max(depth(&text, "world"));
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            (queued, stuck_depth, world_depth)
        }
    });
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    for round in 1..=ROUNDS {
        for i in 0..OBJECTS {
            api.patch(
                &format!("w{i:02}"),
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"size": round}})),
            )
            .await
            .unwrap();
        }
    }
    // The healthy controller sees the last version of every object: the informer was never
    // held up by the stuck ones.
    eventually(
        Duration::from_secs(20),
        "the healthy controller caught up",
        || async {
            let seen = ctx.seen.lock().unwrap();
            seen.len() == OBJECTS && seen.values().all(|size| *size == ROUNDS as i32)
        },
    )
    .await;
    sampling.cancel();
    let (queued, stuck_depth, world_depth) = sampler.await.unwrap();
    println!(
        "{} updates: most changes queued for one subscriber {queued} (buffer {BUFFER}); \
         queue depth of the stuck controller {stuck_depth}, of the stuck world {world_depth} \
         ({OBJECTS} objects)",
        ROUNDS * OBJECTS
    );
    assert!(queued <= BUFFER, "{queued}");
    assert!(stuck_depth <= OBJECTS, "{stuck_depth}");
    assert!(world_depth <= OBJECTS, "{world_depth}");
    assert_eq!(
        depth(&metrics.render(), "world"),
        OBJECTS,
        "every object changed while the world reconcile was stuck: one net change each"
    );

    // Released, the world's next call gets one net change per object.
    ctx.release.cancel();
    eventually(Duration::from_secs(10), "the world's next call", || async {
        ctx.world_calls.lock().unwrap().len() >= 2
    })
    .await;
    assert_eq!(ctx.world_calls.lock().unwrap()[1], OBJECTS);
    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}
