//! Which kubeforge scaffolded the project, and how to scaffold as it did: with its templates
//! (`--from-templates`), with its binary (`--from-binary`), or with this binary when it is the
//! same version.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::alpha_error::AlphaError;
use crate::cli::AlphaUpdateArgs;
use crate::error::Error;
use crate::project::ProjectFile;
use crate::template_set::TemplateSet;

/// How the scaffold of the project's version is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ancestor {
    /// Rendering with these templates.
    Templates(TemplateSet),
    /// Running that kubeforge binary.
    Binary {
        /// The binary.
        path: PathBuf,
        /// Its version.
        version: String,
    },
}

impl Ancestor {
    /// The kubeforge version of the scaffold.
    pub fn version(&self) -> &str {
        match self {
            Ancestor::Templates(set) => set.version(),
            Ancestor::Binary { version, .. } => version,
        }
    }
}

/// What `alpha update` is to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// The project is at this version already.
    UpToDate(String),
    /// Merge from the scaffold `Ancestor` makes.
    From(Ancestor),
}

/// Decides from the flags and PROJECT's `cliVersion`; `current` is this binary's version.
pub fn resolve(
    args: &AlphaUpdateArgs,
    project: &ProjectFile,
    current: &str,
) -> Result<Plan, Error> {
    let recorded = args
        .from_version
        .clone()
        .or_else(|| project.cli_version.clone());
    if let Some(dir) = &args.from_templates {
        return Ok(Plan::From(Ancestor::Templates(TemplateSet::load(dir)?)));
    }
    if let Some(path) = &args.from_binary {
        // Asked first, so a binary that is missing or no kubeforge is refused before anything
        // runs.
        let reported = binary_version(path)?;
        let version = recorded.unwrap_or(reported);
        return Ok(Plan::From(Ancestor::Binary {
            path: path.clone(),
            version,
        }));
    }
    match recorded {
        Some(version) if version == current => Ok(Plan::UpToDate(version)),
        Some(version) => Err(AlphaError::NoAncestor {
            reason: format!(
                "the project was scaffolded by kubeforge {version}, and this kubeforge ({current}) cannot scaffold as that version did."
            ),
            fix: format!(
                "pass --from-binary <kubeforge {version}> (cargo install kubeforge-cli --version {version} --root /tmp/kubeforge-{version} installs it), or --from-templates <its templates/templates folder>"
            ),
        }
        .into()),
        None => Err(AlphaError::NoAncestor {
            reason: "PROJECT records no cliVersion: the project was scaffolded before kubeforge recorded its version.".into(),
            fix: "pass --from-version <the kubeforge version that scaffolded it> with --from-binary <that kubeforge>, or --from-templates <its templates/templates folder>".into(),
        }
        .into()),
    }
}

/// The version `<binary> --version` prints (`kubeforge 0.1.0`); an error unless it runs and
/// says it is a kubeforge.
fn binary_version(path: &Path) -> Result<String, Error> {
    let output = Command::new(path)
        .arg("--version")
        .output()
        .map_err(|source| AlphaError::OldBinarySpawn {
            binary: path.to_owned(),
            command: "--version".into(),
            source,
        })?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut words = text.split_whitespace();
    match (output.status.success(), words.next(), words.next()) {
        (true, Some("kubeforge"), Some(version)) => Ok(version.to_owned()),
        _ => Err(AlphaError::OldBinary {
            binary: path.to_owned(),
            command: "--version".into(),
            stderr: format!(
                "it is not a kubeforge: it printed {:?}, not `kubeforge <version>`{}",
                text.trim(),
                match String::from_utf8_lossy(&output.stderr).trim() {
                    "" => String::new(),
                    stderr => format!(" ({stderr})"),
                }
            ),
        }
        .into()),
    }
}
