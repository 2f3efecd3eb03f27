//! `apps/v1` workload checks the schema does not make: the selector is required, selects
//! the pod template's labels and never changes; a StatefulSet's spec changes only in the
//! fields the real server lets change.

use serde_json::Value;

use crate::support::selector::label::LabelSelector;
use crate::support::status::Cause;

use super::causes::{forbidden, immutable, invalid, required};

/// The spec fields of a StatefulSet an update may change.
const STATEFUL_SET_MUTABLE: &[&str] = &[
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
];

/// The kind of an `apps` resource with a pod selector checked here.
fn kind_of(plural: &str) -> Option<&'static str> {
    Some(match plural {
        "deployments" => "Deployment",
        "replicasets" => "ReplicaSet",
        "statefulsets" => "StatefulSet",
        "daemonsets" => "DaemonSet",
        _ => return None,
    })
}

/// The selector checks of a spec (`ValidateXSpec`): present, not empty where the kind
/// refuses that, and matching the template's labels.
fn spec_causes(kind: &str, object: &Value) -> Vec<Cause> {
    let spec = &object["spec"];
    let selector = &spec["selector"];
    let labels = &spec["template"]["metadata"]["labels"];
    let mut causes = Vec::new();
    let has = |key: &str| match &selector[key] {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    };
    let empty = selector.is_object() && !has("matchLabels") && !has("matchExpressions");
    if selector.is_null() {
        causes.push(required("spec.selector", ""));
    } else if empty && matches!(kind, "Deployment" | "StatefulSet") {
        causes.push(invalid(
            "spec.selector",
            selector,
            &format!(
                "empty selector is invalid for {}",
                kind.to_ascii_lowercase()
            ),
        ));
        return causes;
    }
    let matches = !selector.is_null()
        && LabelSelector::from_metav1(selector).matches(&labels_or_empty(labels));
    if !matches {
        causes.push(invalid(
            "spec.template.metadata.labels",
            labels,
            "`selector` does not match template `labels`",
        ));
    }
    causes
}

fn labels_or_empty(labels: &Value) -> Value {
    if labels.is_object() {
        labels.clone()
    } else {
        Value::Object(Default::default())
    }
}

/// Checks of a create of `plural`.
pub fn create_causes(plural: &str, object: &Value) -> Vec<Cause> {
    kind_of(plural).map_or_else(Vec::new, |kind| spec_causes(kind, object))
}

/// Checks of an update of `plural` from `old` to `new`, in the real server's order.
pub fn update_causes(plural: &str, old: &Value, new: &Value) -> Vec<Cause> {
    let Some(kind) = kind_of(plural) else {
        return Vec::new();
    };
    let selector_changed = old["spec"]["selector"] != new["spec"]["selector"];
    let immutable_selector = || immutable("spec.selector", &new["spec"]["selector"]);
    match kind {
        "DaemonSet" => {
            let mut causes = Vec::new();
            if selector_changed {
                causes.push(immutable_selector());
            }
            causes.extend(spec_causes(kind, new));
            causes
        }
        "StatefulSet" => {
            let mut causes = spec_causes(kind, new);
            let rest = |o: &Value| {
                let mut spec = o["spec"].as_object().cloned().unwrap_or_default();
                spec.retain(|k, _| !STATEFUL_SET_MUTABLE.contains(&k.as_str()));
                spec
            };
            if rest(old) != rest(new) {
                causes.push(forbidden(
                    "spec",
                    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
                ));
            }
            causes
        }
        _ => {
            let mut causes = spec_causes(kind, new);
            if selector_changed {
                causes.push(immutable_selector());
            }
            causes
        }
    }
}
