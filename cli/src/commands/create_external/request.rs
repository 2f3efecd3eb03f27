//! The validate stage of `create api --external`: the CRDs of the source, narrowed by
//! `--group`, `--kind` and `--version`, their types generated, checked against PROJECT.

use crate::cli::{CreateApiArgs, ReconcileMode};
use crate::error::Error;
use crate::external::ExternalError;
use crate::external::layout::split_group;
use crate::project::ProjectFile;
use crate::typegen::{self, Crd, Generated};
use crate::validate;

/// Where the CRD came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// As PROJECT records it (`module`).
    pub recorded: String,
    /// As messages name it.
    pub described: String,
}

/// One CRD the command generates types for.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalKind {
    /// The CRD.
    pub crd: Crd,
    /// The versions to generate, with their types.
    pub versions: Vec<(String, Generated)>,
    /// The version the controller is for (with `--controller`).
    pub controller_version: Option<String>,
}

/// A valid `create api --external`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalRequest {
    /// Where the CRD came from.
    pub origin: Origin,
    /// The kinds, in the source's order.
    pub kinds: Vec<ExternalKind>,
    /// Overwrite files that exist.
    pub force: bool,
}

/// The `--version` keyword that takes every served version.
pub const ALL_VERSIONS: &str = "all";

/// Checks `args` and the CRD text `text` from `origin` against the rules and `project`.
pub fn validate(
    args: &CreateApiArgs,
    project: &ProjectFile,
    origin: &Origin,
    text: &str,
) -> Result<ExternalRequest, Error> {
    check_flags(args)?;
    let crds = typegen::parse_crds(text).map_err(|error| ExternalError::Crd {
        origin: origin.described.clone(),
        error,
    })?;
    let available: Vec<String> = crds
        .iter()
        .map(|c| format!("{} ({})", c.kind, c.group))
        .collect();
    let chosen: Vec<Crd> = crds
        .into_iter()
        .filter(|c| {
            let group_matches = args.group.is_empty()
                || c.group == args.group
                || split_group(&c.group).0 == args.group;
            group_matches && (args.kind.is_empty() || c.kind == args.kind)
        })
        .collect();
    if chosen.is_empty() {
        let mut wanted = Vec::new();
        if !args.kind.is_empty() {
            wanted.push(format!("kind {}", args.kind));
        }
        if !args.group.is_empty() {
            wanted.push(format!("group {}", args.group));
        }
        return Err(ExternalError::NoMatch {
            origin: origin.described.clone(),
            wanted: wanted.join(" and "),
            available: available.join(", "),
        }
        .into());
    }
    let mut kinds = Vec::new();
    for crd in chosen {
        kinds.push(kind(args, project, origin, crd)?);
    }
    Ok(ExternalRequest {
        origin: origin.clone(),
        kinds,
        force: args.force,
    })
}

/// Flags of `create api` that mean nothing for a kind whose CRD decides.
fn check_flags(args: &CreateApiArgs) -> Result<(), Error> {
    let refuse = |flag: &'static str, reason: &str, fix: &str| -> Result<(), Error> {
        Err(ExternalError::Flag {
            flag,
            reason: reason.into(),
            fix: fix.into(),
        }
        .into())
    };
    if !args.resource {
        return refuse(
            "--resource=false",
            "an external kind's type is generated from its CRD, not scaffolded",
            "drop --resource=false (use --controller=false for the types alone)",
        );
    }
    if args.plural.is_some() {
        return refuse("--plural", "the CRD names the resource", "drop --plural");
    }
    if args.reconcile == ReconcileMode::StateOfWorld {
        return refuse(
            "--reconcile state-of-world",
            "a state-of-world controller is about a kind of this project",
            "scaffold the controller of your own kind with --reconcile state-of-world and add .watches::<K>() for the external kind",
        );
    }
    Ok(())
}

/// The versions to generate of `crd` and their types, checked against PROJECT.
fn kind(
    args: &CreateApiArgs,
    project: &ProjectFile,
    origin: &Origin,
    crd: Crd,
) -> Result<ExternalKind, Error> {
    validate::kind(&crd.kind).map_err(|v| Error::InvalidInput {
        flag: "--crd",
        value: origin.described.clone(),
        subject: format!("the CRD's kind {:?}", crd.kind),
        rule: v.rule,
        fix: "generate types for another CRD".into(),
    })?;
    let own_group = format!("{}.", project.domain);
    let (group_label, domain) = split_group(&crd.group);
    if project.groups().contains(&group_label) && format!("{domain}.") == own_group {
        return Err(ExternalError::Flag {
            flag: "--crd",
            reason: format!("{} is this project's own API group", crd.group),
            fix: "your own kinds are written by `kubeforge create api` (without --external)".into(),
        }
        .into());
    }
    let names = version_names(args, &crd);
    let listed = crd
        .versions
        .iter()
        .map(|v| v.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if names.is_empty() {
        return Err(ExternalError::Version {
            origin: origin.described.clone(),
            error: typegen::TypegenError::NoSuchVersion {
                crd: crd.name.clone(),
                version: args.version.clone(),
                available: listed.clone(),
            },
            fix: format!("pass --version with versions the CRD has ({listed})"),
        }
        .into());
    }
    let mut versions = Vec::new();
    for name in names {
        let generated = typegen::generate(&crd, &name).map_err(|error| ExternalError::Version {
            origin: origin.described.clone(),
            error,
            fix: format!(
                "pass --version with versions the CRD has ({listed}), or --version {ALL_VERSIONS}"
            ),
        })?;
        if let Some(existing) = project.find(group_label, &name, &crd.kind)
            && !args.force
        {
            let (how, fix) = if existing.external {
                (
                    " as an external kind".to_owned(),
                    "run `kubeforge update external` to regenerate it from a changed CRD, or pass --force to scaffold it again".to_owned(),
                )
            } else {
                (
                    " as this project's own kind".to_owned(),
                    "pick another kind; an external kind cannot share a group, version and kind with one of yours".to_owned(),
                )
            };
            return Err(ExternalError::Exists {
                group: crd.group.clone(),
                version: name,
                kind: crd.kind.clone(),
                how,
                fix,
            }
            .into());
        }
        versions.push((name, generated));
    }
    let controller_version = args.controller.unwrap_or(true).then(|| {
        let storage = crd.storage_version().map(|v| v.name.clone());
        versions
            .iter()
            .map(|(name, _)| name.clone())
            .find(|name| Some(name) == storage.as_ref())
            .unwrap_or_else(|| versions[0].0.clone())
    });
    if controller_version.is_some()
        && !args.force
        && project
            .resources
            .iter()
            .any(|r| r.external && r.group == group_label && r.kind == crd.kind && r.controller)
    {
        return Err(Error::ControllerExists {
            group: crd.group.clone(),
            version: controller_version.unwrap_or_default(),
            kind: crd.kind.clone(),
        });
    }
    Ok(ExternalKind {
        crd,
        versions,
        controller_version,
    })
}

/// The versions `--version` names: none → the storage version; `all` → every served one;
/// else the comma-separated list.
fn version_names(args: &CreateApiArgs, crd: &Crd) -> Vec<String> {
    match args.version.as_str() {
        "" => crd
            .storage_version()
            .map(|v| vec![v.name.clone()])
            .unwrap_or_default(),
        ALL_VERSIONS => crd
            .versions
            .iter()
            .filter(|v| v.served)
            .map(|v| v.name.clone())
            .collect(),
        list => list
            .split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect(),
    }
}
