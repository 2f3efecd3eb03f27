//! SIGTERM stops the manager gracefully: `run` returns `Ok` (the process exits 0) after the
//! in-flight reconcile finished. Its own test binary, since it signals the whole process.

mod common;

use common::*;
use kubeforge::{Action, Controller, Manager, ManagerOptions, ReconcileError};
use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

#[tokio::test]
async fn sigterm_stops_gracefully_with_exit_zero() {
    let env = env().await;
    let mut manager = Manager::new(
        env.client(),
        ManagerOptions {
            handle_signals: true,
            ..Default::default()
        },
    );
    let flags = Arc::new((AtomicBool::new(false), AtomicBool::new(false)));
    let reconcile = |_w: Arc<Widget>, flags: Arc<(AtomicBool, AtomicBool)>| async move {
        flags.0.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(300)).await;
        flags.1.store(true, Ordering::SeqCst);
        Ok::<_, ReconcileError>(Action::await_change())
    };
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, flags.clone()));
    let status = manager.status();
    let running = tokio::spawn(manager.run());
    eventually(Duration::from_secs(5), "running", || async {
        status.is_leader()
    })
    .await;
    create_widget(&env, "s", 1).await;
    eventually(Duration::from_secs(5), "reconcile started", || async {
        flags.0.load(Ordering::SeqCst)
    })
    .await;
    let pid = std::process::id().to_string();
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(kill.success());
    let result = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("manager stops after SIGTERM")
        .unwrap();
    assert!(result.is_ok(), "{result:?}");
    assert!(
        flags.1.load(Ordering::SeqCst),
        "in-flight reconcile finished first"
    );
}
