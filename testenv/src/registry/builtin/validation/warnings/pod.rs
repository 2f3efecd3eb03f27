//! The warnings of a pod spec, written in a Pod or in the pod template of a workload (`pkg/api/pod`
//! `GetWarningsForPod`/`GetWarningsForPodTemplate`): deprecated node labels in the node selector,
//! the node affinity and the topology spread constraints, null label selectors of topology spread
//! constraints, what [`pod_fields`] and [`containers`] find, a template's negative termination
//! grace period, and null label selectors (which match no pod) of pod (anti-)affinity terms, in the
//! order kube-apiserver v1.34 sends them. Each is named by its path, below the template's own
//! (`spec.template.`, `spec.jobTemplate.spec.template.`, `template.`; nothing for a Pod).

use serde_json::Value;

use super::{containers, node_labels, pod_fields};

/// The warnings of the pod spec of `pod` (a Pod, or a template with its `spec`), whose
/// fields are named from `prefix`.
pub fn spec(prefix: &str, pod: &Value) -> Vec<String> {
    let spec = &pod["spec"];
    let mut out = Vec::new();
    // A map: kube-apiserver ranges over it in Go's random order, here in key order.
    for key in spec["nodeSelector"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
    {
        if let Some(message) = node_labels::deprecated(key) {
            out.push(format!("{prefix}spec.nodeSelector[{key}]: {message}"));
        }
    }
    let node = &spec["affinity"]["nodeAffinity"];
    let required = &node["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    for (i, term) in items(required).enumerate() {
        let path = format!(
            "{prefix}spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]"
        );
        out.extend(node_labels::selector_term(&path, term));
    }
    let preferred = &node["preferredDuringSchedulingIgnoredDuringExecution"];
    for (i, term) in items(preferred).enumerate() {
        let path = format!(
            "{prefix}spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference"
        );
        out.extend(node_labels::selector_term(&path, &term["preference"]));
    }
    for (i, constraint) in items(&spec["topologySpreadConstraints"]).enumerate() {
        let path = format!("{prefix}spec.topologySpreadConstraints[{i}]");
        let key = constraint["topologyKey"].as_str().unwrap_or_default();
        if let Some(message) = node_labels::deprecated(key) {
            out.push(format!("{path}.topologyKey: {key} is {message}"));
        }
        if constraint["labelSelector"].is_null() {
            out.push(no_match(&format!("{path}.labelSelector")));
        }
    }
    out.extend(pod_fields::warnings(prefix, pod));
    out.extend(containers::warnings(prefix, pod, !prefix.is_empty()));
    // A Pod's negative grace period is made 1 before its warnings are sought.
    let negative = spec["terminationGracePeriodSeconds"]
        .as_i64()
        .is_some_and(|s| s < 0);
    if negative && !prefix.is_empty() {
        out.push(format!(
            "{prefix}spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"
        ));
    }
    for kind in ["podAffinity", "podAntiAffinity"] {
        let affinity = &spec["affinity"][kind];
        let path = format!("{prefix}spec.affinity.{kind}");
        let required = &affinity["requiredDuringSchedulingIgnoredDuringExecution"];
        for (i, term) in items(required).enumerate() {
            if term["labelSelector"].is_null() {
                out.push(no_match(&format!(
                    "{path}.requiredDuringSchedulingIgnoredDuringExecution[{i}].labelSelector"
                )));
            }
        }
        let preferred = &affinity["preferredDuringSchedulingIgnoredDuringExecution"];
        for (i, term) in items(preferred).enumerate() {
            if term["podAffinityTerm"]["labelSelector"].is_null() {
                out.push(no_match(&format!(
                    "{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm.labelSelector"
                )));
            }
        }
    }
    out
}

/// The items of a list (none when it is absent).
fn items(list: &Value) -> impl Iterator<Item = &Value> {
    list.as_array().into_iter().flatten()
}

fn no_match(path: &str) -> String {
    format!("{path}: a null labelSelector results in matching no pod")
}

/// The warning of a name that is not a DNS label, for the kinds whose name becomes a pod's
/// hostname (`pods`, a Pod itself) or its pods' names and hostnames (the workloads that
/// name pods after themselves). The name is a valid subdomain already, so what makes it no
/// label is its length or its dots.
pub fn name(name: &str, pod: bool) -> Option<String> {
    let why = crate::support::meta::dns1123_label(name);
    if why.is_empty() {
        return None;
    }
    let used = if pod {
        "this is used in the Pod's hostname"
    } else {
        "this is used in Pod names and hostnames"
    };
    Some(format!(
        "metadata.name: {used}, which can result in surprising behavior; a DNS label is recommended: [{}]",
        why.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn template_fields_are_named_under_its_path() {
        let template = json!({"spec": {
            "nodeSelector": {"beta.kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
            "topologySpreadConstraints": [{"topologyKey": "failure-domain.beta.kubernetes.io/zone"}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "x", "labelSelector": {}}, {"topologyKey": "y"}]}}}});
        assert_eq!(
            spec("spec.template.", &template),
            [
                "spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use \"kubernetes.io/arch\" instead",
                "spec.template.spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use \"topology.kubernetes.io/zone\" instead",
                "spec.template.spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod",
                "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].labelSelector: a null labelSelector results in matching no pod",
            ]
        );
        assert!(spec("", &json!({"spec": {"containers": []}})).is_empty());
    }

    #[test]
    fn names_that_are_no_labels() {
        assert_eq!(name("a-b", true), None);
        assert_eq!(
            name("a.b", false).as_deref(),
            Some(
                "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"
            )
        );
        assert!(name(&"a".repeat(64), true).is_some_and(|w| w.contains("Pod's hostname")));
    }
}
