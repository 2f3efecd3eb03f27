//! Admission webhooks on deletes (mutating ones first, then validating, for DELETE and
//! deletecollection) and the identity a create's validating webhooks see, as kube-apiserver
//! calls them. Webhooks run in the test process, as in [`crate::admission`].

use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::admission::{Ctx, rules};
use crate::common::api_error;
use crate::support::webhook_server::{self, WebhookServer};

/// Reviews received by one webhook server, in arrival order, with the path they came to.
type Calls = Arc<Mutex<Vec<(String, Value)>>>;

/// A webhook server for DELETE: `/m` is a mutating webhook, `/v` a validating one. The
/// mutating one answers by the `mode` label of the object being deleted: `deny` refuses,
/// `patch` returns a patch, `empty-patch` an empty one; anything else (and `/v`) allows.
async fn delete_hooks(ctx: &Ctx) -> (WebhookServer, Calls) {
    let calls: Calls = Arc::default();
    let record = calls.clone();
    let server = WebhookServer::start(&[], move |path, review| {
        record.lock().unwrap().push((path.clone(), review.clone()));
        async move {
            let mode = review["request"]["oldObject"]["metadata"]["labels"]["mode"].clone();
            match (path.as_str(), mode.as_str()) {
                ("/m", Some("deny")) => webhook_server::deny(&review, 403, "kept by policy"),
                ("/m", Some("patch")) => webhook_server::patch(
                    &review,
                    json!([{"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}]),
                ),
                ("/m", Some("empty-patch")) => webhook_server::patch(&review, json!([])),
                _ => webhook_server::allow(&review),
            }
        }
    })
    .await;
    let rule = || rules("", &["configmaps"], &["DELETE"]);
    ctx.mutating(
        "delete-m",
        vec![ctx.hook(
            "dm.conformance.kubeforge.dev",
            server.client_config("/m"),
            rule(),
            json!({}),
        )],
    )
    .await;
    ctx.validating(
        "delete-v",
        vec![ctx.hook(
            "dv.conformance.kubeforge.dev",
            server.client_config("/v"),
            rule(),
            json!({}),
        )],
    )
    .await;
    (server, calls)
}

fn labelled_configmap(name: &str, labels: Value) -> ConfigMap {
    serde_json::from_value(
        json!({"metadata": {"name": name, "labels": labels}, "data": {"k": "v"}}),
    )
    .unwrap()
}

/// The (path, name of the object being deleted) of every call, in order.
fn deleted_names(calls: &Calls) -> Vec<(String, String)> {
    calls
        .lock()
        .unwrap()
        .iter()
        .map(|(path, review)| {
            let name = review["request"]["oldObject"]["metadata"]["name"].as_str();
            (path.clone(), name.unwrap_or_default().to_string())
        })
        .collect()
}

fn call(path: &str, name: &str) -> (String, String) {
    (path.to_string(), name.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_webhooks_are_called_for_delete_before_validating_ones() {
    let Some(ctx) = Ctx::new().await else { return };
    let cms = ctx.configmaps();
    let created = cms
        .create(
            &PostParams::default(),
            &labelled_configmap("going", json!({"mode": "empty-patch"})),
        )
        .await
        .unwrap();
    let (_server, calls) = delete_hooks(&ctx).await;
    let dry = DeleteParams {
        dry_run: true,
        ..DeleteParams::default()
    };
    cms.delete("going", &dry).await.expect("a dry-run delete");
    cms.get("going").await.expect("a dry run deletes nothing");
    cms.delete("going", &DeleteParams::default())
        .await
        .expect("an empty patch changes nothing: the delete goes on");
    assert_eq!(api_error(cms.get("going").await).code, 404);
    assert_eq!(
        deleted_names(&calls),
        vec![
            call("/m", "going"),
            call("/v", "going"),
            call("/m", "going"),
            call("/v", "going"),
        ],
        "mutating, then validating, for the dry run and for the delete"
    );
    let calls = calls.lock().unwrap().clone();
    for (i, (path, review)) in calls.iter().enumerate() {
        let request = &review["request"];
        let dry_run = i < 2;
        assert_eq!(request["operation"], "DELETE", "{path}");
        assert_eq!(request["name"], "going");
        assert_eq!(request["namespace"], ctx.ns());
        assert!(request["object"].is_null(), "{request}");
        assert_eq!(request["oldObject"]["kind"], "ConfigMap");
        assert_eq!(request["oldObject"]["apiVersion"], "v1");
        assert_eq!(
            request["oldObject"]["metadata"]["uid"].as_str(),
            created.metadata.uid.as_deref()
        );
        assert_eq!(request["oldObject"]["data"]["k"], "v");
        assert_eq!(request["dryRun"], dry_run);
        assert_eq!(request["options"]["kind"], "DeleteOptions");
        assert_eq!(request["options"]["apiVersion"], "meta.k8s.io/v1");
        if dry_run {
            assert_eq!(request["options"]["dryRun"], json!(["All"]), "{path}");
        } else {
            assert!(request["options"].get("dryRun").is_none(), "{request}");
        }
    }
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mutating_webhook_refuses_a_delete_and_cannot_patch_it() {
    let Some(ctx) = Ctx::new().await else { return };
    let cms = ctx.configmaps();
    for (name, mode) in [("refused", "deny"), ("patched", "patch")] {
        cms.create(
            &PostParams::default(),
            &labelled_configmap(name, json!({"mode": mode})),
        )
        .await
        .unwrap();
    }
    let (_server, calls) = delete_hooks(&ctx).await;
    let err = api_error(cms.delete("refused", &DeleteParams::default()).await);
    assert_eq!(err.code, 403);
    assert_eq!(
        err.message,
        "admission webhook \"dm.conformance.kubeforge.dev\" denied the request: kept by policy"
    );
    cms.get("refused").await.expect("still there");
    // There is no object to apply a patch to: the delete fails whatever the failurePolicy.
    let err = api_error(cms.delete("patched", &DeleteParams::default()).await);
    assert_eq!(err.code, 500);
    assert_eq!(err.reason, "InternalError");
    assert_eq!(
        err.message,
        "Internal error occurred: admission webhook \"dm.conformance.kubeforge.dev\" attempted to modify the object, which is not supported for this operation"
    );
    let kept = cms.get("patched").await.expect("still there");
    assert!(kept.metadata.annotations.is_none());
    assert_eq!(
        deleted_names(&calls),
        vec![call("/m", "refused"), call("/m", "patched")],
        "validating webhooks are not reached"
    );
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_collection_admits_each_item_and_stops_at_the_first_refusal() {
    let Some(ctx) = Ctx::new().await else { return };
    let cms = ctx.configmaps();
    for (name, mode) in [
        ("batch-1", "allow"),
        ("batch-2", "deny"),
        ("batch-3", "allow"),
    ] {
        cms.create(
            &PostParams::default(),
            &labelled_configmap(name, json!({"mode": mode, "batch": "yes"})),
        )
        .await
        .unwrap();
    }
    let (_server, calls) = delete_hooks(&ctx).await;
    let err = api_error(
        cms.delete_collection(
            &DeleteParams::default(),
            &kube::api::ListParams::default().labels("batch=yes"),
        )
        .await,
    );
    assert_eq!(err.code, 403);
    assert_eq!(
        err.message,
        "admission webhook \"dm.conformance.kubeforge.dev\" denied the request: kept by policy"
    );
    // Items are deleted one after the other, each admitted as a DELETE of its own; the
    // first refusal ends the collection delete.
    assert_eq!(
        deleted_names(&calls),
        vec![
            call("/m", "batch-1"),
            call("/v", "batch-1"),
            call("/m", "batch-2")
        ]
    );
    assert_eq!(api_error(cms.get("batch-1").await).code, 404);
    cms.get("batch-2").await.expect("refused");
    cms.get("batch-3").await.expect("never reached");
    let calls = calls.lock().unwrap().clone();
    for (_, review) in &calls {
        let request = &review["request"];
        assert_eq!(request["operation"], "DELETE");
        // The request names no object: the review has no name, only the namespace.
        assert!(request.get("name").is_none(), "{request}");
        assert_eq!(request["namespace"], ctx.ns());
        assert!(request["object"].is_null());
        assert_eq!(request["oldObject"]["kind"], "ConfigMap");
        assert_eq!(request["options"]["kind"], "DeleteOptions");
    }
    ctx.cleanup().await;
}

/// The field sets of `object`'s managedFields, by manager.
fn owned_fields(object: &Value) -> Vec<(String, Value)> {
    object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["manager"].as_str().unwrap_or_default().to_string(),
                e["fieldsV1"].clone(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validating_webhooks_see_the_stored_identity_and_webhook_fields_are_nobodys() {
    let Some(ctx) = Ctx::new().await else { return };
    let calls: Calls = Arc::default();
    let record = calls.clone();
    // Adds `hooked`, changes `mine` and removes `gone`.
    let server = WebhookServer::start(&[], move |path, review| {
        record.lock().unwrap().push((path.clone(), review.clone()));
        async move {
            if path != "/m" {
                return webhook_server::allow(&review);
            }
            let data = &review["request"]["object"]["data"];
            let mut ops = vec![json!({"op": "add", "path": "/data/hooked", "value": "yes"})];
            if data.get("mine").is_some() {
                ops.push(json!({"op": "replace", "path": "/data/mine", "value": "changed"}));
            }
            if data.get("gone").is_some() {
                ops.push(json!({"op": "remove", "path": "/data/gone"}));
            }
            webhook_server::patch(&review, Value::Array(ops))
        }
    })
    .await;
    let rule = || rules("", &["configmaps"], &["CREATE", "UPDATE"]);
    ctx.mutating(
        "identity-m",
        vec![ctx.hook(
            "im.conformance.kubeforge.dev",
            server.client_config("/m"),
            rule(),
            json!({}),
        )],
    )
    .await;
    ctx.validating(
        "identity-v",
        vec![ctx.hook(
            "iv.conformance.kubeforge.dev",
            server.client_config("/v"),
            rule(),
            json!({}),
        )],
    )
    .await;
    let cms = ctx.configmaps();
    let config: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "identity"},
        "data": {"mine": "orig", "gone": "x", "keep": "k"}}))
    .unwrap();
    let created = cms
        .create(
            &PostParams {
                field_manager: Some("creator".into()),
                ..PostParams::default()
            },
            &config,
        )
        .await
        .unwrap();
    let stored = serde_json::to_value(cms.get("identity").await.unwrap()).unwrap();
    let data = &stored["data"];
    assert_eq!(
        data,
        &json!({"hooked": "yes", "mine": "changed", "keep": "k"})
    );
    // A real server sends a call that met a transport error again, as the same review (the
    // same uid): each review counts once. Only this object's reviews count: a real control
    // plane's controller may publish its `kube-root-ca.crt` in the namespace after the hooks
    // are installed (a slow controller manager), which the mutating hook sees too.
    let mut seen = std::collections::HashSet::new();
    let reviews: Vec<(String, Value)> = calls
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, review)| review["request"]["name"] == "identity")
        .filter(|(_, review)| seen.insert(review["request"]["uid"].to_string()))
        .cloned()
        .collect();
    let paths: Vec<&str> = reviews.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["/m", "/v"]);
    // Mutating webhooks see the object before storage fills its identity in, with the
    // creator's managedFields already recorded.
    let mutated = &reviews[0].1["request"]["object"];
    for field in ["uid", "creationTimestamp", "resourceVersion"] {
        assert!(
            mutated["metadata"].get(field).is_none(),
            "{field}: {mutated}"
        );
    }
    let creator_fields = json!({"f:data": {".": {}, "f:gone": {}, "f:keep": {}, "f:mine": {}}});
    assert_eq!(
        owned_fields(mutated),
        vec![("creator".to_string(), creator_fields.clone())]
    );
    // Validating webhooks see the uid and creation time that are stored (the
    // resourceVersion comes with storage, after them).
    let validated = &reviews[1].1["request"]["object"];
    assert_eq!(
        validated["metadata"]["uid"].as_str(),
        created.metadata.uid.as_deref()
    );
    assert_eq!(validated["metadata"]["uid"], stored["metadata"]["uid"]);
    assert_eq!(
        validated["metadata"]["creationTimestamp"],
        stored["metadata"]["creationTimestamp"]
    );
    assert!(
        validated["metadata"].get("resourceVersion").is_none(),
        "{validated}"
    );
    assert_eq!(&validated["data"], data);
    // The field manager ran before the webhook: the creator owns what it sent (even
    // `gone`, which the webhook removed), nobody owns `hooked`.
    assert_eq!(
        owned_fields(validated),
        vec![("creator".to_string(), creator_fields.clone())]
    );
    assert_eq!(
        owned_fields(&stored),
        vec![("creator".to_string(), creator_fields)]
    );

    // An update: the patcher owns what it changed; the webhook's changes stay nobody's.
    let patched = cms
        .patch(
            "identity",
            &PatchParams {
                field_manager: Some("patcher".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"data": {"keep": "k2", "gone": "back"}})),
        )
        .await
        .unwrap();
    let patched = serde_json::to_value(patched).unwrap();
    assert_eq!(
        patched["data"],
        json!({"hooked": "yes", "mine": "changed", "keep": "k2"})
    );
    assert_eq!(
        owned_fields(&patched),
        vec![
            (
                "creator".to_string(),
                json!({"f:data": {".": {}, "f:mine": {}}})
            ),
            (
                "patcher".to_string(),
                json!({"f:data": {"f:gone": {}, "f:keep": {}}})
            ),
        ]
    );
    ctx.cleanup().await;
}
