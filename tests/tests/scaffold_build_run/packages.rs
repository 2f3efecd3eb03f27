//! The crates as they will be published: the CLI installed from the packaged `.crate` files
//! (`scripts/package.sh` writes them to `target/package/`), a project scaffolded by it with
//! `KUBEFORGE_SOURCE=crates-io`, built and tested against the packaged crates, offline. The
//! five kubeforge crates resolve to the unpacked packages (cargo's `[patch.crates-io]`), every
//! other crate to cargo's registry cache.
//!
//! It compiles the kubeforge crates once more (their packaged sources are new paths to cargo),
//! so it runs when `KUBEFORGE_E2E_PACKAGES=1` is set, after `scripts/package.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

use kubeforge_e2e::{LINT_ARGS, LINT_WRAPPER, build_lock, share_lockfile, target_dir};

/// The crates `scripts/package.sh` packages.
const PUBLISHED: &[&str] = &[
    "kubeforge-schema",
    "kubeforge-derive",
    "kubeforge-templates",
    "kubeforge-testenv",
    "kubeforge",
    "kubeforge-cli",
];

/// Runs `program args` in `dir`, without the workspace's lint wrapper; panics with its output
/// when it fails.
fn run(dir: &Path, program: &Path, args: &[String]) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("KUBEFORGE_SOURCE", "crates-io")
        .env_remove(LINT_WRAPPER)
        .env_remove(LINT_ARGS)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(
        output.status.success(),
        "`{} {}` failed:\n{}\n{}",
        program.display(),
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `--config patch.crates-io.<crate>.path=<unpacked>` for every published crate.
fn patches(unpacked: &Path) -> Vec<String> {
    PUBLISHED
        .iter()
        .flat_map(|name| {
            let dir = unpacked.join(format!("{name}-{}", env!("CARGO_PKG_VERSION")));
            [
                "--config".to_owned(),
                format!(
                    "patch.crates-io.{name}.path={:?}",
                    dir.display().to_string()
                ),
            ]
        })
        .collect()
}

#[test]
fn packaged_crates_install_the_cli_and_build_a_project() {
    if std::env::var_os("KUBEFORGE_E2E_PACKAGES").is_none() {
        eprintln!(
            "NOTE: KUBEFORGE_E2E_PACKAGES is not set: the packaged crates were not installed (run scripts/package.sh, then this test with KUBEFORGE_E2E_PACKAGES=1)"
        );
        return;
    }
    // Every crate `scripts/package.sh` packaged is installed from its package (a new workspace
    // crate missing here would silently come from its path instead).
    let version = env!("CARGO_PKG_VERSION");
    for entry in std::fs::read_dir(target_dir().join("package")).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(name) = file.strip_suffix(&format!("-{version}.crate")) {
            assert!(
                PUBLISHED.contains(&name),
                "{name} is packaged but not in PUBLISHED"
            );
        }
    }
    let temp = tempfile::tempdir().unwrap();
    let unpacked = temp.path().join("crates");
    std::fs::create_dir_all(&unpacked).unwrap();
    for name in PUBLISHED {
        let file: PathBuf = target_dir()
            .join("package")
            .join(format!("{name}-{}.crate", env!("CARGO_PKG_VERSION")));
        assert!(
            file.is_file(),
            "{} is missing: run scripts/package.sh",
            file.display()
        );
        run(
            &unpacked,
            Path::new("tar"),
            &["xzf".to_owned(), file.display().to_string()],
        );
    }
    let cargo = PathBuf::from(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    let patches = patches(&unpacked);
    let _build = build_lock();

    // cargo install kubeforge-cli, from the package.
    let root = temp.path().join("install");
    // A debug build, which reuses the shared target directory's builds of every other crate.
    let mut install = vec![
        "install".to_owned(),
        "--offline".to_owned(),
        "--debug".to_owned(),
    ];
    install.extend(patches.iter().cloned());
    install.extend([
        "--path".to_owned(),
        unpacked
            .join(format!("kubeforge-cli-{}", env!("CARGO_PKG_VERSION")))
            .display()
            .to_string(),
        "--root".to_owned(),
        root.display().to_string(),
    ]);
    run(temp.path(), &cargo, &install);
    let kubeforge = root.join("bin/kubeforge");
    let version = run(temp.path(), &kubeforge, &["version".to_owned()]);
    assert!(version.contains("crates.io"), "{version}");

    // A project that depends on the kubeforge crates by version, as from crates.io.
    let project = temp.path().join("memcached-operator");
    let args = |line: &str| {
        line.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    run(
        temp.path(),
        &kubeforge,
        &args(&format!(
            "init --domain example.com --project-name memcached-operator --dir {}",
            project.display()
        )),
    );
    run(
        &project,
        &kubeforge,
        &args("create api --group cache --version v1alpha1 --kind Memcached"),
    );
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!(
            "kubeforge = {{ version = \"{}\" }}",
            env!("CARGO_PKG_VERSION")
        )),
        "{manifest}"
    );
    share_lockfile(&project);
    let mut test = vec!["test".to_owned(), "--offline".to_owned()];
    test.extend(patches);
    let out = run(&project, &cargo, &test);
    assert!(
        out.contains("test memcached_sample_becomes_ready ... ok"),
        "{out}"
    );
}
