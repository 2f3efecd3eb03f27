//! CRD conversion webhooks: a kind served as `v1beta1` (`spec.host`) and `v1` (`spec.hostname`,
//! the storage version), converted by an in-test HTTPS webhook. Objects written in one version
//! read back in the other; lists, watches and patches work across versions; failures answer
//! with the real server's 500 messages.
//!
//! In real-cluster mode the cluster must reach the webhook: these tests run only when
//! `KUBEFORGE_TEST_WEBHOOK_HOST` names this machine's address as the cluster sees it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams, PostParams,
    WatchEvent, WatchParams,
};
use kubeforge_testenv::{MODE_VAR, TestEnv};
use serde_json::{Value, json};

use crate::common::api_error;
use crate::support::webhook_server::{self, WebhookServer};

/// What the in-test webhook does with a review.
#[derive(Clone, Copy)]
enum Behaviour {
    /// Renames `spec.host` (v1beta1) and `spec.hostname` (v1) into each other.
    Rename,
    /// Answers `result.status: Failure` with a message.
    Fail,
    /// Converts, but changes `metadata.name`.
    ChangeName,
    /// Renames, and when armed ([`Fixture::arm_race`]), the next time it converts the object
    /// `raced` to the storage version v1 it writes that object itself (through v1) before
    /// answering: a concurrent write during a patch made in v1beta1.
    RaceOnce,
}

/// One review the webhook received: its apiVersion, desiredAPIVersion and object count.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    review_version: String,
    desired: String,
    objects: usize,
}

struct Fixture {
    env: TestEnv,
    group: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    race_armed: Arc<AtomicBool>,
    _hook: WebhookServer,
}

impl Fixture {
    fn api(&self, version: &str) -> Api<DynamicObject> {
        let gvk = GroupVersionKind::gvk(&self.group, version, "Gadget");
        Api::namespaced_with(
            self.env.client(),
            self.env.namespace(),
            &ApiResource::from_gvk_with_plural(&gvk, "gadgets"),
        )
    }

    fn object(&self, version: &str, name: &str, spec: Value) -> DynamicObject {
        serde_json::from_value(json!({
            "apiVersion": format!("{}/{version}", self.group), "kind": "Gadget",
            "metadata": {"name": name}, "spec": spec,
        }))
        .unwrap()
    }

    fn reviews(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Makes the next conversion of `raced` to v1 write that object first (`RaceOnce`).
    fn arm_race(&self) {
        self.race_armed.store(true, Ordering::SeqCst);
    }
}

fn rename(object: &Value, desired: &str) -> Value {
    let mut o = object.clone();
    if let Some(spec) = o["spec"].as_object_mut() {
        let (from, to) = if desired.ends_with("/v1") {
            ("host", "hostname")
        } else {
            ("hostname", "host")
        };
        if let Some(v) = spec.remove(from) {
            spec.insert(to.to_string(), v);
        }
    }
    o["apiVersion"] = json!(desired);
    o
}

/// The webhook's answer to `review`.
fn answer(behaviour: Behaviour, review: &Value) -> Value {
    let request = &review["request"];
    let desired = request["desiredAPIVersion"].as_str().unwrap_or_default();
    let objects = request["objects"].as_array().cloned().unwrap_or_default();
    let response = match behaviour {
        Behaviour::Fail => json!({
            "uid": request["uid"],
            "result": {"status": "Failure", "message": "hosts cannot be converted today"},
        }),
        Behaviour::Rename | Behaviour::ChangeName | Behaviour::RaceOnce => {
            let converted: Vec<Value> = objects
                .iter()
                .map(|o| {
                    let mut c = rename(o, desired);
                    if matches!(behaviour, Behaviour::ChangeName) {
                        let name = c["metadata"]["name"].as_str().unwrap_or_default();
                        c["metadata"]["name"] = json!(format!("{name}-renamed"));
                    }
                    c
                })
                .collect();
            json!({"uid": request["uid"], "result": {"status": "Success"}, "convertedObjects": converted})
        }
    };
    json!({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": response})
}

fn gadget_crd(
    group: &str,
    client_config: Value,
    review_versions: &[&str],
) -> CustomResourceDefinition {
    let columns = |name: &str, field: &str| json!([{"name": name, "type": "string", "jsonPath": format!(".spec.{field}")}]);
    let schema = |field: &str| {
        json!({"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                field: {"type": "string"}, "port": {"type": "integer"}}},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
        }}})
    };
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("gadgets.{group}")},
        "spec": {
            "group": group, "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [
                {"name": "v1beta1", "served": true, "storage": false, "schema": schema("host"),
                 "subresources": {"status": {}}, "additionalPrinterColumns": columns("Host", "host")},
                {"name": "v1", "served": true, "storage": true, "schema": schema("hostname"),
                 "subresources": {"status": {}}, "additionalPrinterColumns": columns("Hostname", "hostname")},
            ],
            "conversion": {"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": review_versions, "clientConfig": client_config}},
        },
    }))
    .unwrap()
}

/// A started environment with a Gadget CRD converted by a webhook behaving as asked, or
/// None in real-cluster mode without `KUBEFORGE_TEST_WEBHOOK_HOST`.
async fn fixture(tag: &str, behaviour: Behaviour, review_versions: &[&str]) -> Option<Fixture> {
    let existing = std::env::var(MODE_VAR).is_ok_and(|m| m == "existing");
    if existing && std::env::var(webhook_server::HOST_VAR).is_err() {
        eprintln!(
            "skipping: the cluster must reach this process's conversion webhook; set {} to an address of this machine it can reach",
            webhook_server::HOST_VAR
        );
        return None;
    }
    let host = webhook_server::webhook_host();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let storage_api: Arc<OnceLock<Api<DynamicObject>>> = Arc::new(OnceLock::new());
    let racer = storage_api.clone();
    let race_armed = Arc::new(AtomicBool::new(false));
    let armed = race_armed.clone();
    let hook = WebhookServer::start(&[host.as_str()], move |_path, review: Value| {
        record.lock().unwrap().push(Seen {
            review_version: review["apiVersion"].as_str().unwrap_or_default().into(),
            desired: review["request"]["desiredAPIVersion"]
                .as_str()
                .unwrap_or_default()
                .into(),
            objects: review["request"]["objects"].as_array().map_or(0, Vec::len),
        });
        let out = answer(behaviour, &review);
        let race = matches!(behaviour, Behaviour::RaceOnce)
            && review["request"]["desiredAPIVersion"]
                .as_str()
                .is_some_and(|d| d.ends_with("/v1"))
            && review["request"]["objects"][0]["metadata"]["name"] == "raced"
            && armed.swap(false, Ordering::SeqCst);
        let racer = racer.get().filter(|_| race).cloned();
        async move {
            if let Some(api) = racer {
                let change = Patch::Merge(json!({"spec": {"port": 2}}));
                api.patch("raced", &PatchParams::default(), &change)
                    .await
                    .expect("the concurrent write succeeds");
            }
            out
        }
    })
    .await;
    let group = format!("{tag}.conversion.kubeforge.dev");
    let client_config = hook.client_config("/convert");
    let env = TestEnv::builder()
        .crd(gadget_crd(&group, client_config, review_versions))
        .start()
        .await
        .expect("test environment starts");
    let f = Fixture {
        env,
        group,
        seen,
        race_armed,
        _hook: hook,
    };
    let _ = storage_api.set(f.api("v1"));
    Some(f)
}

fn spec(o: &DynamicObject) -> &Value {
    &o.data["spec"]
}

/// Whether the counts of conversion calls are the embedded server's: a real kube-apiserver
/// also converts every object its watch cache of each served version receives
/// (asynchronously, once per write), so it calls the webhook more often and at other times.
fn counts_calls(f: &Fixture, what: &str) -> bool {
    let embedded = f.env.mode_name() == "embedded";
    if !embedded {
        eprintln!(
            "not checking {what}: the number of conversion calls is the embedded server's (a real server also converts for its watch caches)"
        );
    }
    embedded
}

#[tokio::test]
async fn written_in_one_version_read_in_the_other() {
    let Some(f) = fixture("roundtrip", Behaviour::Rename, &["v1", "v1beta1"]).await else {
        return;
    };
    let (beta, v1) = (f.api("v1beta1"), f.api("v1"));
    let pp = PostParams::default();
    let created = beta
        .create(
            &pp,
            &f.object("v1beta1", "old", json!({"host": "a.example", "port": 80})),
        )
        .await
        .unwrap();
    assert_eq!(
        created.types.as_ref().unwrap().api_version,
        format!("{}/v1beta1", f.group)
    );
    assert_eq!(spec(&created), &json!({"host": "a.example", "port": 80}));
    let as_v1 = v1.get("old").await.unwrap();
    assert_eq!(spec(&as_v1), &json!({"hostname": "a.example", "port": 80}));
    assert_eq!(as_v1.metadata.uid, created.metadata.uid);

    // Reads of the storage version never call the webhook.
    let before = f.reviews().len();
    v1.get("old").await.unwrap();
    v1.list(&ListParams::default()).await.unwrap();
    if counts_calls(&f, "that storage-version reads make no call") {
        assert_eq!(f.reviews().len(), before);
    }

    v1.create(
        &pp,
        &f.object("v1", "new", json!({"hostname": "b.example"})),
    )
    .await
    .unwrap();
    let as_beta = beta.get("new").await.unwrap();
    assert_eq!(spec(&as_beta), &json!({"host": "b.example"}));
    assert_eq!(
        as_beta.types.as_ref().unwrap().api_version,
        format!("{}/v1beta1", f.group)
    );

    // Updates through the non-storage version are stored converted.
    let mut changed = as_beta.clone();
    changed.data["spec"]["host"] = json!("c.example");
    let replaced = beta.replace("new", &pp, &changed).await.unwrap();
    assert_eq!(spec(&replaced), &json!({"host": "c.example"}));
    assert_eq!(
        spec(&v1.get("new").await.unwrap()),
        &json!({"hostname": "c.example"})
    );

    let reviews = f.reviews();
    assert!(
        reviews
            .iter()
            .all(|s| s.review_version == "apiextensions.k8s.io/v1")
    );
    assert!(
        reviews
            .iter()
            .any(|s| s.desired == format!("{}/v1", f.group))
    );
    let crds: Api<CustomResourceDefinition> = Api::all(f.env.client());
    let crd = crds.get(&format!("gadgets.{}", f.group)).await.unwrap();
    assert_eq!(
        crd.status.unwrap().stored_versions,
        Some(vec!["v1".to_string()])
    );

    // Deleting through the non-storage version.
    beta.delete("old", &Default::default()).await.unwrap();
    assert_eq!(api_error(v1.get("old").await).code, 404);
}

type Events = futures::stream::BoxStream<'static, kube::Result<WatchEvent<DynamicObject>>>;

async fn next_event(events: &mut Events) -> WatchEvent<DynamicObject> {
    tokio::time::timeout(Duration::from_secs(10), events.next())
        .await
        .expect("an event within 10s")
        .expect("the watch continues")
        .expect("no watch error")
}

#[tokio::test]
async fn list_and_watch_in_the_non_storage_version() {
    let Some(f) = fixture("listwatch", Behaviour::Rename, &["v1"]).await else {
        return;
    };
    let (beta, v1) = (f.api("v1beta1"), f.api("v1"));
    let pp = PostParams::default();
    for (name, host) in [("one", "a"), ("two", "b")] {
        v1.create(&pp, &f.object("v1", name, json!({"hostname": host})))
            .await
            .unwrap();
    }
    let before = f.reviews().len();
    let list = beta.list(&ListParams::default()).await.unwrap();
    let hosts: Vec<&Value> = list.items.iter().map(|o| &o.data["spec"]["host"]).collect();
    assert_eq!(hosts, [&json!("a"), &json!("b")]);
    if counts_calls(&f, "the reviews of a list") {
        let reviews = f.reviews();
        assert_eq!(reviews.len(), before + 1, "one review for the whole list");
        assert_eq!(reviews[before].objects, 2);
        assert_eq!(reviews[before].desired, format!("{}/v1beta1", f.group));
    }

    let rv = list.metadata.resource_version.clone().unwrap();
    let mut events = beta
        .watch(&WatchParams::default().timeout(20), &rv)
        .await
        .unwrap()
        .boxed();
    v1.create(&pp, &f.object("v1", "three", json!({"hostname": "c"})))
        .await
        .unwrap();
    match next_event(&mut events).await {
        WatchEvent::Added(o) => {
            assert_eq!(o.metadata.name.as_deref(), Some("three"));
            assert_eq!(spec(&o), &json!({"host": "c"}));
            assert_eq!(o.types.unwrap().api_version, format!("{}/v1beta1", f.group));
        }
        other => panic!("expected ADDED, got {other:?}"),
    }
    v1.patch(
        "three",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"hostname": "d"}})),
    )
    .await
    .unwrap();
    match next_event(&mut events).await {
        WatchEvent::Modified(o) => assert_eq!(spec(&o), &json!({"host": "d"})),
        other => panic!("expected MODIFIED, got {other:?}"),
    }
}

#[tokio::test]
async fn patches_apply_to_the_object_as_seen_in_their_version() {
    let Some(f) = fixture("patching", Behaviour::Rename, &["v1"]).await else {
        return;
    };
    let (beta, v1) = (f.api("v1beta1"), f.api("v1"));
    let created = v1
        .create(
            &PostParams::default(),
            &f.object("v1", "p", json!({"hostname": "a", "port": 1})),
        )
        .await
        .unwrap();
    let pp = PatchParams::default();
    let merged = beta
        .patch("p", &pp, &Patch::Merge(json!({"spec": {"host": "b"}})))
        .await
        .unwrap();
    assert_eq!(spec(&merged), &json!({"host": "b", "port": 1}));
    assert_eq!(
        spec(&v1.get("p").await.unwrap()),
        &json!({"hostname": "b", "port": 1})
    );

    let ops = json!([{"op": "replace", "path": "/spec/host", "value": "c"}]);
    beta.patch(
        "p",
        &pp,
        &Patch::Json::<()>(serde_json::from_value(ops).unwrap()),
    )
    .await
    .unwrap();
    assert_eq!(spec(&v1.get("p").await.unwrap())["hostname"], "c");

    // A stale resourceVersion in the patch is a conflict, as on the storage version.
    let stale = json!({"metadata": {"resourceVersion": created.metadata.resource_version}, "spec": {"host": "x"}});
    assert_eq!(
        api_error(beta.patch("p", &pp, &Patch::Merge(stale)).await).code,
        409
    );

    let status = beta
        .patch_status("p", &pp, &Patch::Merge(json!({"status": {"ready": true}})))
        .await
        .unwrap();
    assert_eq!(status.data["status"]["ready"], true);
    assert_eq!(v1.get("p").await.unwrap().data["status"]["ready"], true);

    let apply = PatchParams::apply("conversion-test");
    let applied = json!({"apiVersion": format!("{}/v1beta1", f.group), "kind": "Gadget",
        "metadata": {"name": "q"}, "spec": {"host": "e", "port": 5}});
    let created = beta
        .patch("q", &apply, &Patch::Apply(applied.clone()))
        .await
        .unwrap();
    assert_eq!(spec(&created), &json!({"host": "e", "port": 5}));
    let mut again = applied;
    again["spec"] = json!({"host": "f", "port": 5});
    beta.patch("q", &apply, &Patch::Apply(again.clone()))
        .await
        .unwrap();
    assert_eq!(
        spec(&v1.get("q").await.unwrap()),
        &json!({"hostname": "f", "port": 5})
    );
    // The apply is recorded as the manager's Apply in the version it was made in.
    let read = beta.get("q").await.unwrap();
    let entries = read.metadata.managed_fields.clone().unwrap_or_default();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].manager.as_deref(), Some("conversion-test"));
    assert_eq!(entries[0].operation.as_deref(), Some("Apply"));
    assert_eq!(
        entries[0].api_version.as_deref(),
        Some(format!("{}/v1beta1", f.group).as_str())
    );
    let owned = serde_json::to_value(entries[0].fields_v1.as_ref().unwrap()).unwrap();
    assert!(owned["f:spec"].get("f:host").is_some(), "{owned}");
    // A field the manager stops applying, and nobody else owns, is removed.
    again["spec"] = json!({"host": "f"});
    beta.patch("q", &apply, &Patch::Apply(again)).await.unwrap();
    assert_eq!(spec(&v1.get("q").await.unwrap()), &json!({"hostname": "f"}));
}

#[tokio::test]
async fn v1beta1_reviews_when_listed_first() {
    let Some(f) = fixture("betareview", Behaviour::Rename, &["v1beta1", "v1"]).await else {
        return;
    };
    f.api("v1beta1")
        .create(
            &PostParams::default(),
            &f.object("v1beta1", "b", json!({"host": "h"})),
        )
        .await
        .unwrap();
    assert_eq!(
        spec(&f.api("v1").get("b").await.unwrap()),
        &json!({"hostname": "h"})
    );
    let reviews = f.reviews();
    assert!(!reviews.is_empty());
    assert!(
        reviews
            .iter()
            .all(|s| s.review_version == "apiextensions.k8s.io/v1beta1")
    );
}

#[tokio::test]
async fn a_failing_webhook_answers_500_with_its_message() {
    let Some(f) = fixture("failing", Behaviour::Fail, &["v1"]).await else {
        return;
    };
    let (beta, v1) = (f.api("v1beta1"), f.api("v1"));
    v1.create(
        &PostParams::default(),
        &f.object("v1", "x", json!({"hostname": "a"})),
    )
    .await
    .expect("the storage version needs no conversion");
    let e = api_error(beta.get("x").await);
    assert_eq!(e.code, 500);
    assert_eq!(e.status, Some(kube::core::response::StatusSummary::Failure));
    assert_eq!(
        e.message,
        format!(
            "conversion webhook for {}/v1, Kind=Gadget failed: hosts cannot be converted today",
            f.group
        )
    );
    let e = api_error(
        beta.create(
            &PostParams::default(),
            &f.object("v1beta1", "y", json!({"host": "b"})),
        )
        .await,
    );
    assert_eq!(e.code, 500);
    assert_eq!(
        e.message,
        format!(
            "conversion webhook for {}/v1beta1, Kind=Gadget failed: hosts cannot be converted today",
            f.group
        )
    );
    assert_eq!(api_error(v1.get("y").await).code, 404, "nothing stored");
    let e = api_error(beta.list(&ListParams::default()).await);
    assert_eq!(e.code, 500);
    assert!(
        e.message
            .ends_with("failed: hosts cannot be converted today"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_webhook_that_changes_the_name_is_refused() {
    let Some(f) = fixture("renaming", Behaviour::ChangeName, &["v1"]).await else {
        return;
    };
    let (beta, v1) = (f.api("v1beta1"), f.api("v1"));
    v1.create(
        &PostParams::default(),
        &f.object("v1", "n", json!({"hostname": "a"})),
    )
    .await
    .unwrap();
    let e = api_error(beta.get("n").await);
    assert_eq!(e.code, 500);
    assert_eq!(
        e.message,
        format!(
            "conversion webhook for {}/v1, Kind=Gadget returned invalid object: must have the same name: n != n-renamed",
            f.group
        )
    );
}

/// A raw request through the environment's client.
async fn raw(f: &Fixture, req: http::Request<Vec<u8>>) -> Result<Value, kube::Error> {
    f.env.client().request::<Value>(req).await
}

#[tokio::test]
async fn bodies_are_admitted_in_the_version_they_were_sent_in() {
    let Some(f) = fixture("admitted", Behaviour::Rename, &["v1"]).await else {
        return;
    };
    let path = format!(
        "/apis/{}/v1beta1/namespaces/{}/gadgets",
        f.group,
        f.env.namespace()
    );
    let post = |query: &str, spec: Value| {
        let body = json!({"apiVersion": format!("{}/v1beta1", f.group), "kind": "Gadget",
            "metadata": {"name": "a"}, "spec": spec});
        http::Request::post(format!("{path}{query}"))
            .header("Content-Type", "application/json")
            .body(serde_json::to_vec(&body).unwrap())
            .unwrap()
    };
    // `hostname` is a v1 field: unknown in v1beta1, whatever the webhook would make of it.
    let e = api_error(
        raw(
            &f,
            post("?fieldValidation=Strict", json!({"hostname": "h"})),
        )
        .await,
    );
    assert_eq!(e.code, 400);
    assert!(
        e.message.contains(r#"unknown field "spec.hostname""#),
        "{}",
        e.message
    );
    let e = api_error(raw(&f, post("", json!({"host": "h", "port": "eighty"}))).await);
    assert_eq!(e.code, 422);
    assert!(e.message.contains("spec.port"), "{}", e.message);
    // A dry run is admitted in its version too and stores nothing, but is converted to the
    // storage version and back, as the server encodes what it would store.
    let before = f.reviews().len();
    let dry = raw(&f, post("?dryRun=All", json!({"host": "h", "port": 80})))
        .await
        .unwrap();
    assert_eq!(dry["spec"], json!({"host": "h", "port": 80}));
    assert_eq!(dry["apiVersion"], format!("{}/v1beta1", f.group));
    let desired: Vec<String> = f.reviews()[before..]
        .iter()
        .map(|s| s.desired.clone())
        .collect();
    assert_eq!(
        desired,
        [format!("{}/v1", f.group), format!("{}/v1beta1", f.group)]
    );
    assert_eq!(api_error(f.api("v1").get("a").await).code, 404);
    raw(&f, post("", json!({"host": "h", "port": 80})))
        .await
        .unwrap();

    // kubectl's Tables use the printer columns of the version asked for.
    let table = raw(
        &f,
        http::Request::get(&path)
            .header(
                "Accept",
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
            )
            .body(Vec::new())
            .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(table["kind"], "Table");
    let names: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(names.contains(&"Host"), "{names:?}");
    assert!(
        table["rows"][0]["cells"]
            .as_array()
            .unwrap()
            .contains(&json!("h"))
    );
}

#[tokio::test]
async fn status_writes_and_deletions_in_the_non_storage_version() {
    let Some(f) = fixture("statusdelete", Behaviour::Rename, &["v1"]).await else {
        return;
    };
    let (beta, v1) = (f.api("v1beta1"), f.api("v1"));
    let mut held = f.object("v1", "held", json!({"hostname": "a"}));
    held.metadata.finalizers = Some(vec!["conversion.kubeforge.dev/hold".into()]);
    v1.create(&PostParams::default(), &held).await.unwrap();
    let mut current = beta.get("held").await.unwrap();
    current.data["status"] = json!({"ready": true});
    let written = beta
        .replace_status("held", &PostParams::default(), &current)
        .await
        .unwrap();
    assert_eq!(written.data["status"]["ready"], true);
    assert_eq!(spec(&written), &json!({"host": "a"}));
    // A deletion waiting for a finalizer answers with the object, in the version asked for.
    let deleting = beta
        .delete("held", &Default::default())
        .await
        .unwrap()
        .left()
        .expect("the object, not a Status");
    assert_eq!(spec(&deleting), &json!({"host": "a"}));
    assert!(deleting.metadata.deletion_timestamp.is_some());
    v1.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    assert_eq!(api_error(beta.get("held").await).code, 404);

    // A collection deletion answers with the deleted objects, converted with one review.
    for (name, host) in [("c1", "x"), ("c2", "y")] {
        v1.create(
            &PostParams::default(),
            &f.object("v1", name, json!({"hostname": host})),
        )
        .await
        .unwrap();
    }
    let before = f.reviews().len();
    let deleted = beta
        .delete_collection(&Default::default(), &ListParams::default())
        .await
        .unwrap()
        .left()
        .expect("the deleted objects");
    let hosts: Vec<&Value> = deleted
        .items
        .iter()
        .map(|o| &o.data["spec"]["host"])
        .collect();
    assert_eq!(hosts, [&json!("x"), &json!("y")]);
    // Deleted object by object: each conversion carries one object.
    let reviews = f.reviews();
    assert!(reviews.len() >= before + 2, "{reviews:?}");
    assert!(
        reviews[before..].iter().all(|r| r.objects == 1),
        "{reviews:?}"
    );
    assert!(
        v1.list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
}

#[tokio::test]
async fn a_patch_racing_another_write_is_retried_unless_it_has_a_precondition() {
    let Some(f) = fixture("racing", Behaviour::RaceOnce, &["v1"]).await else {
        return;
    };
    let (beta, v1) = (f.api("v1beta1"), f.api("v1"));
    let created = v1
        .create(
            &PostParams::default(),
            &f.object("v1", "raced", json!({"hostname": "a", "port": 1})),
        )
        .await
        .unwrap();
    // With a precondition the concurrent write makes it a conflict.
    let guarded = json!({"metadata": {"resourceVersion": created.metadata.resource_version},
        "spec": {"host": "x"}});
    f.arm_race();
    let e = api_error(
        beta.patch("raced", &PatchParams::default(), &Patch::Merge(guarded))
            .await,
    );
    assert_eq!(e.code, 409);
    assert!(
        !f.race_armed.load(Ordering::SeqCst),
        "the racing write happened"
    );
    // Without one the patch applies to the fresh object.
    v1.patch(
        "raced",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"port": 1}})),
    )
    .await
    .unwrap();
    f.arm_race();
    let patched = beta
        .patch(
            "raced",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"host": "b"}})),
        )
        .await
        .unwrap();
    assert!(
        !f.race_armed.load(Ordering::SeqCst),
        "the racing write happened"
    );
    assert_eq!(spec(&patched), &json!({"host": "b", "port": 2}));
}

/// Makes v1beta1 the storage version (v1 was) and has it require `spec.port`; waits until
/// the server serves the change (a dry run without a port is refused).
async fn store_as_v1beta1(f: &Fixture) {
    let crds: Api<CustomResourceDefinition> = Api::all(f.env.client());
    let name = format!("gadgets.{}", f.group);
    let change: json_patch::Patch = serde_json::from_value(json!([
        {"op": "replace", "path": "/spec/versions/0/storage", "value": true},
        {"op": "replace", "path": "/spec/versions/1/storage", "value": false},
        {"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/required",
         "value": ["port"]},
    ]))
    .unwrap();
    crds.patch(&name, &PatchParams::default(), &Patch::Json::<()>(change))
        .await
        .unwrap();
    let dry = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let probe = f.object("v1beta1", "probe", json!({"host": "p"}));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while f.api("v1beta1").create(&dry, &probe).await.is_ok() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the storage version change is served within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn objects_stored_before_a_storage_version_change_are_converted_from_it() {
    let Some(f) = fixture("storagechange", Behaviour::Rename, &["v1"]).await else {
        return;
    };
    let (beta, v1) = (f.api("v1beta1"), f.api("v1"));
    let pp = PostParams::default();
    v1.create(
        &pp,
        &f.object("v1", "before", json!({"hostname": "a", "port": 1})),
    )
    .await
    .unwrap();
    store_as_v1beta1(&f).await;
    let crds: Api<CustomResourceDefinition> = Api::all(f.env.client());
    let crd = crds.get(&format!("gadgets.{}", f.group)).await.unwrap();
    assert_eq!(
        crd.status.unwrap().stored_versions,
        Some(vec!["v1".to_string(), "v1beta1".to_string()])
    );

    // Still stored as v1: read in v1 as it is, in v1beta1 converted from v1.
    let calls = f.reviews().len();
    let as_v1 = v1.get("before").await.unwrap();
    assert_eq!(spec(&as_v1), &json!({"hostname": "a", "port": 1}));
    if counts_calls(
        &f,
        "that a read in the version an object is stored in makes no call",
    ) {
        assert_eq!(f.reviews().len(), calls);
    }
    let as_beta = beta.get("before").await.unwrap();
    assert_eq!(spec(&as_beta), &json!({"host": "a", "port": 1}));

    // New objects are stored as v1beta1 and converted for v1.
    beta.create(
        &pp,
        &f.object("v1beta1", "after", json!({"host": "b", "port": 2})),
    )
    .await
    .unwrap();
    assert_eq!(
        spec(&v1.get("after").await.unwrap()),
        &json!({"hostname": "b", "port": 2})
    );
    let mut hostnames: Vec<Value> = v1
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .iter()
        .map(|o| spec(o)["hostname"].clone())
        .collect();
    hostnames.sort_by_key(ToString::to_string);
    assert_eq!(hostnames, [json!("a"), json!("b")]);

    // A write to the old object sees it converted: its spec is unchanged, so is its
    // generation; it is then stored as v1beta1 and still reads alike in both versions.
    let labelled = beta
        .patch(
            "before",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"touched": "yes"}}})),
        )
        .await
        .unwrap();
    assert_eq!(spec(&labelled), &json!({"host": "a", "port": 1}));
    assert_eq!(labelled.metadata.generation, Some(1));
    assert_eq!(
        spec(&v1.get("before").await.unwrap()),
        &json!({"hostname": "a", "port": 1})
    );
}
