//! The `manifests` subcommand of every generated operator: writes
//! `config/crd/bases/<group>_<plural>.yaml` for every registered kind (versions merged, one
//! storage version), `config/rbac/role.yaml` from the RBAC declarations, and registered extra
//! manifests (webhook configurations). Output is deterministic; `--check` reports drift instead
//! of writing.

mod extra;
mod render;
pub mod structural;

use std::path::{Path, PathBuf};

pub use extra::{ExtraManifest, extra_files};
pub use render::{
    LAST_APPLIED_LIMIT, VERSION_ANNOTATION, crd_value, strip_descriptions, yaml_documents,
};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::scheme::{self, SchemeError};

/// Arguments of the `manifests` subcommand (flatten or use as a subcommand's arguments).
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct ManifestsArgs {
    /// Directory to write into (`crd/bases`, `rbac` and `webhook` are created inside).
    #[arg(long, default_value = "config")]
    pub output_dir: PathBuf,
    /// Write nothing; exit non-zero naming the files that differ from what would be generated.
    #[arg(long)]
    pub check: bool,
    /// Drop descriptions from CRD schemas (keeps large CRDs under the client-side apply limit).
    #[arg(long)]
    pub no_descriptions: bool,
    /// Put the generated rules into Roles in this namespace instead of a ClusterRole
    /// (for operators that watch a single namespace).
    #[arg(long)]
    pub role_namespace: Option<String>,
}

impl Default for ManifestsArgs {
    fn default() -> Self {
        ManifestsArgs {
            output_dir: "config".into(),
            check: false,
            no_descriptions: false,
            role_namespace: None,
        }
    }
}

/// Why `manifests` failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The registered types cannot be merged into CRDs (storage version collisions, ...).
    #[error("{source}{}", explain(.hint))]
    Scheme {
        /// The scheme's error.
        source: SchemeError,
        /// An explanation of the offending Rust shape, when one was found.
        hint: Option<String>,
    },
    /// A generated CRD is not a structural schema the API server would accept.
    #[error("the CRD {crd} (version {version}) is not a structural schema:\n{}", .violations.iter().map(|v| format!("  {v}")).collect::<Vec<_>>().join("\n"))]
    NotStructural {
        /// The CRD name.
        crd: String,
        /// The version.
        version: String,
        /// Every violation.
        violations: Vec<structural::Violation>,
    },
    /// Writing or reading a file failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// YAML serialization failed.
    #[error("cannot render YAML: {0}")]
    Yaml(#[from] serde_saphyr::ser::Error),
    /// `--check`: generated manifests differ from the files on disk.
    #[error("manifests are out of date; run `make manifests`. Differing files:\n{}", .files.iter().map(|f| format!("  {}", f.display())).collect::<Vec<_>>().join("\n"))]
    Drift {
        /// The files that differ or are missing.
        files: Vec<PathBuf>,
    },
}

fn explain(hint: &Option<String>) -> String {
    hint.as_ref()
        .map(|h| format!("\n  {h}"))
        .unwrap_or_default()
}

/// What one run generates: files (relative to the output dir) and warnings.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Generated {
    /// `(relative path, content)`, sorted by path.
    pub files: Vec<(PathBuf, String)>,
    /// Things worth telling the user (CRDs above the client-side apply limit).
    pub warnings: Vec<String>,
}

/// A warning when `crd` is too large for client-side `kubectl apply`, which copies the whole
/// object into the `last-applied-configuration` annotation (at most 262144 bytes).
pub fn size_warning(name: &str, crd: &serde_json::Value) -> Option<String> {
    let size = serde_json::to_string(crd)
        .map(|s| s.len())
        .unwrap_or_default();
    (size > LAST_APPLIED_LIMIT).then(|| {
        format!(
            "CRD {name} is {size} bytes, over the {LAST_APPLIED_LIMIT}-byte limit of `kubectl apply`'s last-applied annotation: install it with server-side apply (`kubectl apply --server-side`) or generate with --no-descriptions"
        )
    })
}

/// Looks for the Rust shape behind a kube rendering failure in the unrewritten schemas.
fn hint_for(error: &SchemeError) -> Option<String> {
    let SchemeError::Unrenderable { rust_type, .. } = error else {
        return None;
    };
    let t = scheme::api_types()
        .into_iter()
        .find(|t| t.rust_type() == rust_type)?;
    structural::explain_raw(&t.raw_schema())
}

/// A registry error, with the explanation of how to fix it.
fn scheme_error(source: SchemeError) -> Error {
    let hint = hint_for(&source);
    Error::Scheme { source, hint }
}

/// Checks every version of a CRD against the structural-schema rules.
pub fn check_crd(crd: &CustomResourceDefinition) -> Result<(), Error> {
    let name = crd.metadata.name.clone().unwrap_or_default();
    for v in &crd.spec.versions {
        let schema = v
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
            .map(|s| serde_json::to_value(s).expect("schemas serialize"))
            .unwrap_or(serde_json::Value::Null);
        let violations = structural::check(&schema);
        if !violations.is_empty() {
            return Err(Error::NotStructural {
                crd: name,
                version: v.name.clone(),
                violations,
            });
        }
    }
    Ok(())
}

/// The CRD of one registered kind (versions merged), checked; errors carry explanations.
pub fn crd(group: &str, kind: &str) -> Result<CustomResourceDefinition, Error> {
    let crd = scheme::crd_for(group, kind).map_err(scheme_error)?;
    check_crd(&crd)?;
    Ok(crd)
}

/// Generates every manifest in memory (no file access).
pub fn generate(args: &ManifestsArgs) -> Result<Generated, Error> {
    let mut out = Generated::default();
    let crds = scheme::crds().map_err(scheme_error)?;
    for crd in &crds {
        check_crd(crd)?;
        let name = crd.metadata.name.clone().unwrap_or_default();
        let value = crd_value(crd, args.no_descriptions);
        out.warnings.extend(size_warning(&name, &value));
        let file = format!(
            "crd/bases/{}_{}.yaml",
            crd.spec.group, crd.spec.names.plural
        );
        out.files
            .push((PathBuf::from(file), yaml_documents(&[value])?));
    }
    let roles = crate::rbac::role_manifests(
        &crate::rbac::declared_rules(),
        args.role_namespace.as_deref(),
    );
    out.files
        .push(("rbac/role.yaml".into(), yaml_documents(&roles)?));
    for (path, docs) in extra_files() {
        out.files.push((path.into(), yaml_documents(&docs)?));
    }
    out.files.sort();
    Ok(out)
}

/// Writes `generated` under `dir`, touching only files whose content changed (so `make` and
/// editors see no spurious changes); with `check`, writes nothing and reports drift.
pub fn write(dir: &Path, generated: &Generated, check: bool) -> Result<Vec<PathBuf>, Error> {
    let mut changed = Vec::new();
    for (rel, content) in &generated.files {
        let path = dir.join(rel);
        let current = std::fs::read(&path).ok();
        if current.as_deref() == Some(content.as_bytes()) {
            continue;
        }
        changed.push(path.clone());
        if check {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| Error::Io {
                path: parent.into(),
                source,
            })?;
        }
        std::fs::write(&path, content).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    }
    if check && !changed.is_empty() {
        return Err(Error::Drift { files: changed });
    }
    Ok(changed)
}

/// Runs the subcommand: generate, print warnings to stderr, then write or check.
pub fn run(args: ManifestsArgs) -> Result<(), Error> {
    let generated = generate(&args)?;
    for warning in &generated.warnings {
        eprintln!("warning: {warning}");
    }
    let changed = write(&args.output_dir, &generated, args.check)?;
    if !args.check {
        for path in changed {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn warns_above_the_client_side_apply_limit() {
        let small = json!({"spec": {"description": "x".repeat(1000)}});
        assert_eq!(size_warning("a", &small), None);
        let big = json!({"spec": {"description": "x".repeat(LAST_APPLIED_LIMIT)}});
        let warning = size_warning("widgets.example.com", &big).unwrap();
        assert!(
            warning.contains("widgets.example.com") && warning.contains("--no-descriptions"),
            "{warning}"
        );
    }

    #[test]
    fn arguments_default_like_kubebuilder() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: ManifestsArgs,
        }
        let cli = Cli::parse_from(["x"]);
        assert_eq!(cli.args, ManifestsArgs::default());
        assert_eq!(cli.args.output_dir, PathBuf::from("config"));
        let cli = Cli::parse_from(["x", "--check", "--no-descriptions", "--output-dir", "out"]);
        assert!(cli.args.check && cli.args.no_descriptions);
        assert_eq!(cli.args.output_dir, PathBuf::from("out"));
    }
}
