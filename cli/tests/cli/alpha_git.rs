//! What `kubeforge alpha generate --in-place` and `kubeforge alpha update` ask of git, and
//! `alpha update --from-binary` running another kubeforge binary, through the binary.
//!
//! The older kubeforge is this binary with the templates' previous revision
//! (`tests/fixtures/templates-6fc8fc2`), behind a launcher script: what an older release does
//! is run its own templates, which is what that script's kubeforge does.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::alpha::{git, have_git, old_templates};
use crate::common::{create_api, kubeforge, refused, tree};

/// An executable shell script `name` in `dir` with `body` after its `#!/bin/sh` line.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The kubeforge of the templates' previous revision, as a binary in `dir`.
fn old_binary(dir: &Path) -> PathBuf {
    script(
        dir,
        "kubeforge-0.1.0-rev.6fc8fc2",
        &format!(
            "KUBEFORGE_TEMPLATES='{}' exec '{}' \"$@\"",
            old_templates().display(),
            env!("CARGO_BIN_EXE_kubeforge")
        ),
    )
}

/// A repository holding a project the old binary scaffolded (init and one API), committed,
/// with one change of the user's committed on top.
fn old_project(old: &Path) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    git(dir, &["init", "--quiet", "--initial-branch=main"]);
    for args in [
        vec!["init", "--domain", "example.com", "--project-name", "demo"],
        create_api("cache", "v1", "Memcached", &[]),
    ] {
        let output = Command::new(old)
            .args(args)
            .current_dir(dir)
            .env("KUBEFORGE_SOURCE", "crates-io")
            .env("SOURCE_DATE_EPOCH", "1767225600")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "--quiet", "-m", "Scaffold"]);
    let readme = dir.join("README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    let text = text.replacen(
        "Describe here what the operator manages and why.",
        "Runs memcached for the shop.",
        1,
    );
    std::fs::write(&readme, text).unwrap();
    git(dir, &["commit", "--quiet", "-am", "Mine"]);
    temp
}

#[test]
fn alpha_generate_in_place_refuses_a_tree_git_does_not_have() {
    if !have_git() {
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    kubeforge(
        dir,
        &["init", "--domain", "example.com", "--project-name", "demo"],
    )
    .success();
    kubeforge(dir, &create_api("cache", "v1", "Memcached", &[])).success();
    let in_place = ["alpha", "generate", "--in-place"];
    // Not a repository: refused, nothing written (`refused` compares every byte of the tree).
    refused(
        dir,
        &in_place,
        &[
            "alpha generate --in-place needs a git repository",
            "fix: git init && git add -A && git commit",
        ],
    );
    // A repository that tracks none of it.
    git(dir, &["init", "--quiet", "--initial-branch=main"]);
    let run = refused(
        dir,
        &in_place,
        &[
            "alpha generate --in-place needs a clean git tree, and these files differ from the last commit (?? marks those git does not track):",
            "?? src/main.rs",
            "?? src/api/v1/memcached.rs",
            "fix: commit them (git add -A && git commit) or stash them (git stash -u)",
        ],
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "--quiet", "-m", "Scaffold"]);
    // A change of a tracked file, staged or not.
    let main = dir.join("src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, format!("{text}// mine\n")).unwrap();
    refused(
        dir,
        &in_place,
        &["needs a clean git tree", " M src/main.rs"],
    );
    git(dir, &["add", "src/main.rs"]);
    refused(
        dir,
        &in_place,
        &["needs a clean git tree", "M  src/main.rs"],
    );
    git(dir, &["commit", "--quiet", "-m", "Mine"]);
    // A file added and not committed, which in place would be carried over with nothing in git
    // to take the run back.
    std::fs::write(dir.join("src/util.rs"), "//! Helpers.\n").unwrap();
    refused(
        dir,
        &in_place,
        &["needs a clean git tree", "?? src/util.rs"],
    );
    // Files the repository ignores do not count.
    std::fs::remove_file(dir.join("src/util.rs")).unwrap();
    std::fs::create_dir_all(dir.join("target/debug")).unwrap();
    std::fs::write(dir.join("target/debug/demo"), "built").unwrap();
    let before = tree(dir);
    kubeforge(dir, &in_place).success();
    assert_ne!(tree(dir), before);
    assert_eq!(git(dir, &["status", "--porcelain"]).trim(), "M src/main.rs");
}

#[test]
fn alpha_update_from_binary_runs_the_older_kubeforge_as_from_templates_renders_it() {
    if !have_git() {
        return;
    }
    let bin = tempfile::tempdir().unwrap();
    let old = old_binary(bin.path());
    let by_templates = old_project(&old);
    let by_binary = old_project(&old);
    assert!(
        std::fs::read_to_string(by_binary.path().join("PROJECT"))
            .unwrap()
            .contains("cliVersion: 0.1.0-rev.6fc8fc2\n")
    );
    let main = git(by_binary.path(), &["rev-parse", "main"]);
    let from = old_templates().display().to_string();
    kubeforge(
        by_templates.path(),
        &["alpha", "update", "--from-templates", &from],
    )
    .success();
    let run = kubeforge(
        by_binary.path(),
        &[
            "alpha",
            "update",
            "--from-binary",
            &old.display().to_string(),
        ],
    )
    .success();
    assert!(
        run.stdout.contains(
            "Scaffolded PROJECT as kubeforge 0.1.0-rev.6fc8fc2 and as kubeforge 0.1.0 did:\n  kubeforge init --domain example.com --project-name demo"
        ),
        "{}",
        run.stdout
    );
    // The older binary's scaffold is the one its templates render: the same base (the second
    // parent of the branch's first commit), so the same merge, with the user's change in it.
    let branch = "kubeforge-update-0.1.0-rev.6fc8fc2-to-0.1.0";
    for what in [
        format!("{branch}^1^2^{{tree}}"),
        format!("{branch}^2^{{tree}}"),
        format!("{branch}^{{tree}}"),
    ] {
        assert_eq!(
            git(by_binary.path(), &["rev-parse", &what]),
            git(by_templates.path(), &["rev-parse", &what]),
            "{what}"
        );
    }
    assert!(
        git(by_binary.path(), &["show", &format!("{branch}:README.md")])
            .contains("Runs memcached for the shop.")
    );
    // The merge is on the new branch; the user's stays where it was.
    assert_eq!(
        git(by_binary.path(), &["branch", "--show-current"]).trim(),
        branch
    );
    assert_eq!(git(by_binary.path(), &["rev-parse", "main"]), main);
}

#[test]
fn alpha_update_refuses_a_binary_that_is_missing_fails_or_is_no_kubeforge() {
    if !have_git() {
        return;
    }
    let bin = tempfile::tempdir().unwrap();
    let temp = old_project(&old_binary(bin.path()));
    let dir = temp.path();
    let refs = git(dir, &["for-each-ref"]);
    let update = |binary: &Path| {
        vec![
            "alpha".to_owned(),
            "update".to_owned(),
            "--from-binary".to_owned(),
            binary.display().to_string(),
        ]
    };
    let missing = bin.path().join("kubeforge-0.0.1");
    let args = update(&missing);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        dir,
        &args,
        &[
            &format!("`{} --version` failed", missing.display()),
            "No such file or directory",
        ],
    );
    let other = script(bin.path(), "other-tool", "echo 'other-tool 1.0'");
    let args = update(&other);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        dir,
        &args,
        &["it is not a kubeforge: it printed \"other-tool 1.0\", not `kubeforge <version>`"],
    );
    // A kubeforge that fails on the way: what it wrote stays in a scratch directory.
    let failing = script(
        bin.path(),
        "kubeforge-broken",
        &format!(
            "[ \"$1\" = --version ] && exec '{}' --version\necho 'broken on purpose' >&2\nexit 3",
            env!("CARGO_BIN_EXE_kubeforge")
        ),
    );
    let args = update(&failing);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        dir,
        &args,
        &[
            "init --domain example.com --project-name demo",
            "failed: broken on purpose",
        ],
    );
    assert_eq!(git(dir, &["for-each-ref"]), refs);
}
