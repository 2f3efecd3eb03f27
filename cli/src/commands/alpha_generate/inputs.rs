//! What re-scaffolding a project needs beyond PROJECT, read from its files: the license and
//! copyright line of the boilerplate, the Kubernetes version and kubeforge source of Cargo.toml,
//! which controllers are state-of-world ones, and the CRD copies of external kinds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::context::BOILERPLATE_FILE;
use crate::error::Error;
use crate::external::ExternalLayout;
use crate::layout::ApiLayout;
use crate::project::{ProjectFile, Resource};
use crate::scaffold::Tree;
use crate::source::Source;

/// The inputs of a replay of PROJECT, besides PROJECT itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayInputs {
    /// `--license apache2` (else `none`).
    pub apache2: bool,
    /// `--owner`, from the copyright line.
    pub owner: Option<String>,
    /// The year of the copyright line.
    pub year: i64,
    /// `--k8s-version`, from the k8s-openapi feature of Cargo.toml.
    pub k8s_version: String,
    /// Where the kubeforge crates come from, as Cargo.toml says.
    pub source: Source,
    /// The boilerplate as the project has it.
    pub boilerplate: Option<String>,
    /// `(group, version, kind)` of the controllers that are state-of-world ones.
    pub world_controllers: Vec<(String, String, String)>,
    /// The CRD copies of external kinds, by path.
    pub crds: BTreeMap<PathBuf, String>,
}

/// Reads the inputs from the project `tree` shows; `year` is used when the boilerplate names
/// none.
pub fn read(project: &ProjectFile, tree: &dyn Tree, year: i64) -> Result<ReplayInputs, Error> {
    let boilerplate = tree.read(Path::new(BOILERPLATE_FILE))?;
    let (apache2, owner, copyright_year) = copyright(boilerplate.as_deref());
    let cargo = tree.read(Path::new("Cargo.toml"))?.unwrap_or_default();
    let mut world_controllers = Vec::new();
    let mut crds = BTreeMap::new();
    for resource in &project.resources {
        if resource.external {
            let layout = external_layout(project, resource);
            if let Some(text) = tree.read(&layout.crd_file)? {
                crds.insert(layout.crd_file, text);
            }
            continue;
        }
        if resource.controller && resource.api.is_some() {
            let layout = ApiLayout::new(
                project.multigroup,
                &resource.group,
                &resource.version,
                &resource.kind,
            );
            let controller = tree.read(&layout.controller_file)?.unwrap_or_default();
            if controller.contains("WorldController") {
                world_controllers.push((
                    resource.group.clone(),
                    resource.version.clone(),
                    resource.kind.clone(),
                ));
            }
        }
    }
    Ok(ReplayInputs {
        apache2,
        owner,
        year: copyright_year.unwrap_or(year),
        k8s_version: k8s_version(&cargo),
        source: source(&cargo),
        boilerplate,
        world_controllers,
        crds,
    })
}

/// The layout of an external entry of PROJECT; its plural comes from the CRD copy's name, so it
/// is found by kind among the copies when the file is there.
pub fn external_layout(project: &ProjectFile, resource: &Resource) -> ExternalLayout {
    let group = if resource.domain.is_empty() {
        resource.group.clone()
    } else {
        format!("{}.{}", resource.group, resource.domain)
    };
    let plural = crate::naming::plural(&resource.kind);
    let plural = resource.plural.clone().unwrap_or(plural);
    ExternalLayout::new(
        project.multigroup,
        &group,
        &resource.version,
        &resource.kind,
        &plural,
    )
}

/// (Apache 2.0, owner, year) from the boilerplate's `Copyright <year> <owner>.` line.
fn copyright(boilerplate: Option<&str>) -> (bool, Option<String>, Option<i64>) {
    let Some(text) = boilerplate else {
        return (false, None, None);
    };
    let apache2 = text.contains("Apache License");
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Copyright "));
    let Some(line) = line else {
        return (apache2, None, None);
    };
    let (year, rest) = line.split_once(' ').unwrap_or((line, ""));
    let year = year.trim_end_matches('.');
    let owner = rest.trim().trim_end_matches('.').trim();
    (
        apache2,
        (!owner.is_empty()).then(|| owner.to_owned()),
        year.parse().ok(),
    )
}

/// `1.35` from `"v1_35"` in Cargo.toml's k8s-openapi features (the default when not found).
fn k8s_version(cargo: &str) -> String {
    cargo
        .lines()
        .filter(|l| l.trim_start().starts_with("k8s-openapi"))
        .find_map(|l| {
            let start = l.find("\"v1_")? + 4;
            let minor: String = l[start..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (!minor.is_empty()).then(|| format!("1.{minor}"))
        })
        .unwrap_or_else(|| crate::kubernetes::DEFAULT_VERSION.to_owned())
}

/// A checkout when Cargo.toml's kubeforge dependency has `path = "<checkout>/runtime"`.
fn source(cargo: &str) -> Source {
    cargo
        .lines()
        .filter(|l| l.trim_start().starts_with("kubeforge ="))
        .find_map(|l| {
            let start = l.find("path = \"")? + 8;
            let end = l[start..].find('"')? + start;
            let path = PathBuf::from(&l[start..end]);
            path.parent().map(Path::to_owned)
        })
        .map_or(Source::CratesIo, Source::Checkout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_copyright_the_version_and_the_source() {
        let boilerplate = "Copyright 2024 The Example Authors.\n\nLicensed under the Apache License, Version 2.0\n";
        assert_eq!(
            copyright(Some(boilerplate)),
            (true, Some("The Example Authors".into()), Some(2024))
        );
        assert_eq!(
            copyright(Some("Copyright 2023.\n")),
            (false, None, Some(2023))
        );
        assert_eq!(copyright(None), (false, None, None));
        let cargo = "kubeforge = { path = \"/src/kubeforge/runtime\", version = \"0.1.0\" }\nk8s-openapi = { version = \"0.29\", features = [\"std\", \"schemars\", \"v1_34\"] }\n";
        assert_eq!(k8s_version(cargo), "1.34");
        assert_eq!(
            source(cargo),
            Source::Checkout(PathBuf::from("/src/kubeforge"))
        );
        assert_eq!(
            source("kubeforge = { version = \"0.1.0\" }\n"),
            Source::CratesIo
        );
    }
}
