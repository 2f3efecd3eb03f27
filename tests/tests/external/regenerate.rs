//! `kubeforge alpha generate` on a project with the user's code in it: the project scaffolded
//! again from PROJECT into a fresh directory builds, and its tests pass, with the user's type
//! field, reconcile code, added module and added dependency carried over.

use std::path::Path;

use kubeforge_e2e::{build_lock, cargo, kubeforge, share_lockfile, workspace_root};

/// Replaces `old` with `new` in a file of the project (which must hold `old`).
fn edit(dir: &Path, rel: &str, old: &str, new: &str) {
    let path = dir.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(old), "{rel} lacks {old:?}");
    std::fs::write(path, text.replacen(old, new, 1)).unwrap();
}

#[test]
fn alpha_generate_carries_the_users_code_into_a_project_that_builds() {
    let temp = tempfile::tempdir().unwrap();
    let old = temp.path().join("old");
    let new = temp.path().join("new");
    std::fs::create_dir_all(&old).unwrap();
    kubeforge(
        &old,
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "regen-demo",
        ],
    );
    share_lockfile(&old);
    let memcached = ["--group", "cache", "--version", "v1", "--kind", "Memcached"];
    kubeforge(&old, &[&["create", "api"][..], &memcached[..]].concat());
    kubeforge(
        &old,
        &[
            &["create", "webhook"][..],
            &memcached[..],
            &["--defaulting", "--programmatic-validation"][..],
        ]
        .concat(),
    );
    let rules = workspace_root()
        .join("cli/tests/fixtures/crds/prometheus-operator/monitoring.coreos.com_prometheusrules.yaml")
        .display()
        .to_string();
    kubeforge(
        &old,
        &[
            "create",
            "api",
            "--external",
            "--crd",
            &rules,
            "--controller=false",
        ],
    );
    // The user's code: a spec field, a reconcile that reads it, a module with a dependency.
    edit(
        &old,
        "src/api/v1/memcached.rs",
        "    pub foo: Option<String>,\n",
        "    pub foo: Option<String>,\n    /// How many memcached instances to run.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<i32>,\n",
    );
    edit(
        &old,
        "src/controllers/memcached.rs",
        "    let generation = obj.metadata.generation;\n",
        "    let generation = obj.metadata.generation;\n    let _instances = obj.spec.size.unwrap_or(crate::util::default_size());\n",
    );
    std::fs::write(
        old.join("src/util.rs"),
        "//! Helpers of the operator.\n\n/// A default size between 1 and 3.\npub fn default_size() -> i32 {\n    fastrand::i32(1..=3)\n}\n",
    )
    .unwrap();
    edit(
        &old,
        "src/lib.rs",
        "pub mod controllers;\n",
        "pub mod controllers;\npub mod util;\n",
    );
    edit(
        &old,
        "Cargo.toml",
        "\n\n[dev-dependencies]\n",
        "\nfastrand = \"2\"\n\n[dev-dependencies]\n",
    );

    kubeforge(
        &old,
        &[
            "alpha",
            "generate",
            "--output-dir",
            &new.display().to_string(),
        ],
    );
    for file in ["src/util.rs", "Cargo.lock"] {
        assert!(new.join(file).is_file(), "{file} was not carried over");
    }
    let _build = build_lock();
    cargo(&new, &["fmt", "--check"]);
    let test = cargo(&new, &["test"]);
    assert!(
        test.stdout
            .contains("test memcached_sample_becomes_ready ... ok"),
        "{}",
        test.stdout
    );
}
