//! The `manifests` subcommand of every generated operator: writes
//! `config/crd/bases/<group>_<plural>.yaml` for every registered kind (versions merged, one
//! storage version), `config/rbac/role.yaml` from the RBAC declarations, and registered extra
//! manifests (webhook configurations). Output is deterministic; `--check` reports drift instead
//! of writing.

mod error;
mod extra;
mod render;
pub mod structural;
mod webhooks;

use std::path::{Path, PathBuf};

pub use error::{Error, KindFailure};
pub use extra::{ExtraManifest, extra_files};
pub use render::{
    LAST_APPLIED_LIMIT, VERSION_ANNOTATION, crd_value, strip_descriptions, yaml_documents,
};
pub use webhooks::{WEBHOOK_MANIFESTS, add_conversions, webhook_documents};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::scheme;

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
    /// When some kinds cannot be generated, still write the manifests of the others (the
    /// command fails either way, listing every kind it could not generate).
    #[arg(long)]
    pub keep_going: bool,
}

impl Default for ManifestsArgs {
    fn default() -> Self {
        ManifestsArgs {
            output_dir: "config".into(),
            check: false,
            no_descriptions: false,
            role_namespace: None,
            keep_going: false,
        }
    }
}

/// What one run generates: files (relative to the output dir), warnings and notes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Generated {
    /// `(relative path, content)`, sorted by path.
    pub files: Vec<(PathBuf, String)>,
    /// Things worth telling the user (CRDs above the client-side apply limit).
    pub warnings: Vec<String>,
    /// What the schemas do with shapes that have no narrower structural form (recursion cut,
    /// free-form values), per kind and field.
    pub notes: Vec<String>,
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

/// The notes of the structural rewrite for every registered type (`Kind version: .path: what`).
pub fn schema_notes() -> Vec<String> {
    scheme::api_types()
        .into_iter()
        .flat_map(|t| {
            crate::shapes::rewrite(&mut t.raw_schema())
                .into_iter()
                .map(move |n| format!("{} {}: {n}", t.kind(), t.version()))
        })
        .collect()
}

/// Checks every version of a CRD against the structural-schema rules.
pub fn check_crd(crd: &CustomResourceDefinition) -> Result<(), Error> {
    let name = crd.metadata.name.clone().unwrap_or_default();
    for (i, v) in crd.spec.versions.iter().enumerate() {
        let schema = v
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
            .map_or(serde_json::Value::Null, |s| {
                serde_json::to_value(s).expect("schemas serialize")
            });
        let path = format!("spec.versions[{i}].schema.openAPIV3Schema");
        let violations = structural::check_at(&schema, &path);
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
    let crd = scheme::crd_for(group, kind)?;
    check_crd(&crd)?;
    Ok(crd)
}

/// Generates every manifest in memory (no file access); fails listing every kind that cannot
/// be generated.
pub fn generate(args: &ManifestsArgs) -> Result<Generated, Error> {
    generate_with_webhooks(args, &crate::webhook::Declarations::default())
}

/// [`generate`], plus `webhook/manifests.yaml` and CRD `spec.conversion` from what a webhook
/// server builder registered.
pub fn generate_with_webhooks(
    args: &ManifestsArgs,
    webhooks: &crate::webhook::Declarations,
) -> Result<Generated, Error> {
    let (generated, failures) = generate_each(args, webhooks)?;
    if failures.is_empty() {
        Ok(generated)
    } else {
        Err(Error::Kinds {
            failures,
            written: false,
        })
    }
}

/// Generates what can be generated, and lists the kinds that cannot (their CRDs are left out;
/// conversions of those kinds are skipped).
pub fn generate_each(
    args: &ManifestsArgs,
    webhooks: &crate::webhook::Declarations,
) -> Result<(Generated, Vec<KindFailure>), Error> {
    let mut out = Generated::default();
    let mut crds = Vec::new();
    let mut failures = Vec::new();
    for ((group, kind), crd) in scheme::crds_each() {
        match crd.map_err(Error::from).and_then(|crd| {
            check_crd(&crd)?;
            Ok(crd)
        }) {
            Ok(crd) => crds.push(crd),
            Err(error) => failures.push(KindFailure {
                group: group.into(),
                kind: kind.into(),
                error,
            }),
        }
    }
    crds.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    let failed: Vec<(String, String)> = failures
        .iter()
        .map(|f| (f.group.clone(), f.kind.clone()))
        .collect();
    add_conversions(&mut crds, webhooks, &failed)?;
    out.warnings
        .extend(webhooks::conversion_warnings(&crds, webhooks));
    out.notes = schema_notes();
    for crd in &crds {
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
    let mut extras = extra_files();
    let admission = webhook_documents(webhooks);
    if !admission.is_empty() {
        match extras.iter_mut().find(|(p, _)| *p == WEBHOOK_MANIFESTS) {
            Some((_, docs)) => {
                docs.splice(0..0, admission);
            }
            None => extras.push((WEBHOOK_MANIFESTS, admission)),
        }
    }
    for (path, docs) in extras {
        out.files.push((path.into(), yaml_documents(&docs)?));
    }
    out.files.sort();
    Ok((out, failures))
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

/// Runs the subcommand: generate, print warnings and notes to stderr, then write or check.
pub fn run(args: ManifestsArgs) -> Result<(), Error> {
    run_with_declarations(&args, &crate::webhook::Declarations::default())
}

/// Runs the subcommand of an operator with webhooks: everything [`run`] writes, plus
/// `config/webhook/manifests.yaml` (MutatingWebhookConfiguration
/// `mutating-webhook-configuration`, ValidatingWebhookConfiguration
/// `validating-webhook-configuration`, through Service `webhook-service` in `system`) and
/// `spec.conversion` (strategy Webhook, path `/convert`) in the CRD of every kind registered
/// with [`conversion::<Hub>()`](crate::webhook::WebhookServerBuilder::conversion). `--check`
/// covers these files too.
pub fn run_with_webhooks(
    args: ManifestsArgs,
    webhooks: &crate::webhook::WebhookServerBuilder,
) -> Result<(), Error> {
    run_with_declarations(&args, webhooks.declarations())
}

fn run_with_declarations(
    args: &ManifestsArgs,
    webhooks: &crate::webhook::Declarations,
) -> Result<(), Error> {
    let (generated, failures) = generate_each(args, webhooks)?;
    let write_anyway = args.keep_going && !args.check;
    if !failures.is_empty() && !write_anyway {
        return Err(Error::Kinds {
            failures,
            written: false,
        });
    }
    for warning in &generated.warnings {
        eprintln!("warning: {warning}");
    }
    for note in &generated.notes {
        eprintln!("note: {note}");
    }
    let changed = write(&args.output_dir, &generated, args.check)?;
    if !args.check {
        for path in changed {
            eprintln!("wrote {}", path.display());
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Error::Kinds {
            failures,
            written: true,
        })
    }
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
        let cli = Cli::parse_from([
            "x",
            "--check",
            "--no-descriptions",
            "--output-dir",
            "out",
            "--keep-going",
        ]);
        assert!(cli.args.check && cli.args.no_descriptions && cli.args.keep_going);
        assert_eq!(cli.args.output_dir, PathBuf::from("out"));
    }
}
