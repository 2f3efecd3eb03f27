//! Snapshot of what `kubeforge create webhook` writes: every file it creates or changes, for
//! all three webhook types on one kind and a webhook on a built-in kind.

use crate::common;

use std::fmt::Write;

use common::{create_api, kubeforge, project, tree};

#[test]
fn webhook_tree() {
    let temp = project(&["--owner", "The demo Authors"]);
    let dir = temp.path();
    kubeforge(dir, &create_api("cache", "v1", "Memcached", &[])).success();
    kubeforge(
        dir,
        &create_api("cache", "v1beta1", "Memcached", &["--controller=false"]),
    )
    .success();
    let before = tree(dir);
    for args in [
        &[
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "--defaulting",
            "--programmatic-validation",
            "--conversion",
            "--spoke",
            "v1beta1",
        ][..],
        &[
            "--group",
            "core",
            "--version",
            "v1",
            "--kind",
            "Pod",
            "--defaulting",
        ],
    ] {
        let mut all = vec!["create", "webhook"];
        all.extend_from_slice(args);
        kubeforge(dir, &all).success();
    }
    let mut out = String::new();
    for (path, bytes) in tree(dir) {
        if path.to_string_lossy().ends_with('/') || before.get(&path) == Some(&bytes) {
            continue;
        }
        let status = if before.contains_key(&path) {
            "changed"
        } else {
            "created"
        };
        writeln!(out, "===== {} ({status})", path.display()).unwrap();
        out.push_str(&String::from_utf8(bytes).unwrap());
    }
    insta::assert_snapshot!("webhook_tree", out);
}
