//! An API server outage of 6 s: controllers get back to work within about a second of the
//! server's return (the cache's readiness probe cuts the watch backoff short), and a change made
//! right after the return is reconciled. Prints the measured time (the README quotes it).

use crate::common;

use common::*;
use kube::ResourceExt;
use kubeforge::{Action, Controller, Manager, ReconcileError};
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

/// When each object's first reconcile started.
#[derive(Default)]
struct FirstSeen(Mutex<HashMap<String, Instant>>);

async fn reconcile(w: Arc<Widget>, seen: Arc<FirstSeen>) -> Result<Action, ReconcileError> {
    seen.0
        .lock()
        .unwrap()
        .entry(w.name_any())
        .or_insert_with(Instant::now);
    Ok(Action::await_change())
}

#[tokio::test]
async fn after_a_six_second_outage_a_new_object_is_reconciled_within_about_a_second() {
    let env = faulty_env().await;
    let faults = env.faults().unwrap();
    let mut manager = Manager::new(env.client(), options_in(&env));
    let seen = Arc::new(FirstSeen::default());
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, seen.clone()));
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "before", 1).await;
    eventually(
        Duration::from_secs(10),
        "reconciled before the outage",
        || async { seen.0.lock().unwrap().contains_key("before") },
    )
    .await;

    // Down for 6 s: every connection (the watch too) is dropped, new ones are refused.
    faults.restart_after(Duration::from_secs(6)).await;
    let back = Instant::now();
    create_widget(&env, "after", 1).await;
    eventually(
        Duration::from_secs(30),
        "reconciled after the outage",
        || async { seen.0.lock().unwrap().contains_key("after") },
    )
    .await;
    let resumed = seen.0.lock().unwrap()["after"] - back;
    println!("server back -> first reconcile of an object created then: {resumed:?}");
    // kube-runtime's watch backoff alone (0.8 s doubling, jittered) typically resumes several
    // seconds after a 6 s outage; the readiness probe runs every 500 ms.
    assert!(
        resumed < Duration::from_secs(3),
        "controllers resumed only {resumed:?} after the server returned"
    );

    shutdown.shutdown();
    running.await.unwrap().expect("manager stops cleanly");
}
