//! Snapshots of whole generated trees: any change to what kubeforge writes shows up in review.

use crate::common;

use std::fmt::Write;
use std::path::Path;

use common::{create_api, kubeforge, project, tree};

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
        &create_api("cache", "v1alpha1", "Memcached", &[]),
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
    kubeforge(dir, &create_api("cache", "v1alpha1", "Memcached", &[])).success();
    kubeforge(
        dir,
        &create_api("infra", "v1", "Cluster", &["--namespaced=false"]),
    )
    .success();
    kubeforge(
        dir,
        &create_api("apps", "v1", "Deployment", &["--resource=false"]),
    )
    .success();
    kubeforge(
        dir,
        &create_api("core", "v1", "ConfigMap", &["--resource=false"]),
    )
    .success();
    insta::assert_snapshot!("multigroup", render_tree(dir));
}
