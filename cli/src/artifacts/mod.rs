//! The catalogue of everything kubeforge generates: one typed descriptor per template (which
//! markers its output defines), per generated file (its path and what to do when it exists),
//! and per marker a command inserts at.
//!
//! Commands name files and markers only through these descriptors. A marker is a constant
//! built from the template that defines it ([`Marker::new`](crate::scaffold::Marker::new) is
//! checked at compile time against the template's declared markers); the tests below check
//! the declarations against the templates' texts, and each command's unit tests check that
//! every marker it inserts at is in a template that wrote the file.
//!
//! * [`project`] — `init`'s files.
//! * [`api`] — `create api`'s files.
//! * [`webhook`] — `create webhook`'s files.
//! * [`external`] — `create api --external`'s files.

pub mod api;
pub mod external;
pub mod project;
pub mod webhook;

use crate::scaffold::Template;

/// Every template of the catalogue.
pub const TEMPLATES: &[&Template] = &[
    &project::CARGO_TOML,
    &project::MAKEFILE,
    &project::DOCKERFILE,
    &project::DOCKERIGNORE,
    &project::GITIGNORE,
    &project::README,
    &project::BOILERPLATE,
    &project::MAIN_RS,
    &project::LIB_RS,
    &project::API_MOD_RS,
    &project::CONTROLLERS_MOD_RS,
    &project::DEFAULT_KUSTOMIZATION,
    &project::METRICS_SERVICE,
    &project::MANAGER_METRICS_PATCH,
    &project::MANAGER_KUSTOMIZATION,
    &project::MANAGER,
    &project::RBAC_KUSTOMIZATION,
    &project::SERVICE_ACCOUNT,
    &project::ROLE,
    &project::ROLE_BINDING,
    &project::LEADER_ELECTION_ROLE,
    &project::LEADER_ELECTION_ROLE_BINDING,
    &project::METRICS_AUTH_ROLE,
    &project::METRICS_AUTH_ROLE_BINDING,
    &project::METRICS_READER_ROLE,
    &project::PROMETHEUS_KUSTOMIZATION,
    &project::PROMETHEUS_MONITOR,
    &project::NETWORK_POLICY_KUSTOMIZATION,
    &project::NETWORK_POLICY,
    &api::MODULE,
    &api::TYPE,
    &api::CONTROLLER,
    &api::CONTROLLER_TEST,
    &api::CONTROLLER_BUILTIN,
    &api::CONTROLLER_BUILTIN_TEST,
    &api::CONTROLLER_WORLD,
    &api::CONTROLLER_WORLD_TEST,
    &api::SAMPLE,
    &api::SAMPLES_KUSTOMIZATION,
    &api::CRD_KUSTOMIZATION,
    &api::ADMIN_ROLE,
    &api::EDITOR_ROLE,
    &api::VIEWER_ROLE,
    &webhook::REGISTRY,
    &webhook::MODULE,
    &webhook::DEFAULTER,
    &webhook::VALIDATOR,
    &webhook::CONVERSION,
    &webhook::TEST,
    &webhook::TEST_DEFAULTING,
    &webhook::TEST_VALIDATION,
    &webhook::TEST_CONVERSION,
    &webhook::TEST_OBJECT,
    &webhook::WEBHOOK_KUSTOMIZATION,
    &webhook::SERVICE,
    &webhook::WEBHOOK_KUSTOMIZECONFIG,
    &webhook::CERTMANAGER_KUSTOMIZATION,
    &webhook::CERTMANAGER_KUSTOMIZECONFIG,
    &webhook::ISSUER,
    &webhook::CERTIFICATE,
    &webhook::MANAGER_WEBHOOK_PATCH,
    &webhook::CRD_CONVERSION_PATCH,
    &webhook::CRD_KUSTOMIZECONFIG,
    &webhook::DEFAULT_REPLACEMENTS,
    &webhook::SCOPE_PATCH,
    &external::TYPES,
    &external::CONTROLLER,
    &external::CONTROLLER_TEST,
];

/// The markers a template's text holds: lines that are exactly a marker comment.
pub fn markers_in(source: &str, comment: &str) -> Vec<String> {
    let prefix = format!("{comment} +kubeforge:scaffold:");
    source
        .lines()
        .filter_map(|line| line.trim().strip_prefix(&prefix))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_template_has_one_descriptor() {
        for embedded in kubeforge_templates::TEMPLATES {
            let count = TEMPLATES.iter().filter(|t| t.name == embedded.name).count();
            assert_eq!(count, 1, "{} has {count} descriptors", embedded.name);
        }
        for template in TEMPLATES {
            assert!(
                template.source().is_some(),
                "{} is not a template of kubeforge-templates",
                template.name
            );
        }
    }

    /// The markers a descriptor declares are exactly those its template's text holds, so a
    /// marker renamed or removed in a template fails here, not in a user's project.
    #[test]
    fn declared_markers_are_the_markers_in_the_templates() {
        for template in TEMPLATES {
            let source = template.source().unwrap();
            let mut found = markers_in(source, template.comment());
            found.sort();
            let mut declared: Vec<String> =
                template.markers.iter().map(|m| (*m).to_owned()).collect();
            declared.sort();
            assert_eq!(found, declared, "markers of {}", template.name);
        }
    }
}
