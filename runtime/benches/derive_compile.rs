//! Benchmark of what `#[kubeforge::api]` costs at compile time: generated crates with the
//! same 30 API types, one under `#[kubeforge::api]` and others under plain kube-derive, built
//! from scratch (dependencies already compiled, in a shared target directory, no incremental
//! compilation), interleaved; reports the median build times and their ratio (target <= 1.1x).
//!
//! Two baselines, because the dependency graph a crate is checked against costs compile time
//! of its own (trait coherence and selection see every impl of every dependency):
//! - `same dependencies`: the kube-derive crate depends on exactly what the kubeforge crate
//!   depends on, so the ratio is what the attribute itself costs (what an operator's API
//!   module pays: it depends on kubeforge anyway for its manager and controllers);
//! - `kube's derive feature only`: the kube-derive crate depends on kube's `derive` feature
//!   alone (no client, no runtime), the lightest crate that can declare the types at all.
//!
//! Each build's CPU time (user + system of cargo and rustc) is reported beside its wall time:
//! on a shared machine it varies much less than wall time.
//!
//! Then the time the kubeforge crate's `manifests` subcommand takes to write the 30 CRDs
//! (process wall time, and the generation alone as measured inside the process).
//!
//! `cargo bench -p kubeforge --bench derive_compile` (the first run compiles the dependencies
//! of both crates: minutes).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const TYPES: usize = 30;
const ROUNDS: usize = 5;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the runtime crate is in the workspace")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace().join("target"), PathBuf::from)
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// User plus system CPU time of this process's waited-for children so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.unsigned_abs())
            + Duration::from_micros(t.tv_usec.unsigned_abs())
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// A finished command: its output, wall time and CPU time.
struct Run {
    output: Output,
    wall: Duration,
    cpu: Duration,
}

fn run(dir: &Path, program: &str, args: &[&str]) -> Run {
    let (started, cpu_before) = (Instant::now(), children_cpu());
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    Run {
        output,
        wall: started.elapsed(),
        cpu: children_cpu().saturating_sub(cpu_before),
    }
}

fn ok(dir: &Path, program: &str, args: &[&str]) -> (String, Run) {
    let run = run(dir, program, args);
    let output = &run.output;
    assert!(
        output.status.success(),
        "{program} {args:?} in {} failed:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (String::from_utf8_lossy(&output.stderr).into_owned(), run)
}

/// The fields of API type `i`: scalars, options, collections, a nested struct and enums.
fn spec_body(i: usize) -> String {
    format!(
        r#"    /// How many replicas.
    pub replicas: i32,
    /// The image.
    pub image: String,
    /// An optional version.
    pub version: Option<String>,
    /// Arguments.
    pub args: Vec<String>,
    /// Labels.
    pub labels: BTreeMap<String, String>,
    /// The mode.
    pub mode: Mode{i},
    /// An optional mode.
    pub fallback: Option<Mode{i}>,
    /// Resources.
    pub resources: Option<Resources{i}>,
    /// Ports.
    pub ports: Vec<Port{i}>,
    /// Size limit.
    pub limit: Option<u32>,
"#
    )
}

/// One API type `i` (nested types, spec, status); `api` is the attribute above the derive.
fn api_type(i: usize, api: &str) -> String {
    let body = spec_body(i);
    format!(
        r#"
/// Mode of kind {i}.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub enum Mode{i} {{
    /// Fast.
    Fast,
    /// Safe.
    Safe,
}}

/// Resources of kind {i}.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resources{i} {{
    /// CPU.
    pub cpu: Option<String>,
    /// Memory.
    pub memory_limit: Option<String>,
}}

/// A port of kind {i}.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Port{i} {{
    /// The name.
    pub name: String,
    /// The number.
    pub container_port: i32,
}}

/// Spec of kind {i}.
{api}#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "bench.example.com", version = "v1", kind = "Kind{i}", namespaced, status = "Kind{i}Status")]
#[serde(rename_all = "camelCase")]
pub struct Kind{i}Spec {{
{body}}}

/// Status of kind {i}.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Kind{i}Status {{
    /// Ready replicas.
    pub ready_replicas: Option<i32>,
    /// The phase.
    pub phase: Option<Mode{i}>,
}}
"#
    )
}

/// The crates the benchmark builds: the same 30 types, three ways.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    /// `#[kubeforge::api]` above kube's derive.
    Kubeforge,
    /// Plain kube-derive, with the kubeforge crate's dependencies.
    KubeDeriveSameDependencies,
    /// Plain kube-derive, depending on kube's `derive` feature alone.
    KubeDeriveOnly,
}

impl Variant {
    const ALL: [Variant; 3] = [
        Variant::Kubeforge,
        Variant::KubeDeriveSameDependencies,
        Variant::KubeDeriveOnly,
    ];

    fn crate_name(self) -> &'static str {
        match self {
            Variant::Kubeforge => "bench_kubeforge_api",
            Variant::KubeDeriveSameDependencies => "bench_kube_derive_same_deps",
            Variant::KubeDeriveOnly => "bench_kube_derive_only",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Variant::Kubeforge => "#[kubeforge::api]",
            Variant::KubeDeriveSameDependencies => "kube-derive, same dependencies",
            Variant::KubeDeriveOnly => "kube-derive, kube's derive feature only",
        }
    }
}

/// Writes the crate of `variant` into `dir`.
fn write_crate(dir: &Path, variant: Variant) {
    let name = variant.crate_name();
    let kubeforge = variant == Variant::Kubeforge;
    let ws = workspace();
    let ws = ws.display();
    let deps = if variant == Variant::KubeDeriveOnly {
        String::new()
    } else {
        format!(
            "kubeforge = {{ path = \"{ws}/runtime\" }}\nclap = {{ version = \"4\", features = [\"derive\"] }}\n"
        )
    };
    std::fs::create_dir_all(dir.join("src")).expect("a crate directory");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
kube = {{ version = "5", default-features = false, features = ["derive"] }}
k8s-openapi = {{ version = "0.29", features = ["v1_35", "schemars"] }}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
{deps}
[workspace]
"#
        ),
    )
    .expect("Cargo.toml written");
    let api = if kubeforge { "#[kubeforge::api]\n" } else { "" };
    let mut lib = String::from(
        "//! 30 API types.\n#![allow(dead_code)]\nuse std::collections::BTreeMap;\n\nuse kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n",
    );
    for i in 0..TYPES {
        lib.push_str(&api_type(i, api));
    }
    std::fs::write(dir.join("src/lib.rs"), lib).expect("lib.rs written");
    if kubeforge {
        std::fs::write(
            dir.join("src/main.rs"),
            format!(
                r#"//! `manifests` for the 30 types.
use clap::Parser;

#[derive(Parser)]
struct Cli {{
    #[command(subcommand)]
    command: Command,
}}

#[derive(clap::Subcommand)]
enum Command {{
    Manifests(kubeforge::manifests::ManifestsArgs),
}}

fn main() {{
    {name}::touch();
    let Command::Manifests(args) = Cli::parse().command;
    let started = std::time::Instant::now();
    let generated = kubeforge::manifests::generate(&args).expect("manifests generate");
    let generating = started.elapsed();
    assert_eq!(generated.files.iter().filter(|(p, _)| p.starts_with("crd")).count(), {TYPES});
    kubeforge::manifests::write(&args.output_dir, &generated, false).expect("manifests written");
    eprintln!("generating: {{}} us", generating.as_micros());
}}
"#
            ),
        )
        .expect("main.rs written");
        // Keeps the library (and its registrations) linked into the binary.
        let mut lib = std::fs::read_to_string(dir.join("src/lib.rs")).expect("lib.rs");
        lib.push_str(
            "\n/// Links the API types' registrations into a binary.\npub fn touch() {}\n",
        );
        std::fs::write(dir.join("src/lib.rs"), lib).expect("lib.rs written");
    }
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// The median of `values`.
fn median_of(values: &[Duration]) -> Duration {
    median(values.to_vec())
}

fn seconds(values: &[Duration]) -> Vec<String> {
    values
        .iter()
        .map(|d| format!("{:.2}", d.as_secs_f64()))
        .collect()
}

fn main() {
    let temp = tempfile::tempdir().expect("a temporary directory");
    let dirs: Vec<PathBuf> = Variant::ALL
        .iter()
        .map(|v| temp.path().join(v.crate_name()))
        .collect();
    for (variant, dir) in Variant::ALL.iter().zip(&dirs) {
        write_crate(dir, *variant);
        // Dependencies (and kubeforge itself) once, outside the measurement.
        ok(dir, &cargo(), &["build", "--quiet", "--lib"]);
    }

    let mut walls = vec![Vec::new(); Variant::ALL.len()];
    let mut cpus = vec![Vec::new(); Variant::ALL.len()];
    for _ in 0..ROUNDS {
        for (i, (variant, dir)) in Variant::ALL.iter().zip(&dirs).enumerate() {
            ok(
                dir,
                &cargo(),
                &["clean", "--quiet", "-p", variant.crate_name()],
            );
            let (_, run) = ok(dir, &cargo(), &["build", "--quiet", "--lib"]);
            walls[i].push(run.wall);
            cpus[i].push(run.cpu);
        }
    }
    for (i, variant) in Variant::ALL.iter().enumerate() {
        println!(
            "bench: {TYPES} API types, {}: median of {ROUNDS} builds {:.2}s wall, {:.2}s CPU (wall {:?}, CPU {:?})",
            variant.label(),
            median_of(&walls[i]).as_secs_f64(),
            median_of(&cpus[i]).as_secs_f64(),
            seconds(&walls[i]),
            seconds(&cpus[i]),
        );
    }
    for (i, variant) in Variant::ALL.iter().enumerate().skip(1) {
        let ratio =
            |v: &[Vec<Duration>]| median_of(&v[0]).as_secs_f64() / median_of(&v[i]).as_secs_f64();
        println!(
            "bench: #[kubeforge::api] against {}: {:.2}x CPU, {:.2}x wall (target <= 1.1x)",
            variant.label(),
            ratio(&cpus),
            ratio(&walls),
        );
    }

    let with = &dirs[0];
    ok(with, &cargo(), &["build", "--quiet"]);
    let binary = target_dir().join("debug/bench_kubeforge_api");
    let out = temp.path().join("config");
    let out_arg = out.to_str().expect("a UTF-8 path");
    let mut walls = Vec::new();
    let mut inside = Vec::new();
    for _ in 0..5 {
        let (stderr, run) = ok(
            with,
            binary.to_str().expect("a UTF-8 path"),
            &["manifests", "--output-dir", out_arg],
        );
        walls.push(run.wall);
        let micros: u64 = stderr
            .lines()
            .find_map(|l| l.strip_prefix("generating: "))
            .and_then(|l| l.trim_end_matches(" us").parse().ok())
            .expect("the binary reports its generation time");
        inside.push(Duration::from_micros(micros));
    }
    let crds = std::fs::read_dir(out.join("crd/bases"))
        .expect("CRDs written")
        .count();
    assert_eq!(crds, TYPES);
    println!(
        "bench: `manifests` for {TYPES} kinds (median of 5): {:.1} ms wall, {:.1} ms generating",
        median(walls).as_secs_f64() * 1000.0,
        median(inside).as_secs_f64() * 1000.0
    );
}
