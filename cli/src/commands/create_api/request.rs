//! The validate stage of `create api`: the flags checked against kubebuilder's rules and the
//! project, as an [`ApiRequest`] that knows what the command scaffolds for.

use crate::cli::{CreateApiArgs, ReconcileMode};
use crate::error::Error;
use crate::kubernetes::{self, BuiltinGroup};
use crate::naming;
use crate::project::{ProjectFile, Resource};
use crate::validate;

/// What type the controller (and API) is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A type of this project (a CRD).
    Own {
        /// The full API group (`cache.example.com`).
        api_group: String,
        /// The resource (plural) name.
        plural: String,
        /// Whether objects live in namespaces.
        namespaced: bool,
    },
    /// A built-in Kubernetes kind from k8s-openapi.
    Builtin(BuiltinGroup),
}

/// A valid `create api`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiRequest {
    /// The group as given (without the domain).
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// Scaffold the type.
    pub resource: bool,
    /// Scaffold the controller.
    pub controller: bool,
    /// Overwrite files that exist.
    pub force: bool,
    /// How the controller reconciles.
    pub reconcile: ReconcileMode,
    /// What the command scaffolds for.
    pub target: Target,
    /// PROJECT's entry for this group/version/kind, if any.
    pub existing: Option<Resource>,
    /// Warnings about the input that do not stop the command.
    pub warnings: Vec<String>,
}

/// Checks `args` against the rules and `project`.
pub fn validate(args: &CreateApiArgs, project: &ProjectFile) -> Result<ApiRequest, Error> {
    if !args.resource && !args.controller {
        return Err(Error::NothingToDo);
    }
    let warnings = check_names(args)?;
    let existing = project
        .find(&args.group, &args.version, &args.kind)
        .cloned();
    let target = resolve_target(args, project, existing.as_ref())?;
    check_reconcile_mode(args, &target)?;
    if args.controller && !args.force && existing.as_ref().is_some_and(|r| r.controller) {
        return Err(Error::ControllerExists {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
        });
    }
    Ok(ApiRequest {
        group: args.group.clone(),
        version: args.version.clone(),
        kind: args.kind.clone(),
        resource: args.resource,
        controller: args.controller,
        force: args.force,
        reconcile: args.reconcile,
        target,
        existing,
        warnings,
    })
}

/// Checks version, kind and group against kubebuilder's rules (the group's full form is checked
/// once the domain is known); returns the warnings.
fn check_names(args: &CreateApiArgs) -> Result<Vec<String>, Error> {
    let mut warnings = Vec::new();
    validate::dns1123_label(&args.version).map_err(|v| Error::InvalidInput {
        flag: "--version",
        value: args.version.clone(),
        subject: format!("the version {:?}", args.version),
        rule: v.rule,
        fix: "pass a version such as --version v1alpha1, v1beta1 or v1".into(),
    })?;
    if !validate::is_kube_version(&args.version) {
        warnings.push(format!(
            "version {:?} is not of the form v1, v1beta1 or v2alpha3, so Kubernetes sorts it after every such version (alphabetically) when choosing the preferred version",
            args.version
        ));
    }
    validate::kind(&args.kind).map_err(|v| Error::InvalidInput {
        flag: "--kind",
        value: args.kind.clone(),
        subject: format!("the kind {:?}", args.kind),
        rule: v.rule,
        fix: "pass a CamelCase kind such as --kind Memcached".into(),
    })?;
    if args.group.is_empty() {
        return Err(Error::InvalidInput {
            flag: "--group",
            value: String::new(),
            subject: "the group".into(),
            rule: "non-empty".into(),
            fix: "pass a group such as --group cache".into(),
        });
    }
    Ok(warnings)
}

/// `--reconcile state-of-world` scaffolds a controller of this project's own kind (built-in
/// kinds join its world with `.watches::<K>()`).
fn check_reconcile_mode(args: &CreateApiArgs, target: &Target) -> Result<(), Error> {
    if args.reconcile != ReconcileMode::StateOfWorld {
        return Ok(());
    }
    let invalid = |subject: &str, rule: &str, fix: &str| Error::InvalidInput {
        flag: "--reconcile",
        value: "state-of-world".into(),
        subject: subject.into(),
        rule: rule.into(),
        fix: fix.into(),
    };
    if !args.controller {
        return Err(invalid(
            "the reconcile mode",
            "used with a controller",
            "drop --controller=false, or drop --reconcile",
        ));
    }
    if let Target::Builtin(_) = target {
        return Err(invalid(
            &format!(
                "a state-of-world controller of the built-in kind {}",
                args.kind
            ),
            "about a kind of this project",
            "scaffold your own kind with --reconcile state-of-world and add .watches::<K>() for the built-in kinds it relates, or use --reconcile per-object",
        ));
    }
    Ok(())
}

/// Decides what the command scaffolds for: a new or existing type of this project, or a
/// built-in kind; applies the existing-resource and single-group rules.
fn resolve_target(
    args: &CreateApiArgs,
    project: &ProjectFile,
    existing: Option<&Resource>,
) -> Result<Target, Error> {
    if args.resource {
        let api_group = format!("{}.{}", args.group, project.domain);
        validate::dns1123_subdomain(&api_group).map_err(|v| Error::InvalidInput {
            flag: "--group",
            value: args.group.clone(),
            subject: format!("the API group {api_group:?} (<group>.<domain>)"),
            rule: v.rule,
            fix: "pass a lower-case group such as --group cache".into(),
        })?;
        let plural = args
            .plural
            .clone()
            .unwrap_or_else(|| naming::plural(&args.kind));
        validate::dns1035_label(&plural).map_err(|v| Error::InvalidInput {
            flag: "--plural",
            value: plural.clone(),
            subject: format!("the resource name {plural:?}"),
            rule: v.rule,
            fix: "pass a lower-case plural such as --plural memcacheds".into(),
        })?;
        if !args.force && existing.is_some_and(|r| r.api.is_some()) {
            return Err(Error::ResourceExists {
                group: args.group.clone(),
                version: args.version.clone(),
                kind: args.kind.clone(),
            });
        }
        if !project.multigroup
            && let Some(other) = project.groups().into_iter().find(|g| *g != args.group)
        {
            return Err(Error::SecondGroup {
                existing: other.to_owned(),
                new: args.group.clone(),
            });
        }
        return Ok(Target::Own {
            api_group,
            plural,
            namespaced: args.namespaced,
        });
    }
    if let Some(resource) = existing
        && let Some(api) = &resource.api
    {
        return Ok(Target::Own {
            api_group: format!("{}.{}", resource.group, project.domain),
            plural: resource
                .plural
                .clone()
                .unwrap_or_else(|| naming::plural(&resource.kind)),
            namespaced: api.namespaced,
        });
    }
    kubernetes::builtin_group(&args.group)
        .map(Target::Builtin)
        .ok_or_else(|| Error::UnknownKind {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
        })
}
