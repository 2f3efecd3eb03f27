//! The schema, defaulting, OpenAPI and strategic-merge pieces seen through kubectl against the
//! embedded server: `kubectl explain` on a CRD, `kubectl apply` of a Deployment twice
//! (unchanged the second time: the server's defaults and kubectl's patches agree),
//! `kubectl patch` with a strategic merge patch, and schema errors with the real texts.
//! Skipped with a message where kubectl is not installed.

use std::process::{Command, Output, Stdio};

use kubeforge_testenv::TestEnv;

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: memcacheds.cache.example.com
spec:
  group: cache.example.com
  names: {kind: Memcached, listKind: MemcachedList, plural: memcacheds, singular: memcached}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        description: Memcached is the Schema for the memcacheds API
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            description: MemcachedSpec defines the desired state of Memcached
            type: object
            properties:
              size:
                description: Size is the number of memcached pods
                type: integer
                format: int32
                minimum: 1
                maximum: 5
                default: 1
          status:
            type: object
            properties:
              ready: {type: boolean}
"#;

const DEPLOYMENT: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
        env:
        - {name: A, value: "1"}
"#;

fn kubectl(env: &TestEnv, args: &[&str], stdin: Option<&str>) -> Option<Output> {
    let bin = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(bin) = bin else {
        eprintln!("skipping: kubectl is not installed");
        return None;
    };
    let mut cmd = Command::new(bin);
    cmd.arg("--kubeconfig")
        .arg(env.kubeconfig_path())
        .arg("-n")
        .arg(env.namespace())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("kubectl starts");
    {
        use std::io::Write;
        let mut pipe = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            pipe.write_all(text.as_bytes()).unwrap();
        }
    }
    Some(child.wait_with_output().expect("kubectl runs"))
}

async fn run(env: &TestEnv, args: &[&str], stdin: Option<&str>) -> Option<(bool, String)> {
    let out = tokio::task::block_in_place(|| kubectl(env, args, stdin))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some((out.status.success(), text))
}

async fn env() -> TestEnv {
    TestEnv::builder()
        .crd_yaml(CRD)
        .start()
        .await
        .expect("test environment starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_reads_the_crd_schema() {
    let env = env().await;
    let Some((ok, text)) = run(&env, &["explain", "memcacheds.spec"], None).await else {
        return;
    };
    assert!(ok, "{text}");
    assert!(
        text.contains("MemcachedSpec defines the desired state"),
        "{text}"
    );
    assert!(text.contains("size"), "{text}");
    let (ok, text) = run(&env, &["explain", "memcacheds.metadata.labels"], None)
        .await
        .unwrap();
    assert!(ok, "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_resources_are_defaulted_and_validated() {
    let env = env().await;
    let m =
        "apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: m\nspec: {}\n";
    let Some((ok, text)) = run(&env, &["apply", "-f", "-"], Some(m)).await else {
        return;
    };
    assert!(ok, "{text}");
    let (_, size) = run(
        &env,
        &["get", "memcached", "m", "-o", "jsonpath={.spec.size}"],
        None,
    )
    .await
    .unwrap();
    assert_eq!(size, "1");
    let bad = m.replace("spec: {}", "spec: {size: 9}");
    let (ok, text) = run(&env, &["apply", "-f", "-"], Some(&bad)).await.unwrap();
    assert!(!ok, "{text}");
    assert!(
        text.contains(
            "spec.size: Invalid value: 9: spec.size in body should be less than or equal to 5"
        ),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deployment_apply_is_idempotent_and_strategic_patches_merge() {
    let env = env().await;
    let Some((ok, text)) = run(&env, &["apply", "-f", "-"], Some(DEPLOYMENT)).await else {
        return;
    };
    assert!(ok, "{text}");
    let (ok, text) = run(&env, &["apply", "-f", "-"], Some(DEPLOYMENT))
        .await
        .unwrap();
    assert!(ok, "{text}");
    assert!(text.contains("unchanged"), "{text}");
    let (_, policy) = run(
        &env,
        &[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.template.spec.containers[0].imagePullPolicy} {.spec.strategy.rollingUpdate.maxSurge} {.spec.template.spec.containers[0].ports[0].protocol}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(policy, "IfNotPresent 25% TCP");

    // A strategic merge patch adds an env var by name and keeps the others.
    let (ok, text) = run(
        &env,
        &[
            "patch",
            "deployment",
            "web",
            "--type",
            "strategic",
            "-p",
            r#"{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"B","value":"2"}]}]}}}}"#,
        ],
        None,
    )
    .await
    .unwrap();
    assert!(ok, "{text}");
    let (_, env_names) = run(
        &env,
        &[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.template.spec.containers[0].env[*].name} {.spec.template.spec.containers[0].image}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(env_names, "B A nginx:1.27");

    // Re-applying a changed manifest updates the image and keeps the server defaults.
    let changed = DEPLOYMENT.replace("nginx:1.27", "nginx:1.28");
    let (ok, text) = run(&env, &["apply", "-f", "-"], Some(&changed))
        .await
        .unwrap();
    assert!(ok, "{text}");
    assert!(text.contains("configured"), "{text}");
    let (_, image) = run(
        &env,
        &[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.template.spec.containers[0].image} {.spec.revisionHistoryLimit}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(image, "nginx:1.28 10");
}

const WORKLOADS: &str = r#"
apiVersion: v1
kind: Service
metadata:
  name: db
spec:
  selector: {app: db}
  ports:
  - {name: sql, port: 5432}
  - {name: metrics, port: 9187}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: postgres:16
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: backup
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: backup
            image: busybox
"#;

// Re-applying either of these reports "configured" on a real cluster too: the claim
// templates are an atomic list the server fills with defaults, and `stringData` is folded
// into `data`, so kubectl always finds a difference.
const ALWAYS_CONFIGURED: &str = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cache
spec:
  serviceName: cache
  selector:
    matchLabels: {app: cache}
  template:
    metadata:
      labels: {app: cache}
    spec:
      containers:
      - name: cache
        image: redis:7
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
  password: hunter2
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_workloads_apply_cleanly_and_get_their_defaults() {
    let env = env().await;
    let Some((ok, text)) = run(&env, &["apply", "-f", "-"], Some(WORKLOADS)).await else {
        return;
    };
    assert!(ok, "{text}");
    let (ok, text) = run(&env, &["apply", "-f", "-"], Some(WORKLOADS))
        .await
        .unwrap();
    assert!(ok, "{text}");
    assert_eq!(text.matches("unchanged").count(), 3, "{text}");
    let (ok, text) = run(&env, &["apply", "-f", "-"], Some(ALWAYS_CONFIGURED))
        .await
        .unwrap();
    assert!(ok, "{text}");
    let (_, got) = run(
        &env,
        &[
            "get",
            "service",
            "db",
            "-o",
            "jsonpath={.spec.type} {.spec.ports[1].targetPort} {.spec.ipFamilyPolicy}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(got, "ClusterIP 9187 SingleStack");
    let (_, got) = run(
        &env,
        &[
            "get",
            "statefulset",
            "db",
            "-o",
            "jsonpath={.spec.podManagementPolicy} {.spec.updateStrategy.rollingUpdate.partition}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(got, "OrderedReady 0");
    let (_, got) = run(
        &env,
        &[
            "get",
            "statefulset",
            "cache",
            "-o",
            "jsonpath={.spec.volumeClaimTemplates[0].kind} {.spec.volumeClaimTemplates[0].spec.volumeMode}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(got, "PersistentVolumeClaim Filesystem");
    let (_, got) = run(
        &env,
        &[
            "get",
            "cronjob",
            "backup",
            "-o",
            "jsonpath={.spec.concurrencyPolicy} {.spec.successfulJobsHistoryLimit} {.spec.jobTemplate.spec.template.spec.containers[0].imagePullPolicy}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(got, "Allow 3 Always");
    let (_, got) = run(
        &env,
        &[
            "get",
            "secret",
            "creds",
            "-o",
            "jsonpath={.type} {.data.password}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(got, "Opaque aHVudGVyMg==");

    // Service ports merge by port under a strategic merge patch.
    let (ok, text) = run(
        &env,
        &[
            "patch",
            "service",
            "db",
            "-p",
            r#"{"spec":{"ports":[{"port":9187,"targetPort":9999}]}}"#,
        ],
        None,
    )
    .await
    .unwrap();
    assert!(ok, "{text}");
    let (_, got) = run(
        &env,
        &[
            "get",
            "service",
            "db",
            "-o",
            "jsonpath={.spec.ports[*].targetPort}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(got, "5432 9999");

    let (ok, text) = run(&env, &["explain", "deployments"], None).await.unwrap();
    assert!(ok, "{text}");
    assert!(text.contains("Deployment"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_structural_crds_and_cel_rules_are_enforced() {
    let env = env().await;
    let bad_crd = CRD
        .replace("memcacheds.cache.example.com", "caches.cache.example.com")
        .replace(
            "{kind: Memcached, listKind: MemcachedList, plural: memcacheds, singular: memcached}",
            "{kind: Cache, listKind: CacheList, plural: caches, singular: cache}",
        )
        .replace(
            "              ready: {type: boolean}",
            "              ready: {type: boolean}\n              free: {description: no type}",
        );
    let Some((ok, text)) = run(&env, &["apply", "-f", "-"], Some(&bad_crd)).await else {
        return;
    };
    assert!(!ok, "{text}");
    assert!(
        text.contains("spec.validation.openAPIV3Schema.properties[status].properties[free].type: Required value: must not be empty for specified object fields"),
        "{text}"
    );

    let ruled = CRD
        .replace("memcacheds.cache.example.com", "pools.cache.example.com")
        .replace(
            "{kind: Memcached, listKind: MemcachedList, plural: memcacheds, singular: memcached}",
            "{kind: Pool, listKind: PoolList, plural: pools, singular: pool}",
        )
        .replace(
            "            description: MemcachedSpec defines the desired state of Memcached\n",
            "            description: MemcachedSpec defines the desired state of Memcached\n            x-kubernetes-validations:\n            - {rule: \"self.size % 2 == 1\", message: size must be odd}\n",
        );
    let (ok, text) = run(&env, &["apply", "-f", "-"], Some(&ruled))
        .await
        .unwrap();
    assert!(ok, "{text}");
    // The new kind is served once the CRD is established.
    let pool = "apiVersion: cache.example.com/v1alpha1\nkind: Pool\nmetadata:\n  name: p\nspec: {size: 2}\n";
    let mut last = String::new();
    for _ in 0..20 {
        let (ok, text) = run(&env, &["apply", "-f", "-"], Some(pool)).await.unwrap();
        assert!(!ok, "{text}");
        last = text;
        if last.contains("size must be odd") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        last.contains(r#"spec: Invalid value: "object": size must be odd"#),
        "{last}"
    );
    let good = pool.replace("size: 2", "size: 3");
    let (ok, text) = run(&env, &["apply", "-f", "-"], Some(&good)).await.unwrap();
    assert!(ok, "{text}");
}
