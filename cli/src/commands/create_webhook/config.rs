//! The kustomize side of webhooks: config/webhook, config/certmanager, the manager patch, the
//! default kustomization's webhook entries and CA injection, the CRD conversion patch, and the
//! scope patches of webhooks on built-in kinds.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::kustomize;
use super::request::{Types, WebhookRequest};
use super::target::Target;
use super::values::Values;
use crate::artifacts::api::CRD_KUSTOMIZATION_FILE;
use crate::artifacts::project::DEFAULT_KUSTOMIZATION_FILE;
use crate::artifacts::webhook;
use crate::error::Error;
use crate::layout::ApiLayout;
use crate::scaffold::{Fragment, IfExists, Plan};

/// Plans config/webhook, config/certmanager, the manager patch, the default kustomization's
/// webhook entries and CA injection, and the CRD conversion patch.
pub fn kustomize(
    plan: &mut Plan<'_>,
    values: &Values,
    all: Types,
    conversion: bool,
    force: bool,
) -> Result<(), Error> {
    for file in webhook::CONFIG_FILES {
        plan.add(&file.artifact(IfExists::Keep), values)?;
    }

    let default = DEFAULT_KUSTOMIZATION_FILE.path;
    let replacements = webhook::CAINJECTION_NAMESPACE.line();
    let has_replacements = plan
        .current(default)?
        .is_some_and(|text| text.lines().any(|l| l.trim() == replacements));
    plan.edit(default, "resources:", |text| {
        let missing = |what: &str| Error::MarkerMissing {
            path: PathBuf::from(default),
            marker: what.to_owned(),
        };
        let text = kustomize::switch_on(text, "resources:", "- ../webhook")
            .ok_or_else(|| missing("resources:"))?;
        let text = kustomize::switch_on(&text, "resources:", "- ../certmanager")
            .ok_or_else(|| missing("resources:"))?;
        let mut text =
            kustomize::ensure_entry(&text, "patches:", "- path: manager_webhook_patch.yaml", "");
        if !has_replacements && !text.ends_with('\n') {
            text.push('\n');
        }
        Ok(text)
    })?;
    if !has_replacements {
        let appended = webhook::DEFAULT_REPLACEMENTS_IN_DEFAULT;
        plan.append(appended.path, appended.template, values)?;
    }
    let mut targets: Vec<(String, Option<String>)> = Vec::new();
    if all.defaulting {
        targets.push(("MutatingWebhookConfiguration".into(), None));
    }
    if all.validation {
        targets.push(("ValidatingWebhookConfiguration".into(), None));
    }
    if conversion {
        targets.push((
            "CustomResourceDefinition".into(),
            Some(format!("{}.{}", values.plural, values.api_group)),
        ));
    }
    let injection = webhook::DEFAULT_REPLACEMENTS_IN_DEFAULT;
    for (index, marker) in [
        (0, webhook::CAINJECTION_NAMESPACE),
        (1, webhook::CAINJECTION_NAME),
    ] {
        for (kind, name) in &targets {
            plan.insert(
                &injection.at(marker),
                Fragment::Block(injection_target(kind, name.as_deref(), index)),
            )?;
        }
    }

    if conversion {
        let patch = webhook::crd_conversion_patch(&values.plural, force);
        plan.add(&patch, values)?;
        plan.add(
            &webhook::CRD_KUSTOMIZECONFIG_FILE.artifact(IfExists::Keep),
            values,
        )?;
        let entry = patch
            .path
            .strip_prefix("config/crd")
            .unwrap_or(&patch.path)
            .display()
            .to_string();
        plan.edit(CRD_KUSTOMIZATION_FILE.path, "resources:", |text| {
            let text = kustomize::ensure_entry(
                text,
                "patches:",
                &format!("- path: {entry}"),
                "# Patches of the CRDs in bases/: `kubeforge create webhook --conversion` adds the\n# conversion webhook of each kind.\n",
            );
            Ok(kustomize::ensure_entry(
                &text,
                "configurations:",
                "- kustomizeconfig.yaml",
                "# Where CRDs name the webhook Service, so namePrefix and namespace reach it.\n",
            ))
        })?;
    }
    Ok(())
}

/// One target of the cert-manager CA-injection replacements (`index` 0: the Certificate's
/// namespace, 1: its name).
fn injection_target(kind: &str, name: Option<&str>, index: u8) -> Vec<String> {
    let mut block = vec!["- select:".to_owned(), format!("    kind: {kind}")];
    if let Some(name) = name {
        block.push(format!("    name: {name}"));
    }
    block.extend([
        "  fieldPaths:".to_owned(),
        "  - .metadata.annotations.[cert-manager.io/inject-ca-from]".to_owned(),
        "  options:".to_owned(),
        "    delimiter: '/'".to_owned(),
        format!("    index: {index}"),
        "    create: true".to_owned(),
    ]);
    block
}

/// The values of a scope patch.
#[derive(Serialize)]
struct ScopeValues<'a> {
    webhook_name: String,
    configuration_kind: &'static str,
    configuration_name: &'static str,
    namespace: String,
    kind: &'a str,
    plural: &'a str,
    domain: &'a str,
}

/// Plans, for a webhook on a built-in kind, a patch per requested type that gives the webhook
/// a namespaceSelector leaving out the operator's namespace and kube-system, listed in
/// config/webhook/kustomization.yaml. Returns the patch files with the namespace left out.
pub fn scope_patches(
    plan: &mut Plan<'_>,
    target: &Target,
    layout: &ApiLayout,
    values: &Values,
    request: &WebhookRequest,
) -> Result<Vec<(PathBuf, String)>, Error> {
    let namespace = plan
        .current(Path::new(DEFAULT_KUSTOMIZATION_FILE.path))?
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("namespace:").map(|n| n.trim().to_owned()))
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| format!("{}-system", values.project_name));
    let mut written = Vec::new();
    for (wanted, prefix, configuration_kind, configuration_name, suffix) in [
        (
            request.requested.defaulting,
            'm',
            "MutatingWebhookConfiguration",
            "mutating-webhook-configuration",
            "mutating",
        ),
        (
            request.requested.validation,
            'v',
            "ValidatingWebhookConfiguration",
            "validating-webhook-configuration",
            "validating",
        ),
    ] {
        if !wanted {
            continue;
        }
        let scope = ScopeValues {
            webhook_name: webhook_name(prefix, target),
            configuration_kind,
            configuration_name,
            namespace: namespace.clone(),
            kind: &target.kind,
            plural: &target.plural,
            domain: &values.domain,
        };
        let patch = webhook::scope_patch(layout, suffix, request.force);
        plan.add(&patch, &scope)?;
        let file = webhook::scope_patch_name(layout, suffix);
        plan.edit(
            webhook::WEBHOOK_KUSTOMIZATION_FILE.path,
            "resources:",
            |text| {
                Ok(kustomize::ensure_entry(
                    text,
                    "patches:",
                    &format!("- path: {file}"),
                    "# Narrow the webhooks on built-in kinds to the objects they are for.\n",
                ))
            },
        )?;
        written.push((patch.path, namespace.clone()));
    }
    Ok(written)
}

/// The name the runtime gives a webhook in its configuration (kubebuilder's style):
/// `m<kind>-<version>.<group>`, with `kb.io` for the core group and after a group without a
/// dot (`mpod-v1.kb.io`, `mdeployment-v1.apps.kb.io`).
fn webhook_name(prefix: char, target: &Target) -> String {
    let domain = match target.api_group.as_str() {
        "" => "kb.io".to_owned(),
        g if g.contains('.') => g.to_owned(),
        g => format!("{g}.kb.io"),
    };
    format!(
        "{prefix}{}-{}.{domain}",
        target.kind.to_lowercase(),
        target.version
    )
}
