//! The validate stage of `create api`: the flags checked against kubebuilder's rules and the
//! project, as an [`ApiRequest`] that knows what the command scaffolds for.

use crate::cli::{CreateApiArgs, ReconcileMode};
use crate::error::Error;
use crate::kinds::{self, NewKind, Resolved};
use crate::kubernetes::BuiltinKind;
use crate::layout::ApiLayout;
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
        /// The version the API server stores the kind as (this one for a kind's first version).
        storage_version: String,
    },
    /// A built-in Kubernetes kind from k8s-openapi.
    Builtin(&'static BuiltinKind),
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
    /// The version of the kind that has a controller already, when it is not this one and
    /// this command scaffolds none (the report says so).
    pub controller_elsewhere: Option<String>,
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
    if !args.resource && args.controller == Some(false) {
        return Err(Error::NothingToDo);
    }
    let mut warnings = check_names(args)?;
    let existing = project
        .find(&args.group, &args.version, &args.kind)
        .cloned();
    let elsewhere = kinds::other_versions(project, &args.group, &args.version, &args.kind)
        .find(|r| r.controller)
        .map(|r| r.version.clone());
    let controller = match (args.controller, &elsewhere) {
        (Some(controller), _) => controller,
        (None, Some(_)) => false,
        (None, None) => true,
    };
    if controller
        && !args.force
        && let Some(version) = &elsewhere
    {
        let layout = ApiLayout::new(project.multigroup, &args.group, version, &args.kind);
        return Err(Error::ControllerOfKindExists {
            kind: args.kind.clone(),
            version: args.version.clone(),
            existing: version.clone(),
            file: layout.controller_file.display().to_string(),
        });
    }
    if !args.resource && !controller {
        return Err(Error::NothingToDo);
    }
    let target = resolve_target(args, project, existing.as_ref())?;
    if let Target::Builtin(builtin) = target
        && !builtin.in_every_supported_version()
    {
        warnings.push(format!(
            "k8s-openapi has {}/{} {} only for Kubernetes 1.{} to 1.{}: the project builds only when its --k8s-version is among them",
            args.group, args.version, args.kind, builtin.minors.0, builtin.minors.1
        ));
    }
    check_reconcile_mode(args, controller, &target)?;
    if controller && !args.force && existing.as_ref().is_some_and(|r| r.controller) {
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
        controller,
        controller_elsewhere: elsewhere.filter(|_| !controller),
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
    check_version(&args.version)?;
    if !validate::is_kube_version(&args.version) {
        warnings.push(format!(
            "version {:?} is not of the form v1, v1beta1 or v2alpha3, so Kubernetes sorts it after every such version (alphabetically) when choosing the preferred version",
            args.version
        ));
    }
    check_kind(&args.kind, "pass a CamelCase kind such as --kind Memcached")?;
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

/// A version: a DNS-1035 label (what the API server accepts as a CRD version). Every such
/// label names a module: a keyword is raw (`r#type`), and `self`, `super`, `crate` and `mod`
/// get a `_` (`src/api/self_`; see [`naming::module_ident`]).
pub fn check_version(version: &str) -> Result<(), Error> {
    validate::dns1035_label(version).map_err(|v| Error::InvalidInput {
        flag: "--version",
        value: version.to_owned(),
        subject: format!("the version {version:?}"),
        rule: v.rule,
        fix: "pass a version such as --version v1, v1beta1 or v2alpha3".into(),
    })
}

/// A kind: CamelCase (kubebuilder's rule). Every such kind has a Rust type: a kind that is a
/// keyword (`Self`) or a name the generated code uses gets `<Kind>Resource`
/// ([`naming::kind_ident`]).
pub fn check_kind(kind: &str, fix: &str) -> Result<(), Error> {
    validate::kind(kind).map_err(|v| Error::InvalidInput {
        flag: "--kind",
        value: kind.to_owned(),
        subject: format!("the kind {kind:?}"),
        rule: v.rule,
        fix: fix.into(),
    })
}

/// `--reconcile state-of-world` scaffolds a controller of this project's own kind (built-in
/// kinds join its world with `.watches::<K>()`).
fn check_reconcile_mode(
    args: &CreateApiArgs,
    controller: bool,
    target: &Target,
) -> Result<(), Error> {
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
    if !controller {
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
/// built-in kind; applies the existing-resource, single-group and naming rules.
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
        let other_version = kinds::other_versions(project, &args.group, &args.version, &args.kind)
            .find(|r| r.api.is_some());
        let plural = match (&args.plural, other_version) {
            (Some(plural), _) => plural.clone(),
            (None, Some(other)) => kinds::plural_of(other),
            (None, None) => naming::plural(&args.kind),
        };
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
        NewKind {
            group: &args.group,
            version: &args.version,
            kind: &args.kind,
            plural: &plural,
            namespaced: args.namespaced,
        }
        .check(project)?;
        let storage_version = kinds::storage_version(project, &args.group, &args.kind)
            .filter(|v| *v != args.version)
            .unwrap_or_else(|| args.version.clone());
        return Ok(Target::Own {
            api_group,
            plural,
            namespaced: args.namespaced,
            storage_version,
        });
    }
    match kinds::resolve(project, &args.group, &args.version, &args.kind) {
        Ok(Resolved::Own(resource)) => Ok(Target::Own {
            api_group: format!("{}.{}", resource.group, project.domain),
            plural: kinds::plural_of(resource),
            namespaced: resource.api.as_ref().is_some_and(|a| a.namespaced),
            storage_version: kinds::storage_version(project, &args.group, &args.kind)
                .unwrap_or_else(|| args.version.clone()),
        }),
        Ok(Resolved::Builtin(builtin)) if builtin.listable => Ok(Target::Builtin(builtin)),
        Ok(Resolved::Builtin(builtin)) => Err(Error::InvalidInput {
            flag: "--kind",
            value: args.kind.clone(),
            subject: format!("the built-in kind {}", args.kind),
            rule: format!(
                "a kind a controller can list and watch ({} is a subresource of another kind)",
                builtin.kind
            ),
            fix: "scaffold a controller for the kind it belongs to (e.g. --kind Pod for Eviction)"
                .into(),
        }),
        Err(unresolved) => Err(Error::UnknownKind {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
            own: unresolved.own,
            builtin: unresolved.builtin,
        }),
    }
}
