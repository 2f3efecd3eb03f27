//! What the Pod strategy does to a new Pod's label keys (`mutatePodAffinity` and
//! `mutateTopologySpreadConstraints` of `PrepareForCreate`): each key of a pod affinity or
//! anti-affinity term's `matchLabelKeys` (`mismatchLabelKeys`) that the Pod has a label for
//! becomes a `matchExpressions` entry `In` (`NotIn`) that label's value, appended to the
//! term's `labelSelector`; a topology spread constraint's `matchLabelKeys` likewise `In`
//! (`MatchLabelKeysInPodTopologySpreadSelectorMerge`, on in v1.34). A term or constraint
//! without a selector is left as it is (it selects nothing). Only a create does this: an
//! update, and a workload's template, keep their selectors as sent.

use serde_json::{Map, Value, json};

/// Merges the label keys of `pod`'s affinity terms and spread constraints into their
/// selectors, with the values of the Pod's own labels.
pub fn merge_into_selectors(pod: &mut Value) {
    let labels = pod["metadata"]["labels"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(affinity) = spec.get_mut("affinity").and_then(Value::as_object_mut) {
        for kind in ["podAffinity", "podAntiAffinity"] {
            let Some(terms) = affinity.get_mut(kind).and_then(Value::as_object_mut) else {
                continue;
            };
            for_each(
                terms,
                "preferredDuringSchedulingIgnoredDuringExecution",
                |t| {
                    if let Some(term) = t.get_mut("podAffinityTerm") {
                        merge_term(term, &labels);
                    }
                },
            );
            for_each(
                terms,
                "requiredDuringSchedulingIgnoredDuringExecution",
                |term| {
                    merge_term(term, &labels);
                },
            );
        }
    }
    for_each(spec, "topologySpreadConstraints", |constraint| {
        let keys = constraint["matchLabelKeys"].clone();
        append(constraint, &keys, "In", &labels);
    });
}

/// Calls `f` on each item of the list `field` of `object`, if it is one.
fn for_each(object: &mut Map<String, Value>, field: &str, mut f: impl FnMut(&mut Value)) {
    if let Some(items) = object.get_mut(field).and_then(Value::as_array_mut) {
        items.iter_mut().for_each(&mut f);
    }
}

/// `applyMatchLabelKeysAndMismatchLabelKeys`: the term's `matchLabelKeys` as `In`, then its
/// `mismatchLabelKeys` as `NotIn`.
fn merge_term(term: &mut Value, labels: &Map<String, Value>) {
    let (matching, mismatching) = (
        term["matchLabelKeys"].clone(),
        term["mismatchLabelKeys"].clone(),
    );
    append(term, &matching, "In", labels);
    append(term, &mismatching, "NotIn", labels);
}

/// `applyLabelKeysToLabelSelector`: one requirement per key of `keys` the Pod has a label
/// for, appended to `holder`'s `labelSelector` when it has one.
fn append(holder: &mut Value, keys: &Value, operator: &str, labels: &Map<String, Value>) {
    let Some(selector) = holder
        .get_mut("labelSelector")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for key in keys
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let Some(value) = labels.get(key) else {
            continue;
        };
        let requirement = json!({"key": key, "operator": operator, "values": [value]});
        match selector
            .get_mut("matchExpressions")
            .and_then(Value::as_array_mut)
        {
            Some(list) => list.push(requirement),
            None => {
                selector.insert("matchExpressions".into(), json!([requirement]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_the_pod_has_labels_for_join_the_selectors() {
        let mut pod = json!({
            "metadata": {"labels": {"app": "web", "tier": "front"}},
            "spec": {
                "affinity": {"podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{
                        "labelSelector": {"matchExpressions": [{"key": "q", "operator": "Exists"}]},
                        "matchLabelKeys": ["app", "none"], "mismatchLabelKeys": ["tier"]}],
                    "preferredDuringSchedulingIgnoredDuringExecution": [{
                        "podAffinityTerm": {"matchLabelKeys": ["app"]}}]}},
                "topologySpreadConstraints": [{"labelSelector": {}, "matchLabelKeys": ["tier"]}]}});
        merge_into_selectors(&mut pod);
        let anti = &pod["spec"]["affinity"]["podAntiAffinity"];
        let exprs = &anti["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"]["matchExpressions"];
        assert_eq!(
            exprs,
            &json!([{"key": "q", "operator": "Exists"},
                {"key": "app", "operator": "In", "values": ["web"]},
                {"key": "tier", "operator": "NotIn", "values": ["front"]}])
        );
        let preferred = &anti["preferredDuringSchedulingIgnoredDuringExecution"][0];
        assert!(preferred["podAffinityTerm"].get("labelSelector").is_none());
        assert_eq!(
            pod["spec"]["topologySpreadConstraints"][0]["labelSelector"],
            json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]})
        );
    }
}
