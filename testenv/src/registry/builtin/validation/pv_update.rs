//! What an update of a PersistentVolume may not change (`ValidatePersistentVolumeUpdate`):
//! its volume source (but for a CSI controller expand secret set for the first time), its
//! volume mode, its node affinity once set (but for beta node labels renamed to their GA
//! names), and a volume attributes class may not be removed.

use serde_json::Value;

use super::errors::{Errors, forbidden, immutable, invalid_text};
use super::go_diff::{diff, marshal, marshal_indent};
use super::pv_go;
use super::storage::persistent_volume;

/// The deprecated node labels a volume's node affinity may be moved off, and their GA names.
const BETA_TO_GA: &[(&str, &str)] = &[
    (
        "failure-domain.beta.kubernetes.io/zone",
        "topology.kubernetes.io/zone",
    ),
    (
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/region",
    ),
    (
        "beta.kubernetes.io/instance-type",
        "node.kubernetes.io/instance-type",
    ),
    ("beta.kubernetes.io/os", "kubernetes.io/os"),
    ("beta.kubernetes.io/arch", "kubernetes.io/arch"),
];

/// The update checks after the volume's own validation: the whole volume is validated a
/// second time (its metadata's errors are reported with the other metadata checks, see
/// `meta::update_rest`; the spec's a second time here), then the fields an update may not
/// change.
pub fn persistent_volume_update(object: &Value, old: &Value) -> Errors {
    let mut out = persistent_volume(object);
    let (spec, old_spec) = (&object["spec"], &old["spec"]);
    let mut compared = spec.clone();
    // A controller expand secret may be given to a CSI volume that had none.
    if old_spec["csi"].is_object()
        && old_spec["csi"]["controllerExpandSecretRef"].is_null()
        && let Some(csi) = compared.get_mut("csi").and_then(Value::as_object_mut)
    {
        csi.remove("controllerExpandSecretRef");
    }
    let (before, after) = (
        pv_go::volume_source(old_spec),
        pv_go::volume_source(&compared),
    );
    if marshal_indent(&before) != marshal_indent(&after) {
        out.push(forbidden(
            "spec.persistentvolumesource",
            &format!(
                "spec.persistentvolumesource is immutable after creation\n{}",
                diff(&before, &after)
            ),
        ));
    }
    let mode = &spec["volumeMode"];
    if *mode != old_spec["volumeMode"] {
        out.push(immutable("volumeMode", mode));
    }
    let (affinity, old_affinity) = (&spec["nodeAffinity"], &old_spec["nodeAffinity"]);
    if !old_affinity.is_null() && !affinity_update_allowed(affinity, old_affinity) {
        out.push(invalid_text(
            "nodeAffinity",
            &marshal(&pv_go::node_affinity(affinity)),
            "field is immutable, except for updating from beta label to GA",
        ));
    }
    if !old_spec["volumeAttributesClassName"].is_null()
        && spec["volumeAttributesClassName"].is_null()
    {
        out.push(forbidden(
            "spec.volumeAttributesClassName",
            "update from non-nil value to nil is forbidden",
        ));
    }
    out
}

/// Whether a volume's node affinity may become `new`: unchanged, or changed only in keys
/// that were deprecated node labels and are now their GA names.
fn affinity_update_allowed(new: &Value, old: &Value) -> bool {
    let print = |v: &Value| marshal(&pv_go::node_affinity(v));
    if print(new) == print(old) {
        return true;
    }
    let terms = |v: &Value| v["required"]["nodeSelectorTerms"].as_array().cloned();
    let (Some(new_terms), Some(old_terms)) = (terms(new), terms(old)) else {
        return false;
    };
    if new_terms.len() != old_terms.len() {
        return false;
    }
    new_terms.iter().zip(&old_terms).all(|(n, o)| {
        let fields = |t: &Value| marshal(&pv_go::requirements(&t["matchFields"]));
        if fields(n) != fields(o) {
            return false;
        }
        let exprs = |t: &Value| {
            t["matchExpressions"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        };
        let (new_exprs, old_exprs) = (exprs(n), exprs(o));
        new_exprs.len() == old_exprs.len()
            && new_exprs.iter().zip(&old_exprs).all(|(n, o)| {
                let (nk, ok) = (n["key"].as_str(), o["key"].as_str());
                let key_ok = nk == ok
                    || BETA_TO_GA
                        .iter()
                        .any(|(beta, ga)| ok == Some(*beta) && nk == Some(*ga));
                key_ok && n["operator"] == o["operator"] && n["values"] == o["values"]
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn volume(source: Value, affinity: Value) -> Value {
        let mut spec = json!({"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "nodeAffinity": affinity});
        for (k, v) in source.as_object().into_iter().flatten() {
            spec[k] = v.clone();
        }
        json!({"metadata": {"name": "v"}, "spec": spec})
    }

    fn affinity(key: &str, value: &str) -> Value {
        json!({"required": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}})
    }

    fn fields(new: &Value, old: &Value) -> Vec<String> {
        persistent_volume_update(new, old)
            .into_iter()
            .map(|c| c.field)
            .collect()
    }

    #[test]
    fn the_source_is_immutable_but_for_a_first_controller_expand_secret() {
        let csi = |extra: Value| {
            let mut csi = json!({"driver": "d.example.com", "volumeHandle": "h"});
            for (k, v) in extra.as_object().into_iter().flatten() {
                csi[k] = v.clone();
            }
            volume(json!({"csi": csi}), Value::Null)
        };
        let old = csi(json!({}));
        let secret = json!({"name": "s", "namespace": "n"});
        assert!(fields(&csi(json!({"controllerExpandSecretRef": secret})), &old).is_empty());
        let causes = persistent_volume_update(&csi(json!({"nodeExpandSecretRef": secret})), &old);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.persistentvolumesource");
        assert!(
            causes[0].message.ends_with(
                "   \"ControllerExpandSecretRef\": null,\n-  \"NodeExpandSecretRef\": null\n+  \"NodeExpandSecretRef\": {\n+   \"Name\": \"s\",\n+   \"Namespace\": \"n\"\n+  }\n  }\n }\n"
            ),
            "{}",
            causes[0].message
        );
        let changed = csi(json!({"volumeHandle": "other"}));
        assert_eq!(fields(&changed, &old), ["spec.persistentvolumesource"]);
    }

    #[test]
    fn node_affinity_moves_only_from_beta_labels_to_ga() {
        let host = json!({"hostPath": {"path": "/x", "type": ""}});
        let old = volume(
            host.clone(),
            affinity("failure-domain.beta.kubernetes.io/zone", "a"),
        );
        let ga = volume(host.clone(), affinity("topology.kubernetes.io/zone", "a"));
        assert!(fields(&ga, &old).is_empty());
        assert_eq!(fields(&old, &ga), ["nodeAffinity"]);
        let other = volume(host.clone(), affinity("topology.kubernetes.io/zone", "b"));
        assert_eq!(fields(&other, &old), ["nodeAffinity"]);
        // A volume without node affinity may be given one, not lose it.
        let none = volume(host, Value::Null);
        assert!(fields(&ga, &none).is_empty());
        let causes = persistent_volume_update(&none, &ga);
        assert_eq!(
            causes[0].message,
            "Invalid value: null: field is immutable, except for updating from beta label to GA"
        );
    }
}
