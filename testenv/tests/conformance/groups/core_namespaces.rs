//! The core group's namespaces: the `namespaces/finalize` subresource writes a namespace's
//! `spec.finalizers` (and its metadata, never its status), is the only way to change them,
//! and lets a terminating namespace go once they are empty; a deleted namespace refuses new
//! content while the namespace controller empties it, then goes.

use serde_json::json;

use crate::common::env;
use crate::support::raw::{causes, eventually, send};

/// Creates the namespace `name` through `client`; returns it as created.
async fn create_namespace(client: &kube::Client, name: &str) -> serde_json::Value {
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    let (code, created) = send(
        client,
        "POST",
        "/api/v1/namespaces",
        "application/json",
        Some(ns),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    created
}

/// Whether GET `path` answers 404 within `secs` seconds.
async fn goes_within(client: &kube::Client, path: &str, secs: u64) -> bool {
    eventually(secs, || async {
        let (code, _) = send(client, "GET", path, "", None).await;
        (code == 404).then_some(())
    })
    .await
    .is_some()
}

#[tokio::test]
async fn finalize_writes_the_namespace_finalizers() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let name = format!("fin-{}", env.namespace());
    let path = format!("/api/v1/namespaces/{name}");
    let created = create_namespace(&client, &name).await;
    assert_eq!(created["spec"]["finalizers"], json!(["kubernetes"]));

    let mut held = created.clone();
    held["spec"]["finalizers"] = json!(["example.com/hold"]);
    held["metadata"]["labels"]["team"] = json!("a");
    held["status"]["phase"] = json!("Terminating");
    let finalize = format!("{path}/finalize");
    let (code, put) = send(&client, "PUT", &finalize, "application/json", Some(held)).await;
    assert_eq!(code, 200, "{put}");
    assert_eq!(put["kind"], "Namespace");
    assert_eq!(put["spec"]["finalizers"], json!(["example.com/hold"]));
    assert_eq!(put["metadata"]["labels"]["team"], "a");
    assert_eq!(put["status"], json!({"phase": "Active"}));

    let (code, body) = send(
        &client,
        "PATCH",
        &finalize,
        "application/merge-patch+json",
        Some(json!({})),
    )
    .await;
    assert_eq!(
        (code, &body["message"]),
        (
            405,
            &json!("the server does not allow this method on the requested resource")
        )
    );
    let bad = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name},
        "spec": {"finalizers": ["bad name!"]}});
    let (code, body) = send(&client, "PUT", &finalize, "application/json", Some(bad)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "Namespace \"{name}\" is invalid: [spec.finalizers[0]: Invalid value: \"bad name!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.finalizers[0]: Invalid value: \"bad name!\": name is neither a standard finalizer name nor is it fully qualified]"
        ))
    );

    // Deleted, it waits for its finalizer; emptied through finalize, it goes.
    let (code, _) = send(&client, "DELETE", &path, "", None).await;
    assert_eq!(code, 200);
    let terminating = eventually(20, || async {
        let (_, ns) = send(&client, "GET", &path, "", None).await;
        (ns["status"]["phase"] == "Terminating").then_some(ns)
    })
    .await
    .expect("the namespace is terminating");
    assert_eq!(
        terminating["spec"]["finalizers"],
        json!(["example.com/hold"])
    );
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let (code, still) = send(&client, "GET", &path, "", None).await;
    assert_eq!(code, 200, "the finalizer holds the namespace: {still}");
    let mut release = still.clone();
    release["spec"]["finalizers"] = json!([]);
    let (code, body) = send(&client, "PUT", &finalize, "application/json", Some(release)).await;
    assert_eq!(code, 200, "{body}");
    assert!(
        goes_within(&client, &path, 20).await,
        "the namespace goes once its finalizers are empty"
    );
}

#[tokio::test]
async fn a_deleted_namespace_refuses_new_content_then_goes_with_what_it_held() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let name = format!("doomed-{}", env.namespace());
    let path = format!("/api/v1/namespaces/{name}");
    let configmaps = format!("{path}/configmaps");
    create_namespace(&client, &name).await;
    let held = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "held"}});
    let (code, body) = send(&client, "POST", &configmaps, "application/json", Some(held)).await;
    assert_eq!(code, 201, "{body}");

    let (code, body) = send(&client, "DELETE", &path, "", None).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["status"]["phase"], "Terminating");
    // The namespace controller works from a queue: right after the DELETE the namespace is
    // still there, terminating, and refuses new content.
    let late = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "late"}});
    let (code, body) = send(&client, "POST", &configmaps, "application/json", Some(late)).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(body["reason"], "Forbidden");
    assert_eq!(
        body["message"],
        json!(format!(
            "configmaps \"late\" is forbidden: unable to create new content in namespace {name} because it is being terminated"
        ))
    );
    assert_eq!(
        body["details"]["causes"],
        json!([{"reason": "NamespaceTerminating", "field": "metadata.namespace",
            "message": format!("namespace {name} is being terminated")}])
    );
    // Then what it held is deleted, and it goes (about 5 s on kube-controller-manager).
    assert!(
        goes_within(&client, &path, 60).await,
        "the emptied namespace goes"
    );
    let (code, _) = send(&client, "GET", &format!("{configmaps}/held"), "", None).await;
    assert_eq!(code, 404, "its ConfigMap went with it");
}

#[tokio::test]
async fn a_new_namespace_finalizers_are_qualified_names_reported_on_the_list() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Bad_NS"},
        "spec": {"finalizers": ["kubernetes", "a/b/c", "foo", "example.com/f"]}});
    let (code, answer) = send(
        &client,
        "POST",
        "/api/v1/namespaces?dryRun=All",
        "application/json",
        Some(body),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    let causes = causes(&answer);
    assert_eq!(causes.len(), 3, "{causes:?}");
    assert!(
        causes[0].starts_with("metadata.name: Invalid value: \"Bad_NS\""),
        "{causes:?}"
    );
    assert!(
        causes[1].starts_with(
            "spec.finalizers: Invalid value: \"a/b/c\": a qualified name must consist"
        ),
        "{causes:?}"
    );
    assert_eq!(
        causes[2],
        "spec.finalizers: Invalid value: \"foo\": name is neither a standard finalizer name nor is it fully qualified"
    );
}
