//! The differential harness: the same scripted requests (`corpus/*.yaml`) sent to the
//! embedded API server and to a real kube-apiserver (binaries mode, `KUBEBUILDER_ASSETS`),
//! answers normalized (uids, resourceVersions, timestamps, generated names, allocated IPs)
//! and compared field by field: status code, warnings, the headers a step names
//! (`compare_headers`), and the body (reason, message, causes, returned object). Prints every difference and their count; fails when a
//! difference is not one the corpus marks as known (each is explained in the testenv
//! README, "Differential harness"), and when a step marked known is answered alike (the
//! mark is stale).
//!
//! Steps with a `shardSelector` (KEP-5866) ask for what the v1.34 reference server predates:
//! see the `shards` module for how they are checked instead.
//!
//! `cargo test -p kubeforge-testenv --test differential`; without the binaries it skips,
//! saying why. `KUBEFORGE_DIFF_ONLY=<text>` runs the scenarios whose file name contains it;
//! `KUBEFORGE_DIFF_FULL=1` prints differing values whole; `KUBEFORGE_DIFF_SWEEP=1` adds the
//! generated `sweep` and `sweep-update` scenarios (see the `sweep` module), not part of a normal run;
//! `KUBEFORGE_DIFF_NOPICK=1` also compares every step with a `pick` whole and says whether the
//! pick hides a difference (see the `audit` module).

mod audit;
mod compare;
mod corpus;
mod normalize;
mod protobuf;
mod send;
mod shards;
mod sweep;
#[path = "../conformance/support/webhook_server.rs"]
mod webhook_server;
mod webhooks;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use kubeforge_testenv::{Binaries, Mode, Policy, TestEnv};
use serde_json::Value;

use crate::corpus::Step;
use crate::send::Side;

/// The namespace the corpus works in, created on every server first.
const NAMESPACE: &str = "differential";

fn main() -> ExitCode {
    if let Err(e) = Binaries::from_env().available() {
        eprintln!("skipping the differential harness: it needs a real kube-apiserver: {e}");
        return ExitCode::SUCCESS;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(run())
}

/// Counts of a run.
#[derive(Default)]
struct Tally {
    requests: usize,
    differing: usize,
    known: usize,
    /// Shard steps, checked against their expected answers.
    checked: usize,
    /// Shard steps some server answered otherwise.
    wrong: usize,
    /// Steps marked known that both servers now answer alike: the mark (and the README's
    /// explanation) is out of date.
    stale: usize,
}

async fn run() -> ExitCode {
    let started = Instant::now();
    let hook = webhooks::start().await;
    // The gate on: only the shard steps send `shardSelector`, which a server without the gate
    // ignores, so no other answer changes. A second embedded server, without the gate, answers
    // the shard steps for the comparison with the real one, which predates the feature.
    // RBAC decides every embedded request, as the real server's authorizer does: the admin
    // is in `system:masters`, and what a corpus step does as another user (impersonation
    // headers) is allowed or refused alike.
    let embedded = TestEnv::builder()
        .mode(Mode::Embedded)
        .policy(Policy::rbac())
        .feature_gate("ShardedListAndWatch", true)
        .start()
        .await;
    let real = TestEnv::builder()
        .mode(Mode::Binaries(Binaries::from_env()))
        .start()
        .await;
    let ungated = TestEnv::builder()
        .mode(Mode::Embedded)
        .policy(Policy::rbac())
        .start()
        .await;
    let (embedded, real, ungated) = match (embedded, real, ungated) {
        (Ok(e), Ok(r), Ok(u)) => (e, r, u),
        (e, r, u) => {
            eprintln!(
                "differential: a server did not start: {:?} {:?} {:?}",
                e.err(),
                r.err(),
                u.err()
            );
            return ExitCode::FAILURE;
        }
    };
    let ready = started.elapsed();
    let shared = BTreeMap::from([
        ("ns".to_string(), NAMESPACE.to_string()),
        (
            "webhook".to_string(),
            hook.url("").trim_end_matches('/').to_string(),
        ),
        (
            "ca".to_string(),
            hook.ca_bundle().as_str().unwrap_or_default().to_string(),
        ),
    ]);
    let (Some(embedded_client), Some(real_client), Some(ungated_client)) = (
        raw_client(&embedded).await,
        raw_client(&real).await,
        raw_client(&ungated).await,
    ) else {
        eprintln!("differential: no client for a server's kubeconfig");
        return ExitCode::FAILURE;
    };
    let mut sides = [
        Side::new(embedded_client, &shared),
        Side::new(real_client, &shared),
        Side::new(ungated_client, &shared),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/corpus");
    let scenarios = match corpus::load(&dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("differential: the corpus does not load: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut scenarios = scenarios;
    if std::env::var("KUBEFORGE_DIFF_SWEEP").is_ok_and(|v| v == "1") {
        match sweep::scenarios(&dir.with_file_name("sweep")) {
            Ok(s) => scenarios.extend(s),
            Err(e) => {
                eprintln!("differential: the sweep does not load: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let only = std::env::var("KUBEFORGE_DIFF_ONLY").unwrap_or_default();
    let namespace = corpus::Step {
        method: "POST".into(),
        path: "/api/v1/namespaces".into(),
        body: Some(serde_json::json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": NAMESPACE}})),
        ..corpus::Step::default()
    };
    for side in &mut sides {
        side.run(&namespace).await;
    }
    let mut tally = Tally::default();
    let mut kept = shards::Kept::new();
    let auditing = audit::enabled();
    let mut audit = audit::Audit::default();
    for (file, scenario) in scenarios.iter().filter(|(f, _)| f.contains(&only)) {
        let sharded = scenario.sharded();
        for (i, step) in scenario.steps.iter().enumerate() {
            let step_started = Instant::now();
            let (diffs, wrong, compared) = if step.shard_selector.is_some() {
                let outcome = shards::run(step, &mut sides, &mut kept).await;
                (outcome.differences, outcome.wrong, outcome.compared)
            } else {
                let [e, r, u] = &mut sides;
                let (a, b) = (e.run(step).await, r.run(step).await);
                if sharded {
                    u.run(step).await;
                }
                let compared = (normalize::normalize(&a), normalize::normalize(&b));
                let mut diffs = compare::compare(step, &compared.0, &compared.1);
                if step.must_succeed && !(200..300).contains(&b.code) {
                    diffs.push(compare::Difference {
                        at: "code (the real server must accept this request)".into(),
                        embedded: a.code.into(),
                        real: b.body["message"].clone(),
                    });
                }
                (diffs, Vec::new(), compared)
            };
            let request = describe(&sides[0], step);
            if auditing {
                let label = format!("{file}#{i} [{}] {request}", scenario.name);
                audit.check(&label, step, &compared.0, &compared.1);
            }
            if step_started.elapsed().as_secs() >= 5 {
                println!(
                    "SLOW {file}#{i}: {:.1?} ({request})",
                    step_started.elapsed()
                );
            }
            tally.requests += 1;
            if step.shard_selector.is_some() {
                tally.checked += 1;
            }
            if !wrong.is_empty() {
                tally.wrong += 1;
                println!("WRONG {file}#{i} [{}] {request}", scenario.name);
                for w in &wrong {
                    println!("    {w}");
                }
            }
            if diffs.is_empty() {
                if let Some(why) = &step.known {
                    tally.stale += 1;
                    println!(
                        "STALE {file}#{i} [{}] {request}: marked known ({why}) but equal; drop the mark and its README entry",
                        scenario.name
                    );
                }
                continue;
            }
            tally.differing += 1;
            let label = match &step.known {
                Some(why) => {
                    tally.known += 1;
                    format!("KNOWN ({why})")
                }
                None => "DIFF".to_string(),
            };
            // A shard step's comparison is of the embedded server without the gate.
            let ungated = if step.shard_selector.is_some() {
                " (embedded without ShardedListAndWatch)"
            } else {
                ""
            };
            println!("{label} {file}#{i} [{}] {request}{ungated}", scenario.name);
            for d in diffs {
                println!(
                    "    {}: embedded {} | real {}",
                    d.at,
                    short(&d.embedded),
                    short(&d.real)
                );
            }
        }
    }
    println!(
        "differential: {} requests, {} differing responses ({} known, {} unexplained); {} shardSelector requests checked against their expected answers, {} answered otherwise; {} stale known marks; servers ready in {:.1?}, run in {:.1?}",
        tally.requests,
        tally.differing,
        tally.known,
        tally.differing - tally.known,
        tally.checked,
        tally.wrong,
        tally.stale,
        ready,
        started.elapsed()
    );
    if auditing {
        println!("{}", audit.summary());
    }
    drop((embedded, real, ungated, hook));
    if tally.differing > tally.known || tally.wrong > 0 || tally.stale > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// A client without kube's own retries of 429, 503 and 504: each server's first answer is
/// what is compared.
async fn raw_client(env: &TestEnv) -> Option<kube::Client> {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig_path()).ok()?;
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .ok()?;
    config.default_retry = false;
    kube::Client::try_from(config).ok()
}

/// The method, path and shard selector of `step` as `side` sends it.
fn describe(side: &Side, step: &Step) -> String {
    let path = side.fill(&step.path);
    let request = match &step.shard_selector {
        Some(shards) => format!("{} {path} shardSelector={shards}", step.method),
        None => format!("{} {path}", step.method),
    };
    match &step.note {
        Some(note) => format!("{request} ({note})"),
        None => request,
    }
}

/// A value for one line of output (whole with `KUBEFORGE_DIFF_FULL=1`).
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 400 && std::env::var("KUBEFORGE_DIFF_FULL").is_err() {
        format!("{}...", text.chars().take(400).collect::<String>())
    } else {
        text
    }
}
