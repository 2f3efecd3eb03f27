//! Builds the CRDs of the scheme: one per group and kind, every version merged in, exactly one
//! storage version.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::registry::{ApiType, api_types, versions_of};

/// Why the scheme cannot be turned into CRDs.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SchemeError {
    /// More than one version of a kind is marked as the storage version.
    #[error(
        "{crd} has more than one storage version: {}; mark all but one with #[kube(storage = false)]",
        .types.join(", ")
    )]
    SeveralStorageVersions {
        /// The CRD name (`memcacheds.cache.example.com`).
        crd: String,
        /// `version (rust type)` of each colliding version.
        types: Vec<String>,
    },
    /// Several versions exist and none is the storage version.
    #[error("{crd} has no storage version among {}; mark one with #[kube(storage = true)]", .types.join(", "))]
    NoStorageVersion {
        /// The CRD name.
        crd: String,
        /// `version (rust type)` of each version.
        types: Vec<String>,
    },
    /// Two Rust types declare the same group/version/kind.
    #[error("{gvk} is declared twice: by {first} and by {second}")]
    DuplicateVersion {
        /// `group/version, Kind=kind`.
        gvk: String,
        /// The first Rust type.
        first: String,
        /// The second Rust type.
        second: String,
    },
    /// Versions of one kind disagree on a CRD-wide setting.
    #[error("the versions of {crd} disagree on {what}: {}", .types.join(", "))]
    Inconsistent {
        /// The CRD name.
        crd: String,
        /// `scope`, `plural`, ...
        what: String,
        /// `version (rust type): value` for each version.
        types: Vec<String>,
    },
    /// kube could not render the type's schema (it panicked, e.g. on conflicting enum variants).
    #[error("cannot generate a CRD for {rust_type}: {message}")]
    Unrenderable {
        /// The Rust root type.
        rust_type: String,
        /// kube's message.
        message: String,
    },
}

fn label(t: &ApiType) -> String {
    format!("{} ({})", t.version(), t.rust_type())
}

/// Runs kube's `crd()` for one type, turning a panic into an error.
fn render(t: &ApiType) -> Result<CustomResourceDefinition, SchemeError> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(|| t.crd()));
    std::panic::set_hook(previous);
    result.map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| {
                panic
                    .downcast_ref::<&str>()
                    .map(std::string::ToString::to_string)
            })
            .unwrap_or_else(|| "kube's schema generation panicked".into());
        SchemeError::Unrenderable {
            rust_type: t.rust_type().into(),
            message,
        }
    })
}

/// The CRD of one kind with all its registered versions merged (versions sorted by name).
pub fn crd_for(group: &str, kind: &str) -> Result<CustomResourceDefinition, SchemeError> {
    merge(&versions_of(group, kind))
}

pub(crate) fn merge(types: &[&ApiType]) -> Result<CustomResourceDefinition, SchemeError> {
    let rendered = types
        .iter()
        .map(|t| render(t).map(|crd| (*t, crd)))
        .collect::<Result<Vec<_>, _>>()?;
    let Some((_, first)) = rendered.first() else {
        return Err(SchemeError::Unrenderable {
            rust_type: "<none>".into(),
            message: "no registered version".into(),
        });
    };
    let crd_name = first.metadata.name.clone().unwrap_or_default();
    for pair in types.windows(2) {
        if pair[0].version() == pair[1].version() {
            return Err(SchemeError::DuplicateVersion {
                gvk: format!(
                    "{}/{}, Kind={}",
                    pair[0].group(),
                    pair[0].version(),
                    pair[0].kind()
                ),
                first: pair[0].rust_type().into(),
                second: pair[1].rust_type().into(),
            });
        }
    }
    let check_same = |what: &str, get: &dyn Fn(&CustomResourceDefinition) -> String| {
        let values: Vec<_> = rendered.iter().map(|(t, c)| (label(t), get(c))).collect();
        if values.iter().any(|(_, v)| v != &values[0].1) {
            return Err(SchemeError::Inconsistent {
                crd: crd_name.clone(),
                what: what.into(),
                types: values
                    .into_iter()
                    .map(|(l, v)| format!("{l}: {v}"))
                    .collect(),
            });
        }
        Ok(())
    };
    check_same("scope", &|c| c.spec.scope.clone())?;
    check_same("plural", &|c| c.spec.names.plural.clone())?;
    check_same("singular", &|c| {
        c.spec.names.singular.clone().unwrap_or_default()
    })?;

    let storage: Vec<_> = rendered
        .iter()
        .filter(|(_, c)| c.spec.versions.iter().any(|v| v.storage))
        .map(|(t, _)| label(t))
        .collect();
    let single = rendered.len() == 1;
    if storage.len() > 1 {
        return Err(SchemeError::SeveralStorageVersions {
            crd: crd_name,
            types: storage,
        });
    }
    if storage.is_empty() && !single {
        return Err(SchemeError::NoStorageVersion {
            crd: crd_name,
            types: rendered.iter().map(|(t, _)| label(t)).collect(),
        });
    }

    let storage_index = rendered
        .iter()
        .position(|(_, c)| c.spec.versions.iter().any(|v| v.storage))
        .unwrap_or(0);
    let mut merged = rendered[storage_index].1.clone();
    let mut versions = Vec::new();
    let mut labels = BTreeMap::new();
    let mut annotations = BTreeMap::new();
    let mut short_names = Vec::new();
    let mut categories = Vec::new();
    for (i, (_, crd)) in rendered.iter().enumerate() {
        labels.extend(crd.metadata.labels.clone().unwrap_or_default());
        annotations.extend(crd.metadata.annotations.clone().unwrap_or_default());
        short_names.extend(crd.spec.names.short_names.clone().unwrap_or_default());
        categories.extend(crd.spec.names.categories.clone().unwrap_or_default());
        for mut v in crd.spec.versions.clone() {
            // A single version is always the storage version (as controller-gen does).
            v.storage = i == storage_index;
            versions.push(v);
        }
    }
    versions.sort_by(|a, b| a.name.cmp(&b.name));
    short_names.sort();
    short_names.dedup();
    categories.sort();
    categories.dedup();
    merged.spec.versions = versions;
    merged.metadata.labels = (!labels.is_empty()).then_some(labels);
    merged.metadata.annotations = (!annotations.is_empty()).then_some(annotations);
    merged.spec.names.short_names = (!short_names.is_empty()).then_some(short_names);
    merged.spec.names.categories = (!categories.is_empty()).then_some(categories);
    Ok(merged)
}

/// The (group, kind) a CRD of the scheme is keyed by.
pub type GroupKind = (&'static str, &'static str);

/// The CRD of every kind of the scheme on its own, keyed by (group, kind): the CRD, or why it
/// cannot be built (so one broken kind does not hide the others).
pub fn crds_each() -> Vec<(GroupKind, Result<CustomResourceDefinition, SchemeError>)> {
    let mut groups: BTreeMap<GroupKind, Vec<&ApiType>> = BTreeMap::new();
    for t in api_types() {
        groups.entry((t.group(), t.kind())).or_default().push(t);
    }
    groups
        .into_iter()
        .map(|(key, types)| (key, merge(&types)))
        .collect()
}

/// Every CRD of the scheme, sorted by CRD name; the first error found otherwise.
pub fn crds() -> Result<Vec<CustomResourceDefinition>, SchemeError> {
    let mut out = crds_each()
        .into_iter()
        .map(|(_, crd)| crd)
        .collect::<Result<Vec<_>, _>>()?;
    out.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    Ok(out)
}
