//! The same behaviours through kubectl (skipped with a message where kubectl is absent).

use std::process::{Command, Output};

use kubeforge_testenv::TestEnv;

use crate::common::env;

pub(crate) fn kubectl_path() -> Option<&'static str> {
    ["/usr/bin/kubectl", "/usr/local/bin/kubectl"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
}

/// Runs kubectl against the environment; None (after printing why) when kubectl is absent.
fn kubectl(env: &TestEnv, args: &[&str], stdin: Option<&str>) -> Option<Output> {
    let Some(bin) = kubectl_path() else {
        eprintln!("skipping: kubectl is not installed");
        return None;
    };
    let mut cmd = Command::new(bin);
    cmd.arg("--kubeconfig")
        .arg(env.kubeconfig_path())
        .arg("-n")
        .arg(env.namespace())
        .args(args);
    let output = match stdin {
        Some(text) => {
            use std::io::Write;
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().expect("kubectl starts");
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
            child.wait_with_output().expect("kubectl runs")
        }
        None => cmd.output().expect("kubectl runs"),
    };
    Some(output)
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs kubectl off the async runtime's worker so the embedded server keeps serving.
pub(crate) async fn run(env: &TestEnv, args: &[&str], stdin: Option<&str>) -> Option<Output> {
    tokio::task::block_in_place(|| kubectl(env, args, stdin))
}

const WIDGET: &str = "apiVersion: conformance.kubeforge.dev/v1\nkind: Widget\nmetadata:\n  name: from-kubectl\nspec:\n  color: red\n  replicas: 2\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_apply_and_get_with_printer_columns() {
    let env = env().await;
    let Some(out) = run(&env, &["apply", "-f", "-"], Some(WIDGET)).await else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("widget.conformance.kubeforge.dev/from-kubectl created"),
        "{}",
        text(&out)
    );
    // Applying the same manifest again changes nothing.
    let out = run(&env, &["apply", "-f", "-"], Some(WIDGET))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("unchanged"), "{}", text(&out));
    let out = run(&env, &["get", "widgets"], None).await.unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let table = text(&out);
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header, vec!["NAME", "COLOR", "REPLICAS"], "{table}");
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(row, vec!["from-kubectl", "red", "2"], "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_apply_refuses_unknown_fields() {
    let env = env().await;
    let bad = WIDGET.replace("  replicas: 2\n", "  replicas: 2\n  shade: dark\n");
    let Some(out) = run(&env, &["apply", "-f", "-"], Some(&bad)).await else {
        return;
    };
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("unknown field \"spec.shade\""),
        "{}",
        text(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_builtin_kinds() {
    let env = env().await;
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"1\"\n";
    let Some(out) = run(&env, &["apply", "-f", "-"], Some(cm)).await else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    let changed = cm.replace("a: \"1\"", "a: \"2\"");
    let out = run(&env, &["apply", "-f", "-"], Some(&changed))
        .await
        .unwrap();
    assert!(
        text(&out).contains("configmap/settings configured"),
        "{}",
        text(&out)
    );
    let out = run(
        &env,
        &["get", "configmap", "settings", "-o", "jsonpath={.data.a}"],
        None,
    )
    .await
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2");
    let out = run(&env, &["get", "cm"], None).await.unwrap();
    assert!(
        text(&out).lines().next().unwrap().starts_with("NAME"),
        "{}",
        text(&out)
    );
    let out = run(&env, &["delete", "configmap", "settings"], None)
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = run(&env, &["get", "configmap", "settings"], None)
        .await
        .unwrap();
    assert!(
        text(&out).contains("NotFound") || text(&out).contains("not found"),
        "{}",
        text(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_explain_custom_kind() {
    let env = env().await;
    let Some(mut out) = run(&env, &["explain", "widgets.spec"], None).await else {
        return;
    };
    // A real kube-apiserver publishes a new CRD's OpenAPI a moment after the CRD is
    // Established, as kubectl's own retries expect: ask again for a while.
    for _ in 0..20 {
        if out.status.success() || !text(&out).contains("couldn't find resource") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        out = run(&env, &["explain", "widgets.spec"], None).await.unwrap();
    }
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("KIND:") && t.contains("Widget"), "{t}");
    assert!(t.contains("color") && t.contains("replicas"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_discovery_and_wait() {
    let env = env().await;
    let Some(out) = run(&env, &["api-resources", "--api-group=apps"], None).await else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&out);
    assert!(
        t.contains("deployments") && t.contains("deploy") && t.contains("Deployment"),
        "{t}"
    );
    let out = run(
        &env,
        &[
            "wait",
            "--for=condition=Established",
            "crd/widgets.conformance.kubeforge.dev",
            "--timeout=30s",
        ],
        None,
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_imperative_commands() {
    let env = env().await;
    // Typed kubectl commands send protobuf bodies.
    let Some(out) = run(
        &env,
        &["create", "configmap", "imperative", "--from-literal=k=v"],
        None,
    )
    .await
    else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    let out = run(
        &env,
        &[
            "create",
            "secret",
            "generic",
            "imperative",
            "--from-literal=p=hello",
        ],
        None,
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = run(
        &env,
        &["get", "secret", "imperative", "-o", "jsonpath={.data.p}"],
        None,
    )
    .await
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "aGVsbG8=");
    let out = run(&env, &["auth", "can-i", "get", "configmaps"], None)
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "yes",
        "{}",
        text(&out)
    );
    let out = run(&env, &["label", "configmap", "imperative", "team=a"], None)
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = run(
        &env,
        &["get", "configmaps", "-l", "team=a", "-o", "name"],
        None,
    )
    .await
    .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "configmap/imperative"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_columns_of_builtin_kinds() {
    let env = env().await;
    let manifests = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cols\nspec:\n  selector:\n    matchLabels: {app: cols}\n  template:\n    metadata:\n      labels: {app: cols}\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.27\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: cols\nspec:\n  selector: {app: cols}\n  ports:\n  - port: 80\n";
    let Some(out) = run(&env, &["apply", "-f", "-"], Some(manifests)).await else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    let header = |args: &'static [&'static str]| {
        let env = &env;
        async move {
            let out = run(env, args, None).await.unwrap();
            assert!(out.status.success(), "{}", text(&out));
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        header(&["get", "deployment", "cols"]).await,
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    );
    assert_eq!(
        header(&["get", "service", "cols"]).await,
        [
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE"
        ]
    );
    let out = run(&env, &["get", "service", "cols", "--no-headers"], None)
        .await
        .unwrap();
    let row = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(row.contains("ClusterIP") && row.contains("80/TCP"), "{row}");
}
