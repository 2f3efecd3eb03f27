//! Debug build times of a kubeforge-generated operator against a minimal hand-written kube-rs
//! operator with one CRD and one controller, both built in the same run, sharing nothing but
//! the cargo registry (each has its own fresh target directory; both use the workspace's
//! Cargo.lock so the same dependency versions are compared).
//!
//! Reports the cold build and the incremental build after editing the reconcile function, and
//! the ratios generated / hand-written. Not run by CI (minutes of compiling):
//!
//!     cargo bench -p kubeforge-e2e --bench build_times

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser as _;
use kubeforge_e2e::workspace_root;

const HANDWRITTEN_MANIFEST: &str = r#"[package]
name = "handwritten-operator"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
kube = { version = "5.0", default-features = false, features = ["client", "runtime", "derive", "rustls-tls", "ring"] }
k8s-openapi = { version = "0.29", default-features = false, features = ["std", "schemars", "v1_35"] }
schemars = { version = "1.2", default-features = false, features = ["std", "derive"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
tokio = { version = "1", features = ["rt-multi-thread", "macros", "time"] }
futures = { version = "0.3", default-features = false, features = ["std"] }
thiserror = "2"

[workspace]

[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false
"#;

const HANDWRITTEN_MAIN: &str = r#"use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::api::{Patch, PatchParams};
use kube::runtime::{Controller, controller::Action, watcher};
use kube::{Api, Client, CustomResource, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The desired state of a Memcached.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced, status = "MemcachedStatus")]
pub struct MemcachedSpec {
    pub foo: Option<String>,
}

/// The observed state of a Memcached.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedStatus {
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

#[derive(Debug, thiserror::Error)]
enum Error {
    #[error(transparent)]
    Kube(#[from] kube::Error),
}

struct Context {
    client: Client,
}

async fn reconcile(obj: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action, Error> {
    let namespace = obj.namespace().unwrap_or_default();
    let api: Api<Memcached> = Api::namespaced(ctx.client.clone(), &namespace);
    let generation = obj.metadata.generation;
    let status = MemcachedStatus {
        observed_generation: generation,
        conditions: vec![Condition {
            type_: "Ready".into(),
            status: "True".into(),
            reason: "Reconciled".into(),
            message: "Reconciled".into(),
            observed_generation: generation,
            last_transition_time: Time(k8s_openapi::jiff::Timestamp::now()),
        }],
    };
    let patch = serde_json::json!({ "status": status });
    api.patch_status(&obj.name_any(), &PatchParams::default(), &Patch::Merge(&patch)).await?;
    Ok(Action::await_change())
}

fn error_policy(_: Arc<Memcached>, _: &Error, _: Arc<Context>) -> Action {
    Action::requeue(Duration::from_secs(5))
}

#[tokio::main]
async fn main() -> Result<(), kube::Error> {
    let client = Client::try_default().await?;
    let api = Api::<Memcached>::all(client.clone());
    Controller::new(api, watcher::Config::default())
        .run(reconcile, error_policy, Arc::new(Context { client }))
        .for_each(|result| async move {
            if let Err(e) = result {
                eprintln!("reconcile failed: {e}");
            }
        })
        .await;
    Ok(())
}
"#;

/// `cargo build` in `project` into `target`; returns the wall time.
fn build(project: &Path, target: &Path) -> anyhow::Result<Duration> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let started = Instant::now();
    let output = Command::new(cargo)
        .args(["build", "--quiet"])
        .current_dir(project)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .context("running cargo")?;
    let elapsed = started.elapsed();
    anyhow::ensure!(
        output.status.success(),
        "build failed in {}:\n{}",
        project.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(elapsed)
}

/// Replaces `from` by `to` in a file (the "edit the reconcile function" step).
fn edit(file: &Path, from: &str, to: &str) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    anyhow::ensure!(text.contains(from), "{} lacks {from:?}", file.display());
    std::fs::write(file, text.replacen(from, to, 1))
        .with_context(|| format!("writing {}", file.display()))
}

/// Extracts the committed tree of the checkout into `dir/kubeforge`; `None` outside git.
fn committed_snapshot(dir: &Path) -> anyhow::Result<Option<std::path::PathBuf>> {
    let root = workspace_root();
    let archive = Command::new("git")
        .args(["archive", "--format=tar", "HEAD"])
        .current_dir(&root)
        .output();
    let Ok(archive) = archive.map(|o| o.status.success().then_some(o.stdout)) else {
        return Ok(None);
    };
    let Some(tar) = archive else { return Ok(None) };
    let target = dir.join("kubeforge");
    std::fs::create_dir_all(&target)?;
    let mut untar = Command::new("tar")
        .args(["-x", "-C"])
        .arg(&target)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .context("running tar")?;
    std::io::Write::write_all(&mut untar.stdin.take().context("tar stdin")?, &tar)?;
    anyhow::ensure!(untar.wait()?.success(), "tar failed");
    Ok(Some(target))
}

fn main() -> anyhow::Result<()> {
    if !std::env::args().any(|a| a == "--bench") {
        println!("build_times: run with `cargo bench -p kubeforge-e2e --bench build_times`");
        return Ok(());
    }
    let temp = tempfile::tempdir()?;
    let generated = temp.path().join("generated");
    let handwritten = temp.path().join("handwritten");
    std::fs::create_dir_all(handwritten.join("src"))?;

    let dir = generated.display().to_string();
    let init = [
        "kubeforge",
        "init",
        "--domain",
        "example.com",
        "--project-name",
        "memcached-operator",
        "--dir",
        &dir,
    ];
    let api = [
        "kubeforge",
        "create",
        "api",
        "--group",
        "cache",
        "--version",
        "v1alpha1",
        "--kind",
        "Memcached",
        "--dir",
        &dir,
    ];
    for argv in [&init[..], &api[..]] {
        kubeforge_cli::run(kubeforge_cli::Cli::parse_from(argv)).context("scaffolding")?;
    }
    // Build against the committed kubeforge crates (a `git archive` of HEAD), so edits in
    // progress in the working tree neither break nor skew the measurement.
    if let Some(snapshot) = committed_snapshot(temp.path())? {
        let manifest = generated.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest)?;
        let checkout = workspace_root().display().to_string();
        std::fs::write(
            &manifest,
            text.replace(&checkout, &snapshot.display().to_string()),
        )?;
    }
    std::fs::write(handwritten.join("Cargo.toml"), HANDWRITTEN_MANIFEST)?;
    std::fs::write(handwritten.join("src/main.rs"), HANDWRITTEN_MAIN)?;
    for project in [&generated, &handwritten] {
        std::fs::copy(
            workspace_root().join("Cargo.lock"),
            project.join("Cargo.lock"),
        )?;
    }

    let gen_target = temp.path().join("target-generated");
    let hand_target = temp.path().join("target-handwritten");
    let hand_cold = build(&handwritten, &hand_target)?;
    let gen_cold = build(&generated, &gen_target)?;
    edit(
        &handwritten.join("src/main.rs"),
        "message: \"Reconciled\".into()",
        "message: \"Reconciled (edited)\".into()",
    )?;
    edit(
        &generated.join("src/controllers/memcached.rs"),
        "Reconciled at generation",
        "Reconciled (edited) at generation",
    )?;
    let hand_incremental = build(&handwritten, &hand_target)?;
    let gen_incremental = build(&generated, &gen_target)?;

    let secs = |d: Duration| d.as_secs_f64();
    println!("debug build          generated   hand-written   ratio");
    for (name, generated, handwritten) in [
        ("cold", gen_cold, hand_cold),
        ("incremental (edit)", gen_incremental, hand_incremental),
    ] {
        println!(
            "{name:<20} {:>7.1} s   {:>10.1} s   {:.2}",
            secs(generated),
            secs(handwritten),
            secs(generated) / secs(handwritten)
        );
    }
    Ok(())
}
