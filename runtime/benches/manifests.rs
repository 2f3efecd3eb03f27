//! Benchmark of `make manifests`: scaffold an operator with the `kubeforge` CLI, add a field with
//! a validation attribute (checking it reaches the regenerated CRD and that `--check` catches the
//! drift in between), then report in one run the wall time of `make manifests` after touching
//! the type file, as a ratio to an incremental `cargo build` of the same project, and the time
//! spent generating once compiled.
//!
//! `cargo bench -p kubeforge --bench manifests` (builds a whole generated operator: minutes).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace().join("target"), PathBuf::from)
}

fn run(dir: &Path, program: &str, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    (output, started.elapsed())
}

fn ok(dir: &Path, program: &str, args: &[&str]) -> Duration {
    let (output, elapsed) = run(dir, program, args);
    assert!(
        output.status.success(),
        "{program} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    elapsed
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

fn main() {
    let root = workspace();
    ok(
        &root,
        &cargo(),
        &[
            "build",
            "--quiet",
            "-p",
            "kubeforge-cli",
            "--bin",
            "kubeforge",
        ],
    );
    let cli = target_dir().join("debug/kubeforge");
    let cli = cli.to_str().unwrap();

    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let dir_arg = dir.to_str().unwrap();
    ok(
        dir,
        cli,
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "e2e-operator",
            "--dir",
            dir_arg,
        ],
    );
    ok(
        dir,
        cli,
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
            "--dir",
            dir_arg,
        ],
    );
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();

    ok(dir, "make", &["manifests"]);
    let crd_path = dir.join("config/crd/bases/cache.example.com_memcacheds.yaml");
    let before = std::fs::read_to_string(&crd_path).unwrap();
    assert!(!before.contains("size:"), "{before}");

    // The user adds a validated field.
    let type_file = dir.join("src/api/v1alpha1/memcached.rs");
    let source = std::fs::read_to_string(&type_file).unwrap();
    let anchor = "pub struct MemcachedSpec {\n";
    assert!(source.contains(anchor), "{source}");
    let edited = source.replacen(
        anchor,
        &format!("{anchor}    /// How many memcached instances to run.\n    #[kubeforge(minimum = 1, maximum = 5)]\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<i32>,\n"),
        1,
    );
    std::fs::write(&type_file, edited).unwrap();

    // CI drift detection: the committed CRD no longer matches the code.
    let (check, _) = run(
        dir,
        &cargo(),
        &["run", "--quiet", "--", "manifests", "--check"],
    );
    assert!(
        !check.status.success(),
        "--check must fail after the type changed"
    );
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        stderr.contains("cache.example.com_memcacheds.yaml"),
        "{stderr}"
    );

    // `make manifests` after touching one type file, against an incremental `cargo build`.
    ok(dir, "make", &["manifests"]);
    let after = std::fs::read_to_string(&crd_path).unwrap();
    let size = after
        .split("size:")
        .nth(1)
        .unwrap_or_else(|| panic!("size in the CRD:\n{after}"));
    let size: String = size.lines().take(8).collect::<Vec<_>>().join("\n");
    assert!(
        size.contains("maximum: 5")
            && size.contains("minimum: 1")
            && size.contains("type: integer"),
        "{size}"
    );
    assert!(
        size.contains("How many memcached instances to run."),
        "{size}"
    );
    ok(
        dir,
        &cargo(),
        &["run", "--quiet", "--", "manifests", "--check"],
    );

    let touch = |f: &Path| {
        let text = std::fs::read_to_string(f).unwrap();
        std::fs::write(f, text + "\n").unwrap();
    };
    touch(&type_file);
    let manifests_time_2 = ok(dir, "make", &["manifests"]);
    touch(&type_file);
    let build_time = ok(dir, &cargo(), &["build", "--quiet"]);
    let binary = target_dir().join("debug/e2e-operator");
    let generate_time = ok(dir, binary.to_str().unwrap(), &["manifests"]);
    println!(
        "bench: make manifests after touching a type file: {:.2}s; incremental cargo build: {:.2}s; ratio {:.2}; generating once compiled: {:.1}ms",
        manifests_time_2.as_secs_f64(),
        build_time.as_secs_f64(),
        manifests_time_2.as_secs_f64() / build_time.as_secs_f64(),
        generate_time.as_secs_f64() * 1000.0
    );
}
