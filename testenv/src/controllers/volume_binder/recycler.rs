//! The recycling of a released volume with the `Recycle` policy, as kube-controller-manager's
//! host-path and NFS recyclers do it: a pod `recycler-for-<volume>` in `default` scrubs the
//! volume; once it succeeds the pod is deleted, the volume is recycled (`VolumeRecycled`) and
//! `Available` again; once it fails (or is deleted) the pod is gone and the volume `Failed`
//! with `VolumeFailedRecycle`. Events about the pod are passed on to the volume
//! (`RecyclerPod`). Without nodes the pod stays `Pending`, so the volume stays `Released`
//! until a test moves the pod on, as on a real control plane without nodes.
//!
//! The real recycler runs as an operation watching its pod, and a failed volume is recycled
//! again at the controller's next resync; here the volume's sync reads the pod's state, so
//! a failed recycling starts again at once.

use std::sync::Arc;

use serde_json::{Value, json};

use super::bind::unbind_volume;
use super::writes::{self, event, volume_phase_with_event};
use crate::endpoints::delete_options::DeleteOptions;
use crate::endpoints::hooks::Client;
use crate::support::quantity::Quantity;

/// The namespace the recycler pods run in.
const NAMESPACE: &str = "default";
/// The prefix of a recycler pod's name; the volume's name follows.
const PREFIX: &str = "recycler-for-";
/// The image kube-controller-manager v1.34 scrubs volumes with.
const IMAGE: &str = "registry.k8s.io/build-image/debian-base:bookworm-v1.0.6";
/// The scrubbing script.
const SCRIPT: &str =
    "test -e /scrub && find /scrub -mindepth 1 -delete && test -z \"$(ls -A /scrub)\" || exit 1";
const PODS: &str = "/pods";

/// The volume a recycler pod `ns`/`name` works for, if the pod is one.
pub fn volume_of<'a>(ns: &str, name: &'a str) -> Option<&'a str> {
    name.strip_prefix(PREFIX)
        .filter(|v| ns == NAMESPACE && !v.is_empty())
}

/// The recycler pod's time limit: `--pv-recycler-timeout-increment-*` (30 s) per whole GiB
/// of the volume's capacity, at least `--pv-recycler-minimum-timeout-*` (60 s for a host
/// path, 300 s for NFS).
fn active_deadline(volume: &Value) -> i64 {
    let minimum = if volume["spec"]["nfs"].is_object() {
        300
    } else {
        60
    };
    // `Quantity.Value()`: the bytes, rounded up.
    let bytes = Quantity::from_json(&volume["spec"]["capacity"]["storage"])
        .map_or(0, |q| (q.nanos + 999_999_999).div_euclid(1_000_000_000));
    let whole_gib = i64::try_from(bytes / (1 << 30)).unwrap_or(i64::MAX);
    whole_gib.saturating_mul(30).max(minimum)
}

/// The pod that scrubs `volume`, as the recycler sends it.
fn pod(volume: &Value) -> Value {
    let spec = &volume["spec"];
    let source = if spec["nfs"].is_object() {
        let mut nfs = json!({"server": spec["nfs"]["server"], "path": spec["nfs"]["path"]});
        nfs.as_object_mut()
            .expect("an object")
            .retain(|_, v| !v.is_null());
        ("nfs", nfs)
    } else {
        ("hostPath", json!({"path": spec["hostPath"]["path"]}))
    };
    let mut vol = json!({"name": "vol"});
    vol[source.0] = source.1;
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("{PREFIX}{}", writes::name(volume)), "namespace": NAMESPACE},
        "spec": {
            "volumes": [vol],
            "containers": [{
                "name": "pv-recycler", "image": IMAGE,
                "command": ["/bin/sh"], "args": ["-c", SCRIPT],
                "resources": {},
                "volumeMounts": [{"name": "vol", "mountPath": "/scrub"}],
            }],
            "restartPolicy": "Never",
            "activeDeadlineSeconds": active_deadline(volume),
        },
    })
}

fn recycler_pod(client: &dyn Client, volume: &Value) -> Option<Arc<Value>> {
    let name = format!("{PREFIX}{}", writes::name(volume));
    client.store().get(PODS, NAMESPACE, &name)
}

fn delete_pod(client: &mut dyn Client, pod: &Value) {
    if let Some(def) = client.registry().get("", "v1", "pods") {
        let name = writes::name(pod).to_string();
        let _ = client.delete(&def, NAMESPACE, &name, &DeleteOptions::default());
    }
}

/// The volume's recycling failed with `error`: `Failed`, with a warning the first time.
fn failed(client: &mut dyn Client, volume: &Arc<Value>, error: &str) {
    let message = format!("Recycle failed: {error}");
    volume_phase_with_event(
        client,
        volume,
        "Failed",
        true,
        "VolumeFailedRecycle",
        &message,
    );
}

/// Recycles a released `volume`: starts its pod, or finishes with the pod's result.
pub fn recycle(client: &mut dyn Client, volume: &Arc<Value>) {
    let Some(pod) = recycler_pod(client, volume) else {
        let Some(def) = client.registry().get("", "v1", "pods") else {
            return;
        };
        if let Err(e) = client.create(&def, NAMESPACE, pod(volume), "kube-controller-manager") {
            let error = format!("unexpected error creating recycler pod:  {}", e.message);
            failed(client, volume, &error);
        }
        return;
    };
    if pod["metadata"]["deletionTimestamp"].is_string() {
        return;
    }
    match pod["status"]["phase"].as_str() {
        Some("Succeeded") => {
            delete_pod(client, &pod);
            event(
                client,
                volume,
                "PersistentVolume",
                false,
                "VolumeRecycled",
                "Volume recycled",
            );
            unbind_volume(client, volume);
        }
        Some("Failed") => {
            delete_pod(client, &pod);
            let reason = match pod["status"]["message"].as_str() {
                Some(m) if !m.is_empty() => m,
                _ => "pod failed, pod.Status.Message unknown",
            };
            failed(
                client,
                volume,
                &format!("failed to recycle volume: {reason}"),
            );
        }
        _ => {}
    }
}

/// The recycler pod of volume `name` is gone (deleted by someone other than the recycler):
/// a recycling that was under way fails.
pub fn pod_removed(client: &mut dyn Client, name: &str) {
    let Some(volume) = writes::volume(client, name) else {
        return;
    };
    let recycling = volume["spec"]["persistentVolumeReclaimPolicy"] == "Recycle"
        && volume["status"]["phase"] == "Released";
    if recycling {
        failed(
            client,
            &volume,
            "failed to recycle volume: recycler pod was deleted",
        );
    }
}

/// An Event recorded about a recycler pod, passed on to its volume while it is recycled.
pub fn pod_event(client: &mut dyn Client, event_object: &Value) {
    let involved = &event_object["involvedObject"];
    let ns = involved["namespace"].as_str().unwrap_or_default();
    let Some(name) = volume_of(ns, involved["name"].as_str().unwrap_or_default()) else {
        return;
    };
    let Some(volume) = writes::volume(client, name) else {
        return;
    };
    if recycler_pod(client, &volume).is_none() {
        return;
    }
    let message = format!(
        "Recycler pod: {}",
        event_object["message"].as_str().unwrap_or_default()
    );
    let warning = event_object["type"] == "Warning";
    event(
        client,
        &volume,
        "PersistentVolume",
        warning,
        "RecyclerPod",
        &message,
    );
}
