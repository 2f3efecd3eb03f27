//! Which volume a claim binds to, by the persistent volume controller's rules: capacity (the
//! smallest that fits), access modes (volumes offering the fewest modes first), volume mode,
//! storage class, VolumeAttributesClass, label selector; a volume whose `claimRef` names the
//! claim is taken before any other.

use std::sync::Arc;

use serde_json::Value;

use crate::support::quantity::Quantity;
use crate::support::selector::label::LabelSelector;

/// The annotation that named a class before `storageClassName`, still read first.
const BETA_CLASS: &str = "volume.beta.kubernetes.io/storage-class";
/// The access modes in the order the real controller writes a set of them.
const MODES: [&str; 4] = [
    "ReadWriteOnce",
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOncePod",
];

/// The class of `object` (a volume's or a claim's): the beta annotation when present, else
/// `spec.storageClassName`, else `""`.
pub fn class(object: &Value) -> &str {
    if let Some(class) = object["metadata"]["annotations"][BETA_CLASS].as_str() {
        return class;
    }
    object["spec"]["storageClassName"]
        .as_str()
        .unwrap_or_default()
}

/// The access modes of a spec, each once, in the canonical order.
fn modes(spec: &Value) -> Vec<&'static str> {
    let listed: Vec<&str> = spec["accessModes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    MODES.into_iter().filter(|m| listed.contains(m)).collect()
}

/// Whether the volume offers every access mode the claim asks for.
fn offers_modes(volume: &Value, claim: &Value) -> bool {
    let offered = modes(&volume["spec"]);
    modes(&claim["spec"]).iter().all(|m| offered.contains(m))
}

fn volume_mode(spec: &Value) -> &str {
    spec["volumeMode"].as_str().unwrap_or("Filesystem")
}

fn attributes_class(spec: &Value) -> &str {
    spec["volumeAttributesClassName"]
        .as_str()
        .unwrap_or_default()
}

/// The storage a claim requests (zero when it requests none).
fn requested(claim: &Value) -> Quantity {
    Quantity::from_json(&claim["spec"]["resources"]["requests"]["storage"]).unwrap_or_default()
}

/// The storage a volume offers (zero when it says none).
fn capacity(volume: &Value) -> Quantity {
    Quantity::from_json(&volume["spec"]["capacity"]["storage"]).unwrap_or_default()
}

/// A quantity rounded up to a whole number, as Go's `Quantity.Value` reads it.
fn whole(q: Quantity) -> i128 {
    const NANO: i128 = 1_000_000_000;
    (q.nanos + NANO - 1).div_euclid(NANO)
}

/// Whether the volume's `claimRef` names this claim (by namespace and name, and by uid when
/// it has one).
pub fn bound_to_claim(volume: &Value, claim: &Value) -> bool {
    let r = &volume["spec"]["claimRef"];
    let m = &claim["metadata"];
    r.is_object()
        && r["name"] == m["name"]
        && r["namespace"] == m["namespace"]
        && r["uid"]
            .as_str()
            .is_none_or(|uid| uid.is_empty() || m["uid"] == uid)
}

/// Why a volume a claim names in `volumeName` cannot be bound to it (checked in the real
/// controller's order and words), or None when it can.
pub fn unsatisfied(volume: &Value, claim: &Value) -> Option<String> {
    if volume["metadata"]["deletionTimestamp"].is_string() {
        let name = volume["metadata"]["name"].as_str().unwrap_or_default();
        return Some(format!("the volume is marked for deletion {name:?}"));
    }
    let reason = if whole(capacity(volume)) < whole(requested(claim)) {
        "requested PV is too small"
    } else if class(volume) != class(claim) {
        "storageClassName does not match"
    } else if attributes_class(&volume["spec"]) != attributes_class(&claim["spec"]) {
        "volumeAttributesClassName does not match"
    } else if volume_mode(&volume["spec"]) != volume_mode(&claim["spec"]) {
        "incompatible volumeMode"
    } else if !offers_modes(volume, claim) {
        "incompatible accessMode"
    } else {
        return None;
    };
    Some(reason.to_string())
}

/// Whether the claim and the volume ask for different volume modes.
pub fn mode_mismatch(volume: &Value, claim: &Value) -> bool {
    volume_mode(&volume["spec"]) != volume_mode(&claim["spec"])
}

/// The volume among `volumes` (in name order) that the claim binds to: among the volumes
/// offering the claim's access modes, those with the fewest modes are searched first; a
/// volume pre-bound to the claim wins at once; otherwise the smallest `Available` one that
/// fits and matches class, attributes class and selector. With `delay` (a
/// `WaitForFirstConsumer` class and no node chosen yet) only a pre-bound volume is taken.
pub fn best_match<'a>(claim: &Value, volumes: &'a [Arc<Value>], delay: bool) -> Option<&'a Value> {
    let mut groups: Vec<Vec<&'static str>> = volumes
        .iter()
        .filter(|v| offers_modes(v, claim))
        .map(|v| modes(&v["spec"]))
        .collect();
    groups.sort_by_key(Vec::len);
    groups.dedup();
    groups
        .iter()
        .find_map(|group| best_in(claim, volumes, group, delay))
}

/// [`best_match`] among the volumes offering exactly the access modes of `group`.
fn best_in<'a>(
    claim: &Value,
    volumes: &'a [Arc<Value>],
    group: &[&str],
    delay: bool,
) -> Option<&'a Value> {
    let wanted = requested(claim);
    let selector = claim["spec"]["selector"]
        .is_object()
        .then(|| LabelSelector::from_metav1(&claim["spec"]["selector"]));
    let mut smallest: Option<(&Value, Quantity)> = None;
    for volume in volumes.iter().map(|v| &**v) {
        if modes(&volume["spec"]) != group {
            continue;
        }
        if volume["spec"]["claimRef"].is_object() && !bound_to_claim(volume, claim) {
            continue;
        }
        let size = capacity(volume);
        if size.nanos < wanted.nanos
            || mode_mismatch(volume, claim)
            || volume["metadata"]["deletionTimestamp"].is_string()
        {
            continue;
        }
        if bound_to_claim(volume, claim) {
            return Some(volume);
        }
        if delay
            || volume["status"]["phase"] != "Available"
            || selector
                .as_ref()
                .is_some_and(|s| !s.matches(&volume["metadata"]["labels"]))
            || class(volume) != class(claim)
            || attributes_class(&volume["spec"]) != attributes_class(&claim["spec"])
        {
            continue;
        }
        if smallest.is_none_or(|(_, q)| q.nanos > size.nanos) {
            smallest = Some((volume, size));
        }
    }
    smallest.map(|(v, _)| v)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn volume(name: &str, size: &str, modes: &[&str]) -> Arc<Value> {
        Arc::new(json!({"metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": modes},
            "status": {"phase": "Available"}}))
    }

    fn claim(size: &str, modes: &[&str]) -> Value {
        json!({"metadata": {"name": "c", "namespace": "ns", "uid": "u1"},
            "spec": {"resources": {"requests": {"storage": size}}, "accessModes": modes}})
    }

    fn name(v: Option<&Value>) -> Option<&str> {
        v.and_then(|v| v["metadata"]["name"].as_str())
    }

    #[test]
    fn the_smallest_volume_that_fits_wins() {
        let volumes = [
            volume("big", "10Gi", &["ReadWriteOnce"]),
            volume("small", "1Gi", &["ReadWriteOnce"]),
            volume("fits", "2Gi", &["ReadWriteOnce"]),
        ];
        let c = claim("1500Mi", &["ReadWriteOnce"]);
        assert_eq!(name(best_match(&c, &volumes, false)), Some("fits"));
        assert_eq!(
            name(best_match(
                &claim("20Gi", &["ReadWriteOnce"]),
                &volumes,
                false
            )),
            None
        );
    }

    #[test]
    fn volumes_with_fewer_access_modes_are_searched_first() {
        let volumes = [
            volume("many", "1Gi", &["ReadWriteOnce", "ReadWriteMany"]),
            volume("one", "5Gi", &["ReadWriteOnce"]),
            volume("rox", "1Gi", &["ReadOnlyMany"]),
        ];
        let c = claim("1Gi", &["ReadWriteOnce"]);
        assert_eq!(name(best_match(&c, &volumes, false)), Some("one"));
        let c = claim("1Gi", &["ReadWriteMany"]);
        assert_eq!(name(best_match(&c, &volumes, false)), Some("many"));
    }

    #[test]
    fn class_selector_phase_and_claim_refs_filter() {
        let mut labelled = (*volume("labelled", "1Gi", &["ReadWriteOnce"])).clone();
        labelled["metadata"]["labels"] = json!({"tier": "gold"});
        let mut classed = (*volume("classed", "1Gi", &["ReadWriteOnce"])).clone();
        classed["spec"]["storageClassName"] = json!("fast");
        let mut taken = (*volume("taken", "1Gi", &["ReadWriteOnce"])).clone();
        taken["spec"]["claimRef"] = json!({"namespace": "ns", "name": "other"});
        let mut released = (*volume("released", "1Gi", &["ReadWriteOnce"])).clone();
        released["status"]["phase"] = json!("Released");
        let volumes: Vec<Arc<Value>> = [labelled, classed, taken, released]
            .into_iter()
            .map(Arc::new)
            .collect();
        let mut c = claim("1Gi", &["ReadWriteOnce"]);
        assert_eq!(name(best_match(&c, &volumes, false)), Some("labelled"));
        c["spec"]["selector"] = json!({"matchLabels": {"tier": "silver"}});
        assert_eq!(name(best_match(&c, &volumes, false)), None);
        c["spec"]["selector"] = json!({"matchLabels": {"tier": "gold"}});
        assert_eq!(name(best_match(&c, &volumes, false)), Some("labelled"));
        let mut c = claim("1Gi", &["ReadWriteOnce"]);
        c["spec"]["storageClassName"] = json!("fast");
        assert_eq!(name(best_match(&c, &volumes, false)), Some("classed"));
        assert_eq!(name(best_match(&c, &volumes, true)), None);
    }

    #[test]
    fn a_pre_bound_volume_wins_even_when_waiting_for_a_consumer() {
        let mut pre = (*volume("pre", "10Gi", &["ReadWriteOnce"])).clone();
        pre["spec"]["claimRef"] = json!({"namespace": "ns", "name": "c"});
        pre["status"]["phase"] = json!("Pending");
        let volumes = [volume("small", "1Gi", &["ReadWriteOnce"]), Arc::new(pre)];
        let c = claim("1Gi", &["ReadWriteOnce"]);
        assert_eq!(name(best_match(&c, &volumes, true)), Some("pre"));
    }

    #[test]
    fn a_named_volume_is_checked_in_the_real_order() {
        let v = volume("v", "1Gi", &["ReadWriteOnce"]);
        assert_eq!(
            unsatisfied(&v, &claim("2Gi", &["ReadWriteOnce"])).as_deref(),
            Some("requested PV is too small")
        );
        assert_eq!(
            unsatisfied(&v, &claim("1Gi", &["ReadWriteMany"])).as_deref(),
            Some("incompatible accessMode")
        );
        let mut block = claim("1Gi", &["ReadWriteOnce"]);
        block["spec"]["volumeMode"] = json!("Block");
        assert_eq!(
            unsatisfied(&v, &block).as_deref(),
            Some("incompatible volumeMode")
        );
        let mut vac = claim("1Gi", &["ReadWriteOnce"]);
        vac["spec"]["volumeAttributesClassName"] = json!("gold");
        assert_eq!(
            unsatisfied(&v, &vac).as_deref(),
            Some("volumeAttributesClassName does not match")
        );
        assert_eq!(unsatisfied(&v, &claim("1000Mi", &["ReadWriteOnce"])), None);
    }
}
