//! Tests of the built-in defaulting, through `apply_builtin_defaults` as the server calls it.

use super::*;
use serde_json::json;

#[test]
fn unknown_kinds_and_versions_are_untouched() {
    let mut v = json!({"spec": {}});
    apply_builtin_defaults("cache.example.com", "v1", "Memcached", &mut v);
    apply_builtin_defaults("apps", "v1beta1", "Deployment", &mut v);
    assert_eq!(v, json!({"spec": {}}));
}

#[test]
fn initial_status_shapes() {
    assert_eq!(
        initial_status("apps", "v1", "DaemonSet").unwrap()["numberReady"],
        json!(0)
    );
    assert_eq!(
        initial_status("", "v1", "Service").unwrap(),
        json!({"loadBalancer": {}})
    );
    assert!(initial_status("", "v1", "ConfigMap").is_none());
}

mod admissionregistration {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn webhook_defaults() {
        let mut m = json!({"webhooks": [{"name": "m.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {"name": "svc", "namespace": "ns", "path": "/mutate"}},
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]}]});
        apply_builtin_defaults(
            "admissionregistration.k8s.io",
            "v1",
            "MutatingWebhookConfiguration",
            &mut m,
        );
        let h = &m["webhooks"][0];
        assert_eq!(h["failurePolicy"], "Fail");
        assert_eq!(h["matchPolicy"], "Equivalent");
        assert_eq!(h["namespaceSelector"], json!({}));
        assert_eq!(h["objectSelector"], json!({}));
        assert_eq!(h["timeoutSeconds"], 10);
        assert_eq!(h["reinvocationPolicy"], "Never");
        assert_eq!(h["rules"][0]["scope"], "*");
        assert_eq!(h["clientConfig"]["service"]["port"], 443);
        let mut v = json!({"webhooks": [{"name": "v.example.com", "failurePolicy": "Ignore"}]});
        apply_builtin_defaults(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingWebhookConfiguration",
            &mut v,
        );
        assert_eq!(v["webhooks"][0]["failurePolicy"], "Ignore");
        assert!(v["webhooks"][0].get("reinvocationPolicy").is_none());
    }
}

mod apps {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    fn template() -> serde_json::Value {
        json!({"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "a", "image": "a:1"}]}})
    }

    #[test]
    fn deployment_defaults() {
        let mut d =
            json!({"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": template()}});
        apply_builtin_defaults("apps", "v1", "Deployment", &mut d);
        let s = &d["spec"];
        assert_eq!(s["replicas"], 1);
        assert_eq!(
            s["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        );
        assert_eq!(s["revisionHistoryLimit"], 10);
        assert_eq!(s["progressDeadlineSeconds"], 600);
        assert_eq!(s["template"]["spec"]["schedulerName"], "default-scheduler");
        assert_eq!(
            s["template"]["spec"]["containers"][0]["imagePullPolicy"],
            "IfNotPresent"
        );
        // Recreate gets no rollingUpdate; explicit values stay.
        let mut d = json!({"spec": {"replicas": 0, "strategy": {"type": "Recreate"}, "template": template()}});
        apply_builtin_defaults("apps", "v1", "Deployment", &mut d);
        assert_eq!(d["spec"]["replicas"], 0);
        assert_eq!(d["spec"]["strategy"], json!({"type": "Recreate"}));
    }

    #[test]
    fn stateful_set_defaults() {
        let mut s = json!({"spec": {"serviceName": "s", "template": template(),
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}});
        apply_builtin_defaults("apps", "v1", "StatefulSet", &mut s);
        let spec = &s["spec"];
        assert_eq!(spec["podManagementPolicy"], "OrderedReady");
        assert_eq!(
            spec["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
        );
        assert_eq!(
            spec["persistentVolumeClaimRetentionPolicy"],
            json!({"whenDeleted": "Retain", "whenScaled": "Retain"})
        );
        assert_eq!(spec["replicas"], 1);
        assert_eq!(spec["revisionHistoryLimit"], 10);
        assert_eq!(
            spec["volumeClaimTemplates"][0]["spec"]["volumeMode"],
            "Filesystem"
        );
        assert_eq!(
            spec["volumeClaimTemplates"][0]["status"]["phase"],
            "Pending"
        );
        // an explicit RollingUpdate without rollingUpdate stays without it
        let mut s =
            json!({"spec": {"updateStrategy": {"type": "RollingUpdate"}, "template": template()}});
        apply_builtin_defaults("apps", "v1", "StatefulSet", &mut s);
        assert_eq!(
            s["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate"})
        );
    }

    #[test]
    fn daemon_set_and_replica_set_defaults() {
        let mut d = json!({"spec": {"template": template()}});
        apply_builtin_defaults("apps", "v1", "DaemonSet", &mut d);
        assert_eq!(
            d["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
        );
        assert_eq!(d["spec"]["revisionHistoryLimit"], 10);
        let mut r = json!({"spec": {"template": template()}});
        apply_builtin_defaults("apps", "v1", "ReplicaSet", &mut r);
        assert_eq!(r["spec"]["replicas"], 1);
        assert_eq!(r["spec"]["template"]["spec"]["dnsPolicy"], "ClusterFirst");
    }
}

mod autoscaling {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn hpa_defaults() {
        let mut h = json!({"spec": {"maxReplicas": 5, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}});
        apply_builtin_defaults("autoscaling", "v2", "HorizontalPodAutoscaler", &mut h);
        assert_eq!(h["spec"]["minReplicas"], 1);
        assert_eq!(
            h["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            80
        );
        assert!(h["spec"].get("behavior").is_none());
        let mut h = json!({"spec": {"maxReplicas": 5, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}});
        apply_builtin_defaults("autoscaling", "v2", "HorizontalPodAutoscaler", &mut h);
        let b = &h["spec"]["behavior"];
        assert_eq!(b["scaleDown"]["stabilizationWindowSeconds"], 60);
        assert_eq!(b["scaleDown"]["selectPolicy"], "Max");
        assert_eq!(b["scaleUp"]["stabilizationWindowSeconds"], 0);
        assert_eq!(
            b["scaleUp"]["policies"][0],
            json!({"type": "Pods", "value": 4, "periodSeconds": 15})
        );
    }
}

mod batch {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn job_defaults() {
        let mut j = json!({"spec": {"template": {"metadata": {"labels": {"app": "j"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}});
        apply_builtin_defaults("batch", "v1", "Job", &mut j);
        let s = &j["spec"];
        assert_eq!(s["completions"], 1);
        assert_eq!(s["parallelism"], 1);
        assert_eq!(s["backoffLimit"], 6);
        assert_eq!(s["completionMode"], "NonIndexed");
        assert_eq!(s["suspend"], false);
        assert_eq!(s["podReplacementPolicy"], "TerminatingOrFailed");
        assert_eq!(s["template"]["spec"]["restartPolicy"], "Never");
        assert_eq!(
            s["template"]["spec"]["containers"][0]["imagePullPolicy"],
            "Always"
        );
        assert_eq!(j["metadata"]["labels"], json!({"app": "j"}));

        let mut j = json!({"spec": {"parallelism": 3, "backoffLimitPerIndex": 1,
            "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}});
        apply_builtin_defaults("batch", "v1", "Job", &mut j);
        assert!(j["spec"].get("completions").is_none());
        assert_eq!(j["spec"]["backoffLimit"], 2147483647);
        assert_eq!(j["spec"]["podReplacementPolicy"], "Failed");
        assert_eq!(
            j["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"],
            "True"
        );
    }

    #[test]
    fn cron_job_defaults() {
        let mut c = json!({"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox:1.36"}]}}}}}});
        apply_builtin_defaults("batch", "v1", "CronJob", &mut c);
        let s = &c["spec"];
        assert_eq!(s["concurrencyPolicy"], "Allow");
        assert_eq!(s["suspend"], false);
        assert_eq!(s["successfulJobsHistoryLimit"], 3);
        assert_eq!(s["failedJobsHistoryLimit"], 1);
        assert!(s["jobTemplate"]["spec"].get("backoffLimit").is_none());
        assert_eq!(
            s["jobTemplate"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"],
            30
        );
    }
}

mod core {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn service_defaults() {
        let mut svc = json!({"metadata": {"name": "web"}, "spec": {"selector": {"app": "web"},
            "ports": [{"port": 80}, {"port": 443, "targetPort": "https", "protocol": "TCP"}]}});
        apply_builtin_defaults("", "v1", "Service", &mut svc);
        assert_eq!(
            svc["spec"],
            json!({"selector": {"app": "web"}, "type": "ClusterIP", "sessionAffinity": "None",
                "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}, {"port": 443, "targetPort": "https", "protocol": "TCP"}],
                "internalTrafficPolicy": "Cluster"})
        );
        let mut lb = json!({"spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP", "ports": [{"port": 1}]}});
        apply_builtin_defaults("", "v1", "Service", &mut lb);
        assert_eq!(lb["spec"]["externalTrafficPolicy"], "Cluster");
        assert_eq!(lb["spec"]["allocateLoadBalancerNodePorts"], true);
        assert_eq!(
            lb["spec"]["sessionAffinityConfig"],
            json!({"clientIP": {"timeoutSeconds": 10800}})
        );
        // The IP family fields are the registry's (`registry::allocate::service`).
        let mut headless = json!({"spec": {"clusterIP": "None"}});
        apply_builtin_defaults("", "v1", "Service", &mut headless);
        assert!(headless["spec"].get("clusterIPs").is_none());
        assert!(headless["spec"].get("ipFamilyPolicy").is_none());
        let mut ext = json!({"spec": {"type": "ExternalName", "externalName": "x.example.com"}});
        apply_builtin_defaults("", "v1", "Service", &mut ext);
        assert!(ext["spec"].get("ipFamilies").is_none());
        assert!(ext["spec"].get("internalTrafficPolicy").is_none());
    }

    #[test]
    fn secret_namespace_pvc_pod() {
        let mut s = json!({"metadata": {"name": "s"}, "data": {"a": "eA==", "b": "eQ=="},
            "stringData": {"b": "hello", "c": "ab"}});
        apply_builtin_defaults("", "v1", "Secret", &mut s);
        assert_eq!(s["type"], "Opaque");
        assert_eq!(
            s["data"],
            json!({"a": "eA==", "b": "aGVsbG8=", "c": "YWI="})
        );
        assert!(s.get("stringData").is_none());
        let mut ns = json!({"metadata": {"name": "team-a"}});
        apply_builtin_defaults("", "v1", "Namespace", &mut ns);
        // The `kubernetes` finalizer is the registry's (`strategy::generate_on_create`).
        assert_eq!(
            ns,
            json!({"metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "team-a"}},
                "status": {"phase": "Active"}})
        );
        let mut pv = json!({"spec": {"hostPath": {"path": "/d"}, "capacity": {"storage": "1Gi"}}});
        apply_builtin_defaults("", "v1", "PersistentVolume", &mut pv);
        assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
        assert_eq!(pv["spec"]["hostPath"]["type"], "");
        assert_eq!(pv["status"]["phase"], "Pending");
        let mut sc = json!({"provisioner": "x"});
        apply_builtin_defaults("storage.k8s.io", "v1", "StorageClass", &mut sc);
        assert_eq!(sc["reclaimPolicy"], "Delete");
        assert_eq!(sc["volumeBindingMode"], "Immediate");
        let mut pc = json!({"value": 10});
        apply_builtin_defaults("scheduling.k8s.io", "v1", "PriorityClass", &mut pc);
        assert_eq!(pc["preemptionPolicy"], "PreemptLowerPriority");
        let mut pvc = json!({"spec": {"accessModes": ["ReadWriteOnce"]}});
        apply_builtin_defaults("", "v1", "PersistentVolumeClaim", &mut pvc);
        assert_eq!(pvc["spec"]["volumeMode"], "Filesystem");
        assert_eq!(pvc["status"]["phase"], "Pending");
        let mut pod = json!({"spec": {"hostNetwork": true, "containers": [{"name": "a", "image": "a:1",
            "ports": [{"containerPort": 8080}], "resources": {"limits": {"cpu": "1"}}}]}});
        apply_builtin_defaults("", "v1", "Pod", &mut pod);
        let c = &pod["spec"]["containers"][0];
        assert_eq!(c["resources"]["requests"], json!({"cpu": "1"}));
        assert_eq!(c["ports"][0]["hostPort"], 8080);
        assert_eq!(pod["spec"]["enableServiceLinks"], true);
        assert_eq!(pod["spec"]["restartPolicy"], "Always");
    }
}

mod networking {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn network_policy_defaults() {
        let mut p = json!({"spec": {"podSelector": {}, "egress": [{"ports": [{"port": 53}]}]}});
        apply_builtin_defaults("networking.k8s.io", "v1", "NetworkPolicy", &mut p);
        assert_eq!(p["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
        assert_eq!(p["spec"]["egress"][0]["ports"][0]["protocol"], "TCP");
    }
}

mod rbac {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn binding_defaults() {
        let mut b = json!({"roleRef": {"kind": "Role", "name": "r"},
            "subjects": [{"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "sa", "namespace": "n"}]});
        apply_builtin_defaults("rbac.authorization.k8s.io", "v1", "RoleBinding", &mut b);
        assert_eq!(b["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
        assert_eq!(b["subjects"][0]["apiGroup"], "rbac.authorization.k8s.io");
        assert!(b["subjects"][1].get("apiGroup").is_none());
    }
}

mod storage {
    use super::super::apply_builtin_defaults;
    use serde_json::json;

    #[test]
    fn csi_driver_defaults() {
        let mut d = json!({"metadata": {"name": "d.example.com"}});
        apply_builtin_defaults("storage.k8s.io", "v1", "CSIDriver", &mut d);
        assert_eq!(
            d["spec"],
            json!({"attachRequired": true, "podInfoOnMount": false,
                "volumeLifecycleModes": ["Persistent"], "storageCapacity": false,
                "fsGroupPolicy": "ReadWriteOnceWithFSType", "requiresRepublish": false,
                "seLinuxMount": false})
        );
        // Set values stay; an empty list of modes counts as none, `null` as unset.
        let mut d = json!({"spec": {"attachRequired": false, "fsGroupPolicy": "None",
            "volumeLifecycleModes": [], "podInfoOnMount": null}});
        apply_builtin_defaults("storage.k8s.io", "v1", "CSIDriver", &mut d);
        assert_eq!(d["spec"]["attachRequired"], false);
        assert_eq!(d["spec"]["fsGroupPolicy"], "None");
        assert_eq!(d["spec"]["volumeLifecycleModes"], json!(["Persistent"]));
        assert_eq!(d["spec"]["podInfoOnMount"], false);
        let mut d = json!({"spec": {"volumeLifecycleModes": ["Ephemeral"]}});
        apply_builtin_defaults("storage.k8s.io", "v1", "CSIDriver", &mut d);
        assert_eq!(d["spec"]["volumeLifecycleModes"], json!(["Ephemeral"]));
    }
}
