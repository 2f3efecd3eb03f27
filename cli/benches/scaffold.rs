//! Wall time of `kubeforge init`, `kubeforge create api` and `kubeforge create webhook`, as a user sees it (process start to
//! exit, files written). Target: under 50 ms each.
//!
//! Run: `cargo bench -p kubeforge-cli --bench scaffold` (KUBEFORGE_BENCH_RUNS=N to change the
//! number of runs, default 20).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const TARGET: Duration = Duration::from_millis(50);

fn kubeforge(dir: &Path, args: &[&str]) -> Duration {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("kubeforge runs");
    let elapsed = started.elapsed();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    elapsed
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let median = samples[samples.len() / 2];
    let verdict = if median < TARGET { "within" } else { "OVER" };
    println!(
        "{name:<14} median {:>6.1} ms   min {:>6.1} ms   max {:>6.1} ms   ({} runs; {verdict} the {} ms target)",
        median.as_secs_f64() * 1e3,
        samples[0].as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
        samples.len(),
        TARGET.as_millis()
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run once then.
    let benching = std::env::args().any(|a| a == "--bench");
    let runs: usize = if benching {
        std::env::var("KUBEFORGE_BENCH_RUNS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(20)
    } else {
        1
    };
    let mut init = Vec::with_capacity(runs);
    let mut create = Vec::with_capacity(runs);
    let mut webhook = Vec::with_capacity(runs);
    for _ in 0..runs {
        let temp = tempfile::tempdir().expect("temp dir");
        init.push(kubeforge(
            temp.path(),
            &["init", "--domain", "example.com", "--project-name", "bench"],
        ));
        create.push(kubeforge(
            temp.path(),
            &[
                "create",
                "api",
                "--group",
                "cache",
                "--version",
                "v1alpha1",
                "--kind",
                "Memcached",
            ],
        ));
        webhook.push(kubeforge(
            temp.path(),
            &[
                "create",
                "webhook",
                "--group",
                "cache",
                "--version",
                "v1alpha1",
                "--kind",
                "Memcached",
                "--defaulting",
                "--programmatic-validation",
            ],
        ));
    }
    report("init", init);
    report("create api", create);
    report("create webhook", webhook);
}
