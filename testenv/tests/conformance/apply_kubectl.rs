//! Server-side and client-side `kubectl apply` on the same objects (skipped where kubectl
//! is absent).

use serde_json::Value;

use crate::common::env;
use crate::kubectl::{run, text};

const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\ndata:\n  a: \"1\"\n";

/// The managedFields of a ConfigMap, read with kubectl.
async fn managed_fields(env: &kubeforge_testenv::TestEnv, name: &str) -> Vec<Value> {
    let out = run(
        env,
        &[
            "get",
            "configmap",
            name,
            "-o",
            "json",
            "--show-managed-fields",
        ],
        None,
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let object: Value = serde_json::from_slice(&out.stdout).unwrap();
    object["metadata"]["managedFields"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_server_side_apply_conflicts_and_force() {
    let env = env().await;
    let cm = CM.replace("NAME", "ssa-kubectl");
    let Some(out) = run(&env, &["apply", "--server-side", "-f", "-"], Some(&cm)).await else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("configmap/ssa-kubectl serverside-applied"),
        "{}",
        text(&out)
    );
    let entries = managed_fields(&env, "ssa-kubectl").await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["manager"], "kubectl");
    assert_eq!(entries[0]["operation"], "Apply");
    assert_eq!(
        entries[0]["fieldsV1"],
        serde_json::json!({"f:data": {"f:a": {}}})
    );

    let changed = cm.replace("a: \"1\"", "a: \"2\"");
    let args = ["apply", "--server-side", "--field-manager=other", "-f", "-"];
    let out = run(&env, &args, Some(&changed)).await.unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Apply failed with 1 conflict: conflict with \"kubectl\": .data.a"),
        "{}",
        text(&out)
    );
    let forced = [&args[..], &["--force-conflicts"]].concat();
    let out = run(&env, &forced, Some(&changed)).await.unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = run(
        &env,
        &[
            "get",
            "configmap",
            "ssa-kubectl",
            "-o",
            "jsonpath={.data.a}",
        ],
        None,
    )
    .await
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_client_side_then_server_side_apply() {
    let env = env().await;
    let cm = CM.replace("NAME", "csa");
    let Some(out) = run(&env, &["apply", "-f", "-"], Some(&cm)).await else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    let entries = managed_fields(&env, "csa").await;
    assert!(
        entries
            .iter()
            .any(|e| e["manager"] == "kubectl-client-side-apply" && e["operation"] == "Update"),
        "{entries:?}"
    );
    // Client-side apply keeps working through its last-applied annotation.
    let changed = cm.replace("a: \"1\"", "a: \"2\"");
    let out = run(&env, &["apply", "-f", "-"], Some(&changed))
        .await
        .unwrap();
    assert!(
        text(&out).contains("configmap/csa configured"),
        "{}",
        text(&out)
    );
    // Server-side apply takes the object over from client-side apply.
    let out = run(&env, &["apply", "--server-side", "-f", "-"], Some(&changed))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let entries = managed_fields(&env, "csa").await;
    let ssa = entries
        .iter()
        .find(|e| e["manager"] == "kubectl" && e["operation"] == "Apply")
        .unwrap_or_else(|| panic!("{entries:?}"));
    assert_eq!(ssa["fieldsV1"]["f:data"], serde_json::json!({"f:a": {}}));
    // Dropping the key server-side removes it.
    let dropped = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\ndata:\n  b: \"3\"\n";
    let out = run(&env, &["apply", "--server-side", "-f", "-"], Some(dropped))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = run(
        &env,
        &["get", "configmap", "csa", "-o", "jsonpath={.data}"],
        None,
    )
    .await
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"b\":\"3\"}");
}
