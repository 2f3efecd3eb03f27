//! One claim's sync, as the real controller's `syncClaim`: an unbound claim is bound to the
//! volume it names, or to the volume pre-bound to it, or to the best match; without one it
//! gets the default class (if it names none), waits for its first consumer, has its class's
//! provisioner named (or fails to), or stays `Pending`, each with the real Event. A bound
//! claim whose volume is gone or taken is `Lost`.

use std::sync::Arc;

use serde_json::{Value, json};

use super::bind::bind;
use super::matching::{best_match, bound_to_claim, class, unsatisfied};
use super::migration;
use super::plugins;
use super::writes::{
    self, BIND_COMPLETED, BOUND_BY_CONTROLLER, PROVISIONER, annotate, annotated, claim_status,
    event, put_claim,
};
use crate::endpoints::hooks::Client;

const KIND: &str = "PersistentVolumeClaim";
/// The node the scheduler chose for a claim that waited for its first consumer.
const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";

/// Syncs claim `ns`/`name`. `loud`: the claim itself changed, so the Events of a claim
/// left `Pending` are recorded (again), as on each of the real controller's syncs; a claim
/// synced because something else changed records them only when its state changes.
pub fn sync(client: &mut dyn Client, ns: &str, name: &str, loud: bool) {
    let Some(claim) = writes::claim(client, ns, name) else {
        return;
    };
    let claim = migration::claim(client, claim);
    if annotated(&claim, BIND_COMPLETED) {
        sync_bound(client, &claim);
    } else if let Some(volume) = claim["spec"]["volumeName"]
        .as_str()
        .filter(|v| !v.is_empty())
    {
        sync_named(client, &claim, volume, loud);
    } else {
        sync_unbound(client, &claim, loud);
    }
}

/// A claim bound before.
fn sync_bound(client: &mut dyn Client, claim: &Arc<Value>) {
    let lost = |client: &mut dyn Client, reason: &str, message: &str| {
        if claim["status"]["phase"] != "Lost" {
            let updated = claim_status(client, claim, "Lost", None);
            event(client, &updated, KIND, true, reason, message);
        }
    };
    let named = claim["spec"]["volumeName"].as_str().unwrap_or_default();
    if named.is_empty() {
        let message =
            "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!";
        return lost(client, "ClaimLost", message);
    }
    let Some(volume) = writes::volume(client, named) else {
        let message = "Bound claim has lost its PersistentVolume. Data on the volume is lost!";
        return lost(client, "ClaimLost", message);
    };
    let reference = &volume["spec"]["claimRef"];
    if !reference.is_object() || reference["uid"] == claim["metadata"]["uid"] {
        bind(client, &volume, claim);
    } else {
        let message = "Two claims are bound to the same volume, this one is bound incorrectly";
        lost(client, "ClaimMisbound", message);
    }
}

/// An unbound claim that names its volume.
fn sync_named(client: &mut dyn Client, claim: &Arc<Value>, named: &str, loud: bool) {
    let Some(volume) = writes::volume(client, named) else {
        claim_status(client, claim, "Pending", None);
        return;
    };
    if !volume["spec"]["claimRef"].is_object() {
        match unsatisfied(&volume, claim) {
            Some(why) => {
                if loud {
                    let message = format!("Cannot bind to requested volume {named:?}: {why}");
                    event(client, claim, KIND, true, "VolumeMismatch", &message);
                }
                claim_status(client, claim, "Pending", None);
            }
            None => bind(client, &volume, claim),
        }
    } else if bound_to_claim(&volume, claim) {
        bind(client, &volume, claim);
    } else if !annotated(claim, BOUND_BY_CONTROLLER) {
        if loud {
            let message = format!("volume {named:?} already bound to a different claim.");
            event(client, claim, KIND, true, "FailedBinding", &message);
        }
        claim_status(client, claim, "Pending", None);
    }
}

/// Whether binding waits for the claim's first consumer: its class says
/// `WaitForFirstConsumer` and no node was chosen for it.
fn delays(client: &dyn Client, claim: &Value) -> bool {
    if annotated(claim, SELECTED_NODE) {
        return false;
    }
    let name = class(claim);
    !name.is_empty()
        && writes::class(client, name)
            .is_some_and(|c| c["volumeBindingMode"] == "WaitForFirstConsumer")
}

/// An unbound claim that names no volume.
fn sync_unbound(client: &mut dyn Client, claim: &Arc<Value>, loud: bool) {
    let delay = delays(client, claim);
    let volumes = writes::volumes(client);
    if let Some(volume) = best_match(claim, &volumes, delay) {
        let volume = Arc::new(volume.clone());
        return bind(client, &volume, claim);
    }
    let classless = claim["spec"]["storageClassName"].is_null()
        && !annotated(claim, "volume.beta.kubernetes.io/storage-class");
    if classless && let Some(default) = writes::default_class(client) {
        let mut next = (**claim).clone();
        next["spec"]["storageClassName"] = json!(default);
        let updated = put_claim(client, claim, next);
        return sync_unbound(client, &updated, true);
    }
    if delay {
        if loud {
            let (reason, message) = waiting(client, claim);
            event(client, claim, KIND, false, reason, &message);
        }
    } else if !class(claim).is_empty() {
        return provision(client, claim, loud);
    } else if loud {
        let message = "no persistent volumes available for this claim and no storage class is set";
        event(client, claim, KIND, false, "FailedBinding", message);
    }
    claim_status(client, claim, "Pending", None);
}

/// The Event of a claim waiting for its first consumer: the pods of its namespace that use
/// it and are not scheduled, when there are some.
fn waiting(client: &dyn Client, claim: &Value) -> (&'static str, String) {
    let ns = claim["metadata"]["namespace"].as_str().unwrap_or_default();
    let name = writes::name(claim);
    let pods: Vec<String> = client
        .store()
        .bucket("/pods")
        .into_iter()
        .flatten()
        .filter(|((n, _), pod)| {
            n == ns
                && pod["spec"]["nodeName"].as_str().is_none_or(str::is_empty)
                && pod["spec"]["volumes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|v| v["persistentVolumeClaim"]["claimName"] == name)
        })
        .map(|((_, p), _)| p.clone())
        .collect();
    match pods.as_slice() {
        [] => (
            "WaitForFirstConsumer",
            "waiting for first consumer to be created before binding".to_string(),
        ),
        [pod] => (
            "WaitForPodScheduled",
            format!("waiting for pod {pod} to be scheduled"),
        ),
        _ => (
            "WaitForPodScheduled",
            format!("waiting for pods {} to be scheduled", pods.join(",")),
        ),
    }
}

/// A claim of a class and no volume: its class's provisioner is named on it and waited
/// for, or provisioning fails (no such class, no such in-tree plugin).
fn provision(client: &mut dyn Client, claim: &Arc<Value>, loud: bool) {
    let name = class(claim).to_string();
    let Some(sc) = writes::class(client, &name) else {
        if loud {
            let message = format!("storageclass.storage.k8s.io {name:?} not found");
            event(client, claim, KIND, true, "ProvisioningFailed", &message);
        }
        return;
    };
    let provisioner = sc["provisioner"].as_str().unwrap_or_default();
    let outcome = plugins::provisioner(provisioner);
    let named = match &outcome {
        Ok(external) => Some(external.as_str()),
        Err(_) => plugins::names_itself(provisioner).then_some(provisioner),
    };
    let mut claim = claim.clone();
    let mut changed = false;
    if let Some(named) = named
        && claim["metadata"]["annotations"][PROVISIONER[1]] != named
    {
        let mut next = (*claim).clone();
        for key in PROVISIONER {
            annotate(&mut next, key, named);
        }
        claim = put_claim(client, &claim, next);
        changed = true;
    }
    if !(loud || changed) {
        return;
    }
    match outcome {
        Ok(external) => {
            let message = format!(
                "Waiting for a volume to be created either by the external provisioner '{external}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered."
            );
            event(
                client,
                &claim,
                KIND,
                false,
                "ExternalProvisioning",
                &message,
            );
        }
        Err(message) => event(client, &claim, KIND, true, "ProvisioningFailed", &message),
    }
}
