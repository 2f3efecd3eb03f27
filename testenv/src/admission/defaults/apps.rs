//! `apps/v1` defaults: Deployment, StatefulSet, DaemonSet, ReplicaSet.

use super::core::pvc;
use super::fields::{each_object, ensure_object, set_default, set_default_str};
use super::pod::pod_template;
use serde_json::{Map, Value, json};

fn spec_of(object: &mut Value) -> Option<&mut Map<String, Value>> {
    ensure_object(object.as_object_mut()?, "spec")
}

/// `SetDefaults_Deployment`: `replicas: 1`, `strategy.type: RollingUpdate` with
/// `maxUnavailable`/`maxSurge` `25%`, `revisionHistoryLimit: 10`,
/// `progressDeadlineSeconds: 600`, then the pod template.
pub fn deployment(object: &mut Value) {
    let Some(spec) = spec_of(object) else { return };
    set_default(spec, "replicas", json!(1));
    if let Some(strategy) = ensure_object(spec, "strategy") {
        set_default_str(strategy, "type", "RollingUpdate");
        if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate")
            && let Some(ru) = ensure_object(strategy, "rollingUpdate")
        {
            set_default(ru, "maxUnavailable", json!("25%"));
            set_default(ru, "maxSurge", json!("25%"));
        }
    }
    set_default(spec, "revisionHistoryLimit", json!(10));
    set_default(spec, "progressDeadlineSeconds", json!(600));
    pod_template(spec, "template");
}

/// `SetDefaults_StatefulSet`: `podManagementPolicy: OrderedReady`, `updateStrategy.type:
/// RollingUpdate` (with `rollingUpdate.partition: 0` when the type was defaulted or a
/// rollingUpdate is given), `replicas: 1`, `revisionHistoryLimit: 10`,
/// `persistentVolumeClaimRetentionPolicy` Retain/Retain, then the pod template and the
/// volume claim templates (`apiVersion: v1`, `kind: PersistentVolumeClaim`,
/// `volumeMode: Filesystem`, `status.phase: Pending`).
///
/// `rollingUpdate.maxUnavailable` is not defaulted: the `MaxUnavailableStatefulSet` gate that
/// defaults it to 1 was on in 1.35.0-1.35.3 and turned off again from 1.35.4.
pub fn stateful_set(object: &mut Value) {
    let Some(spec) = spec_of(object) else { return };
    set_default_str(spec, "podManagementPolicy", "OrderedReady");
    if let Some(us) = ensure_object(spec, "updateStrategy") {
        let type_was_unset = us
            .get("type")
            .is_none_or(|t| t.is_null() || t.as_str() == Some(""));
        if type_was_unset {
            us.insert("type".into(), json!("RollingUpdate"));
            set_default(us, "rollingUpdate", json!({}));
        }
        if us.get("type").and_then(Value::as_str) == Some("RollingUpdate")
            && let Some(ru) = us.get_mut("rollingUpdate").and_then(Value::as_object_mut)
        {
            set_default(ru, "partition", json!(0));
        }
    }
    if let Some(policy) = ensure_object(spec, "persistentVolumeClaimRetentionPolicy") {
        set_default_str(policy, "whenDeleted", "Retain");
        set_default_str(policy, "whenScaled", "Retain");
    }
    set_default(spec, "replicas", json!(1));
    set_default(spec, "revisionHistoryLimit", json!(10));
    // `serviceName` is optional but not `omitempty`: the server always writes it.
    set_default_str(spec, "serviceName", "");
    pod_template(spec, "template");
    for claim in each_object(spec, "volumeClaimTemplates") {
        // The v1 conversion stamps the embedded claims' type meta.
        set_default_str(claim, "apiVersion", "v1");
        set_default_str(claim, "kind", "PersistentVolumeClaim");
        pvc(claim);
    }
}

/// `SetDefaults_DaemonSet`: `updateStrategy.type: RollingUpdate` with `maxUnavailable: 1`
/// and `maxSurge: 0`, `revisionHistoryLimit: 10`, then the pod template.
pub fn daemon_set(object: &mut Value) {
    let Some(spec) = spec_of(object) else { return };
    if let Some(us) = ensure_object(spec, "updateStrategy") {
        set_default_str(us, "type", "RollingUpdate");
        if us.get("type").and_then(Value::as_str) == Some("RollingUpdate")
            && let Some(ru) = ensure_object(us, "rollingUpdate")
        {
            set_default(ru, "maxUnavailable", json!(1));
            set_default(ru, "maxSurge", json!(0));
        }
        // The internal rolling update holds both values, not pointers: a rolling update
        // given with any other type comes back with each unset one 0.
        if let Some(ru) = us.get_mut("rollingUpdate").and_then(Value::as_object_mut) {
            set_default(ru, "maxUnavailable", json!(0));
            set_default(ru, "maxSurge", json!(0));
        }
    }
    set_default(spec, "revisionHistoryLimit", json!(10));
    pod_template(spec, "template");
}

/// `SetDefaults_ReplicaSet`: `replicas: 1`, then the pod template.
pub fn replica_set(object: &mut Value) {
    let Some(spec) = spec_of(object) else { return };
    set_default(spec, "replicas", json!(1));
    pod_template(spec, "template");
}
