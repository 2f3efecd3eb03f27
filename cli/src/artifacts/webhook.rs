//! What `kubeforge create webhook` writes: the webhook module of a kind and its sections, the
//! conversion beside a spoke's type, the webhook test and its sections, the registry
//! `src/webhooks/mod.rs`, and the kustomize configuration of webhooks and cert-manager.

use std::path::PathBuf;

use crate::layout::ApiLayout;
use crate::scaffold::{Artifact, FixedFile, IfExists, Marker, Template};

/// `src/webhooks/mod.rs`: the webhook modules and `register`.
pub const REGISTRY: Template = Template::new("webhook/mod.rs", &["webhook-modules", "webhooks"]);
/// The head of a kind's webhook module (imports, the team label constants).
pub const MODULE: Template = Template::new("webhook/webhook.rs", &[]);
/// The defaulter section of a webhook module.
pub const DEFAULTER: Template = Template::new("webhook/defaulter.rs", &[]);
/// The validator section of a webhook module.
pub const VALIDATOR: Template = Template::new("webhook/validator.rs", &[]);
/// The hub/spoke conversion beside a spoke's type.
pub const CONVERSION: Template = Template::new("webhook/conversion.rs", &[]);
/// The head of a kind's webhook test (`start()`).
pub const TEST: Template = Template::new("webhook/test.rs", &[]);
/// The defaulting test section.
pub const TEST_DEFAULTING: Template = Template::new("webhook/test_defaulting.rs", &[]);
/// The validation test section.
pub const TEST_VALIDATION: Template = Template::new("webhook/test_validation.rs", &[]);
/// The conversion test section (one per spoke).
pub const TEST_CONVERSION: Template = Template::new("webhook/test_conversion.rs", &[]);
/// A partial of the defaulting and validation tests (the object they write); no file of its
/// own.
pub const TEST_OBJECT: Template = Template::new("webhook/test_object.rs", &[]);
/// config/webhook/kustomization.yaml.
pub const WEBHOOK_KUSTOMIZATION: Template =
    Template::new("webhook/config/webhook_kustomization.yaml", &[]);
/// config/webhook/service.yaml.
pub const SERVICE: Template = Template::new("webhook/config/service.yaml", &[]);
/// config/webhook/kustomizeconfig.yaml.
pub const WEBHOOK_KUSTOMIZECONFIG: Template =
    Template::new("webhook/config/webhook_kustomizeconfig.yaml", &[]);
/// config/certmanager/kustomization.yaml.
pub const CERTMANAGER_KUSTOMIZATION: Template =
    Template::new("webhook/config/certmanager_kustomization.yaml", &[]);
/// config/certmanager/kustomizeconfig.yaml.
pub const CERTMANAGER_KUSTOMIZECONFIG: Template =
    Template::new("webhook/config/certmanager_kustomizeconfig.yaml", &[]);
/// config/certmanager/issuer.yaml.
pub const ISSUER: Template = Template::new("webhook/config/issuer.yaml", &[]);
/// config/certmanager/certificate.yaml.
pub const CERTIFICATE: Template = Template::new("webhook/config/certificate.yaml", &[]);
/// config/default/manager_webhook_patch.yaml.
pub const MANAGER_WEBHOOK_PATCH: Template =
    Template::new("webhook/config/manager_webhook_patch.yaml", &[]);
/// config/crd/patches/webhook_in_<plural>.yaml: a CRD's conversion webhook.
pub const CRD_CONVERSION_PATCH: Template =
    Template::new("webhook/config/crd_conversion_patch.yaml", &[]);
/// config/crd/kustomizeconfig.yaml.
pub const CRD_KUSTOMIZECONFIG: Template =
    Template::new("webhook/config/crd_kustomizeconfig.yaml", &[]);
/// The cert-manager CA-injection replacements, appended to config/default/kustomization.yaml.
pub const DEFAULT_REPLACEMENTS: Template = Template::new(
    "webhook/config/default_replacements.yaml",
    &["cainjection-namespace", "cainjection-name"],
);
/// config/webhook/<kind>_<version>_<type>_scope.yaml: a namespaceSelector for a webhook on a
/// built-in kind.
pub const SCOPE_PATCH: Template = Template::new("webhook/config/scope_patch.yaml", &[]);

/// The registry's module declarations.
pub const REGISTRY_MODULES: Marker = Marker::new(&REGISTRY, "webhook-modules");
/// The registry's builder chain in `register`.
pub const REGISTRY_WEBHOOKS: Marker = Marker::new(&REGISTRY, "webhooks");
/// The targets of the namespace part of the CA injection.
pub const CAINJECTION_NAMESPACE: Marker =
    Marker::new(&DEFAULT_REPLACEMENTS, "cainjection-namespace");
/// The targets of the name part of the CA injection.
pub const CAINJECTION_NAME: Marker = Marker::new(&DEFAULT_REPLACEMENTS, "cainjection-name");

/// `src/webhooks/mod.rs`, written by the first webhook.
pub const REGISTRY_FILE: FixedFile = FixedFile::new(&REGISTRY, "src/webhooks/mod.rs");
/// `config/webhook/kustomization.yaml` (scope patches are listed in it).
pub const WEBHOOK_KUSTOMIZATION_FILE: FixedFile =
    FixedFile::new(&WEBHOOK_KUSTOMIZATION, "config/webhook/kustomization.yaml");
/// The CA-injection replacements appended to `config/default/kustomization.yaml`: their
/// markers are the replacements' own (the file's template, `init`'s, defines none).
pub const DEFAULT_REPLACEMENTS_IN_DEFAULT: FixedFile =
    FixedFile::new(&DEFAULT_REPLACEMENTS, "config/default/kustomization.yaml");
/// `config/crd/kustomizeconfig.yaml`.
pub const CRD_KUSTOMIZECONFIG_FILE: FixedFile =
    FixedFile::new(&CRD_KUSTOMIZECONFIG, "config/crd/kustomizeconfig.yaml");

/// The kustomize files every project with webhooks has, written by the first webhook.
pub const CONFIG_FILES: &[FixedFile] = &[
    WEBHOOK_KUSTOMIZATION_FILE,
    FixedFile::new(&SERVICE, "config/webhook/service.yaml"),
    FixedFile::new(
        &WEBHOOK_KUSTOMIZECONFIG,
        "config/webhook/kustomizeconfig.yaml",
    ),
    FixedFile::new(
        &CERTMANAGER_KUSTOMIZATION,
        "config/certmanager/kustomization.yaml",
    ),
    FixedFile::new(
        &CERTMANAGER_KUSTOMIZECONFIG,
        "config/certmanager/kustomizeconfig.yaml",
    ),
    FixedFile::new(&ISSUER, "config/certmanager/issuer.yaml"),
    FixedFile::new(&CERTIFICATE, "config/certmanager/certificate.yaml"),
    FixedFile::new(
        &MANAGER_WEBHOOK_PATCH,
        "config/default/manager_webhook_patch.yaml",
    ),
];

/// The webhook module of a kind at a version: written whole when new (or with `--force`); an
/// existing one gets the new sections appended, so the user's code stays.
pub fn module(layout: &ApiLayout) -> Artifact {
    Artifact::new(&MODULE, &layout.webhook_file, IfExists::Overwrite)
}

/// The webhook test of a kind: written whole when new (or with `--force`); an existing one
/// gets the new tests appended.
pub fn test(layout: &ApiLayout) -> Artifact {
    Artifact::new(&TEST, &layout.webhook_test_file, IfExists::Overwrite)
}

/// The conversion of the spoke laid out as `spoke` (beside its type).
pub fn conversion(spoke: &ApiLayout, force: bool) -> Artifact {
    Artifact::new(
        &CONVERSION,
        spoke.api_dir.join(&spoke.conversion_file_name),
        IfExists::refuse_unless(force),
    )
}

/// The CRD patch that gives the kind's CRD its conversion webhook.
pub fn crd_conversion_patch(plural: &str, force: bool) -> Artifact {
    Artifact::new(
        &CRD_CONVERSION_PATCH,
        PathBuf::from(format!("config/crd/patches/webhook_in_{plural}.yaml")),
        IfExists::keep_unless(force),
    )
}

/// The scope patch of one webhook on a built-in kind (`suffix`: `mutating` or `validating`).
pub fn scope_patch(layout: &ApiLayout, suffix: &str, force: bool) -> Artifact {
    Artifact::new(
        &SCOPE_PATCH,
        PathBuf::from("config/webhook").join(scope_patch_name(layout, suffix)),
        IfExists::keep_unless(force),
    )
}

/// The file name of a scope patch, as listed in config/webhook/kustomization.yaml.
pub fn scope_patch_name(layout: &ApiLayout, suffix: &str) -> String {
    format!(
        "{}_{}_{suffix}_scope.yaml",
        layout.kind_lower,
        crate::naming::file_stem(&layout.version)
    )
}
