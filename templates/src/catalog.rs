//! The list of embedded templates.

/// One embedded template: its name (its path under `templates/templates/` without `.hbs`)
/// and its handlebars source.
#[derive(Debug, Clone, Copy)]
pub struct Template {
    /// Name used to render it, e.g. `project/Makefile`.
    pub name: &'static str,
    /// The handlebars source.
    pub source: &'static str,
}

macro_rules! templates {
    ($($name:literal),* $(,)?) => {
        /// Every template of the crate, embedded at compile time.
        pub const TEMPLATES: &[Template] = &[
            $(Template {
                name: $name,
                source: include_str!(concat!("../templates/", $name, ".hbs")),
            }),*
        ];
    };
}

templates![
    "project/Cargo.toml",
    "project/Makefile",
    "project/Dockerfile",
    "project/dockerignore",
    "project/gitignore",
    "project/README.md",
    "project/boilerplate.txt",
    "project/src/main.rs",
    "project/src/lib.rs",
    "project/src/api/mod.rs",
    "project/src/controllers/mod.rs",
    "project/config/default/kustomization.yaml",
    "project/config/default/metrics_service.yaml",
    "project/config/default/manager_metrics_patch.yaml",
    "project/config/manager/kustomization.yaml",
    "project/config/manager/manager.yaml",
    "project/config/rbac/kustomization.yaml",
    "project/config/rbac/service_account.yaml",
    "project/config/rbac/role.yaml",
    "project/config/rbac/role_binding.yaml",
    "project/config/rbac/leader_election_role.yaml",
    "project/config/rbac/leader_election_role_binding.yaml",
    "project/config/rbac/metrics_auth_role.yaml",
    "project/config/rbac/metrics_auth_role_binding.yaml",
    "project/config/rbac/metrics_reader_role.yaml",
    "project/config/prometheus/kustomization.yaml",
    "project/config/prometheus/monitor.yaml",
    "project/config/network-policy/kustomization.yaml",
    "project/config/network-policy/allow-metrics-traffic.yaml",
    "api/module.rs",
    "api/type.rs",
    "api/controller.rs",
    "api/controller_builtin.rs",
    "api/controller_test.rs",
    "api/controller_builtin_test.rs",
    "api/controller_world.rs",
    "api/controller_world_test.rs",
    "api/sample.yaml",
    "api/crd_kustomization.yaml",
    "api/samples_kustomization.yaml",
    "api/editor_role.yaml",
    "api/viewer_role.yaml",
    "api/admin_role.yaml",
    "external/types.rs",
    "external/controller.rs",
    "external/controller_test.rs",
    "webhook/mod.rs",
    "webhook/webhook.rs",
    "webhook/defaulter.rs",
    "webhook/validator.rs",
    "webhook/conversion.rs",
    "webhook/test.rs",
    "webhook/test_object.rs",
    "webhook/test_defaulting.rs",
    "webhook/test_validation.rs",
    "webhook/test_conversion.rs",
    "webhook/config/webhook_kustomization.yaml",
    "webhook/config/webhook_kustomizeconfig.yaml",
    "webhook/config/service.yaml",
    "webhook/config/certmanager_kustomization.yaml",
    "webhook/config/certmanager_kustomizeconfig.yaml",
    "webhook/config/issuer.yaml",
    "webhook/config/certificate.yaml",
    "webhook/config/manager_webhook_patch.yaml",
    "webhook/config/crd_conversion_patch.yaml",
    "webhook/config/crd_kustomizeconfig.yaml",
    "webhook/config/default_replacements.yaml",
    "webhook/config/scope_patch.yaml",
];

#[cfg(test)]
mod tests {
    use super::TEMPLATES;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = TEMPLATES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
