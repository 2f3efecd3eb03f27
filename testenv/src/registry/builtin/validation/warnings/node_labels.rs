//! The node labels kube-apiserver v1.34 calls deprecated, with what it says about each
//! (`pkg/api/node`): its warnings name them wherever a selector, an affinity term or a
//! topology key uses one.

/// Deprecated node labels: label, what the warning says of it.
const DEPRECATED: &[(&str, &str)] = &[
    (
        "beta.kubernetes.io/arch",
        "deprecated since v1.14; use \"kubernetes.io/arch\" instead",
    ),
    (
        "beta.kubernetes.io/os",
        "deprecated since v1.14; use \"kubernetes.io/os\" instead",
    ),
    (
        "failure-domain.beta.kubernetes.io/region",
        "deprecated since v1.17; use \"topology.kubernetes.io/region\" instead",
    ),
    (
        "failure-domain.beta.kubernetes.io/zone",
        "deprecated since v1.17; use \"topology.kubernetes.io/zone\" instead",
    ),
    (
        "beta.kubernetes.io/instance-type",
        "deprecated since v1.17; use \"node.kubernetes.io/instance-type\" instead",
    ),
    ("app.kubernetes.io/created-by", "deprecated since v1.9"),
    (
        "scheduler.alpha.kubernetes.io/preferAvoidPods",
        "deprecated since v1.22; use Taints and Tolerations instead",
    ),
    (
        "node-role.kubernetes.io/master",
        "use \"node-role.kubernetes.io/control-plane\" instead",
    ),
];

/// What the warnings say of `label` when it is a deprecated node label.
pub fn deprecated(label: &str) -> Option<&'static str> {
    DEPRECATED
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(_, message)| *message)
}

/// The warnings of a node selector term at `path` (`...nodeSelectorTerms[0]`): one per
/// match expression whose key is deprecated.
pub fn selector_term(path: &str, term: &serde_json::Value) -> Vec<String> {
    let expressions = term["matchExpressions"].as_array().into_iter().flatten();
    expressions
        .enumerate()
        .filter_map(|(i, expression)| {
            let key = expression["key"].as_str()?;
            let message = deprecated(key)?;
            Some(format!(
                "{path}.matchExpressions[{i}].key: {key} is {message}"
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terms_name_each_deprecated_key() {
        let term = json!({"matchExpressions": [{"key": "a"},
            {"key": "failure-domain.beta.kubernetes.io/zone"}]});
        assert_eq!(
            selector_term("t[0]", &term),
            [
                "t[0].matchExpressions[1].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use \"topology.kubernetes.io/zone\" instead"
            ]
        );
        assert_eq!(deprecated("kubernetes.io/arch"), None);
        assert_eq!(
            deprecated("app.kubernetes.io/created-by"),
            Some("deprecated since v1.9")
        );
    }
}
