//! The crates as they will be published, installed as a user installs them: `cargo install
//! kubeforge-cli`, against a local registry that stands in for crates.io (cargo's source
//! replacement, offline), holding the six `.crate` files `scripts/package.sh` writes to
//! `target/package/` and every crates.io package the workspace's `Cargo.lock` and the CLI's
//! packaged `Cargo.lock` pin. So cargo resolves from an index, checks the checksums, installs
//! with the packaged `Cargo.lock` (`--locked`) and the dependency requirements as published.
//! The CLI then scaffolds a project with `KUBEFORGE_SOURCE=crates-io`, which builds and passes
//! its generated tests against the same registry.
//!
//! Registry packages live at other paths than crates.io's, so cargo compiles them again (a
//! registry package's fingerprint holds its source path): this test builds into its own
//! folder, `<target>/e2e-packages/` (the registry, a private `CARGO_HOME` where cargo unpacks
//! it, and a target directory kept from one run to the next). It compiles every dependency
//! the first time, so it runs when `KUBEFORGE_E2E_PACKAGES=1` is set, after
//! `scripts/package.sh`.

#[path = "local_registry.rs"]
mod local_registry;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use kubeforge_e2e::{
    LINT_ARGS, LINT_WRAPPER, build_lock, share_lockfile, target_dir, workspace_root,
};

use local_registry::{CRATES_IO, CratesIoCache, LocalRegistry, crates_io_packages, published_line};
use serde_json::Value as Json;

/// The crates `scripts/package.sh` packages.
const PUBLISHED: &[&str] = &[
    "kubeforge-schema",
    "kubeforge-derive",
    "kubeforge-templates",
    "kubeforge-testenv",
    "kubeforge",
    "kubeforge-cli",
];

/// The version of every published crate.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The name of the local registry in cargo's configuration.
const REGISTRY: &str = "kubeforge-packages";

/// What a command printed.
struct Output {
    stdout: String,
    stderr: String,
}

/// Runs `program args` in `dir` with `vars`, without the workspace's lint wrapper or the test
/// process's cargo variables; panics with its output when it fails.
fn run(dir: &Path, program: &Path, args: &[String], vars: &[(&str, &Path)]) -> Output {
    let output = kubeforge_e2e::without_test_vars(&mut Command::new(program))
        .args(args)
        .current_dir(dir)
        .envs(vars.iter().copied())
        .env("KUBEFORGE_SOURCE", "crates-io")
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove(LINT_WRAPPER)
        .env_remove(LINT_ARGS)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let out = Output {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(
        output.status.success(),
        "`{} {}` failed:\n{}\n{}",
        program.display(),
        args.join(" "),
        out.stdout,
        out.stderr
    );
    out
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_owned).collect()
}

/// The user's cargo home, where cargo keeps crates.io's index cache and downloads.
fn user_cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME").map_or_else(
        || {
            PathBuf::from(std::env::var_os("HOME").expect("HOME or CARGO_HOME is set"))
                .join(".cargo")
        },
        PathBuf::from,
    )
}

/// The sha256 of each file, by `sha256sum`.
fn sha256(files: &[PathBuf]) -> Vec<String> {
    let mut args = vec!["--".to_owned()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let out = run(Path::new("."), Path::new("sha256sum"), &args, &[]);
    let sums: Vec<String> = out
        .stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    assert_eq!(sums.len(), files.len(), "{}", out.stdout);
    sums
}

/// The registry: the packaged crates (index lines from their unpacked packages in `unpacked`)
/// and the crates.io packages of the workspace's lock and of the CLI's packaged lock.
fn build_registry(dir: &Path, unpacked: &Path, packaged: &[PathBuf], cargo: &Path) -> PathBuf {
    let mut registry = LocalRegistry::create(dir);
    let sums = sha256(packaged);
    for ((name, file), sum) in PUBLISHED.iter().zip(packaged).zip(&sums) {
        let manifest = unpacked.join(format!("{name}-{VERSION}/Cargo.toml"));
        let metadata = run(
            unpacked,
            cargo,
            &words(&format!(
                "metadata --format-version 1 --no-deps --offline --manifest-path {}",
                manifest.display()
            )),
            &[],
        );
        let metadata: Json =
            serde_json::from_str(&metadata.stdout).expect("cargo metadata prints JSON");
        let package = &metadata
            .get("packages")
            .and_then(Json::as_array)
            .expect("cargo metadata lists packages")[0];
        registry.add(name, VERSION, &published_line(package, sum), Some(file));
    }
    let cache = CratesIoCache::find(&user_cargo_home());
    let locks = [
        workspace_root().join("Cargo.lock"),
        unpacked.join(format!("kubeforge-cli-{VERSION}/Cargo.lock")),
    ];
    let mut added = BTreeSet::new();
    let mut without_crate = 0;
    for lock in &locks {
        let text = std::fs::read_to_string(lock).unwrap_or_else(|e| panic!("{lock:?}: {e}"));
        for locked in crates_io_packages(&text) {
            if let Some(i) = PUBLISHED.iter().position(|p| *p == locked.name) {
                // The CLI's lock pins the packaged crates, by their checksums.
                assert_eq!(
                    (locked.version.as_str(), locked.checksum.as_str()),
                    (VERSION, sums[i].as_str()),
                    "{} in {}",
                    locked.name,
                    lock.display()
                );
                continue;
            }
            if !added.insert((locked.name.clone(), locked.version.clone())) {
                continue;
            }
            let line = cache.line(&locked.name, &locked.version).unwrap_or_else(|| {
                panic!(
                    "{} {} is not in cargo's cache of crates.io's index: build the workspace online once",
                    locked.name, locked.version
                )
            });
            assert_eq!(
                line.get("cksum").and_then(Json::as_str),
                Some(locked.checksum.as_str()),
                "{} {}: index and Cargo.lock disagree",
                locked.name,
                locked.version
            );
            let file = cache.crate_file(&locked.name, &locked.version);
            without_crate += usize::from(file.is_none());
            registry.add(&locked.name, &locked.version, &line, file.as_deref());
        }
    }
    eprintln!(
        "local registry: {} packaged crates, {} from crates.io ({without_crate} of them as index lines only: never downloaded here)",
        PUBLISHED.len(),
        added.len()
    );
    registry.write_index()
}

/// Registry packages are fresh by version, and the packaged crates keep theirs from one run
/// to the next: their builds in `target` are forgotten, so they compile from this run's
/// packages.
fn forget_packaged_builds(target: &Path) {
    let fingerprints = target.join("debug/.fingerprint");
    let Ok(entries) = std::fs::read_dir(&fingerprints) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with("kubeforge") {
            std::fs::remove_dir_all(entry.path())
                .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
        }
    }
}

/// The `[[package]]` table of `name` in a `Cargo.lock`.
fn lock_entry<'a>(lock: &'a str, name: &str) -> Option<&'a str> {
    lock.split("[[package]]")
        .find(|table| table.lines().any(|l| l == format!("name = \"{name}\"")))
}

#[test]
fn packaged_crates_install_the_cli_and_build_a_project() {
    if std::env::var_os("KUBEFORGE_E2E_PACKAGES").is_none() {
        eprintln!(
            "NOTE: KUBEFORGE_E2E_PACKAGES is not set: the packaged crates were not installed (run scripts/package.sh, then this test with KUBEFORGE_E2E_PACKAGES=1)"
        );
        return;
    }
    // Every crate `scripts/package.sh` packaged is in the registry (a new workspace crate
    // missing here would not be found).
    for entry in std::fs::read_dir(target_dir().join("package")).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(name) = file.strip_suffix(&format!("-{VERSION}.crate")) {
            assert!(
                PUBLISHED.contains(&name),
                "{name} is packaged but not in PUBLISHED"
            );
        }
    }
    let packaged: Vec<PathBuf> = PUBLISHED
        .iter()
        .map(|name| {
            let file = target_dir()
                .join("package")
                .join(format!("{name}-{VERSION}.crate"));
            assert!(
                file.is_file(),
                "{} is missing: run scripts/package.sh",
                file.display()
            );
            file
        })
        .collect();
    let cargo = PathBuf::from(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    let _build = build_lock();
    let place = target_dir().join("e2e-packages");
    std::fs::create_dir_all(&place).unwrap();
    // One run at a time uses the place.
    let place_lock = std::fs::File::create(place.join(".lock")).unwrap();
    place_lock.lock().unwrap();

    // The packages unpacked (outside the workspace: cargo reads their manifests alone).
    let temp = tempfile::tempdir().unwrap();
    let unpacked = temp.path().join("crates");
    std::fs::create_dir_all(&unpacked).unwrap();
    for file in &packaged {
        let args = ["xzf".to_owned(), file.display().to_string()];
        run(&unpacked, Path::new("tar"), &args, &[]);
    }
    let registry = build_registry(&place.join("registry"), &unpacked, &packaged, &cargo);
    // A cargo home of its own: cargo unpacks the registry's packages there, afresh each run.
    let home = place.join("cargo-home");
    if home.exists() {
        std::fs::remove_dir_all(&home).unwrap();
    }
    std::fs::create_dir_all(&home).unwrap();
    let target = place.join("target");
    forget_packaged_builds(&target);
    let vars: [(&str, &Path); 2] = [("CARGO_HOME", &home), ("CARGO_TARGET_DIR", &target)];
    // crates.io, replaced by the registry.
    let replace = [
        "--config".to_owned(),
        format!("source.crates-io.replace-with={REGISTRY:?}"),
        "--config".to_owned(),
        format!(
            "source.{REGISTRY}.local-registry={:?}",
            registry.display().to_string()
        ),
    ];
    let cargo_with = |dir: &Path, line: &str| {
        let mut args = words(line);
        args.extend(replace.iter().cloned());
        run(dir, &cargo, &args, &vars)
    };

    // The README's `cargo install kubeforge-cli`: offline, with the packaged Cargo.lock, a
    // debug build (the project's build below reuses its dependencies).
    let root = temp.path().join("install");
    let install = cargo_with(
        temp.path(),
        &format!(
            "install kubeforge-cli --offline --locked --debug --root {}",
            root.display()
        ),
    );
    // From the registry, compiled from its package (a path install names its folder).
    for line in [
        format!(
            "Unpacking kubeforge-cli v{VERSION} (registry `{}`)",
            registry.display()
        ),
        format!("Compiling kubeforge-cli v{VERSION}\n"),
        format!("Installed package `kubeforge-cli v{VERSION}` (executable `kubeforge`)"),
    ] {
        assert!(
            install.stderr.contains(&line),
            "{line:?} in:\n{}",
            install.stderr
        );
    }
    let list = cargo_with(
        temp.path(),
        &format!("install --list --root {}", root.display()),
    );
    assert!(
        list.stdout
            .lines()
            .any(|l| l == format!("kubeforge-cli v{VERSION}:")),
        "{}",
        list.stdout
    );
    let record = std::fs::read_to_string(root.join(".crates.toml")).unwrap();
    assert!(
        record.contains(&format!("\"kubeforge-cli {VERSION} ({CRATES_IO})\"")),
        "installed from crates.io:\n{record}"
    );
    let kubeforge = root.join("bin/kubeforge");
    let version = run(temp.path(), &kubeforge, &words("version"), &[]);
    assert!(version.stdout.contains("crates.io"), "{}", version.stdout);

    // A project that depends on the kubeforge crates by version, as from crates.io.
    let project = temp.path().join("memcached-operator");
    run(
        temp.path(),
        &kubeforge,
        &words(&format!(
            "init --domain example.com --project-name memcached-operator --dir {}",
            project.display()
        )),
        &[],
    );
    run(
        &project,
        &kubeforge,
        &words("create api --group cache --version v1alpha1 --kind Memcached"),
        &[],
    );
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!("kubeforge = {{ version = \"{VERSION}\" }}")),
        "{manifest}"
    );
    share_lockfile(&project);
    let test = cargo_with(&project, "test --offline");
    assert!(
        test.stdout
            .contains("test memcached_sample_becomes_ready ... ok"),
        "{}",
        test.stdout
    );
    assert!(
        test.stderr
            .contains(&format!("Compiling kubeforge v{VERSION}\n")),
        "{}",
        test.stderr
    );
    // The project's lock pins the kubeforge crates it uses to crates.io, by the packages'
    // checksums.
    let lock = std::fs::read_to_string(project.join("Cargo.lock")).unwrap();
    let sums = sha256(&packaged);
    let mut used = Vec::new();
    for (name, sum) in PUBLISHED.iter().zip(&sums) {
        let Some(entry) = lock_entry(&lock, name) else {
            continue;
        };
        for line in [
            format!("version = \"{VERSION}\""),
            format!("source = \"{CRATES_IO}\""),
            format!("checksum = \"{sum}\""),
        ] {
            assert!(entry.lines().any(|l| l == line), "{line} in:\n{entry}");
        }
        used.push(*name);
    }
    assert!(used.contains(&"kubeforge"), "{lock}");
}
