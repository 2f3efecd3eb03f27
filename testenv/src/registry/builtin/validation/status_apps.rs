//! The status rules of the replicated workloads' status updates (`ValidateDeploymentStatus`,
//! `ValidateReplicaSetStatus`, `ValidateStatefulSetStatus`, `ValidateDaemonSetStatus` and a
//! ReplicationController's, which a ReplicaSet's follow): counts that may not be negative,
//! that may not exceed `status.replicas`, and a `collisionCount` that may not go down.

use serde_json::Value;

use super::errors::{Errors, check_nonnegative, invalid};

/// A count of the status, 0 when unset (as the Go integer is).
fn count(status: &Value, field: &str) -> i64 {
    status[field].as_i64().unwrap_or(0)
}

/// `ValidateNonnegativeField` of each of `fields` of `status`, unset ones counted as 0.
fn nonnegative(status: &Value, fields: &[&str]) -> Errors {
    fields
        .iter()
        .flat_map(|f| check_nonnegative(&format!("status.{f}"), status.get(*f)))
        .collect()
}

/// `field` of `status` greater than `status.<than>`: the error `why` names.
fn not_above(status: &Value, field: &str, than: &str, why: &str) -> Errors {
    let value = count(status, field);
    if value > count(status, than) {
        vec![invalid(&format!("status.{field}"), &value.into(), why)]
    } else {
        Vec::new()
    }
}

/// Each of `fields` no greater than `status.replicas`.
fn within_replicas(status: &Value, fields: &[&str]) -> Errors {
    fields
        .iter()
        .flat_map(|f| {
            not_above(
                status,
                f,
                "replicas",
                "cannot be greater than status.replicas",
            )
        })
        .collect()
}

/// `IsDecremented` of `status.collisionCount`: set before, and now unset or smaller.
pub fn collision_count_decremented(object: &Value, old: &Value) -> Errors {
    let Some(before) = old["status"]["collisionCount"].as_i64() else {
        return Vec::new();
    };
    let now = object["status"]["collisionCount"].as_i64();
    if now.is_some_and(|n| n >= before) {
        return Vec::new();
    }
    vec![invalid(
        "status.collisionCount",
        &now.unwrap_or(0).into(),
        "cannot be decremented",
    )]
}

/// A Deployment's status, then its collision count against the stored one.
pub fn deployment(object: &Value, old: &Value) -> Errors {
    let status = &object["status"];
    let mut out = nonnegative(
        status,
        &[
            "observedGeneration",
            "replicas",
            "updatedReplicas",
            "readyReplicas",
            "availableReplicas",
            "unavailableReplicas",
            "collisionCount",
        ],
    );
    out.extend(within_replicas(
        status,
        &["updatedReplicas", "readyReplicas", "availableReplicas"],
    ));
    out.extend(not_above(
        status,
        "availableReplicas",
        "readyReplicas",
        "cannot be greater than readyReplicas",
    ));
    out.extend(collision_count_decremented(object, old));
    out
}

/// A ReplicaSet's status (a ReplicationController's has the same rules).
pub fn replica_set(object: &Value) -> Errors {
    let status = &object["status"];
    let mut out = nonnegative(
        status,
        &[
            "replicas",
            "fullyLabeledReplicas",
            "readyReplicas",
            "availableReplicas",
            "observedGeneration",
        ],
    );
    out.extend(within_replicas(
        status,
        &["fullyLabeledReplicas", "readyReplicas", "availableReplicas"],
    ));
    out.extend(not_above(
        status,
        "availableReplicas",
        "readyReplicas",
        "cannot be greater than readyReplicas",
    ));
    out
}

/// A StatefulSet's status (its strategy checks the metadata after it, then the collision
/// count: see [`collision_count_decremented`]).
pub fn stateful_set(object: &Value) -> Errors {
    let status = &object["status"];
    let mut out = nonnegative(
        status,
        &[
            "replicas",
            "readyReplicas",
            "currentReplicas",
            "updatedReplicas",
            "availableReplicas",
            "observedGeneration",
            "collisionCount",
        ],
    );
    out.extend(within_replicas(
        status,
        &[
            "readyReplicas",
            "currentReplicas",
            "updatedReplicas",
            "availableReplicas",
        ],
    ));
    out.extend(not_above(
        status,
        "availableReplicas",
        "readyReplicas",
        "cannot be greater than status.readyReplicas",
    ));
    out
}

/// A DaemonSet's status, then its collision count against the stored one.
pub fn daemon_set(object: &Value, old: &Value) -> Errors {
    let mut out = nonnegative(
        &object["status"],
        &[
            "currentNumberScheduled",
            "numberMisscheduled",
            "desiredNumberScheduled",
            "numberReady",
            "observedGeneration",
            "updatedNumberScheduled",
            "numberAvailable",
            "numberUnavailable",
            "collisionCount",
        ],
    );
    out.extend(collision_count_decremented(object, old));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(errors: &Errors) -> Vec<(&str, &str)> {
        errors
            .iter()
            .map(|c| (c.field.as_str(), c.message.as_str()))
            .collect()
    }

    #[test]
    fn a_deployment_counts_within_its_replicas_and_collisions_only_grow() {
        let old = json!({"status": {"collisionCount": 3}});
        let new = json!({"status": {"replicas": -1, "availableReplicas": 0, "collisionCount": 1}});
        assert_eq!(
            fields(&deployment(&new, &old)),
            [
                (
                    "status.replicas",
                    "Invalid value: -1: must be greater than or equal to 0"
                ),
                (
                    "status.updatedReplicas",
                    "Invalid value: 0: cannot be greater than status.replicas"
                ),
                (
                    "status.readyReplicas",
                    "Invalid value: 0: cannot be greater than status.replicas"
                ),
                (
                    "status.availableReplicas",
                    "Invalid value: 0: cannot be greater than status.replicas"
                ),
                (
                    "status.collisionCount",
                    "Invalid value: 1: cannot be decremented"
                ),
            ]
        );
        let unset = json!({"status": {}});
        assert_eq!(
            fields(&collision_count_decremented(&unset, &old)),
            [(
                "status.collisionCount",
                "Invalid value: 0: cannot be decremented"
            )]
        );
        assert!(collision_count_decremented(&old, &unset).is_empty());
    }

    #[test]
    fn available_pods_are_ready_ones() {
        let rs = json!({"status": {"replicas": 4, "readyReplicas": 2, "availableReplicas": 3}});
        assert_eq!(
            fields(&replica_set(&rs)),
            [(
                "status.availableReplicas",
                "Invalid value: 3: cannot be greater than readyReplicas"
            )]
        );
        assert_eq!(
            fields(&stateful_set(&rs)),
            [(
                "status.availableReplicas",
                "Invalid value: 3: cannot be greater than status.readyReplicas"
            )]
        );
        let ds = json!({"status": {"numberReady": 5, "currentNumberScheduled": 1}});
        assert!(daemon_set(&ds, &json!({})).is_empty());
    }
}
