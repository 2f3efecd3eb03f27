//! `kubeforge alpha generate` and `kubeforge alpha update` through the binary, on git
//! repositories. The older kubeforge is the templates' previous revision
//! (`tests/fixtures/templates-6fc8fc2`: before webhooks, main.rs had no webhook markers and
//! lib.rs no modules marker), scaffolded with `KUBEFORGE_TEMPLATES`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Run, create_api, kubeforge, read, refused, tree_hash};

/// The previous revision of the templates.
pub(crate) fn old_templates() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/templates-6fc8fc2")
}

/// Runs `kubeforge args` in `dir` with `KUBEFORGE_TEMPLATES` set to the old templates.
fn old_kubeforge(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(args)
        .current_dir(dir)
        .env("KUBEFORGE_SOURCE", "crates-io")
        .env("SOURCE_DATE_EPOCH", "1767225600")
        .env("KUBEFORGE_TEMPLATES", old_templates())
        .output()
        .expect("kubeforge runs");
    Run {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `git args` in `dir`; its stdout (panics when it fails).
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Whether git is installed (the tests that need it skip with a note otherwise).
pub(crate) fn have_git() -> bool {
    let found = Command::new("git").arg("--version").output().is_ok();
    if !found {
        eprintln!("NOTE: git is not installed: the alpha update tests did not run");
    }
    found
}

/// A repository holding a project scaffolded by the old templates (init and one API),
/// committed.
fn old_project() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    git(dir, &["init", "--quiet", "--initial-branch=main"]);
    old_kubeforge(
        dir,
        &["init", "--domain", "example.com", "--project-name", "demo"],
    )
    .success();
    old_kubeforge(dir, &create_api("cache", "v1", "Memcached", &[])).success();
    git(dir, &["add", "-A"]);
    git(
        dir,
        &[
            "commit",
            "--quiet",
            "-m",
            "Scaffold with kubeforge 0.1.0-rev.6fc8fc2",
        ],
    );
    temp
}

/// Replaces `old` with `new` in a file of the project (which must hold `old`).
fn edit(dir: &Path, rel: &str, old: &str, new: &str) {
    let text = read(dir, rel);
    assert!(text.contains(old), "{rel} lacks {old:?}");
    std::fs::write(dir.join(rel), text.replacen(old, new, 1)).unwrap();
}

#[test]
fn an_old_scaffold_records_its_version_and_lacks_the_new_markers() {
    let temp = old_project();
    let dir = temp.path();
    assert!(read(dir, "PROJECT").contains("cliVersion: 0.1.0-rev.6fc8fc2\n"));
    assert!(!read(dir, "src/main.rs").contains("+kubeforge:scaffold:webhook-builder"));
    // So a webhook cannot be scaffolded into it yet.
    refused(
        dir,
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "--defaulting",
        ],
        &["has no scaffold marker"],
    );
}

#[test]
fn alpha_update_merges_the_new_scaffold_into_the_users_code() {
    if !have_git() {
        return;
    }
    let temp = old_project();
    let dir = temp.path();
    edit(
        dir,
        "src/controllers/memcached.rs",
        "    // TODO(user): converge the cluster towards obj.spec here",
        "    // Memcached pods are converged by the team's own code here.\n    // TODO(user): converge the cluster towards obj.spec here",
    );
    edit(
        dir,
        "README.md",
        "Describe here what the operator manages and why.",
        "Runs memcached for the shop.",
    );
    std::fs::write(dir.join("src/util.rs"), "//! Helpers.\n").unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "--quiet", "-m", "My changes"]);
    let mine = git(dir, &["rev-parse", "main"]);

    let from = old_templates().display().to_string();
    let ran = kubeforge(dir, &["alpha", "update", "--from-templates", &from]).success();
    assert!(
        ran.stdout.contains(
            "on the new branch kubeforge-update-0.1.0-rev.6fc8fc2-to-0.1.0; main is unchanged"
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("The merge had no conflicts and is committed.")
    );
    assert_eq!(
        git(dir, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "kubeforge-update-0.1.0-rev.6fc8fc2-to-0.1.0"
    );
    assert_eq!(git(dir, &["rev-parse", "main"]), mine);
    assert!(git(dir, &["status", "--porcelain"]).trim().is_empty());
    // The templates' changes ...
    let main = read(dir, "src/main.rs");
    assert!(main.contains("    // +kubeforge:scaffold:webhook-builder\n"));
    assert!(main.contains("kubeforge::manifests::run_with_webhooks(args, &webhooks)?;"));
    assert!(read(dir, "src/lib.rs").contains("// +kubeforge:scaffold:modules\n"));
    assert!(read(dir, "README.md").contains("kubeforge create webhook"));
    assert!(read(dir, "PROJECT").contains("cliVersion: \"0.1.0\"\n"));
    // ... and the user's.
    assert!(read(dir, "src/controllers/memcached.rs").contains("the team's own code"));
    assert!(read(dir, "README.md").contains("Runs memcached for the shop."));
    assert_eq!(read(dir, "src/util.rs"), "//! Helpers.\n");
    // The updated project takes a webhook now.
    kubeforge(
        dir,
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "--defaulting",
        ],
    )
    .success();
    // Up to date: nothing to do.
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "--quiet", "-m", "A webhook"]);
    let ran = kubeforge(dir, &["alpha", "update"]).success();
    assert!(
        ran.stdout.contains("there is nothing to update"),
        "{}",
        ran.stdout
    );
}

#[test]
fn alpha_update_leaves_conflicts_as_git_conflicts_on_a_branch() {
    if !have_git() {
        return;
    }
    let temp = old_project();
    let dir = temp.path();
    // The same line the new templates change.
    edit(
        dir,
        "src/main.rs",
        "        kubeforge::manifests::run(args)?;",
        "        kubeforge::manifests::run(args).map_err(|e| anyhow::anyhow!(\"manifests: {e}\"))?;",
    );
    git(dir, &["commit", "--quiet", "-am", "My manifests error"]);
    let mine = git(dir, &["rev-parse", "main"]);
    let from = old_templates().display().to_string();
    let ran = kubeforge(
        dir,
        &[
            "alpha",
            "update",
            "--from-templates",
            &from,
            "--branch",
            "update",
        ],
    )
    .success();
    assert!(
        ran.stdout.contains("1 files have conflicts between your changes and the new scaffold, left as git conflicts:\n  src/main.rs\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("git merge --abort && git checkout main && git branch -D update")
    );
    assert_eq!(
        git(dir, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "update"
    );
    assert_eq!(git(dir, &["rev-parse", "main"]), mine);
    let main = read(dir, "src/main.rs");
    assert!(main.contains("<<<<<<< HEAD\n"), "{main}");
    assert!(main.contains("anyhow::anyhow!(\"manifests: {e}\")"));
    assert!(main.contains("run_with_webhooks(args, &webhooks)"));
    assert_eq!(
        git(dir, &["diff", "--name-only", "--diff-filter=U"]).trim(),
        "src/main.rs"
    );
    // Everything else merged: the new markers are in lib.rs.
    assert!(read(dir, "src/lib.rs").contains("// +kubeforge:scaffold:modules\n"));
    // git can take it all back.
    git(dir, &["merge", "--abort"]);
    git(dir, &["checkout", "--quiet", "main"]);
    assert!(git(dir, &["status", "--porcelain"]).trim().is_empty());
    assert_eq!(git(dir, &["rev-parse", "HEAD"]), mine);
}

#[test]
fn alpha_update_refusals_change_nothing() {
    if !have_git() {
        return;
    }
    let temp = old_project();
    let dir = temp.path();
    // No flag to scaffold as 0.1.0-rev.6fc8fc2 did.
    refused(
        dir,
        &["alpha", "update"],
        &[
            "scaffolded by kubeforge 0.1.0-rev.6fc8fc2, and this kubeforge (0.1.0) cannot scaffold as that version did",
            "fix: pass --from-binary <kubeforge 0.1.0-rev.6fc8fc2>",
        ],
    );
    // Uncommitted changes.
    edit(dir, "Makefile", "\n", "\n# mine\n");
    let from = old_templates().display().to_string();
    refused(
        dir,
        &["alpha", "update", "--from-templates", &from],
        &["alpha update needs a clean git tree", "Makefile"],
    );
    git(dir, &["commit", "--quiet", "-am", "Mine"]);
    // The branch exists.
    git(dir, &["branch", "taken"]);
    let before = git(dir, &["for-each-ref"]);
    refused(
        dir,
        &[
            "alpha",
            "update",
            "--from-templates",
            &from,
            "--branch",
            "taken",
        ],
        &["a new branch, and taken exists", "fix: delete it"],
    );
    assert_eq!(git(dir, &["for-each-ref"]), before);
    // Not a repository.
    let plain = tempfile::tempdir().unwrap();
    kubeforge(
        plain.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    )
    .success();
    refused(
        plain.path(),
        &[
            "alpha",
            "update",
            "--from-version",
            "0.0.1",
            "--from-templates",
            &from,
        ],
        &["alpha update needs a git repository"],
    );
}

#[test]
fn alpha_generate_rescaffolds_and_carries_the_users_code() {
    let temp = crate::common::project(&[]);
    let dir = temp.path();
    kubeforge(dir, &create_api("cache", "v1", "Memcached", &[])).success();
    edit(
        dir,
        "src/api/v1/memcached.rs",
        "    pub foo: Option<String>,",
        "    pub foo: Option<String>,\n    /// How many.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<i32>,",
    );
    edit(
        dir,
        "src/main.rs",
        "let cli = Cli::parse();",
        "let cli = Cli::parse(); // parsed",
    );
    std::fs::write(dir.join("src/util.rs"), "//! Helpers.\n").unwrap();
    edit(
        dir,
        "src/lib.rs",
        "pub mod controllers;\n",
        "pub mod controllers;\npub mod util;\n",
    );

    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("in-the-way"), "").unwrap();
    let target = out.path().display().to_string();
    refused(
        dir,
        &["alpha", "generate", "--output-dir", &target],
        &["is not empty: alpha generate writes a whole new project there"],
    );
    std::fs::remove_file(out.path().join("in-the-way")).unwrap();
    let ran = kubeforge(dir, &["alpha", "generate", "--output-dir", &target]).success();
    assert!(
        ran.stdout
            .contains("  kubeforge create api --group cache --version v1 --kind Memcached\n")
    );
    assert!(ran.stdout.contains("Carried over your code"));
    assert!(
        ran.stdout
            .contains("Copied the files you added (1):\n  src/util.rs\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(
            "  src/main.rs: the new scaffold's version is kept; your changes are not carried"
        ),
        "{}",
        ran.stdout
    );
    let new = out.path();
    assert!(read(new, "src/api/v1/memcached.rs").contains("pub size: Option<i32>,"));
    assert!(read(new, "src/lib.rs").contains("pub mod util;\n"));
    assert!(!read(new, "src/main.rs").contains("// parsed"));
    assert_eq!(read(new, "PROJECT"), read(dir, "PROJECT"));
    // The old project is untouched by an --output-dir run.
    assert!(read(dir, "src/main.rs").contains("// parsed"));
    // In place needs git.
    refused(
        dir,
        &["alpha", "generate", "--in-place"],
        &["alpha generate --in-place needs a git repository"],
    );
    if !have_git() {
        return;
    }
    git(dir, &["init", "--quiet"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "--quiet", "-m", "Mine"]);
    let before = tree_hash(dir);
    kubeforge(dir, &["alpha", "generate", "--in-place"]).success();
    assert_ne!(tree_hash(dir), before);
    assert_eq!(git(dir, &["status", "--porcelain"]).trim(), "M src/main.rs");
}
