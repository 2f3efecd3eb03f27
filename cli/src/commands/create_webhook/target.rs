//! Which type a webhook is for: an API of the project (a CRD kind at one version) or a built-in
//! Kubernetes kind, with every name and path the scaffold needs about it.

use std::path::PathBuf;

use crate::error::Error;
use crate::kinds::{self, Resolved};
use crate::kubernetes::BuiltinKind;
use crate::layout::ApiLayout;
use crate::naming;
use crate::project::{ProjectFile, Resource};

/// A kind at one version, as the scaffold refers to it.
#[derive(Debug, Clone)]
pub struct Target {
    /// A built-in kind (k8s-openapi type) rather than one of the project's APIs.
    pub builtin: bool,
    /// The group as given on the command line (`cache`, `core`).
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// Full API group (`cache.example.com`, `apps`, `` for core).
    pub api_group: String,
    /// `apiVersion` of its objects.
    pub api_version: String,
    /// Resource (plural) name.
    pub plural: String,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Module of the type relative to the crate root (`api::v1`); empty for built-in kinds.
    pub type_module: String,
    /// The type's path from inside the crate (`crate::api::v1::Memcached`,
    /// `k8s_openapi::api::core::v1::Pod`).
    pub type_path: String,
    /// The type file (`src/api/v1/memcached.rs`); `None` for built-in kinds.
    pub type_file: Option<PathBuf>,
    /// The folder of the version's modules (`src/api/v1`); `None` for built-in kinds.
    pub api_dir: Option<PathBuf>,
    /// The sample under config/samples (`cache_v1_memcached.yaml`).
    pub sample_file: String,
}

impl Target {
    /// The project's own API `group/version kind` (its PROJECT entry is `resource`).
    pub fn own(project: &ProjectFile, resource: &Resource, namespaced: bool) -> Self {
        let layout = ApiLayout::new(
            project.multigroup,
            &resource.group,
            &resource.version,
            &resource.kind,
        );
        let api_group = format!("{}.{}", resource.group, project.domain);
        Target {
            builtin: false,
            group: resource.group.clone(),
            version: resource.version.clone(),
            kind: resource.kind.clone(),
            api_version: format!("{api_group}/{}", resource.version),
            api_group,
            plural: resource
                .plural
                .clone()
                .unwrap_or_else(|| naming::plural(&resource.kind)),
            namespaced,
            type_path: format!(
                "crate::{}::{}",
                layout.type_module,
                naming::kind_ident(&resource.kind)
            ),
            type_module: layout.type_module,
            type_file: Some(layout.type_file),
            api_dir: Some(layout.api_dir),
            sample_file: layout.sample_file,
        }
    }

    /// The built-in kind `builtin`, as `group` named its group (`core`, `apps`, ...).
    pub fn builtin(group: &str, builtin: &BuiltinKind) -> Self {
        let version = builtin.version;
        let api_version = if builtin.api_group.is_empty() {
            version.to_owned()
        } else {
            format!("{}/{version}", builtin.api_group)
        };
        Target {
            builtin: true,
            group: group.to_owned(),
            version: version.to_owned(),
            kind: builtin.kind.to_owned(),
            api_group: builtin.api_group.to_owned(),
            api_version,
            plural: builtin.plural.to_owned(),
            namespaced: builtin.namespaced(),
            type_module: String::new(),
            type_path: builtin.type_path(),
            type_file: None,
            api_dir: None,
            sample_file: ApiLayout::new(false, group, version, builtin.kind).sample_file,
        }
    }

    /// The module the type is in, as the project's own files import from it
    /// (`crate::api::v1`, `k8s_openapi::api::core::v1`).
    pub fn import_module(&self) -> String {
        self.type_path
            .rsplit_once("::")
            .map_or_else(String::new, |(module, _)| module.to_owned())
    }

    /// The type's path where modules of any name may be in scope (`crate::api::v1::Memcached`,
    /// `::k8s_openapi::api::core::v1::Pod`).
    pub fn absolute_type_path(&self) -> String {
        if self.builtin {
            format!("::{}", self.type_path)
        } else {
            self.type_path.clone()
        }
    }

    /// The module the type is in, as a test of the project imports from it
    /// (`::demo::api::v1`, `k8s_openapi::api::core::v1`).
    pub fn test_import_module(&self, crate_name: &str) -> String {
        let module = self.import_module();
        match module.strip_prefix("crate::") {
            Some(rest) => format!("::{crate_name}::{rest}"),
            None => module,
        }
    }
}

/// Resolves `group/version kind` as `create api` does: an API of the project (PROJECT has it
/// with `api`), else a built-in kind k8s-openapi has, else the refusal naming both places.
pub fn resolve(
    project: &ProjectFile,
    group: &str,
    version: &str,
    kind: &str,
) -> Result<Target, Error> {
    match kinds::resolve(project, group, version, kind) {
        Ok(Resolved::Own(resource)) => Ok(Target::own(
            project,
            resource,
            resource.api.as_ref().is_some_and(|a| a.namespaced),
        )),
        Ok(Resolved::Builtin(builtin)) => Ok(Target::builtin(group, builtin)),
        Err(unresolved) => Err(Error::NoSuchApi {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            known: unresolved.own,
            builtin: unresolved.builtin,
        }),
    }
}

/// The versions of `group kind` that PROJECT has as APIs.
pub fn api_versions(project: &ProjectFile, group: &str, kind: &str) -> Vec<String> {
    project
        .resources
        .iter()
        .filter(|r| r.group == group && r.kind == kind && r.api.is_some())
        .map(|r| r.version.clone())
        .collect()
}

/// What PROJECT has of `group kind`, in words for error messages.
pub fn known_versions(project: &ProjectFile, group: &str, kind: &str) -> String {
    let versions = api_versions(project, group, kind);
    if versions.is_empty() {
        format!("PROJECT has no API of kind {kind} in group {group}")
    } else {
        format!(
            "PROJECT has {group} {kind} at {}",
            versions
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}
