//! The built-in kinds of kube-apiserver v1.34 with its default feature gates: every resource and
//! subresource its discovery lists, with the scope, names, verbs, categories and storage
//! versions of the real server (`tests/embedded/parity` compares them with a
//! recording of it), and how each is kept here.
//!
//! The tables are split by API group family: [`core`] (the legacy group), [`workloads`]
//! (apps, batch, autoscaling, policy), [`access`] (authentication, authorization, RBAC,
//! certificates, admission registration, API extensions and registration, flow control) and
//! [`cluster`] (networking, storage, scheduling, node, discovery, resource, coordination,
//! events). [`scheme`] lists the kinds the real server's decoding schemes register.
//! [`validation`] holds the real server's validation of the built-in kinds.

mod access;
mod cluster;
mod core;
pub mod scheme;
mod table;
pub mod validation;
mod workloads;

use crate::support::resource::{ResourceDef, ScaleSpec, SubresourceDef, storage_version_hash};
use table::{Builtin, CREATE, Storage};

/// The named groups in the order kube-apiserver lists them (by group priority); custom
/// groups come after them, by name.
pub const GROUP_ORDER: &[&str] = &[
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "resource.k8s.io",
    "flowcontrol.apiserver.k8s.io",
];

/// Every built-in resource as a [`ResourceDef`].
pub fn builtin_resources() -> Vec<ResourceDef> {
    [
        core::RESOURCES,
        workloads::RESOURCES,
        access::RESOURCES,
        cluster::RESOURCES,
    ]
    .into_iter()
    .flatten()
    .map(to_def)
    .collect()
}

/// Whether a PUT without `metadata.resourceVersion` is accepted (the strategy's
/// `AllowUnconditionalUpdate`): it is for every built-in kind but the admission
/// configuration kinds, APIServices, CRDs, Leases, RuntimeClasses, PodDisruptionBudgets and
/// the CSI kinds of the storage group, as kube-apiserver v1.34 answers.
fn allows_unconditional_update(group: &str, plural: &str) -> bool {
    !matches!(
        (group, plural),
        (
            "admissionregistration.k8s.io",
            "mutatingwebhookconfigurations"
                | "validatingwebhookconfigurations"
                | "validatingadmissionpolicies"
                | "validatingadmissionpolicybindings"
        ) | ("apiregistration.k8s.io", "apiservices")
            | ("apiextensions.k8s.io", "customresourcedefinitions")
            | ("coordination.k8s.io", "leases")
            | ("node.k8s.io", "runtimeclasses")
            | ("policy", "poddisruptionbudgets")
            | (
                "storage.k8s.io",
                "csidrivers" | "csinodes" | "csistoragecapacities" | "volumeattachments"
            )
    )
}

fn to_def(x: &Builtin) -> ResourceDef {
    let (storage_key, hash) = match x.storage {
        Storage::Own => (
            format!("{}/{}", x.group, x.plural),
            Some(storage_version_hash(x.group, x.version, x.kind)),
        ),
        Storage::As(group, version, kind) => (
            // One storage per group and plural of the kind stored (events.k8s.io Events in
            // the core Events' storage, converted on the way).
            format!("{group}/{}", x.plural),
            Some(storage_version_hash(group, version, kind)),
        ),
        Storage::Virtual => (format!("{}/{}", x.group, x.plural), None),
    };
    ResourceDef {
        group: x.group.to_string(),
        version: x.version.to_string(),
        kind: x.kind.to_string(),
        plural: x.plural.to_string(),
        singular: x.kind.to_ascii_lowercase(),
        short_names: x
            .short_names
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
        categories: x
            .categories
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
        namespaced: x.namespaced,
        status_subresource: x.has("status"),
        scale: x.has("scale").then(|| ScaleSpec {
            spec_replicas_path: ".spec.replicas".into(),
            status_replicas_path: ".status.replicas".into(),
            label_selector_path: Some(".status.selector".into()),
        }),
        tracks_generation: x.generation,
        allow_unconditional_update: allows_unconditional_update(x.group, x.plural),
        create_only: matches!(x.storage, Storage::Virtual) && x.verbs == CREATE,
        verbs: x.verbs,
        subresources: x
            .subresources
            .iter()
            .map(|s| SubresourceDef {
                name: s.0.to_string(),
                group: s.1.to_string(),
                version: s.2.to_string(),
                kind: if s.3.is_empty() { x.kind } else { s.3 }.to_string(),
                verbs: s.4,
            })
            .collect(),
        storage_version_hash: hash,
        returns_deleted_object: x.returns_deleted,
        storage_key,
        custom: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subresources_are_listed_by_name_and_groups_are_known() {
        for def in builtin_resources() {
            let names: Vec<&str> = def.subresources.iter().map(|s| s.name.as_str()).collect();
            let mut sorted = names.clone();
            sorted.sort_unstable();
            assert_eq!(names, sorted, "{}", def.plural);
            assert!(
                def.group.is_empty() || GROUP_ORDER.contains(&def.group.as_str()),
                "{}",
                def.group
            );
        }
    }

    #[test]
    fn unconditional_updates() {
        let defs = builtin_resources();
        let allows = |g: &str, p: &str| {
            defs.iter()
                .find(|d| d.group == g && d.plural == p)
                .map(|d| d.allow_unconditional_update)
                .unwrap()
        };
        assert!(allows("", "configmaps"));
        assert!(allows("storage.k8s.io", "storageclasses"));
        assert!(!allows("storage.k8s.io", "csidrivers"));
        assert!(!allows("coordination.k8s.io", "leases"));
        assert!(!allows("apiextensions.k8s.io", "customresourcedefinitions"));
    }

    #[test]
    fn shared_storage() {
        let defs = builtin_resources();
        let key = |g: &str, v: &str, p: &str| {
            defs.iter()
                .find(|d| d.group == g && d.version == v && d.plural == p)
                .map(|d| (d.storage_key.clone(), d.storage_version_hash.clone()))
                .unwrap()
        };
        assert_eq!(
            key("events.k8s.io", "v1", "events"),
            key("", "v1", "events")
        );
        assert_eq!(
            key("autoscaling", "v1", "horizontalpodautoscalers"),
            key("autoscaling", "v2", "horizontalpodautoscalers")
        );
    }
}
