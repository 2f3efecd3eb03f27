//! Every reconcile runs in a span with controller, namespace, object name and a reconcile id: a log
//! line from inside the reconcile carries them (JSON output). Own test binary: it installs
//! the global subscriber.

mod common;

use common::*;
use kubeforge::{Action, Controller, Manager, ReconcileError};
use std::{
    io::Write,
    sync::{Arc, Mutex},
    time::Duration,
};

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn reconcile_logs_carry_the_span_fields() {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    tracing_subscriber::fmt()
        .json()
        .with_current_span(true)
        .with_writer(move || writer.clone())
        .with_env_filter("info")
        .init();

    let env = env().await;
    let mut manager = Manager::new(env.client(), options());
    let reconcile = |_w: Arc<Widget>, _: Arc<()>| async {
        tracing::info!("inside reconcile");
        Ok::<_, ReconcileError>(Action::await_change())
    };
    manager.add(Controller::<Widget>::new(&manager, "widget").reconcile(reconcile, Arc::new(())));
    let shutdown = manager.shutdown_handle();
    let running = tokio::spawn(manager.run());
    create_widget(&env, "logged", 1).await;
    let line = || {
        String::from_utf8_lossy(&buffer.0.lock().unwrap())
            .lines()
            .find(|l| l.contains("inside reconcile"))
            .map(str::to_string)
    };
    eventually(Duration::from_secs(5), "log line", || async {
        line().is_some()
    })
    .await;
    let line: serde_json::Value = serde_json::from_str(&line().unwrap()).unwrap();
    let span = &line["span"];
    assert_eq!(span["name"], "reconcile", "{line}");
    assert_eq!(span["controller"], "widget", "{line}");
    assert_eq!(span["namespace"], env.namespace(), "{line}");
    assert_eq!(span["object"], "logged", "{line}");
    assert_eq!(
        span["reconcile_id"].as_str().map(str::len),
        Some(16),
        "{line}"
    );
    shutdown.shutdown();
    running.await.unwrap().unwrap();
}
