//! Snapshots of whole generated trees: any change to what kubeforge writes shows up in review.

mod common;

use std::fmt::Write;
use std::path::Path;

use common::{kubeforge, project, tree};

fn render_tree(dir: &Path) -> String {
    let mut out = String::new();
    for (path, bytes) in tree(dir) {
        if bytes.is_empty() && path.to_string_lossy().ends_with('/') {
            continue;
        }
        writeln!(out, "===== {}", path.display()).unwrap();
        out.push_str(&String::from_utf8(bytes).unwrap());
    }
    out
}

#[test]
fn init_only() {
    let temp = project(&[]);
    insta::assert_snapshot!("init", render_tree(temp.path()));
}

#[test]
fn single_group_with_an_api() {
    let temp = project(&["--owner", "The demo Authors"]);
    kubeforge(
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
    )
    .success();
    insta::assert_snapshot!("single_group", render_tree(temp.path()));
}

#[test]
fn multigroup_namespaced_cluster_scoped_and_built_in() {
    let temp = project(&[
        "--multigroup",
        "--namespaced",
        "--license",
        "none",
        "--k8s-version",
        "1.34",
    ]);
    let dir = temp.path();
    kubeforge(
        dir,
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
    )
    .success();
    kubeforge(
        dir,
        &[
            "create",
            "api",
            "--group",
            "infra",
            "--version",
            "v1",
            "--kind",
            "Cluster",
            "--namespaced=false",
        ],
    )
    .success();
    kubeforge(
        dir,
        &[
            "create",
            "api",
            "--group",
            "apps",
            "--version",
            "v1",
            "--kind",
            "Deployment",
            "--resource=false",
        ],
    )
    .success();
    kubeforge(
        dir,
        &[
            "create",
            "api",
            "--group",
            "core",
            "--version",
            "v1",
            "--kind",
            "ConfigMap",
            "--resource=false",
        ],
    )
    .success();
    insta::assert_snapshot!("multigroup", render_tree(dir));
}
