//! The condition the Pod strategy gives a Pod created with scheduling gates
//! (`applySchedulingGatedCondition` of `PrepareForCreate`): `PodScheduled=False`, reason
//! `SchedulingGated`, unless the status already has a `PodScheduled` condition. The real
//! API server writes it itself, so a cluster without a scheduler shows it too; the field
//! manager never sees it (a Pod's status is not the creator's).

use serde_json::{Value, json};

/// The message of the condition.
const MESSAGE: &str = "Scheduling is blocked due to non-empty scheduling gates";

/// Adds the `SchedulingGated` condition, dated `now`, to a `pod` being created with a
/// non-empty `spec.schedulingGates`.
pub fn gated_condition(pod: &mut Value, now: &str) {
    let gated = pod["spec"]["schedulingGates"]
        .as_array()
        .is_some_and(|g| !g.is_empty());
    if !gated || !pod["status"].is_object() && !pod["status"].is_null() {
        return;
    }
    let conditions = pod["status"]["conditions"].as_array();
    if conditions.is_some_and(|c| c.iter().any(|c| c["type"] == "PodScheduled")) {
        return;
    }
    let condition = json!({
        "type": "PodScheduled",
        "status": "False",
        "lastProbeTime": null,
        "lastTransitionTime": now,
        "reason": "SchedulingGated",
        "message": MESSAGE,
    });
    match pod["status"]["conditions"].as_array_mut() {
        Some(list) => list.push(condition),
        None => pod["status"]["conditions"] = json!([condition]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gated_pod_gets_the_condition_once() {
        let mut pod = json!({"spec": {"schedulingGates": [{"name": "g"}]},
            "status": {"phase": "Pending", "qosClass": "BestEffort"}});
        gated_condition(&mut pod, "t");
        let conditions = pod["status"]["conditions"].clone();
        assert_eq!(conditions[0]["reason"], "SchedulingGated");
        assert_eq!(conditions[0]["lastTransitionTime"], "t");
        gated_condition(&mut pod, "u");
        assert_eq!(pod["status"]["conditions"], conditions);
        let mut free = json!({"spec": {"schedulingGates": []}, "status": {}});
        gated_condition(&mut free, "t");
        assert_eq!(free["status"], json!({}));
    }
}
