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
use crate::{kubernetes, validate};

/// Files whose presence means the directory already holds a project.
const PROJECT_MARKERS: &[&str] = &[PROJECT_FILE, "Cargo.toml", "src/main.rs"];

/// Names Cargo refuses as package names or that clash with the standard crates.
const RESERVED_NAMES: &[&str] = &[
    "test",
    "core",
    "std",
    "alloc",
    "proc-macro",
    "self",
    "super",
    "crate",
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
    })
}

fn check_project_name(name: &str, from_dir: bool) -> Result<(), Error> {
    let fix = if from_dir {
        "the project name defaults to the directory's name; pass --project-name <name>, e.g. --project-name memcached-operator"
    } else {
        "pass a lower-case name, e.g. --project-name memcached-operator"
    };
    let invalid = |rule: String| Error::InvalidInput {
        flag: "--project-name",
        value: name.to_owned(),
        subject: format!("the project name {name:?}"),
        rule,
        fix: fix.into(),
    };
    validate::dns1123_label(name).map_err(|v| invalid(v.rule))?;
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(invalid("a DNS-1123 label starting with a letter (Cargo package names cannot start with a digit)".into()));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(invalid(format!(
            "a name Cargo accepts for a package ({name:?} is reserved by Rust)"
        )));
    }
    Ok(())
}
