//! The timestamps Go writes as `null`: a `metav1.Time` or `metav1.MicroTime` struct field
//! that is not a pointer is never left out of the JSON (`omitempty` does not omit structs),
//! and its zero value marshals as `null`. So the real server answers an Event without
//! timestamps with `"firstTimestamp": null`, a pod condition without a probe time with
//! `"lastProbeTime": null`. A pointer field (`*metav1.Time`, as a Job's `startTime`) is left
//! out instead.
//!
//! The OpenAPI schemas do not tell the two apart, so this table lists, per Go struct (by the
//! name of its OpenAPI component), the non-pointer time fields of the built-in API
//! (`k8s.io/api` v0.34, the API extensions and aggregator types, and `metav1.Condition`).
//! `ObjectMeta.creationTimestamp` is not one of them: v1.34 leaves a zero one out (a pod
//! template's metadata has none).

/// (OpenAPI component, its non-pointer time fields)
const NON_POINTER_TIMES: &[(&str, &[&str])] = &[
    (
        "io.k8s.api.apps.v1.DaemonSetCondition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.api.apps.v1.DeploymentCondition",
        &["lastUpdateTime", "lastTransitionTime"],
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetCondition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetCondition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.api.authentication.v1.TokenRequestStatus",
        &["expirationTimestamp"],
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerCondition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.api.batch.v1.JobCondition",
        &["lastProbeTime", "lastTransitionTime"],
    ),
    (
        "io.k8s.api.certificates.v1.CertificateSigningRequestCondition",
        &["lastUpdateTime", "lastTransitionTime"],
    ),
    ("io.k8s.api.core.v1.ContainerStateRunning", &["startedAt"]),
    (
        "io.k8s.api.core.v1.ContainerStateTerminated",
        &["startedAt", "finishedAt"],
    ),
    (
        "io.k8s.api.core.v1.Event",
        &["firstTimestamp", "lastTimestamp", "eventTime"],
    ),
    ("io.k8s.api.core.v1.EventSeries", &["lastObservedTime"]),
    (
        "io.k8s.api.core.v1.NamespaceCondition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.api.core.v1.NodeCondition",
        &["lastHeartbeatTime", "lastTransitionTime"],
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimCondition",
        &["lastProbeTime", "lastTransitionTime"],
    ),
    (
        "io.k8s.api.core.v1.PodCondition",
        &["lastProbeTime", "lastTransitionTime"],
    ),
    (
        "io.k8s.api.core.v1.ReplicationControllerCondition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.api.events.v1.Event",
        &[
            "eventTime",
            "deprecatedFirstTimestamp",
            "deprecatedLastTimestamp",
        ],
    ),
    ("io.k8s.api.events.v1.EventSeries", &["lastObservedTime"]),
    (
        "io.k8s.api.flowcontrol.v1.FlowSchemaCondition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationCondition",
        &["lastTransitionTime"],
    ),
    ("io.k8s.api.storage.v1.VolumeError", &["time"]),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionCondition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
        &["lastTransitionTime"],
    ),
    (
        "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceCondition",
        &["lastTransitionTime"],
    ),
];

/// The non-pointer time fields of the Go struct behind OpenAPI `component`.
pub fn non_pointer_times(component: &str) -> &'static [&'static str] {
    NON_POINTER_TIMES
        .iter()
        .find(|(c, _)| *c == component)
        .map_or(&[], |(_, fields)| fields)
}

/// Writes `null` for the non-pointer time fields of `component` that `object` (a value of
/// that struct) lacks, as Go's encoder writes their zero values.
pub fn write_nulls(component: &str, object: &mut serde_json::Map<String, serde_json::Value>) {
    for field in non_pointer_times(component) {
        object.entry(*field).or_insert(serde_json::Value::Null);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openapi::builtin::schemas;

    #[test]
    fn every_listed_field_is_a_time_of_its_component() {
        for (component, fields) in NON_POINTER_TIMES {
            let schema = schemas()
                .get(*component)
                .unwrap_or_else(|| panic!("{component} is not a built-in schema"));
            for field in *fields {
                let property = &schema["properties"][*field];
                let reference = property["$ref"]
                    .as_str()
                    .or_else(|| property["allOf"][0]["$ref"].as_str())
                    .unwrap_or_default();
                assert!(
                    reference.ends_with("meta.v1.Time") || reference.ends_with("meta.v1.MicroTime"),
                    "{component}.{field} is {property}"
                );
            }
        }
    }

    #[test]
    fn absent_times_become_null_and_set_ones_stay() {
        let mut event = serde_json::json!({"eventTime": "2026-01-01T00:00:00.000000Z"});
        let map = event.as_object_mut().expect("an object");
        write_nulls("io.k8s.api.core.v1.Event", map);
        assert_eq!(
            event,
            serde_json::json!({"eventTime": "2026-01-01T00:00:00.000000Z",
                "firstTimestamp": null, "lastTimestamp": null})
        );
        let mut status = serde_json::json!({});
        let map = status.as_object_mut().expect("an object");
        write_nulls("io.k8s.api.batch.v1.JobStatus", map);
        assert_eq!(status, serde_json::json!({}));
    }
}
