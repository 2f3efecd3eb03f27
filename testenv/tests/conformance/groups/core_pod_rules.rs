//! The core group's pod rules a user meets when writing Pods: what an update may change
//! (`ValidatePodUpdate`), tolerations, and AppArmor annotations and fields.

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{causes, send};

fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn pod_updates_change_only_what_validate_pod_update_allows() {
    let env = env().await;
    let ns = env.namespace();
    let pods: Api<Pod> = Api::namespaced(env.client(), ns);
    let gated: Pod = serde_json::from_value(json!({
        "metadata": {"name": "gated"},
        "spec": {"automountServiceAccountToken": false, "activeDeadlineSeconds": 100,
            "schedulingGates": [{"name": "g1"}, {"name": "g2"}], "nodeSelector": {"k": "v"},
            "containers": [{"name": "c", "image": "busybox"}]},
    }))
    .unwrap();
    let created = pods.create(&PostParams::default(), &gated).await.unwrap();
    assert_eq!(created.metadata.generation, Some(1));
    let params = PatchParams::default();
    let merge = |patch: Value| Patch::Merge(patch);
    let refused = |result: Result<Pod, kube::Error>| {
        let status = crate::common::api_error(result);
        assert_eq!(status.code, 422, "{}", status.message);
        status.message
    };
    let prefix = "Pod \"gated\" is invalid: ";
    let message = refused(
        pods.patch(
            "gated",
            &params,
            &merge(json!({"spec": {"activeDeadlineSeconds": 200}})),
        )
        .await,
    );
    assert_eq!(
        message,
        format!(
            "{prefix}spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value"
        )
    );
    let message = refused(
        pods.patch(
            "gated",
            &params,
            &merge(json!({"spec": {"schedulingGates": [{"name": "g1"}, {"name": "g3"}]}})),
        )
        .await,
    );
    assert_eq!(
        message,
        format!(
            "{prefix}spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'g3'"
        )
    );
    let message = refused(
        pods.patch(
            "gated",
            &params,
            &merge(json!({"spec": {"nodeSelector": {"k": "w"}}})),
        )
        .await,
    );
    assert_eq!(
        message,
        format!(
            "{prefix}spec.nodeSelector: Invalid value: {{\"k\":\"w\"}}: only additions to spec.nodeSelector are allowed (no mutations or deletions)"
        )
    );
    // Allowed: a lower deadline, a new image, a gate removed, a node selector entry added;
    // the spec changed, so the generation moves on.
    let changed = pods
        .patch(
            "gated",
            &params,
            &merge(
                json!({"spec": {"activeDeadlineSeconds": 50, "schedulingGates": [{"name": "g2"}],
                "nodeSelector": {"l": "w"}, "containers": [{"name": "c", "image": "nginx"}]}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(changed.metadata.generation, Some(2));
    let spec = changed.spec.unwrap();
    assert_eq!(spec.containers[0].image.as_deref(), Some("nginx"));
    assert_eq!(spec.active_deadline_seconds, Some(50));
    // Anything else is refused with the diff of the internal spec, the image put back.
    let message = refused(
        pods.patch(
            "gated",
            &params,
            &merge(
                json!({"spec": {"hostname": "h", "containers": [{"name": "c", "image": "redis"}]}}),
            ),
        )
        .await,
    );
    let (head, diff) = message.split_once('\n').unwrap();
    assert_eq!(
        head,
        format!(
            "{prefix}spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
        )
    );
    assert!(diff.starts_with("@@ -"), "{diff}");
    assert!(
        diff.contains("\n- \"Hostname\": \"\",\n+ \"Hostname\": \"h\",\n"),
        "{diff}"
    );
    assert!(!diff.contains("redis"), "{diff}");
}

#[tokio::test]
async fn app_armor_annotations_become_container_fields_on_create() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let key = |c: &str| format!("container.apparmor.security.beta.kubernetes.io/{c}");
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "armored",
        "annotations": {key("init"): "runtime/default", key("app"): "localhost/prof",
            key("padded"): "localhost/ prof"}},
        "spec": {"initContainers": [{"name": "init", "image": "busybox"}],
            "containers": [{"name": "app", "image": "busybox"}, {"name": "padded", "image": "busybox"},
                {"name": "own", "image": "busybox",
                    "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}}]}});
    let path = format!("/api/v1/namespaces/{ns}/pods");
    let (code, created) = send(&client, "POST", &path, "application/json", Some(pod)).await;
    assert_eq!(code, 201, "{created}");
    let profile = |list: &str, i: usize| {
        created["spec"][list][i]["securityContext"]["appArmorProfile"].clone()
    };
    assert_eq!(
        profile("initContainers", 0),
        json!({"type": "RuntimeDefault"})
    );
    assert_eq!(
        profile("containers", 0),
        json!({"type": "Localhost", "localhostProfile": "prof"})
    );
    assert_eq!(
        profile("containers", 1),
        Value::Null,
        "an invalid profile is not copied"
    );
    assert_eq!(
        profile("containers", 2),
        json!({"type": "RuntimeDefault"}),
        "a container's own field is kept"
    );
    // The strategy copies after the field manager: the creator does not own the fields.
    let owned = &created["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"];
    for (list, name) in [("f:initContainers", "init"), ("f:containers", "app")] {
        let fields = &owned[list][format!("k:{{\"name\":\"{name}\"}}")];
        assert!(fields.is_object(), "{owned}");
        assert!(fields.get("f:securityContext").is_none(), "{owned}");
    }
    assert_eq!(
        created["metadata"]["annotations"]
            .as_object()
            .map(serde_json::Map::len),
        Some(3),
        "fields do not become annotations"
    );
}

#[tokio::test]
async fn tolerations_are_validated_and_defaulted_again_on_pod_updates() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let base = format!("/api/v1/namespaces/{ns}/pods");
    let fields = |body: &Value| -> Vec<String> {
        let causes = body["details"]["causes"].as_array().cloned();
        let each = causes
            .into_iter()
            .flatten()
            .map(|c| format!("{}", c["field"]));
        each.map(|f| f.trim_matches('"').to_string()).collect()
    };
    let spec = |tolerations: Value| {
        json!({"automountServiceAccountToken": false, "tolerations": tolerations,
            "containers": [{"name": "c", "image": "busybox"}]})
    };
    let bad = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad"},
        "spec": spec(json!([{"key": "bad key"}, {"operator": "Equal"},
            {"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5},
            {"key": "k", "operator": "Lt"}, {"key": "k", "effect": "Sometimes"}]))});
    let (code, body) = send(&client, "POST", &base, "application/json", Some(bad)).await;
    assert_eq!(code, 422, "{body}");
    let expected = ["key", "operator", "effect", "operator", "effect"];
    let expected: Vec<String> = (0..5)
        .map(|i| format!("spec.tolerations[{i}].{}", expected[i]))
        .collect();
    assert_eq!(fields(&body), expected, "{body}");
    assert!(message(&body).contains("spec.tolerations[1].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty"), "{body}");
    let t = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"},
        "spec": spec(json!([{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}]))});
    let (code, created) = send(&client, "POST", &base, "application/json", Some(t)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"]["tolerations"].as_array().map(Vec::len),
        Some(3)
    );
    // A merge patch replacing the list: the not-ready and unreachable tolerations come back.
    let path = format!("{base}/t");
    let merge = "application/merge-patch+json";
    let list = json!([{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
        {"key": "b", "operator": "Exists"}]);
    let patch = json!({"spec": {"tolerations": list}});
    let (code, patched) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 200, "{patched}");
    let keys: Vec<&str> = patched["spec"]["tolerations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["key"].as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "a",
            "b",
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable"
        ]
    );
    // Priority dropped by a patch is kept from the stored pod.
    let remove = json!([{"op": "remove", "path": "/spec/priority"}]);
    let (code, kept) = send(
        &client,
        "PATCH",
        &path,
        "application/json-patch+json",
        Some(remove),
    )
    .await;
    assert_eq!(code, 200, "{kept}");
    assert_eq!(kept["spec"]["priority"], 0);
    // An invalid new pod: its own errors first, then the update's (an invalid added
    // toleration twice, the other changes refused last).
    let patch = json!({"spec": {"dnsPolicy": "Sometimes", "tolerations": [list[0], list[1],
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "-c-", "operator": "Exists"}]}});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        fields(&body),
        [
            "spec.dnsPolicy",
            "spec.tolerations[4].key",
            "spec.tolerations[4].key",
            "spec"
        ],
        "{body}"
    );
}

#[tokio::test]
async fn app_armor_profiles_and_annotations_are_validated() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let key = |c: &str| format!("container.apparmor.security.beta.kubernetes.io/{c}");
    let causes = |body: &Value| -> Vec<String> {
        let list = body["details"]["causes"].as_array().cloned();
        list.unwrap_or_default()
            .iter()
            .map(|c| format!("{} {}", c["field"].as_str().unwrap_or_default(), message(c)))
            .collect()
    };
    let profile = "securityContext.appArmorProfile";
    // The fields: a Localhost profile needs its name, the other types take none.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "aa-fields"},
        "spec": {"securityContext": {"appArmorProfile": {"type": "Foo"}},
            "containers": [{"name": "a", "image": "busybox",
                    "securityContext": {"appArmorProfile": {"type": "Localhost"}}},
                {"name": "b", "image": "busybox", "securityContext":
                    {"appArmorProfile": {"type": "Unconfined", "localhostProfile": "x"}}}]}});
    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let (code, body) = send(&client, "POST", &pods, "application/json", Some(pod)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            format!(
                "spec.containers[0].{profile}.localhostProfile Required value: must be set when AppArmor type is Localhost"
            ),
            format!(
                "spec.containers[1].{profile}.localhostProfile Invalid value: \"x\": can only be set when AppArmor type is Localhost"
            ),
            format!(
                "spec.{profile}.type Unsupported value: \"Foo\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\""
            ),
        ]
    );
    // The annotations: a known container and profile form, and the container's field agreeing.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "aa-notes",
        "annotations": {key("zz"): "runtime/default", key("a"): "localhost/y"}},
        "spec": {"containers": [{"name": "a", "image": "busybox", "securityContext":
            {"appArmorProfile": {"type": "Localhost", "localhostProfile": "x"}}}]}});
    let (code, body) = send(&client, "POST", &pods, "application/json", Some(pod)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            format!(
                "metadata.annotations[{}] Invalid value: \"zz\": container not found",
                key("zz")
            ),
            format!(
                "spec.containers[0].{profile}.localhostProfile Forbidden: apparmor profile in annotation and field must match"
            ),
        ]
    );
    // A pod template too, where no annotation is copied into a container first.
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "aa-template"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata":
            {"labels": {"a": "b"}, "annotations": {key("c"): "foo"}},
            "spec": {"securityContext": {"appArmorProfile": {"type": "Unconfined"}},
                "containers": [{"name": "c", "image": "busybox"}]}}}});
    let deployments = format!("/apis/apps/v1/namespaces/{ns}/deployments");
    let (code, body) = send(
        &client,
        "POST",
        &deployments,
        "application/json",
        Some(deployment),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            format!(
                "spec.template.annotations[{}] Invalid value: \"foo\": invalid AppArmor profile name: \"foo\"",
                key("c")
            ),
            format!(
                "spec.template.spec.containers[0].{profile}.type Forbidden: apparmor type in annotation and field must match"
            ),
        ]
    );
}

#[tokio::test]
async fn container_probes_hooks_and_sources_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{}/pods?dryRun=All", env.namespace());
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "checked"},
        "spec": {
            "initContainers": [{"name": "init", "image": "busybox",
                "readinessProbe": {"exec": {"command": ["true"]}}}],
            "containers": [{"name": "c", "image": "busybox",
                "lifecycle": {"postStart": {}},
                "livenessProbe": {"grpc": {"port": 70000}, "successThreshold": 3},
                "env": [{"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "spec.bogus"}}}],
                "envFrom": [{"prefix": "1="}]}]}});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(pod)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.bogus\": error converting fieldPath: field label not supported: spec.bogus",
            "spec.containers[0].envFrom[0].prefix: Invalid value: \"1=\": a valid environment variable name must consist only of printable ASCII characters other than '='",
            "spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`",
            "spec.containers[0].lifecycle.postStart: Required value: must specify a handler type",
            "spec.containers[0].livenessProbe.grpc.port: Invalid value: 70000: must be between 1 and 65535, inclusive",
            "spec.containers[0].livenessProbe.successThreshold: Invalid value: 3: must be 1",
            "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
        ]
    );
}

#[tokio::test]
async fn scheduling_and_name_resolution_rules_are_validated_in_the_real_order() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/pods?dryRun=All");
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"restartPolicy": "Sometimes",
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                {"nodeSelectorTerms": []}},
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 0, "podAffinityTerm": {"topologyKey": ""}}]}},
            "dnsPolicy": "None", "dnsConfig": {"nameservers": ["bad"], "searches": ["a.", "b.."],
                "options": [{"name": ""}]},
            "readinessGates": [{"conditionType": "a/b/c"}],
            "hostAliases": [{"ip": "x", "hostnames": ["A"]}],
            "topologySpreadConstraints": [
                {"maxSkew": 0, "topologyKey": "k", "whenUnsatisfiable": "ScheduleAnyway",
                    "minDomains": 1, "matchLabelKeys": ["a"]},
                {"maxSkew": 1, "topologyKey": "k", "whenUnsatisfiable": "ScheduleAnyway"}],
            "containers": [{"name": "c", "image": "i"}]}});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(pod)).await;
    assert_eq!(code, 422, "{body}");
    let anti = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]";
    let spread = "spec.topologySpreadConstraints[0]";
    assert_eq!(
        causes(&body),
        [
            "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"".to_string(),
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term".into(),
            format!("{anti}.weight: Invalid value: 0: must be in the range 1-100"),
            format!("{anti}.podAffinityTerm.topologyKey: Required value: can not be empty"),
            format!("{anti}.podAffinityTerm.topologyKey: Invalid value: \"\": name part must be non-empty"),
            format!("{anti}.podAffinityTerm.topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
            "spec.dnsConfig.nameservers[0]: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)".into(),
            "spec.dnsConfig.searches[1]: Invalid value: \"b.\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')".into(),
            "spec.dnsConfig.options[0]: Required value: must not be empty".into(),
            "spec.readinessGates[0].conditionType: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')".into(),
            format!("{spread}.maxSkew: Invalid value: 0: must be greater than zero"),
            format!("{spread}.{{topologyKey, whenUnsatisfiable}}: Duplicate value: \"{{k, ScheduleAnyway}}\""),
            format!("{spread}.minDomains: Invalid value: 1: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
            format!("{spread}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"),
            "spec.hostAliases[0].ip: Invalid value: \"x\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)".into(),
            "spec.hostAliases[0].hostnames[0]: Invalid value: \"A\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into(),
        ]
    );
}

#[tokio::test]
async fn gated_pods_are_marked_unschedulable_and_status_updates_check_generate_name() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let pods = format!("/api/v1/namespaces/{}/pods", env.namespace());
    let json = "application/json";
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gated"},
        "spec": {"schedulingGates": [{"name": "example.com/g"}],
            "containers": [{"name": "c", "image": "busybox"}]},
        "status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}});
    let (code, created) = send(&client, "POST", &pods, json, Some(pod)).await;
    assert_eq!(code, 201, "{created}");
    let conditions = created["status"]["conditions"].as_array().unwrap();
    assert_eq!(conditions.len(), 1, "{created}");
    let gated = &conditions[0];
    assert_eq!(
        (
            &gated["type"],
            &gated["status"],
            &gated["reason"],
            &gated["message"]
        ),
        (
            &json!("PodScheduled"),
            &json!("False"),
            &json!("SchedulingGated"),
            &json!("Scheduling is blocked due to non-empty scheduling gates")
        ),
        "{created}"
    );
    assert_eq!(gated["lastProbeTime"], Value::Null);
    assert!(gated["lastTransitionTime"].is_string(), "{created}");
    let managed = created["metadata"]["managedFields"].to_string();
    assert!(!managed.contains("f:status"), "{managed}");

    let status = format!("{pods}/gated/status");
    let merge = "application/merge-patch+json";
    let patch = json!({"metadata": {"generateName": "x/%"}});
    let (code, body) = send(&client, "PATCH", &status, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "metadata.generateName: Invalid value: \"x/%\": may not contain '/'",
            "metadata.generateName: Invalid value: \"x/%\": may not contain '%'"
        ]
    );
    send(
        &client,
        "DELETE",
        &format!("{pods}/gated?gracePeriodSeconds=0"),
        "",
        None,
    )
    .await;
}

#[tokio::test]
async fn seccomp_profiles_sysctls_and_host_process_options_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{}/pods?dryRun=All", env.namespace());
    let post = |spec: Value| {
        let (client, path) = (client.clone(), path.clone());
        let mut spec = spec;
        spec["automountServiceAccountToken"] = json!(false);
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": spec});
        async move { send(&client, "POST", &path, "application/json", Some(pod)).await }
    };
    let profile = |p: Value| json!({"seccompProfile": p});

    // A seccomp profile's type, and a localhost profile only (and always) with Localhost,
    // relative and never stepping back: the containers', then the pod's.
    let (code, body) = post(json!({
        "securityContext": profile(json!({"type": "Bogus"})),
        "initContainers": [{"name": "i", "image": "x",
            "securityContext": profile(json!({"type": "Unconfined", "localhostProfile": ""}))}],
        "containers": [
            {"name": "c", "image": "x", "securityContext":
                profile(json!({"type": "RuntimeDefault", "localhostProfile": "a"}))},
            {"name": "d", "image": "x", "securityContext": profile(json!({"type": "Localhost"}))},
            {"name": "e", "image": "x", "securityContext":
                profile(json!({"localhostProfile": "/../a"}))},
            {"name": "f", "image": "x", "securityContext":
                profile(json!({"type": "Localhost", "localhostProfile": "/../a"}))},
            {"name": "g", "image": "x", "securityContext":
                profile(json!({"type": "Localhost", "localhostProfile": "profiles/a.json"}))}]}))
    .await;
    assert_eq!(code, 422, "{body}");
    let c = |i: usize| format!("spec.containers[{i}].securityContext.seccompProfile");
    assert_eq!(
        causes(&body),
        [
            format!(
                "{}.localhostProfile: Invalid value: {{\"Type\":\"RuntimeDefault\",\"LocalhostProfile\":\"a\"}}: can only be set when seccomp type is Localhost",
                c(0)
            ),
            format!(
                "{}.localhostProfile: Required value: must be set when seccomp type is Localhost",
                c(1)
            ),
            format!(
                "{}.type: Required value: type is required when seccompProfile is set",
                c(2)
            ),
            format!(
                "{}.localhostProfile: Invalid value: {{\"Type\":\"\",\"LocalhostProfile\":\"/../a\"}}: can only be set when seccomp type is Localhost",
                c(2)
            ),
            format!(
                "{}.localhostProfile: Invalid value: \"/../a\": must be a relative path",
                c(3)
            ),
            format!(
                "{}.localhostProfile: Invalid value: \"/../a\": must not contain '..'",
                c(3)
            ),
            "spec.initContainers[0].securityContext.seccompProfile.localhostProfile: Invalid value: {\"Type\":\"Unconfined\",\"LocalhostProfile\":\"\"}: can only be set when seccomp type is Localhost".to_string(),
            "spec.securityContext.seccompProfile.type: Unsupported value: \"Bogus\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\"".to_string(),
        ]
    );

    // Sysctl names: the kernel's form, each once, none of a namespace shared with the host.
    let sysctls = |names: &[&str]| {
        names
            .iter()
            .map(|n| json!({"name": n, "value": "1"}))
            .collect::<Vec<_>>()
    };
    let (code, body) = post(json!({"hostNetwork": true, "hostIPC": true,
        "securityContext": {"sysctls": sysctls(&["net/ipv4/ip_forward", "kernel.shmmax",
            "net", "Net.x", "", "a.b", "a.b"])},
        "containers": [{"name": "c", "image": "x"}]}))
    .await;
    assert_eq!(code, 422, "{body}");
    let s = |i: usize| format!("spec.securityContext.sysctls[{i}].name");
    assert_eq!(
        causes(&body),
        [
            format!(
                "{}: Invalid value: \"net/ipv4/ip_forward\": may not be specified when 'hostNetwork' is true",
                s(0)
            ),
            format!(
                "{}: Invalid value: \"kernel.shmmax\": may not be specified when 'hostIPC' is true",
                s(1)
            ),
            format!(
                "{}: Invalid value: \"Net.x\": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$",
                s(3)
            ),
            format!("{}: Required value", s(4)),
            format!("{}: Duplicate value: \"a.b\"", s(6)),
        ]
    );

    // Windows host-process options: pod and containers agree, all containers or none, with
    // the host's network.
    let host_process = |on: bool| json!({"windowsOptions": {"hostProcess": on}});
    let (code, body) = post(json!({"os": {"name": "windows"},
        "securityContext": host_process(true),
        "initContainers": [{"name": "i", "image": "x", "securityContext": host_process(false)}],
        "containers": [{"name": "c", "image": "x"}]}))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.initContainers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true",
            "spec: Invalid value: \"\": If pod contains any hostProcess containers then all containers must be HostProcess containers",
            "spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers",
        ]
    );
    let (code, body) = post(json!({"hostNetwork": true, "containers": [
        {"name": "c", "image": "x", "securityContext": host_process(true)}]}))
    .await;
    assert_eq!(code, 201, "{body}");
}

#[tokio::test]
async fn volume_sources_are_validated_in_the_real_order() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/pods?dryRun=All");
    // A volume with an error is not remembered: the second `s` is no duplicate, and the
    // mount of `s` is not found.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "P_"},
        "spec": {"restartPolicy": "X", "volumes": [
            {"name": "s", "secret": {"defaultMode": 1000, "items": [{"key": "", "path": "..x"}]}},
            {"name": "s", "emptyDir": {"sizeLimit": "-1"}},
            {"name": "d", "downwardAPI": {"items": [
                {"path": "a", "fieldRef": {"fieldPath": "spec.nodeName"}},
                {"path": "b", "resourceFieldRef": {"resource": "limits.cpu"}}]},
                "configMap": {"name": "c"}},
            {"name": "p", "projected": {"sources": [
                {"configMap": {"name": "c", "items": [{"key": "k", "path": "f"}]}},
                {"secret": {"name": "t", "items": [{"key": "k", "path": "f"}]},
                    "serviceAccountToken": {"path": "../t", "expirationSeconds": 60}}]}},
            {"name": "e", "ephemeral": {"volumeClaimTemplate": {"metadata": {"name": "x"},
                "spec": {"dataSource": {"kind": "Snap", "name": "n"}}}}}],
            "containers": [{"name": "c", "image": "i",
                "volumeMounts": [{"name": "s", "mountPath": "/s"}]}]}});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(pod)).await;
    assert_eq!(code, 422, "{body}");
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let mode = "must be a number between 0 and 0777 (octal), both inclusive";
    let claim = "spec.volumes[4].ephemeral.volumeClaimTemplate";
    assert_eq!(
        causes(&body),
        [
            format!("metadata.name: Invalid value: \"P_\": {subdomain}"),
            "spec.volumes[0].secret.secretName: Required value".into(),
            format!("spec.volumes[0].secret.defaultMode: Invalid value: 1000: {mode}"),
            "spec.volumes[0].secret.items[0].key: Required value".into(),
            "spec.volumes[0].secret.items[0].path: Invalid value: \"..x\": must not start with '..'".into(),
            "spec.volumes[1].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity".into(),
            "spec.volumes[2].downwardAPI.fieldRef.fieldPath: Unsupported value: \"spec.nodeName\": supported values: \"metadata.annotations\", \"metadata.labels\", \"metadata.name\", \"metadata.namespace\", \"metadata.uid\"".into(),
            "spec.volumes[2].downwardAPI.resourceFieldRef.containerName: Required value".into(),
            "spec.volumes[2].configMap: Forbidden: may not specify more than 1 volume type".into(),
            "spec.volumes[3].projected: Invalid value: \"t\": conflicting duplicate paths".into(),
            "spec.volumes[3].projected.sources[1].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes".into(),
            "spec.volumes[3].projected.path: Invalid value: \"../t\": must not contain '..'".into(),
            "spec.volumes[3].projected.sources[1]: Forbidden: may not specify more than 1 volume type per source".into(),
            format!("{claim}.metadata.name: Forbidden: cannot be set"),
            format!("{claim}.spec.accessModes: Required value: at least 1 access mode is required"),
            format!("{claim}.spec.resources[storage]: Required value"),
            format!("{claim}.spec.dataSource: Invalid value: \"Snap\": must be 'PersistentVolumeClaim' when referencing the default apiGroup"),
            format!("spec.volumes[4].name: Invalid value: \"e\": PVC name \"P_-e\": {subdomain}"),
            "spec.containers[0].volumeMounts[0].name: Not found: \"s\"".into(),
            "spec.restartPolicy: Unsupported value: \"X\": supported values: \"Always\", \"OnFailure\", \"Never\"".into(),
        ]
    );
    // Disabled projections are dropped (an empty source is warned of); a volume without a
    // source is an empty directory.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"automountServiceAccountToken": false, "volumes": [
            {"name": "t", "projected": {"sources": [{"clusterTrustBundle": {"name": "n", "path": "b"}}]}},
            {"name": "x"}],
            "containers": [{"name": "c", "image": "i"}]}});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(pod)).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["spec"]["volumes"],
        json!([{"name": "t", "projected": {"sources": [{}], "defaultMode": 420}},
            {"name": "x", "emptyDir": {}}])
    );
}

#[tokio::test]
async fn updates_drop_disabled_volumes_and_windows_pods_refuse_empty_group_lists() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/pods");
    // An empty supplementalGroups list is set, which a Windows pod may not do.
    let windows = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w"},
        "spec": {"os": {"name": "windows"}, "securityContext": {"supplementalGroups": []},
            "containers": [{"name": "c", "image": "i"}]}});
    let dry_run = format!("{path}?dryRun=All");
    let (code, body) = send(&client, "POST", &dry_run, "application/json", Some(windows)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        message(&body),
        "Pod \"w\" is invalid: spec.securityContext.supplementalGroups: Forbidden: cannot be set for a windows pod"
    );
    // An update adding an image volume and its mount (ImageVolume is off in v1.34) loses both,
    // as a create does: the pod is unchanged, so the update is allowed.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "imaged"},
        "spec": {"automountServiceAccountToken": false, "containers": [{"name": "c", "image": "i"}]}});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(pod)).await;
    assert_eq!(code, 201, "{body}");
    let patch = json!({"spec": {"volumes": [{"name": "img", "image": {"reference": "r"}}],
        "containers": [{"name": "c", "volumeMounts": [{"name": "img", "mountPath": "/m"}]}]}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{path}/imaged"),
        "application/strategic-merge-patch+json",
        Some(patch),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["metadata"]["generation"], 1);
    assert!(body["spec"]["volumes"].is_null(), "{body}");
    assert!(
        body["spec"]["containers"][0]["volumeMounts"].is_null(),
        "{body}"
    );
}

#[tokio::test]
async fn security_contexts_and_host_users_are_validated_in_the_real_order() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/pods?dryRun=All");
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"hostPID": true, "hostUsers": false, "shareProcessNamespace": true,
            "securityContext": {"fsGroup": -1, "supplementalGroups": [5, -1],
                "fsGroupChangePolicy": "Sometimes", "windowsOptions": {"runAsUserName": "a\\b\\c"}},
            "containers": [{"name": "c", "image": "i", "securityContext": {"runAsUser": -1,
                "procMount": "Bad", "privileged": true, "allowPrivilegeEscalation": false}}]}});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(pod)).await;
    assert_eq!(code, 422, "{body}");
    let range = "must be between 0 and 2147483647, inclusive";
    assert_eq!(
        causes(&body),
        [
            format!("spec.containers[0].securityContext.runAsUser: Invalid value: -1: {range}"),
            "spec.containers[0].securityContext.procMount: Unsupported value: \"Bad\": supported values: \"Default\", \"Unmasked\"".into(),
            "spec.containers[0].securityContext: Invalid value: {\"Capabilities\":null,\"Privileged\":true,\"SELinuxOptions\":null,\"WindowsOptions\":null,\"RunAsUser\":-1,\"RunAsGroup\":null,\"RunAsNonRoot\":null,\"ReadOnlyRootFilesystem\":null,\"AllowPrivilegeEscalation\":false,\"ProcMount\":\"Bad\",\"SeccompProfile\":null,\"AppArmorProfile\":null}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true".into(),
            format!("spec.securityContext.fsGroup: Invalid value: -1: {range}"),
            format!("spec.securityContext.supplementalGroups[1]: Invalid value: -1: {range}"),
            "spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled".into(),
            "spec.securityContext.fsGroupChangePolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnRootMismatch\"".into(),
            "spec.securityContext.windowsOptions.runAsUserName: Invalid value: \"a\\\\b\\\\c\": runAsUserName cannot contain more than one backslash".into(),
            "spec.HostPID: Forbidden: when `hostUsers` is false".into(),
        ]
    );
}

#[tokio::test]
async fn an_update_credits_its_writer_with_the_disabled_volumes_it_sent() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/podtemplates");
    let template = json!({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
        "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}});
    let (code, body) = send(&client, "POST", &path, "application/json", Some(template)).await;
    assert_eq!(code, 201, "{body}");
    // The image volume and the podCertificate projection are dropped (their features are off
    // in v1.34), after the field manager has recorded them as the writer's.
    let patch = json!({"template": {"spec": {
        "volumes": [{"name": "img", "image": {"reference": "r"}},
            {"name": "p", "projected": {"sources": [{"podCertificate": {"signerName": "a.b/c",
                "keyType": "RSA3072", "credentialBundlePath": "cb"}}]}}],
        "containers": [{"name": "c", "image": "i",
            "volumeMounts": [{"name": "img", "mountPath": "/m"}]}]}}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{path}/t?fieldManager=m"),
        "application/merge-patch+json",
        Some(patch),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        body["template"]["spec"]["volumes"],
        json!([{"name": "p", "projected": {"sources": [{}], "defaultMode": 420}}])
    );
    assert!(
        body["template"]["spec"]["containers"][0]["volumeMounts"].is_null(),
        "{body}"
    );
    let entry = body["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["manager"] == "m")
        .cloned()
        .unwrap_or_default();
    let spec = &entry["fieldsV1"]["f:template"]["f:spec"];
    assert_eq!(
        spec["f:volumes"]["k:{\"name\":\"img\"}"],
        json!({".": {}, "f:image": {".": {}, "f:reference": {}}, "f:name": {}})
    );
    assert_eq!(
        spec["f:containers"]["k:{\"name\":\"c\"}"]["f:volumeMounts"],
        json!({".": {}, "k:{\"mountPath\":\"/m\"}": {".": {}, "f:mountPath": {}, "f:name": {}}})
    );
    send(&client, "DELETE", &format!("{path}/t"), "", None).await;
}

#[tokio::test]
async fn a_projected_volumes_overlapping_files_are_warned_of() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let field = json!({"fieldRef": {"fieldPath": "metadata.name"}});
    let at = |path: &str| {
        let mut item = field.clone();
        item["path"] = json!(path);
        item
    };
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w"},
    "spec": {"automountServiceAccountToken": false, "containers": [{"name": "c", "image": "i"}],
        "volumes": [{"name": "a", "projected": {"sources": [
            {"serviceAccountToken": {"path": "t/"}},
            {},
            {"downwardAPI": {"items": [at("t/u")]}},
            {"secret": {"name": "s", "items": [{"key": "k", "path": "t"}, {"key": "l", "path": "tu"}]}},
        ]}}]}});
    let (code, headers, bytes) = crate::support::raw::exchange(
        &client,
        "POST",
        &format!("/api/v1/namespaces/{ns}/pods?dryRun=All"),
        &[("Content-Type", "application/json")],
        Some(&pod),
    )
    .await;
    assert_eq!(code, 201, "{}", String::from_utf8_lossy(&bytes));
    let warnings = crate::support::raw::warnings(&headers);
    assert_eq!(
        warnings,
        [
            r#"299 - "volume \"a\" (Projected) has no sources provided""#,
            r#"299 - "volume \"a\" (Projected): overlapping paths: \"t/u\" (DownwardAPI) with \"t\" (ServiceAccountToken)""#,
            r#"299 - "volume \"a\" (Projected): overlapping paths: \"t\" (Secret \"s\") with \"t\" (ServiceAccountToken)""#,
            r#"299 - "volume \"a\" (Projected): overlapping paths: \"t\" (Secret \"s\") with \"t/u\" (DownwardAPI)""#,
        ]
    );
}
