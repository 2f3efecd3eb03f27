//! Versions of the crates a generated project depends on.
//!
//! They match the kubeforge workspace's `[workspace.dependencies]` (a test checks it), so a
//! generated project resolves to the same versions the runtime was built and tested with.

/// `(crate, version requirement)` for every registry dependency of generated projects.
pub const DEPENDENCIES: &[(&str, &str)] = &[
    ("kube", "5.0"),
    ("k8s-openapi", "0.29"),
    ("schemars", "1.2"),
    ("serde", "1"),
    ("serde_json", "1"),
    ("serde-saphyr", "2"),
    ("tokio", "1"),
    ("clap", "4"),
    ("tracing", "0.1"),
    ("thiserror", "2"),
    ("anyhow", "1"),
];

/// The version of the kubeforge crates (`kubeforge`, `kubeforge-testenv`) this CLI scaffolds
/// against when it does not use a source checkout.
pub const KUBEFORGE: &str = env!("CARGO_PKG_VERSION");

/// Looks up the version requirement of a dependency of generated projects.
pub fn of(name: &str) -> Option<&'static str> {
    DEPENDENCIES
        .iter()
        .find(|(crate_name, _)| *crate_name == name)
        .map(|(_, version)| *version)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workspace root manifest pins the versions the runtime is tested with; generated
    /// projects must ask for the same ones.
    #[test]
    fn match_the_workspace_versions() {
        let manifest = include_str!("../../Cargo.toml");
        for (name, version) in DEPENDENCIES {
            let line = manifest
                .lines()
                .find(|line| line.starts_with(&format!("{name} = ")))
                .unwrap_or_else(|| panic!("{name} is not a workspace dependency"));
            let expected = format!("\"{version}\"");
            assert!(
                line.contains(&expected),
                "{name}: workspace has `{line}`, templates use {version}"
            );
        }
    }
}
