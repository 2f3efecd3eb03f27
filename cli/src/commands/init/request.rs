//! The validate stage of `init`: the flags (and the directory's name) checked against
//! kubebuilder's rules, as an [`InitRequest`].

use std::path::{Path, PathBuf};

use super::super::project_dir;
use crate::cli::{InitArgs, License};
use crate::context;
use crate::error::Error;
use crate::project::PROJECT_FILE;
use crate::scaffold::Tree;
use crate::source::Source;
use crate::{kubernetes, naming, validate};

/// Files whose presence means the directory already holds a project.
const PROJECT_MARKERS: &[&str] = &[PROJECT_FILE, "Cargo.toml", "src/main.rs"];

/// Names of the crates Rust itself provides: Cargo refuses them as package names, or a crate
/// of that name would clash with Rust's own. (Keywords are fine: generated code names the
/// crate `r#match`; `self`, `super` and `crate` are refused as path keywords.)
const RESERVED_NAMES: &[&str] = &["test", "core", "std", "alloc", "proc-macro"];

/// The crates a generated project depends on by name: a project of the same crate name could
/// not refer to them.
const DEPENDENCIES: &[&str] = &[
    "kubeforge",
    "kubeforge-testenv",
    "kube",
    "k8s-openapi",
    "schemars",
    "serde",
    "serde_json",
    "serde-saphyr",
    "tokio",
    "clap",
    "tracing",
    "thiserror",
    "anyhow",
];

/// A valid `init`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitRequest {
    /// The project directory (absolute).
    pub dir: PathBuf,
    /// The project (and package) name.
    pub project_name: String,
    /// The domain of the project's API groups.
    pub domain: String,
    /// Copyright owner ("" when none).
    pub owner: String,
    /// Whether generated Rust files get the Apache 2.0 header.
    pub apache2: bool,
    /// Multigroup layout.
    pub multigroup: bool,
    /// Namespace-scoped manager.
    pub namespaced: bool,
    /// Kubernetes version (`1.35`).
    pub k8s_version: String,
    /// Its k8s-openapi feature (`v1_35`).
    pub k8s_feature: String,
    /// The `api-approved.kubernetes.io` annotation of every CRD (protected domains only).
    pub api_approved: Option<String>,
}

/// What `init` takes from its environment rather than its flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// The current directory (the next steps say `cd <dir>` when the project is elsewhere).
    pub cwd: PathBuf,
    /// Where the project gets the kubeforge crates.
    pub source: Source,
    /// The year of the copyright line.
    pub year: i64,
    /// The kubeforge version PROJECT records (the templates' version: see
    /// [`TemplateSet`](crate::template_set::TemplateSet)).
    pub cli_version: String,
}

impl Environment {
    /// The environment of this process (`KUBEFORGE_SOURCE`, `SOURCE_DATE_EPOCH`, the clock).
    pub fn detect() -> Result<Self, Error> {
        Ok(Self {
            cwd: project_dir(None)?,
            source: Source::detect()?,
            year: context::year(),
            cli_version: crate::template_set::TemplateSet::from_env()?
                .version()
                .to_owned(),
        })
    }
}

/// Checks `args` for a project in `dir` (whose files `tree` shows).
pub fn validate(args: InitArgs, dir: &Path, tree: &dyn Tree) -> Result<InitRequest, Error> {
    for file in PROJECT_MARKERS {
        if tree.exists(Path::new(file)) {
            return Err(Error::AlreadyInitialized {
                path: dir.join(file),
            });
        }
    }

    let from_dir = args.project_name.is_none();
    let project_name = match args.project_name {
        Some(name) => name,
        None => dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    check_project_name(&project_name, from_dir)?;
    validate::dns1123_subdomain(&args.domain).map_err(|v| Error::InvalidInput {
        flag: "--domain",
        value: args.domain.clone(),
        subject: format!("the domain {:?}", args.domain),
        rule: v.rule,
        fix: "pass a lower-case domain you own, e.g. --domain example.com".into(),
    })?;
    let api_approved = check_api_approval(&args.domain, args.api_approved)?;
    let k8s_feature =
        kubernetes::openapi_feature(&args.k8s_version).ok_or_else(|| Error::InvalidInput {
            flag: "--k8s-version",
            value: args.k8s_version.clone(),
            subject: "the Kubernetes version".into(),
            rule: format!(
                "one k8s-openapi {} supports: 1.{} to 1.{}",
                kubeforge_templates::versions::of("k8s-openapi").unwrap_or("?"),
                kubernetes::SUPPORTED_MINORS.start(),
                kubernetes::SUPPORTED_MINORS.end()
            ),
            fix: format!("pass e.g. --k8s-version {}", kubernetes::DEFAULT_VERSION),
        })?;
    Ok(InitRequest {
        dir: dir.to_owned(),
        project_name,
        domain: args.domain,
        owner: args.owner.unwrap_or_default(),
        apache2: args.license == License::Apache2,
        multigroup: args.multigroup,
        namespaced: args.namespaced,
        k8s_version: args.k8s_version.trim_start_matches('v').to_owned(),
        k8s_feature,
        api_approved,
    })
}

/// Domains whose API groups Kubernetes reserves: CRDs in them need the
/// `api-approved.kubernetes.io` annotation.
const PROTECTED: &[&str] = &["k8s.io", "kubernetes.io"];

/// The protected domain `domain` is, or is under.
fn protected(domain: &str) -> Option<&'static str> {
    PROTECTED
        .iter()
        .find(|p| domain == **p || domain.ends_with(&format!(".{p}")))
        .copied()
}

/// `--api-approved`: required for a protected domain (a URL, or a value starting with
/// `unapproved`, as the API server requires), refused for any other.
fn check_api_approval(domain: &str, value: Option<String>) -> Result<Option<String>, Error> {
    let invalid = |value: &str, rule: &str, fix: &str| Error::InvalidInput {
        flag: "--api-approved",
        value: value.to_owned(),
        subject: "the api-approved.kubernetes.io annotation".into(),
        rule: rule.into(),
        fix: fix.into(),
    };
    match (protected(domain), value) {
        (Some(protected), None) => Err(Error::ProtectedDomain {
            domain: domain.to_owned(),
            protected,
        }),
        (Some(_), Some(value)) => {
            let url = ["https://", "http://"]
                .iter()
                .any(|scheme| value.len() > scheme.len() && value.starts_with(scheme));
            if (url && !value.contains(char::is_whitespace)) || value.starts_with("unapproved") {
                Ok(Some(value))
            } else {
                Err(invalid(
                    &value,
                    "the URL of the API review (https://github.com/kubernetes/...) or a value starting with \"unapproved\"",
                    "pass e.g. --api-approved https://github.com/kubernetes/enhancements/pull/1111 or --api-approved \"unapproved, experimental-only\"",
                ))
            }
        }
        (None, Some(value)) => Err(invalid(
            &value,
            "given only for a domain under k8s.io or kubernetes.io (the API server refuses the annotation on other groups)",
            "drop --api-approved",
        )),
        (None, None) => Ok(None),
    }
}

/// The project name: a DNS-1123 label starting with a letter that names a package Cargo
/// builds and a crate Rust code can name. A keyword is fine (`match`: generated code names the
/// crate `r#match`), except the path keywords no raw identifier escapes.
fn check_project_name(name: &str, from_dir: bool) -> Result<(), Error> {
    let default = if from_dir {
        "the project name defaults to the directory's name; "
    } else {
        ""
    };
    let invalid = |rule: String, example: &str| Error::InvalidInput {
        flag: "--project-name",
        value: name.to_owned(),
        subject: format!("the project name {name:?}"),
        rule,
        fix: format!("{default}pass a lower-case name, e.g. --project-name {example}"),
    };
    let suggestion = format!("{name}-operator");
    let renamed = |rule: String| invalid(rule, &suggestion);
    validate::dns1123_label(name).map_err(|v| invalid(v.rule, "memcached-operator"))?;
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(invalid(
            "a DNS-1123 label starting with a letter (Cargo package names cannot start with a digit)".into(),
            "memcached-operator",
        ));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(renamed(format!(
            "a name Cargo accepts for a package ({name:?} is reserved by Rust: one of its own crates)"
        )));
    }
    if naming::is_path_keyword(name) {
        return Err(renamed(format!(
            "a crate name Rust code can refer to ({name:?} is reserved by Rust: a path keyword, which not even a raw identifier escapes; other keywords such as \"match\" are fine)"
        )));
    }
    let crate_name = naming::crate_name(name);
    if let Some(dependency) = DEPENDENCIES
        .iter()
        .find(|d| naming::crate_name(d) == crate_name)
    {
        return Err(renamed(format!(
            "a name apart from the crates the project depends on ({dependency}: its crate and the project's would both be `{crate_name}`)"
        )));
    }
    Ok(())
}
