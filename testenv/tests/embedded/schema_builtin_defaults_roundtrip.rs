//! Built-in defaulting produces objects that are exactly what the typed Kubernetes structs
//! read and write: every defaulted field has the right name and the right JSON type, so a
//! k8s-openapi round trip of a defaulted object changes nothing.

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{Namespace, PersistentVolumeClaim, Pod, Secret, Service};
use kubeforge_testenv::defaults::apply_builtin_defaults;
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

fn round_trip<T: DeserializeOwned + Serialize>(group: &str, kind: &str, object: Value) -> Value {
    round_trip_version::<T>(group, "v1", kind, object)
}

/// Defaults `object`, then checks a typed round trip leaves it unchanged.
fn round_trip_version<T: DeserializeOwned + Serialize>(
    group: &str,
    version: &str,
    kind: &str,
    mut object: Value,
) -> Value {
    apply_builtin_defaults(group, version, kind, &mut object);
    let typed: T = serde_json::from_value(object.clone())
        .unwrap_or_else(|e| panic!("{kind} does not deserialize: {e}\n{object:#}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(back, object, "{kind} changed in a typed round trip");
    object
}

fn pod_template() -> Value {
    json!({
        "metadata": {"labels": {"app": "web"}},
        "spec": {
            "initContainers": [{"name": "init", "image": "busybox", "command": ["true"]}],
            "containers": [{
                "name": "web", "image": "nginx:1.27",
                "ports": [{"containerPort": 80, "name": "http"}],
                "env": [
                    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory"}}}
                ],
                "livenessProbe": {"httpGet": {"port": "http"}},
                "readinessProbe": {"tcpSocket": {"port": 80}},
                "startupProbe": {"grpc": {"port": 9000}},
                "lifecycle": {"preStop": {"httpGet": {"port": 80}}},
                "volumeMounts": [{"name": "cfg", "mountPath": "/etc/cfg"}]
            }],
            "volumes": [
                {"name": "cfg", "configMap": {"name": "cfg"}},
                {"name": "sec", "secret": {"secretName": "s"}},
                {"name": "tmp"},
                {"name": "host", "hostPath": {"path": "/var/log"}},
                {"name": "info", "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
                {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
                {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}
            ]
        }
    })
}

#[test]
fn workloads_round_trip() {
    let selector = json!({"matchLabels": {"app": "web"}});
    let d = round_trip::<Deployment>(
        "apps",
        "Deployment",
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"selector": selector, "template": pod_template()}}),
    );
    assert_eq!(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
    let c = &d["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["imagePullPolicy"], "IfNotPresent");
    assert_eq!(c["env"][1]["valueFrom"]["resourceFieldRef"]["divisor"], "0");
    assert_eq!(c["lifecycle"]["preStop"]["httpGet"]["scheme"], "HTTP");
    let init = &d["spec"]["template"]["spec"]["initContainers"][0];
    assert_eq!(init["imagePullPolicy"], "Always");

    round_trip::<StatefulSet>(
        "apps",
        "StatefulSet",
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
            "spec": {"selector": selector, "serviceName": "db", "template": pod_template(),
                "volumeClaimTemplates": [{"metadata": {"name": "data"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}),
    );
    round_trip::<DaemonSet>(
        "apps",
        "DaemonSet",
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
            "spec": {"selector": selector, "template": pod_template()}}),
    );
    round_trip::<ReplicaSet>(
        "apps",
        "ReplicaSet",
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
            "spec": {"selector": selector, "template": pod_template()}}),
    );
    let mut job_template = pod_template();
    job_template["spec"]["restartPolicy"] = json!("Never");
    round_trip::<Job>(
        "batch",
        "Job",
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"},
            "spec": {"template": job_template.clone()}}),
    );
    round_trip::<CronJob>(
        "batch",
        "CronJob",
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
            "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": job_template}}}}),
    );
}

#[test]
fn core_kinds_round_trip() {
    let mut pod_spec = pod_template()["spec"].clone();
    pod_spec["containers"][0]["resources"] = json!({"limits": {"cpu": "500m"}});
    let pod = round_trip::<Pod>(
        "",
        "Pod",
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": pod_spec}),
    );
    assert_eq!(
        pod["spec"]["containers"][0]["resources"]["requests"]["cpu"],
        "500m"
    );
    round_trip::<Service>(
        "",
        "Service",
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]}}),
    );
    round_trip::<Service>(
        "",
        "Service",
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"},
            "spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP", "ports": [{"port": 443, "targetPort": "https"}]}}),
    );
    let secret = round_trip::<Secret>(
        "",
        "Secret",
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"a": "b"}}),
    );
    assert_eq!(secret["data"], json!({"a": "Yg=="}));
    round_trip_version::<HorizontalPodAutoscaler>(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
            "spec": {"maxReplicas": 3, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}}),
    );
    round_trip::<Namespace>(
        "",
        "Namespace",
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}),
    );
    round_trip::<PersistentVolumeClaim>(
        "",
        "PersistentVolumeClaim",
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
    );
}
