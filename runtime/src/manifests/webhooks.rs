//! The webhook part of `manifests`: `config/webhook/manifests.yaml` (the Mutating and
//! ValidatingWebhookConfigurations pointing at kubebuilder's `webhook-service` in `system`) and
//! `spec.conversion` in the CRDs of the kinds converted by the webhook server. Both come from the
//! builder's [`Declarations`], the same data the local installation uses.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use super::Error;
use crate::webhook::{Declarations, Endpoint};

/// Where the webhook configurations are written, relative to the output directory.
pub const WEBHOOK_MANIFESTS: &str = "webhook/manifests.yaml";

/// The documents of `config/webhook/manifests.yaml` (mutating first, as controller-gen); empty
/// when no admission webhook is registered.
pub fn webhook_documents(declarations: &Declarations) -> Vec<Value> {
    let configurations = declarations.configurations(&Endpoint::kubebuilder_service());
    let mut docs = Vec::new();
    if let Some(m) = configurations.mutating {
        docs.push(serde_json::to_value(m).expect("webhook configurations serialize"));
    }
    if let Some(v) = configurations.validating {
        docs.push(serde_json::to_value(v).expect("webhook configurations serialize"));
    }
    docs
}

/// Sets `spec.conversion` (strategy Webhook through the Service's `/convert`) on the CRD of
/// every converted kind; fails naming the kind when its CRD is not generated here (the hub
/// type is not registered with `#[kubeforge::api]`). Kinds in `failed` (group, kind), whose
/// CRDs could not be generated, are skipped.
pub fn add_conversions(
    crds: &mut [CustomResourceDefinition],
    declarations: &Declarations,
    failed: &[(String, String)],
) -> Result<(), Error> {
    let configurations = declarations.configurations(&Endpoint::kubebuilder_service());
    for (name, conversion) in configurations.conversions {
        let skipped = declarations.conversions.iter().any(|h| {
            h.crd_name() == name
                && failed
                    .iter()
                    .any(|(group, kind)| *group == h.group && *kind == h.kind)
        });
        if skipped {
            continue;
        }
        let crd = crds
            .iter_mut()
            .find(|c| c.metadata.name.as_deref() == Some(name.as_str()))
            .ok_or_else(|| {
                let hub = declarations
                    .conversions
                    .iter()
                    .find(|h| h.crd_name() == name)
                    .expect("every conversion comes from a hub");
                Error::UnknownConversionHub {
                    crd: name.clone(),
                    hub: format!("{}/{}, Kind={}", hub.group, hub.version, hub.kind),
                }
            })?;
        crd.spec.conversion = Some(conversion);
    }
    Ok(())
}

/// A warning for every converted kind whose CRD has a single version (nothing to convert).
pub fn conversion_warnings(
    crds: &[CustomResourceDefinition],
    declarations: &Declarations,
) -> Vec<String> {
    declarations
        .conversions
        .iter()
        .filter_map(|hub| {
            let crd = crds
                .iter()
                .find(|c| c.metadata.name.as_deref() == Some(hub.crd_name().as_str()))?;
            (crd.spec.versions.len() < 2).then(|| {
                format!(
                    "CRD {} has a conversion webhook but a single version ({}): add a spoke version or drop .conversion::<{}>()",
                    hub.crd_name(),
                    hub.version,
                    hub.kind
                )
            })
        })
        .collect()
}
