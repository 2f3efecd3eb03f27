//! Wall time of `kubeforge init`, `kubeforge create api` and `kubeforge create webhook`, as a
//! user sees it (process start to exit, files written). Target: under 50 ms each.
//!
//! Run: `cargo bench -p kubeforge-cli --bench scaffold` (KUBEFORGE_BENCH_RUNS=N to change the
//! number of runs, default 20). With `KUBEFORGE_BENCH_BASELINE=<path to another kubeforge
//! binary>` (e.g. one built from an earlier commit), each run scaffolds with both binaries in
//! turn and the report gives both medians and their ratio, measured in one session.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const TARGET: Duration = Duration::from_millis(50);

fn kubeforge(binary: &Path, dir: &Path, args: &[&str]) -> Duration {
    let started = Instant::now();
    let output = Command::new(binary)
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

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn report(name: &str, mut samples: Vec<Duration>) -> Duration {
    let median = median(&mut samples);
    let verdict = if median < TARGET { "within" } else { "OVER" };
    println!(
        "{name:<24} median {:>6.1} ms   min {:>6.1} ms   max {:>6.1} ms   ({} runs; {verdict} the {} ms target)",
        median.as_secs_f64() * 1e3,
        samples[0].as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
        samples.len(),
        TARGET.as_millis()
    );
    median
}

/// One session of the three commands in a fresh directory: (init, create api, create webhook).
fn session(binary: &Path) -> [Duration; 3] {
    let temp = tempfile::tempdir().expect("temp dir");
    [
        kubeforge(
            binary,
            temp.path(),
            &["init", "--domain", "example.com", "--project-name", "bench"],
        ),
        kubeforge(
            binary,
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
        ),
        kubeforge(
            binary,
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
        ),
    ]
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
    let current = PathBuf::from(env!("CARGO_BIN_EXE_kubeforge"));
    let baseline = std::env::var_os("KUBEFORGE_BENCH_BASELINE").map(PathBuf::from);
    let names = ["init", "create api", "create webhook"];
    let mut samples: [Vec<Duration>; 3] = Default::default();
    let mut base_samples: [Vec<Duration>; 3] = Default::default();
    for _ in 0..runs {
        // Interleaved, so both binaries see the same load on a shared machine.
        for (i, d) in session(&current).into_iter().enumerate() {
            samples[i].push(d);
        }
        if let Some(baseline) = &baseline {
            for (i, d) in session(baseline).into_iter().enumerate() {
                base_samples[i].push(d);
            }
        }
    }
    for (i, name) in names.iter().enumerate() {
        let now = report(name, std::mem::take(&mut samples[i]));
        if baseline.is_some() {
            let before = report(
                &format!("{name} (baseline)"),
                std::mem::take(&mut base_samples[i]),
            );
            println!(
                "{:<24} ratio {:.2} (this build / baseline)",
                name,
                now.as_secs_f64() / before.as_secs_f64()
            );
        }
    }
}
