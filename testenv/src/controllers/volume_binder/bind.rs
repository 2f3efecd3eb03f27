//! Binding a volume and a claim, and undoing a volume's half of a binding, in the real
//! controller's four (or two) writes: the volume's `claimRef`, its phase, the claim's
//! `volumeName` and annotations, its status.

use std::sync::Arc;

use serde_json::{Value, json};

use super::matching::bound_to_claim;
use super::writes::{
    self, BIND_COMPLETED, BOUND_BY_CONTROLLER, annotate, annotated, claim_status, put_claim,
    put_volume, volume_phase,
};
use crate::endpoints::hooks::Client;

/// The reference to `claim` a bound volume carries.
fn claim_ref(claim: &Value) -> Value {
    let m = &claim["metadata"];
    json!({"kind": "PersistentVolumeClaim", "namespace": m["namespace"], "name": m["name"],
        "uid": m["uid"], "apiVersion": "v1", "resourceVersion": m["resourceVersion"]})
}

/// Binds `volume` and `claim`: the volume names the claim (marked bound by the controller
/// unless it named the claim already) and is `Bound`; the claim names the volume (marked
/// bound by the controller unless it named the volume already), is marked bind-completed
/// and is `Bound` with the volume's access modes and capacity.
pub fn bind(client: &mut dyn Client, volume: &Arc<Value>, claim: &Arc<Value>) {
    let mut next = (**volume).clone();
    let reference = &volume["spec"]["claimRef"];
    let m = &claim["metadata"];
    if !reference.is_object()
        || reference["name"] != m["name"]
        || reference["namespace"] != m["namespace"]
        || reference["uid"] != m["uid"]
    {
        next["spec"]["claimRef"] = claim_ref(claim);
    }
    if !bound_to_claim(volume, claim) && !annotated(&next, BOUND_BY_CONTROLLER) {
        annotate(&mut next, BOUND_BY_CONTROLLER, "yes");
    }
    let volume = if next == **volume {
        volume.clone()
    } else {
        put_volume(client, volume, next)
    };
    let volume = volume_phase(client, &volume, "Bound", "");

    let volume_name = writes::name(&volume);
    let mut next = (**claim).clone();
    let named = claim["spec"]["volumeName"] == volume_name;
    if !named {
        next["spec"]["volumeName"] = json!(volume_name);
        if !annotated(&next, BOUND_BY_CONTROLLER) {
            annotate(&mut next, BOUND_BY_CONTROLLER, "yes");
        }
    }
    if !annotated(&next, BIND_COMPLETED) {
        annotate(&mut next, BIND_COMPLETED, "yes");
    }
    let claim = if next == **claim {
        claim.clone()
    } else {
        put_claim(client, claim, next)
    };
    claim_status(client, &claim, "Bound", Some(&volume));
}

/// Undoes a volume's half of a binding whose claim went elsewhere: a binding the controller
/// made loses its `claimRef` and annotation, one its author made only the claim's uid; the
/// volume is `Available` again.
pub fn unbind_volume(client: &mut dyn Client, volume: &Arc<Value>) {
    let mut next = (**volume).clone();
    if annotated(volume, BOUND_BY_CONTROLLER) {
        if let Some(spec) = next["spec"].as_object_mut() {
            spec.remove("claimRef");
        }
        if let Some(a) = next["metadata"]["annotations"].as_object_mut() {
            a.remove(BOUND_BY_CONTROLLER);
            if a.is_empty() {
                next["metadata"]
                    .as_object_mut()
                    .map(|m| m.remove("annotations"));
            }
        }
    } else {
        if let Some(r) = next["spec"]["claimRef"].as_object_mut() {
            r.remove("uid");
        }
    }
    let stored = put_volume(client, volume, next);
    volume_phase(client, &stored, "Available", "");
}
