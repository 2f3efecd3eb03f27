//! The validate stage of `update external`: which CRD sources to read for which external kinds
//! of PROJECT ([`sources`]), then, once read, each kind's CRD found and its recorded versions
//! generated again ([`validate`]).

use std::collections::BTreeMap;
use std::path::Path;

use crate::cli::UpdateExternalArgs;
use crate::error::Error;
use crate::external::{CrdSource, ExternalError};
use crate::project::ProjectFile;
use crate::typegen::{self, Crd, Generated};

/// A source to read, and the external kinds (full group, kind) it should have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    /// Where to read.
    pub source: CrdSource,
    /// As PROJECT records it.
    pub recorded: String,
    /// The kinds to take from it.
    pub kinds: Vec<(String, String)>,
    /// Given with `--crd` (kinds it lacks are left alone) rather than recorded.
    pub from_flag: bool,
}

/// One external kind, generated again.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateKind {
    /// Its CRD as read now.
    pub crd: Crd,
    /// The source PROJECT records for it after the command.
    pub recorded: String,
    /// The versions PROJECT has for it that the CRD still has, with their types.
    pub versions: Vec<(String, Generated)>,
}

/// A valid `update external`.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateRequest {
    /// The kinds to write again.
    pub kinds: Vec<UpdateKind>,
    /// What the command could not do (versions gone from a CRD, kinds a `--crd` lacks).
    pub warnings: Vec<String>,
}

/// The full API group of an external entry of PROJECT.
fn full_group(group: &str, domain: &str) -> String {
    if domain.is_empty() {
        group.to_owned()
    } else {
        format!("{group}.{domain}")
    }
}

/// The sources to read: `--crd` for every selected kind, else the one PROJECT records for each.
/// `root` is the project (recorded files are relative to it), `cwd` where `--crd` is relative to.
pub fn sources(
    project: &ProjectFile,
    args: &UpdateExternalArgs,
    root: &Path,
    cwd: &Path,
) -> Result<Vec<Fetch>, Error> {
    let mut by_source: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for resource in project.resources.iter().filter(|r| r.external) {
        if args.kind.as_ref().is_some_and(|k| *k != resource.kind) {
            continue;
        }
        let kind = (
            full_group(&resource.group, &resource.domain),
            resource.kind.clone(),
        );
        let source = match (&args.crd, &resource.module) {
            (Some(flag), _) => flag.clone(),
            (None, Some(module)) => module.clone(),
            (None, None) => {
                return Err(ExternalError::NothingToUpdate {
                    reason: format!(
                        "PROJECT does not record where the CRD of {} {} comes from.",
                        kind.0, kind.1
                    ),
                    fix: format!("pass it: kubeforge update external --kind {} --crd <file|URL|cluster:NAME>", kind.1),
                }
                .into());
            }
        };
        let kinds = by_source.entry(source).or_default();
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if by_source.is_empty() {
        let named = args
            .kind
            .as_ref()
            .map(|k| format!(" named {k}"))
            .unwrap_or_default();
        return Err(ExternalError::NothingToUpdate {
            reason: format!("PROJECT has no external kind{named}."),
            fix: "add one with `kubeforge create api --external --crd <file|URL|cluster:NAME>`"
                .into(),
        }
        .into());
    }
    Ok(by_source
        .into_iter()
        .map(|(text, kinds)| {
            let source = match &args.crd {
                Some(_) => CrdSource::parse(&text, cwd),
                None => CrdSource::parse(&text, root),
            };
            Fetch {
                recorded: source.record(root),
                source,
                kinds,
                from_flag: args.crd.is_some(),
            }
        })
        .collect())
}

/// Finds each kind's CRD in the text read from its source and generates its recorded versions.
pub fn validate(
    args: &UpdateExternalArgs,
    project: &ProjectFile,
    fetched: &[(Fetch, String)],
) -> Result<UpdateRequest, Error> {
    let mut kinds = Vec::new();
    let mut warnings = Vec::new();
    for (fetch, text) in fetched {
        let origin = fetch.source.describe();
        let crds = typegen::parse_crds(text).map_err(|error| ExternalError::Crd {
            origin: origin.clone(),
            error,
        })?;
        for (group, kind) in &fetch.kinds {
            let Some(crd) = crds.iter().find(|c| c.group == *group && c.kind == *kind) else {
                if fetch.from_flag && args.kind.is_none() {
                    warnings.push(format!(
                        "{origin} has no CRD of {kind} ({group}): its types were left as they are"
                    ));
                    continue;
                }
                return Err(ExternalError::NoMatch {
                    origin,
                    wanted: format!("kind {kind} ({group})"),
                    available: crds
                        .iter()
                        .map(|c| format!("{} ({})", c.kind, c.group))
                        .collect::<Vec<_>>()
                        .join(", "),
                }
                .into());
            };
            let mut versions = Vec::new();
            for resource in project.resources.iter().filter(|r| {
                r.external && r.kind == *kind && full_group(&r.group, &r.domain) == *group
            }) {
                if crd.version(&resource.version).is_none() {
                    warnings.push(format!(
                        "the CRD of {kind} no longer has version {}: its types were left as they are; remove them and their PROJECT entry once nothing uses them",
                        resource.version
                    ));
                    continue;
                }
                let generated = typegen::generate(crd, &resource.version).map_err(|error| {
                    ExternalError::Version {
                        origin: origin.clone(),
                        error,
                        fix: "give the version a schema in the CRD".into(),
                    }
                })?;
                versions.push((resource.version.clone(), generated));
            }
            kinds.push(UpdateKind {
                crd: crd.clone(),
                recorded: fetch.recorded.clone(),
                versions,
            });
        }
    }
    Ok(UpdateRequest { kinds, warnings })
}
