//! Which kind a `group/version kind` on the command line names, and the rules a new kind of the
//! project follows so that the API server accepts its CRD and its generated files stand apart
//! from every other kind's.
//!
//! `create api --resource=false` and `create webhook` resolve a kind the same way: the
//! project's own APIs first (PROJECT, in the project's group `<group>.<domain>`), then the
//! built-in kinds k8s-openapi really has for that group and version; anything else is refused,
//! naming both places.

use crate::error::Error;
use crate::kubernetes::{self, BuiltinKind};
use crate::layout::ApiLayout;
use crate::naming;
use crate::project::{ProjectFile, Resource};

/// What a `group/version kind` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved<'a> {
    /// An API of the project (PROJECT's entry, which has `api`).
    Own(&'a Resource),
    /// A built-in kind.
    Builtin(&'static BuiltinKind),
}

/// Why a `group/version kind` names nothing: what each place has, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    /// What PROJECT has in that group (`PROJECT has batch/v1 CronJob`).
    pub own: String,
    /// What k8s-openapi has in that group and version.
    pub builtin: String,
}

/// Resolves `group/version kind`: the project's own API, else a built-in kind.
pub fn resolve<'a>(
    project: &'a ProjectFile,
    group: &str,
    version: &str,
    kind: &str,
) -> Result<Resolved<'a>, Unresolved> {
    if let Some(resource) = project.find(group, version, kind)
        && resource.api.is_some()
    {
        return Ok(Resolved::Own(resource));
    }
    match kubernetes::builtin_kind(group, version, kind) {
        Ok(builtin) => Ok(Resolved::Builtin(builtin)),
        Err(others) => Err(Unresolved {
            own: own_words(project, group, kind),
            builtin: builtin_words(group, version, kind, &others),
        }),
    }
}

/// What PROJECT has in `group`, in words.
pub fn own_words(project: &ProjectFile, group: &str, kind: &str) -> String {
    let apis: Vec<String> = project
        .resources
        .iter()
        .filter(|r| r.group == group && r.api.is_some())
        .map(|r| format!("{}/{} {}", r.group, r.version, r.kind))
        .collect();
    let full = format!("{group}.{}", project.domain);
    if apis.is_empty() {
        format!("PROJECT has no API of kind {kind} in group {full}")
    } else {
        format!("PROJECT has {} in group {full}", apis.join(", "))
    }
}

/// What k8s-openapi has in `group/version`, in words.
fn builtin_words(group: &str, version: &str, kind: &str, others: &[&str]) -> String {
    if others.is_empty() {
        let versions: Vec<&str> = kubernetes::BUILTIN_KINDS
            .iter()
            .filter(|k| k.module == group || (!k.api_group.is_empty() && k.api_group == group))
            .filter(|k| k.kind == kind)
            .map(|k| k.version)
            .collect();
        if versions.is_empty() {
            format!("k8s-openapi has no kind {kind} in a built-in group {group}")
        } else {
            format!(
                "k8s-openapi has {kind} in {group} at {}, not {version}",
                versions.join(", ")
            )
        }
    } else {
        format!("k8s-openapi's {group}/{version} has {}", others.join(", "))
    }
}

/// The other versions of `group kind` in PROJECT (with an API or a controller).
pub fn other_versions<'a>(
    project: &'a ProjectFile,
    group: &str,
    version: &str,
    kind: &str,
) -> impl Iterator<Item = &'a Resource> {
    let (group, version, kind) = (group.to_owned(), version.to_owned(), kind.to_owned());
    project
        .resources
        .iter()
        .filter(move |r| r.group == group && r.kind == kind && r.version != version)
}

/// The version the API server stores `group kind` as, among PROJECT's APIs: the hub of its
/// conversion webhook if it has one, else the version created first.
pub fn storage_version(project: &ProjectFile, group: &str, kind: &str) -> Option<String> {
    let apis = || {
        project
            .resources
            .iter()
            .filter(|r| r.group == group && r.kind == kind && r.api.is_some())
    };
    apis()
        .find(|r| r.webhooks.as_ref().is_some_and(|w| w.conversion))
        .or_else(|| apis().next())
        .map(|r| r.version.clone())
}

/// The resource (plural) name of a PROJECT entry.
pub fn plural_of(resource: &Resource) -> String {
    resource
        .plural
        .clone()
        .unwrap_or_else(|| naming::plural(&resource.kind))
}

/// A new own kind `group/version kind` with resource name `plural`: the rules it follows
/// against the project's other kinds.
pub struct NewKind<'a> {
    /// The group as given.
    pub group: &'a str,
    /// The version.
    pub version: &'a str,
    /// The kind.
    pub kind: &'a str,
    /// Its resource name.
    pub plural: &'a str,
    /// Whether its objects live in namespaces.
    pub namespaced: bool,
}

impl NewKind<'_> {
    /// Refuses the kind when the API server would refuse its CRD next to the other kinds of the
    /// group (names one of theirs uses), when its Rust types would collide with another kind's,
    /// or when one of its files is another kind's file.
    pub fn check(&self, project: &ProjectFile) -> Result<(), Error> {
        let singular = self.kind.to_ascii_lowercase();
        for other in project
            .resources
            .iter()
            .filter(|r| r.api.is_some() && !self.is(r))
        {
            if other.group == self.group && other.kind == self.kind {
                self.same_kind(other)?;
                continue;
            }
            if other.group == self.group {
                self.other_kind_of_group(other, &singular)?;
            }
            self.files_apart(project, other)?;
        }
        Ok(())
    }

    /// Whether `resource` is this kind at this version.
    fn is(&self, resource: &Resource) -> bool {
        resource.group == self.group
            && resource.version == self.version
            && resource.kind == self.kind
    }

    /// Another version of the same kind: one resource name and one scope per kind.
    fn same_kind(&self, other: &Resource) -> Result<(), Error> {
        let plural = plural_of(other);
        if plural != self.plural {
            return Err(Self::refuse(
                "--plural",
                self.plural,
                format!(
                    "the resource name {:?} of {} {}",
                    self.plural, self.kind, self.version
                ),
                format!(
                    "the resource name of every version of the kind: {} {} has {plural:?}",
                    other.kind, other.version
                ),
                format!("drop --plural, or pass --plural {plural}"),
            ));
        }
        let other_namespaced = other.api.as_ref().is_some_and(|a| a.namespaced);
        if other_namespaced != self.namespaced {
            return Err(Self::refuse(
                "--namespaced",
                if self.namespaced { "true" } else { "false" },
                format!("the scope of {} {}", self.kind, self.version),
                format!(
                    "the scope of every version of the kind: {} {} is {}",
                    other.kind,
                    other.version,
                    if other_namespaced {
                        "namespaced"
                    } else {
                        "cluster-scoped"
                    }
                ),
                format!("pass --namespaced={other_namespaced}"),
            ));
        }
        Ok(())
    }

    /// Another kind of the group: the API server keeps the kinds, list kinds, plurals and
    /// singular names of a group apart, and the version module re-exports every kind's types.
    fn other_kind_of_group(&self, other: &Resource, singular: &str) -> Result<(), Error> {
        let other_plural = plural_of(other);
        let other_singular = other.kind.to_ascii_lowercase();
        let group = format!("group {}", self.group);
        if other_singular == singular || other_plural == singular {
            return Err(Self::refuse(
                "--kind",
                self.kind,
                format!("the kind {:?} (singular name {singular:?})", self.kind),
                format!(
                    "a kind whose lower-case name no other kind of {group} uses: {} has it{}",
                    other.kind,
                    if other_singular == singular {
                        " (kinds that differ only in case share their singular name)"
                    } else {
                        " as its plural"
                    }
                ),
                format!("pick another --kind than {}", self.kind),
            ));
        }
        if other_plural == self.plural || other_singular == self.plural {
            return Err(Self::refuse(
                "--plural",
                self.plural,
                format!("the resource name {:?}", self.plural),
                format!(
                    "a name no other kind of {group} uses: {} has it (its plural {other_plural:?}, its singular {other_singular:?})",
                    other.kind
                ),
                "pass --plural with another name".into(),
            ));
        }
        for suffix in ["Spec", "Status", "List"] {
            let (a, b) = (
                format!("{}{suffix}", other.kind),
                format!("{}{suffix}", self.kind),
            );
            if a == self.kind || b == other.kind {
                return Err(Self::refuse(
                    "--kind",
                    self.kind,
                    format!("the kind {:?}", self.kind),
                    format!(
                        "a name apart from the types of the group's other kinds: {a} is {}'s {} type and {b} is {}'s",
                        other.kind,
                        suffix.to_lowercase(),
                        self.kind
                    ),
                    "pick another --kind".into(),
                ));
            }
        }
        let (mine, theirs) = (
            naming::kind_ident(self.kind),
            naming::kind_ident(&other.kind),
        );
        if mine == theirs {
            let renamed = if mine == self.kind {
                &other.kind
            } else {
                self.kind
            };
            return Err(Self::refuse(
                "--kind",
                self.kind,
                format!("the kind {:?}", self.kind),
                format!(
                    "a kind whose Rust type is its own: {renamed}'s type is named {mine} ({renamed} is a name Rust or the generated code already uses) and {} is in {group} too",
                    if mine == self.kind {
                        self.kind
                    } else {
                        &other.kind
                    }
                ),
                "pick another --kind".into(),
            ));
        }
        Ok(())
    }

    /// The files of another kind (any group): none is this kind's.
    fn files_apart(&self, project: &ProjectFile, other: &Resource) -> Result<(), Error> {
        let mine = ApiLayout::new(project.multigroup, self.group, self.version, self.kind);
        let theirs = ApiLayout::new(
            project.multigroup,
            &other.group,
            &other.version,
            &other.kind,
        );
        let pairs = [
            (mine.type_file.clone(), theirs.type_file.clone()),
            (mine.controller_file.clone(), theirs.controller_file.clone()),
            (
                mine.controller_test_file.clone(),
                theirs.controller_test_file.clone(),
            ),
            (mine.webhook_file.clone(), theirs.webhook_file.clone()),
            (
                std::path::PathBuf::from("config/samples").join(&mine.sample_file),
                std::path::PathBuf::from("config/samples").join(&theirs.sample_file),
            ),
            (
                std::path::PathBuf::from(format!("config/rbac/{}_admin_role.yaml", mine.role_stem)),
                std::path::PathBuf::from(format!(
                    "config/rbac/{}_admin_role.yaml",
                    theirs.role_stem
                )),
            ),
        ];
        if let Some((path, _)) = pairs.iter().find(|(a, b)| a == b) {
            return Err(Self::refuse(
                "--kind",
                self.kind,
                format!("{}/{} {}", self.group, self.version, self.kind),
                format!(
                    "a kind whose files are its own: {} would also be the file of {}/{} {}",
                    path.display(),
                    other.group,
                    other.version,
                    other.kind
                ),
                "pick another --kind or --group".into(),
            ));
        }
        Ok(())
    }

    fn refuse(
        flag: &'static str,
        value: &str,
        subject: String,
        rule: String,
        fix: String,
    ) -> Error {
        Error::InvalidInput {
            flag,
            value: value.to_owned(),
            subject,
            rule,
            fix,
        }
    }
}
