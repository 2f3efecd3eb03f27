//! kubebuilder's tutorials, done with kubeforge: the finished projects under `examples/` are
//! what the book's commands scaffold (plus the edits the book makes), they build and pass their
//! tests, and the book (`docs/book/`) includes its code from them, so neither can drift.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kubeforge_e2e::{
    LINT_ARGS, LINT_WRAPPER, build_lock, cargo, kubeforge, share_lockfile, target_dir, tree_bytes,
    workspace_root,
};

/// A copy of `examples/<name>` in a temporary directory, its kubeforge crates taken from this
/// checkout, with the workspace's Cargo.lock.
fn copy_example(name: &str, into: &Path) -> PathBuf {
    let source = workspace_root().join("examples").join(name);
    let dir = into.join(name);
    for (path, bytes) in tree_bytes(&source) {
        let target = dir.join(&path);
        match bytes {
            None => std::fs::create_dir_all(&target).unwrap(),
            Some(bytes) => {
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::write(&target, bytes).unwrap();
            }
        }
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let checkout = workspace_root().display().to_string();
    std::fs::write(
        dir.join("Cargo.toml"),
        manifest.replace("path = \"../..", &format!("path = \"{checkout}")),
    )
    .unwrap();
    share_lockfile(&dir);
    dir
}

/// The text of a generated file, made comparable with the committed example: the copyright
/// year and the checkout's path are the only things that differ between two scaffolds.
fn comparable(text: &str) -> String {
    let checkout = workspace_root().display().to_string();
    let mut text = text.replace(&checkout, "../..");
    if let Some(at) = text.find("Copyright ") {
        let year = at + "Copyright ".len();
        if text[year..].len() >= 4 && text[year..year + 4].chars().all(|c| c.is_ascii_digit()) {
            text.replace_range(year..year + 4, "YEAR");
        }
    }
    text
}

/// Every file of `scaffold` is in `example` as it is, except those the tutorial edits (listed,
/// and present in the example) and those `make manifests` writes.
fn assert_example_is_the_scaffold(scaffold: &Path, example: &Path, edited: &[&str]) {
    for (path, bytes) in tree_bytes(scaffold) {
        let Some(bytes) = bytes else { continue };
        let name = path.to_string_lossy();
        let theirs = std::fs::read(example.join(&path))
            .unwrap_or_else(|e| panic!("examples/{}: {name}: {e}", example.display()));
        // `make manifests` rewrites the role; `manifests --check` compares it.
        if edited.contains(&name.as_ref()) || name == "config/rbac/role.yaml" {
            continue;
        }
        assert_eq!(
            comparable(&String::from_utf8_lossy(&theirs)),
            comparable(&String::from_utf8_lossy(&bytes)),
            "{name} of the example is not what the tutorial's commands scaffold"
        );
    }
}

/// A command run in the background; killed when dropped.
struct Background(Child);

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `kubectl <args>` with `kubeconfig`; `None` when kubectl is not installed.
fn kubectl(dir: &Path, kubeconfig: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("kubectl")
        .args(args)
        .current_dir(dir)
        .env("KUBECONFIG", kubeconfig)
        .output()
        .ok()?;
    assert!(
        output.status.success(),
        "kubectl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Waits until every guestbook of `names` is `Ready`, reconciled by `who`.
fn wait_ready(dir: &Path, kubeconfig: &Path, names: &[&str], who: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    for name in names {
        loop {
            let ready = kubectl(
                dir,
                kubeconfig,
                &[
                    "get",
                    "guestbooks",
                    name,
                    "-o",
                    "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}",
                ],
            )
            .unwrap_or_default();
            if ready == "True" {
                break;
            }
            assert!(Instant::now() < deadline, "{who} did not reconcile {name}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// The Quick Start: `init`, `create api`, `make manifests`, `make test`, the manager run against
/// `kubeforge dev-server` until it reconciles the sample, then two replicas run with
/// `--shards=auto` (the flag `config/manager/manager.yaml` carries, commented) sharing new
/// objects through a Lease each, and the install manifest rendered with `kubectl kustomize`.
#[test]
fn quick_start_guestbook() {
    let temp = tempfile::tempdir().unwrap();
    let scaffold = temp.path().join("scaffold");
    kubeforge(
        &scaffold,
        &[
            "init",
            "--domain",
            "my.domain",
            "--project-name",
            "guestbook",
        ],
    );
    kubeforge(
        &scaffold,
        &[
            "create",
            "api",
            "--group",
            "webapp",
            "--version",
            "v1",
            "--kind",
            "Guestbook",
        ],
    );
    let example = workspace_root().join("examples/guestbook");
    assert_example_is_the_scaffold(&scaffold, &example, &[]);

    let dir = copy_example("guestbook", temp.path());
    let _build = build_lock();
    let test = cargo(&dir, &["test", "--", "--nocapture"]);
    assert!(
        test.stdout
            .contains("test guestbook_sample_becomes_ready ... ok")
    );
    // The committed manifests are what the types generate.
    cargo(&dir, &["run", "--quiet", "--", "manifests", "--check"]);

    // The manager against `kubeforge dev-server`, with the sample applied by kubectl.
    let kubeconfig = dir.join(".kubeforge/kubeconfig");
    let cargo_bin = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // The CLI builds as the workspace does (the lint variables stay, the test process's cargo
    // variables go), so it is not rebuilt.
    let _server = Background(
        kubeforge_e2e::without_test_vars(&mut Command::new(&cargo_bin))
            .args(["run", "--quiet", "--manifest-path"])
            .arg(workspace_root().join("Cargo.toml"))
            .args([
                "-p",
                "kubeforge-cli",
                "--bin",
                "kubeforge",
                "--",
                "dev-server",
            ])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", target_dir())
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(300);
    while !kubeconfig.is_file() {
        assert!(
            Instant::now() < deadline,
            "kubeforge dev-server wrote no kubeconfig"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    cargo(&dir, &["build", "--quiet"]);
    let manager = |extra: &[&str]| {
        Background(
            Command::new(target_dir().join("debug/guestbook"))
                .args([
                    "--health-probe-bind-address",
                    "0",
                    "--metrics-bind-address",
                    "0",
                ])
                .args(extra)
                .current_dir(&dir)
                .env("KUBECONFIG", &kubeconfig)
                .env_remove(LINT_WRAPPER)
                .env_remove(LINT_ARGS)
                .stdout(Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let single = manager(&[]);
    if kubectl(&dir, &kubeconfig, &["apply", "-k", "config/samples"]).is_some() {
        wait_ready(&dir, &kubeconfig, &["guestbook-sample"], "the manager");
        drop(single);

        // Scale-out as the commented flag of config/manager/manager.yaml runs it: two replicas
        // with `--shards=auto`, each holding a Lease of its own and reconciling its share;
        // every new guestbook becomes ready.
        let _replicas = [manager(&["--shards=auto"]), manager(&["--shards=auto"])];
        let names: Vec<String> = (0..6).map(|i| format!("sharded-{i}")).collect();
        let objects: String = names
            .iter()
            .map(|name| {
                format!(
                    "apiVersion: webapp.my.domain/v1\nkind: Guestbook\nmetadata:\n  name: {name}\nspec:\n  foo: bar\n---\n"
                )
            })
            .collect();
        let file = dir.join("sharded.yaml");
        std::fs::write(&file, objects).unwrap();
        kubectl(&dir, &kubeconfig, &["apply", "-f", "sharded.yaml"]);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        wait_ready(
            &dir,
            &kubeconfig,
            &names,
            "two replicas run with --shards=auto",
        );
        // Each replica's Lease claims a share of the ring once the handover settles.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let claims = kubectl(
                &dir,
                &kubeconfig,
                &[
                    "get",
                    "leases",
                    "--all-namespaces",
                    "-l",
                    "kubeforge.dev/shard-group=guestbook-shard",
                    "-o",
                    "jsonpath={range .items[*]}{.metadata.annotations.kubeforge\\.dev/shard-claims}{\"\\n\"}{end}",
                ],
            )
            .unwrap_or_default();
            let claims: Vec<&str> = claims.lines().collect();
            if claims.len() == 2 && claims.iter().all(|c| !c.trim().is_empty()) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "two replicas with --shards=auto should each hold a Lease claiming a share, got {claims:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        let rendered = kubectl(&dir, &kubeconfig, &["kustomize", "config/default"]).unwrap();
        for needle in [
            "name: guestbook-controller-manager",
            "namespace: guestbook-system",
            "name: guestbooks.webapp.my.domain",
            "name: guestbook-manager-role",
        ] {
            assert!(rendered.contains(needle), "{needle} not in:\n{rendered}");
        }
    } else {
        eprintln!(
            "NOTE: kubectl is not installed: the sample was not applied to the running manager"
        );
    }
}

/// The files of `examples/cronjob` that the CronJob tutorial edits after scaffolding (the same
/// list as `CRONJOB_EDITED` in scripts/regenerate-examples.sh). Every other scaffolded file is
/// in the example as the commands wrote it; files the tutorial adds (`src/clock.rs`,
/// `src/schedule.rs`, `src/controllers/cron_job/jobs.rs`) and those `make manifests` writes are
/// not in the scaffold.
const CRONJOB_EDITED: &[&str] = &[
    "Cargo.toml",
    "config/samples/batch_v1_cronjob.yaml",
    "config/samples/batch_v2_cronjob.yaml",
    "src/api/v1/cron_job.rs",
    "src/api/v2/cron_job.rs",
    "src/api/v2/cron_job_conversion.rs",
    "src/controllers/cron_job.rs",
    "src/lib.rs",
    "src/webhooks/cron_job_v1.rs",
    "tests/cron_job_controller.rs",
    "tests/cron_job_webhook.rs",
];

/// The CronJob tutorial (kubebuilder's CronJob and multi-version tutorials): the commands of
/// the book scaffold what `examples/cronjob` has (but the files the tutorial edits); one
/// `cargo test` there runs the controller on a fake clock, the webhooks and the conversion
/// against the embedded API server; the committed manifests are what the types generate.
#[test]
fn cronjob_tutorial() {
    let started = Instant::now();
    let temp = tempfile::tempdir().unwrap();
    let scaffold = temp.path().join("scaffold");
    let steps: [&[&str]; 5] = [
        &[
            "init",
            "--domain",
            "tutorial.kubebuilder.io",
            "--project-name",
            "cronjob",
        ],
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v1",
            "--kind",
            "CronJob",
        ],
        &[
            "create",
            "webhook",
            "--group",
            "batch",
            "--version",
            "v1",
            "--kind",
            "CronJob",
            "--defaulting",
            "--programmatic-validation",
        ],
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v2",
            "--kind",
            "CronJob",
        ],
        &[
            "create",
            "webhook",
            "--group",
            "batch",
            "--version",
            "v1",
            "--kind",
            "CronJob",
            "--conversion",
            "--spoke",
            "v2",
        ],
    ];
    for args in steps {
        kubeforge(&scaffold, args);
    }
    let example = workspace_root().join("examples/cronjob");
    for edited in CRONJOB_EDITED {
        assert!(
            scaffold.join(edited).is_file(),
            "{edited} is listed as edited, but the scaffold has no such file"
        );
    }
    assert_example_is_the_scaffold(&scaffold, &example, CRONJOB_EDITED);
    let scaffolded = started.elapsed();

    let dir = copy_example("cronjob", temp.path());
    let _build = build_lock();
    let waited = started.elapsed() - scaffolded;
    let test = cargo(&dir, &["test", "--no-fail-fast"]);
    for name in [
        "creates_a_job_each_time_the_schedule_comes_due",
        "a_run_later_than_its_starting_deadline_is_skipped",
        "a_suspended_cron_job_starts_nothing_until_resumed",
        "forbid_waits_for_the_running_job_and_replace_replaces_it",
        "history_limits_delete_the_oldest_finished_jobs",
        "the_manager_runs_the_sample",
        "cron_job_v1_is_defaulted",
        "cron_job_v1_is_validated",
        "cron_job_v2_converts_to_v1_and_back",
        "cron_job_v2_is_defaulted_and_validated_as_v1",
    ] {
        assert!(
            test.stdout.contains(&format!("test {name} ... ok")),
            "{name} did not pass:\n{}",
            test.stdout
        );
    }
    // The committed manifests (CRD with both versions, role, webhook configurations) are what
    // the types generate.
    let check = cargo(&dir, &["run", "--quiet", "--", "manifests", "--check"]);
    eprintln!(
        "the CronJob tutorial took {:.1?}: scaffold and compare {scaffolded:.1?}, waiting for \
         the build lock {waited:.1?}, cargo test {:.1?}, manifests --check {:.1?}",
        started.elapsed(),
        test.elapsed,
        check.elapsed
    );
}

/// `{{#include path[:anchor|:from:to]}}` in every chapter of the book resolves: the file
/// exists, its anchor is in it, its lines exist; and SUMMARY.md lists every chapter under
/// `src/` (so none escapes this check), and only chapters that exist.
#[test]
fn every_include_of_the_book_resolves() {
    let book = workspace_root().join("docs/book");
    assert!(book.join("book.toml").is_file());
    let src = book.join("src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let mut chapters = Vec::new();
    for link in summary.split("](").skip(1) {
        let chapter = link.split(')').next().unwrap_or_default();
        assert!(
            src.join(chapter).is_file(),
            "SUMMARY.md lists {chapter}, which is missing"
        );
        chapters.push(chapter.to_owned());
    }
    for (path, bytes) in tree_bytes(&src) {
        let name = path.to_string_lossy().replace('\\', "/");
        if bytes.is_some() && name.ends_with(".md") && name != "SUMMARY.md" {
            assert!(
                chapters.contains(&name),
                "{name} is in docs/book/src but not in SUMMARY.md"
            );
        }
    }
    let mut includes = 0;
    for chapter in &chapters {
        let text = std::fs::read_to_string(src.join(chapter)).unwrap();
        for include in text.split("{{#include ").skip(1) {
            let spec = include.split("}}").next().unwrap_or_default().trim();
            let mut parts = spec.splitn(2, ':');
            let file = parts.next().unwrap_or_default();
            let path = src.join(chapter).parent().unwrap().join(file);
            let content = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{chapter} includes {file}: {e}"));
            match parts.next() {
                None => {}
                Some(range) if range.starts_with(|c: char| c.is_ascii_digit()) => {
                    let last = range.rsplit(':').next().unwrap_or_default();
                    let last: usize = last.parse().unwrap_or(0);
                    assert!(
                        content.lines().count() >= last,
                        "{chapter} includes lines {range} of {file}, which has fewer"
                    );
                }
                Some(anchor) => {
                    for marker in [format!("ANCHOR: {anchor}"), format!("ANCHOR_END: {anchor}")] {
                        assert!(
                            content.contains(&marker),
                            "{chapter} includes {file}:{anchor}, which has no `{marker}`"
                        );
                    }
                }
            }
            includes += 1;
        }
    }
    assert!(includes >= 3, "the book includes only {includes} files");
}
