//! kubectl's typed commands (they send protobuf bodies) against the server, each object read
//! back and its fields checked (skipped with a message where kubectl is absent).

use kubeforge_testenv::TestEnv;

use crate::common::env;
use crate::kubectl::{kubectl_path, run, text};

/// Runs kubectl and asserts it succeeded; its standard output.
async fn ok(env: &TestEnv, args: &[&str]) -> String {
    let out = run(env, args, None).await.expect("kubectl is installed");
    assert!(out.status.success(), "kubectl {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `kubectl get <what> -o json`, parsed.
async fn get_json(env: &TestEnv, what: &[&str]) -> serde_json::Value {
    let args = [&["get"], what, &["-o", "json"]].concat();
    serde_json::from_str(&ok(env, &args).await).expect("kubectl prints JSON")
}

/// The claims of a service account token (its middle, base64url, part).
fn token_claims(token: &str) -> serde_json::Value {
    use base64::Engine;
    let payload = token
        .trim()
        .split('.')
        .nth(1)
        .expect("a JWT has three parts");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .expect("base64url claims");
    serde_json::from_slice(&bytes).expect("JSON claims")
}

/// kubectl's typed commands send protobuf bodies (`create deployment|job|cronjob|service|
/// role|clusterrole|rolebinding|clusterrolebinding|quota|priorityclass|pdb|ingress|token`,
/// `autoscale`, `debug --copy-to`); `run`, `expose` and `scale` send JSON. Each object is read
/// back and its fields checked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_typed_create_commands() {
    use serde_json::json;
    if kubectl_path().is_none() {
        eprintln!("skipping: kubectl is not installed");
        return;
    }
    let env = env().await;
    let ns = env.namespace().to_string();
    // Cluster-scoped names are unique per environment: a real cluster is shared.
    let cluster = |name: &str| format!("{ns}-{name}");

    ok(
        &env,
        &[
            "create",
            "deployment",
            "web",
            "--image=nginx:1.27",
            "--replicas=3",
            "--port=8080",
        ],
    )
    .await;
    let d = get_json(&env, &["deployment", "web"]).await;
    assert_eq!(d["spec"]["replicas"], 3, "{d}");
    assert_eq!(
        d["spec"]["selector"]["matchLabels"],
        json!({"app": "web"}),
        "{d}"
    );
    let c = &d["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["image"], "nginx:1.27", "{d}");
    assert_eq!(c["ports"][0]["containerPort"], 8080, "{d}");
    assert_eq!(c["ports"][0]["protocol"], "TCP", "defaulted: {d}");
    // replicas is a pointer: an explicit 0 reaches the server (not defaulted to 1).
    ok(
        &env,
        &[
            "create",
            "deployment",
            "idle",
            "--image=busybox:1.36",
            "--replicas=0",
        ],
    )
    .await;
    let d = get_json(&env, &["deployment", "idle"]).await;
    assert_eq!(d["spec"]["replicas"], 0, "{d}");

    ok(
        &env,
        &[
            "create",
            "cronjob",
            "tick",
            "--image=busybox:1.36",
            "--schedule=*/5 * * * *",
            "--restart=OnFailure",
            "--",
            "date",
        ],
    )
    .await;
    let cj = get_json(&env, &["cronjob", "tick"]).await;
    assert_eq!(cj["spec"]["schedule"], "*/5 * * * *", "{cj}");
    let pod = &cj["spec"]["jobTemplate"]["spec"]["template"]["spec"];
    assert_eq!(pod["containers"][0]["command"], json!(["date"]), "{cj}");
    assert_eq!(pod["restartPolicy"], "OnFailure", "{cj}");
    ok(
        &env,
        &[
            "create",
            "job",
            "once",
            "--image=busybox:1.36",
            "--",
            "echo",
            "hi",
        ],
    )
    .await;
    let job = get_json(&env, &["job", "once"]).await;
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(
        pod["containers"][0]["command"],
        json!(["echo", "hi"]),
        "{job}"
    );
    assert_eq!(pod["restartPolicy"], "Never", "{job}");
    // --from copies the CronJob's (defaulted) template and points back at it.
    ok(&env, &["create", "job", "manual", "--from=cronjob/tick"]).await;
    let job = get_json(&env, &["job", "manual"]).await;
    assert_eq!(
        job["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"], "manual",
        "{job}"
    );
    let owner = &job["metadata"]["ownerReferences"][0];
    assert_eq!(
        (owner["kind"].as_str(), owner["name"].as_str()),
        (Some("CronJob"), Some("tick")),
        "{job}"
    );
    assert_eq!(owner["controller"], true, "{job}");
    assert_eq!(
        job["spec"]["template"]["spec"]["containers"][0]["command"],
        json!(["date"]),
        "{job}"
    );

    ok(
        &env,
        &[
            "create",
            "service",
            "clusterip",
            "front",
            "--tcp=80:8080",
            "--tcp=443:https",
        ],
    )
    .await;
    let s = get_json(&env, &["service", "front"]).await;
    assert_eq!(s["spec"]["type"], "ClusterIP", "{s}");
    assert_eq!(s["spec"]["selector"], json!({"app": "front"}), "{s}");
    let ports = &s["spec"]["ports"];
    assert_eq!(
        (ports[0]["port"].as_i64(), ports[0]["targetPort"].as_i64()),
        (Some(80), Some(8080)),
        "{s}"
    );
    assert_eq!(
        (ports[1]["port"].as_i64(), ports[1]["targetPort"].as_str()),
        (Some(443), Some("https")),
        "{s}"
    );
    ok(
        &env,
        &[
            "create",
            "service",
            "clusterip",
            "headless",
            "--clusterip=None",
        ],
    )
    .await;
    let s = get_json(&env, &["service", "headless"]).await;
    assert_eq!(s["spec"]["clusterIP"], "None", "{s}");
    // A node port of its own per environment: a real cluster is shared.
    let node_port = 30000 + ns.bytes().map(u32::from).sum::<u32>() % 2000;
    ok(
        &env,
        &[
            "create",
            "service",
            "nodeport",
            "np",
            "--tcp=80:8080",
            &format!("--node-port={node_port}"),
        ],
    )
    .await;
    let s = get_json(&env, &["service", "np"]).await;
    assert_eq!(s["spec"]["type"], "NodePort", "{s}");
    assert_eq!(s["spec"]["ports"][0]["nodePort"], node_port, "{s}");
    ok(
        &env,
        &["create", "service", "loadbalancer", "lb", "--tcp=443:8443"],
    )
    .await;
    let s = get_json(&env, &["service", "lb"]).await;
    assert_eq!(s["spec"]["type"], "LoadBalancer", "{s}");
    assert_eq!(s["spec"]["ports"][0]["targetPort"], 8443, "{s}");
    ok(
        &env,
        &[
            "create",
            "service",
            "externalname",
            "ext",
            "--external-name=example.com",
            "--tcp=80",
        ],
    )
    .await;
    let s = get_json(&env, &["service", "ext"]).await;
    assert_eq!(
        (
            s["spec"]["type"].as_str(),
            s["spec"]["externalName"].as_str()
        ),
        (Some("ExternalName"), Some("example.com")),
        "{s}"
    );

    ok(
        &env,
        &[
            "create",
            "role",
            "reader",
            "--verb=get,list",
            "--resource=pods,deployments.apps,pods/log",
            "--resource-name=x",
        ],
    )
    .await;
    let r = get_json(&env, &["role", "reader"]).await;
    assert_eq!(
        r["rules"],
        json!([
            {"apiGroups": [""], "resources": ["pods", "pods/log"], "resourceNames": ["x"], "verbs": ["get", "list"]},
            {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["x"], "verbs": ["get", "list"]},
        ]),
        "{r}"
    );
    let viewer = cluster("viewer");
    ok(
        &env,
        &[
            "create",
            "clusterrole",
            &viewer,
            "--verb=get",
            "--resource=pods",
            "--non-resource-url=/healthz",
            "--non-resource-url=/logs/*",
        ],
    )
    .await;
    let r = get_json(&env, &["clusterrole", &viewer]).await;
    assert_eq!(
        r["rules"][1],
        json!({"nonResourceURLs": ["/healthz", "/logs/*"], "verbs": ["get"]}),
        "{r}"
    );
    let aggregated = cluster("aggregated");
    let label = format!("rbac.example.com/aggregate-to-{ns}");
    ok(
        &env,
        &[
            "create",
            "clusterrole",
            &aggregated,
            &format!("--aggregation-rule={label}=true"),
        ],
    )
    .await;
    let r = get_json(&env, &["clusterrole", &aggregated]).await;
    assert_eq!(
        r["aggregationRule"]["clusterRoleSelectors"],
        json!([{"matchLabels": {label.as_str(): "true"}}]),
        "{r}"
    );
    ok(&env, &["create", "serviceaccount", "robot"]).await;
    let robot = format!("--serviceaccount={ns}:robot");
    ok(
        &env,
        &[
            "create",
            "rolebinding",
            "readers",
            "--role=reader",
            "--user=alice",
            "--group=devs",
            &robot,
        ],
    )
    .await;
    let b = get_json(&env, &["rolebinding", "readers"]).await;
    assert_eq!(
        b["roleRef"],
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"}),
        "{b}"
    );
    assert_eq!(
        b["subjects"],
        json!([
            {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"},
            {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "devs"},
            {"kind": "ServiceAccount", "name": "robot", "namespace": ns},
        ]),
        "{b}"
    );
    let viewers = cluster("viewers");
    ok(
        &env,
        &[
            "create",
            "clusterrolebinding",
            &viewers,
            &format!("--clusterrole={viewer}"),
            "--user=bob",
            &robot,
        ],
    )
    .await;
    let b = get_json(&env, &["clusterrolebinding", &viewers]).await;
    assert_eq!(b["roleRef"]["name"], viewer.as_str(), "{b}");
    assert_eq!(
        b["subjects"][1],
        json!({"kind": "ServiceAccount", "name": "robot", "namespace": ns}),
        "{b}"
    );

    let high = cluster("high");
    ok(
        &env,
        &[
            "create",
            "priorityclass",
            &high,
            "--value=1000",
            "--description=important",
            "--preemption-policy=Never",
        ],
    )
    .await;
    let pc = get_json(&env, &["priorityclass", &high]).await;
    assert_eq!(
        (
            pc["value"].as_i64(),
            pc["description"].as_str(),
            pc["preemptionPolicy"].as_str()
        ),
        (Some(1000), Some("important"), Some("Never")),
        "{pc}"
    );
    ok(
        &env,
        &[
            "create",
            "poddisruptionbudget",
            "half",
            "--selector=app=web",
            "--min-available=50%",
        ],
    )
    .await;
    let pdb = get_json(&env, &["pdb", "half"]).await;
    assert_eq!(pdb["spec"]["minAvailable"], "50%", "{pdb}");
    assert_eq!(
        pdb["spec"]["selector"],
        json!({"matchLabels": {"app": "web"}}),
        "{pdb}"
    );
    ok(
        &env,
        &[
            "create",
            "pdb",
            "one",
            "--selector=app=web",
            "--max-unavailable=1",
        ],
    )
    .await;
    let pdb = get_json(&env, &["pdb", "one"]).await;
    assert_eq!(pdb["spec"]["maxUnavailable"], 1, "{pdb}");

    ok(
        &env,
        &[
            "create",
            "ingress",
            "web",
            "--class=nginx",
            "--rule=foo.com/bar=front:8080,tls=web-cert",
            "--rule=foo.com/path*=front:http",
            "--default-backend=front:http",
            "--annotation=team=a",
        ],
    )
    .await;
    let ing = get_json(&env, &["ingress", "web"]).await;
    let spec = &ing["spec"];
    assert_eq!(spec["ingressClassName"], "nginx", "{ing}");
    assert_eq!(ing["metadata"]["annotations"]["team"], "a", "{ing}");
    assert_eq!(
        spec["defaultBackend"],
        json!({"service": {"name": "front", "port": {"name": "http"}}}),
        "{ing}"
    );
    assert_eq!(
        spec["tls"],
        json!([{"hosts": ["foo.com"], "secretName": "web-cert"}]),
        "{ing}"
    );
    assert_eq!(
        spec["rules"],
        json!([{"host": "foo.com", "http": {"paths": [
            {"path": "/bar", "pathType": "Exact", "backend": {"service": {"name": "front", "port": {"number": 8080}}}},
            {"path": "/path", "pathType": "Prefix", "backend": {"service": {"name": "front", "port": {"name": "http"}}}},
        ]}}]),
        "{ing}"
    );

    // TokenRequest to serviceaccounts/robot/token.
    let token = ok(
        &env,
        &[
            "create",
            "token",
            "robot",
            "--audience=api",
            "--audience=vault",
            "--duration=10m",
        ],
    )
    .await;
    let claims = token_claims(&token);
    assert_eq!(claims["aud"], json!(["api", "vault"]), "{claims}");
    assert_eq!(
        claims["sub"],
        format!("system:serviceaccount:{ns}:robot"),
        "{claims}"
    );
    let lifetime = claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap();
    assert_eq!(lifetime, 600, "{claims}");

    ok(
        &env,
        &[
            "autoscale",
            "deployment",
            "web",
            "--min=2",
            "--max=5",
            "--cpu-percent=80",
        ],
    )
    .await;
    let hpa = get_json(&env, &["horizontalpodautoscalers.v1.autoscaling", "web"]).await;
    assert_eq!(
        hpa["spec"]["scaleTargetRef"],
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}),
        "{hpa}"
    );
    assert_eq!(
        (
            hpa["spec"]["minReplicas"].as_i64(),
            hpa["spec"]["maxReplicas"].as_i64(),
            hpa["spec"]["targetCPUUtilizationPercentage"].as_i64()
        ),
        (Some(2), Some(5), Some(80)),
        "{hpa}"
    );

    // JSON bodies: run, expose, scale.
    ok(
        &env,
        &[
            "run",
            "solo",
            "--image=nginx:1.27",
            "--port=80",
            "--labels=app=solo",
            "--env=K=V",
            "--restart=Never",
        ],
    )
    .await;
    let pod = get_json(&env, &["pod", "solo"]).await;
    let c = &pod["spec"]["containers"][0];
    assert_eq!(
        (c["image"].as_str(), c["ports"][0]["containerPort"].as_i64()),
        (Some("nginx:1.27"), Some(80)),
        "{pod}"
    );
    assert_eq!(c["env"], json!([{"name": "K", "value": "V"}]), "{pod}");
    assert_eq!(pod["spec"]["restartPolicy"], "Never", "{pod}");
    ok(
        &env,
        &[
            "expose",
            "deployment",
            "web",
            "--port=80",
            "--target-port=8080",
            "--name=web-svc",
        ],
    )
    .await;
    let s = get_json(&env, &["service", "web-svc"]).await;
    assert_eq!(s["spec"]["selector"], json!({"app": "web"}), "{s}");
    assert_eq!(
        (
            s["spec"]["ports"][0]["port"].as_i64(),
            s["spec"]["ports"][0]["targetPort"].as_i64()
        ),
        (Some(80), Some(8080)),
        "{s}"
    );
    ok(&env, &["scale", "deployment", "web", "--replicas=2"]).await;
    let d = get_json(&env, &["deployment", "web"]).await;
    assert_eq!(d["spec"]["replicas"], 2, "{d}");

    // debug --copy-to sends the whole (defaulted) pod back as protobuf, volumes and all.
    ok(
        &env,
        &[
            "debug",
            "solo",
            "--image=busybox:1.36",
            "--copy-to=solo-copy",
            "--container=debugger",
            "--attach=false",
            "--profile=general",
        ],
    )
    .await;
    let copy = get_json(&env, &["pod", "solo-copy"]).await;
    let names: Vec<&str> = copy["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["solo", "debugger"], "{copy}");
    assert_eq!(
        copy["spec"]["containers"][1]["image"], "busybox:1.36",
        "{copy}"
    );

    // Quotas last: they would constrain what the commands above create.
    ok(
        &env,
        &[
            "create",
            "quota",
            "compute",
            "--hard=cpu=1,memory=1G,pods=2",
            "--scopes=NotTerminating,NotBestEffort",
        ],
    )
    .await;
    let q = get_json(&env, &["resourcequota", "compute"]).await;
    assert_eq!(
        q["spec"]["hard"],
        json!({"cpu": "1", "memory": "1G", "pods": "2"}),
        "{q}"
    );
    assert_eq!(
        q["spec"]["scopes"],
        json!(["NotTerminating", "NotBestEffort"]),
        "{q}"
    );
    ok(
        &env,
        &[
            "create",
            "quota",
            "objects",
            "--hard=services.loadbalancers=0,requests.storage=10Gi,count/deployments.apps=5",
        ],
    )
    .await;
    let q = get_json(&env, &["resourcequota", "objects"]).await;
    assert_eq!(
        q["spec"]["hard"],
        json!({"services.loadbalancers": "0", "requests.storage": "10Gi", "count/deployments.apps": "5"}),
        "{q}"
    );

    for (kind, name) in [
        ("clusterrolebinding", &viewers),
        ("clusterrole", &viewer),
        ("clusterrole", &aggregated),
        ("priorityclass", &high),
    ] {
        ok(&env, &["delete", kind, name]).await;
    }
}

/// More protobuf bodies: `auth whoami` (SelfSubjectReview), `auth can-i --list`
/// (SelfSubjectRulesReview), `auth reconcile` (roles and bindings) and `certificate approve`
/// (a CertificateSigningRequest, its status included, put to `/approval`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_auth_and_certificate_commands() {
    use serde_json::json;
    if kubectl_path().is_none() {
        eprintln!("skipping: kubectl is not installed");
        return;
    }
    let env = env().await;
    let ns = env.namespace().to_string();

    let me = ok(&env, &["auth", "whoami", "-o", "json"]).await;
    let me: serde_json::Value = serde_json::from_str(&me).expect("JSON");
    assert_eq!(me["kind"], "SelfSubjectReview", "{me}");
    assert!(
        me["status"]["userInfo"]["username"]
            .as_str()
            .is_some_and(|u| !u.is_empty()),
        "{me}"
    );
    let rules = ok(&env, &["auth", "can-i", "--list"]).await;
    assert!(
        rules
            .lines()
            .next()
            .unwrap_or_default()
            .starts_with("Resources"),
        "{rules}"
    );
    assert!(
        rules.contains("selfsubjectaccessreviews.authorization.k8s.io"),
        "{rules}"
    );

    let manifests = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: reconciled, namespace: {ns}}}\nrules:\n- apiGroups: [\"\"]\n  resources: [pods]\n  verbs: [get]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: reconciled, namespace: {ns}}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: reconciled}}\nsubjects:\n- {{kind: User, name: carol, apiGroup: rbac.authorization.k8s.io}}\n"
    );
    let out = run(&env, &["auth", "reconcile", "-f", "-"], Some(&manifests))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let r = get_json(&env, &["role", "reconciled"]).await;
    assert_eq!(
        r["rules"],
        json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]),
        "{r}"
    );
    let b = get_json(&env, &["rolebinding", "reconciled"]).await;
    assert_eq!(b["subjects"][0]["name"], "carol", "{b}");
    // Reconciling again puts the read role back, managedFields and all, with a rule added.
    let more = manifests.replacen("verbs: [get]", "verbs: [list]", 1);
    let out = run(&env, &["auth", "reconcile", "-f", "-"], Some(&more))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let r = get_json(&env, &["role", "reconciled"]).await;
    assert_eq!(
        r["rules"],
        json!([
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
        ]),
        "{r}"
    );

    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "dave");
    let pem = params.serialize_request(&key).unwrap().pem().unwrap();
    let request = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(pem)
    };
    // Cluster-scoped: a name of its own per environment.
    let name = format!("{ns}-dave");
    let csr = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": request, "signerName": "example.com/custom", "usages": ["client auth"]}});
    let out = run(&env, &["apply", "-f", "-"], Some(&csr.to_string()))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    ok(&env, &["certificate", "approve", &name]).await;
    let approved = get_json(&env, &["csr", &name]).await;
    let condition = &approved["status"]["conditions"][0];
    assert_eq!(
        (
            condition["type"].as_str(),
            condition["status"].as_str(),
            condition["reason"].as_str()
        ),
        (Some("Approved"), Some("True"), Some("KubectlApprove")),
        "{approved}"
    );
    assert_eq!(
        approved["spec"]["request"], request,
        "the spec is kept: {approved}"
    );
    ok(&env, &["delete", "csr", &name]).await;
}

/// `kubectl create -f -` with `body` (a JSON body); its standard output.
async fn create_json(env: &TestEnv, body: &serde_json::Value, extra: &[&str]) -> String {
    let text_body = body.to_string();
    let args = [&["create", "-f", "-"], extra].concat();
    let out = run(env, &args, Some(&text_body))
        .await
        .expect("kubectl is installed");
    assert!(out.status.success(), "kubectl {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A pod whose spec has probes, lifecycle hooks, a sidecar, resize policy, resource claims,
/// volume devices, affinity, topology spread, DNS config, host aliases, an OS, readiness and
/// scheduling gates, and NFS, CSI, ephemeral and iSCSI volumes.
fn full_pod() -> serde_json::Value {
    use serde_json::json;
    let claim = |mode: &str| {
        json!({"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
            "volumeMode": mode, "resources": {"requests": {"storage": "1Gi"}}}}})
    };
    let app = json!({"name": "app", "image": "nginx:1.27",
        "ports": [{"name": "http", "containerPort": 8080}],
        "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080,
            "httpHeaders": [{"name": "X-Probe", "value": "1"}]},
            "initialDelaySeconds": 3, "periodSeconds": 7},
        "readinessProbe": {"tcpSocket": {"port": "http"}, "timeoutSeconds": 2},
        "startupProbe": {"grpc": {"port": 9090, "service": "health"}, "failureThreshold": 30},
        "lifecycle": {"postStart": {"exec": {"command": ["sh", "-c", "true"]}},
            "preStop": {"sleep": {"seconds": 5}}},
        "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
        "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"},
            "claims": [{"name": "gpu"}]},
        "volumeMounts": [{"name": "nfs", "mountPath": "/nfs"}, {"name": "csi", "mountPath": "/csi"},
            {"name": "cache", "mountPath": "/cache"}, {"name": "iscsi", "mountPath": "/iscsi"}],
        "volumeDevices": [{"name": "block", "devicePath": "/dev/xvda"}]});
    let selector = json!({"matchLabels": {"app": "full"}});
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "full", "labels": {"app": "full"}},
        "spec": {
            "initContainers": [{"name": "sidecar", "image": "busybox:1.36", "restartPolicy": "Always",
                "startupProbe": {"exec": {"command": ["true"]}, "failureThreshold": 30}}],
            "containers": [app],
            "volumes": [
                {"name": "nfs", "nfs": {"server": "nfs.example.com", "path": "/exports", "readOnly": true}},
                {"name": "csi", "csi": {"driver": "inline.csi.example.com",
                    "volumeAttributes": {"size": "1Gi"}}},
                {"name": "cache", "ephemeral": claim("Filesystem")},
                {"name": "block", "ephemeral": claim("Block")},
                {"name": "iscsi", "iscsi": {"targetPortal": "10.0.0.1:3260",
                    "iqn": "iqn.2001-04.com.example:storage", "lun": 0, "fsType": "ext4"}}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In",
                            "values": ["linux"]}]}]},
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10,
                        "preference": {"matchExpressions": [{"key": "zone", "operator": "In",
                            "values": ["a"]}]}}]},
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 50, "podAffinityTerm": {"labelSelector": selector,
                        "topologyKey": "kubernetes.io/hostname"}}]}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector}],
            "dnsConfig": {"nameservers": ["10.0.0.10"], "searches": ["svc.example"],
                "options": [{"name": "ndots", "value": "2"}]},
            "hostAliases": [{"ip": "10.0.0.5", "hostnames": ["db.local"]}],
            "os": {"name": "linux"},
            "readinessGates": [{"conditionType": "example.com/ready"}],
            "schedulingGates": [{"name": "example.com/hold"}],
            "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-claim"}]}})
}

/// A suspended CronJob whose job template has a podFailurePolicy, a successPolicy, and a pod
/// template with a probe, pod affinity and a toleration.
fn cron_job_with_policies() -> serde_json::Value {
    use serde_json::json;
    json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
        "spec": {"schedule": "0 3 * * *", "suspend": true, "jobTemplate": {"spec": {
            "completionMode": "Indexed", "completions": 3, "parallelism": 3,
            "podFailurePolicy": {"rules": [
                {"action": "FailJob", "onExitCodes": {"containerName": "work",
                    "operator": "In", "values": [42]}},
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget",
                    "status": "True"}]}]},
            "successPolicy": {"rules": [{"succeededIndexes": "0-1", "succeededCount": 1}]},
            "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "work", "image": "busybox:1.36",
                    "livenessProbe": {"exec": {"command": ["true"]}}}],
                "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}},
                "tolerations": [{"key": "batch", "operator": "Exists",
                    "effect": "NoSchedule"}]}}}}}})
}

/// Protobuf bodies carry every field of a pod spec and a job spec: `debug --copy-to` of a pod
/// with probes, affinity and uncommon volume sources stores the pod's spec as its JSON create
/// stored it (plus the debug container and `shareProcessNamespace`), and `create job
/// --from=cronjob/x` stores the job spec a JSON create of the CronJob's job template stores
/// (podFailurePolicy and successPolicy included), but for the generated selector and labels.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_typed_bodies_carry_every_pod_and_job_field() {
    if kubectl_path().is_none() {
        eprintln!("skipping: kubectl is not installed");
        return;
    }
    let env = env().await;
    create_json(&env, &full_pod(), &[]).await;
    ok(
        &env,
        &[
            "debug",
            "full",
            "--copy-to=full-copy",
            "--container=debugger",
            "--image=busybox:1.36",
            "--attach=false",
            "--keep-liveness",
            "--keep-readiness",
            "--keep-startup",
            "--keep-labels",
            "--share-processes=false",
            "--profile=general",
        ],
    )
    .await;
    let original = get_json(&env, &["pod", "full"]).await;
    let mut copy = get_json(&env, &["pod", "full-copy"]).await;
    let spec = copy["spec"].as_object_mut().expect("a pod has a spec");
    assert_eq!(spec.remove("shareProcessNamespace"), Some(false.into()));
    let containers = spec["containers"].as_array_mut().expect("containers");
    let debugger = containers.pop().expect("the debug container is last");
    assert_eq!(debugger["name"], "debugger", "{debugger}");
    assert_eq!(copy["spec"], original["spec"]);

    let cron_job = cron_job_with_policies();
    create_json(&env, &cron_job, &[]).await;
    let from_json = serde_json::json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "manual"}, "spec": cron_job["spec"]["jobTemplate"]["spec"]});
    let out = create_json(&env, &from_json, &["--dry-run=server", "-o", "json"]).await;
    let mut expected: serde_json::Value = serde_json::from_str(&out).expect("kubectl prints JSON");
    ok(&env, &["create", "job", "--from=cronjob/nightly", "manual"]).await;
    let mut job = get_json(&env, &["job", "manual"]).await;
    for spec in [&mut job["spec"], &mut expected["spec"]] {
        let spec = spec.as_object_mut().expect("a job has a spec");
        spec.remove("selector");
        spec["template"]["metadata"]
            .as_object_mut()
            .expect("template metadata")
            .remove("labels");
    }
    assert_eq!(job["spec"], expected["spec"]);
    assert_eq!(
        job["spec"]["podFailurePolicy"]["rules"][0]["action"],
        "FailJob"
    );
}
