//! The OpenAPI documents' dates and `/openapi/v2`'s shared parameters: a `/openapi/v3`
//! group-version document is dated when it is installed (the server's start, a CRD's schema
//! change), and `/openapi/v2` lists common parameters once under `parameters`.

use serde_json::Value;

use crate::common::env;
use crate::openapi_v2::{PROTOBUF, WIDGETS, document_with_widgets, get, get_at, header};
use crate::support::raw::{client, eventually};

/// The `Last-Modified` of a served document, to the second.
fn last_modified(headers: &http::HeaderMap) -> chrono::DateTime<chrono::Utc> {
    let value = header(headers, "last-modified");
    chrono::NaiveDateTime::parse_from_str(value, "%a, %d %b %Y %H:%M:%S GMT")
        .unwrap_or_else(|e| panic!("Last-Modified {value:?}: {e}"))
        .and_utc()
}

/// Now, to the second (as HTTP dates are).
fn this_second() -> chrono::DateTime<chrono::Utc> {
    use chrono::Timelike;
    chrono::Utc::now().with_nanosecond(0).unwrap()
}

const STAMPS_GROUP: &str = "lastmodified.conformance.kubeforge.dev";

fn stamps_crd(properties: Value) -> Value {
    serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("stamps.{STAMPS_GROUP}")},
        "spec": {"group": STAMPS_GROUP, "scope": "Namespaced",
            "names": {"plural": "stamps", "singular": "stamp", "kind": "Stamp", "listKind": "StampList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": properties}}}}}]},
    })
}

/// The document of the Stamp kind once its schema has `property`: headers and when it was
/// asked for.
async fn stamps_document_with(
    client: &kube::Client,
    property: &str,
) -> (http::HeaderMap, chrono::DateTime<chrono::Utc>) {
    let path = format!("/openapi/v3/apis/{STAMPS_GROUP}/v1");
    eventually(30, || async {
        let asked = this_second();
        let (code, headers, body) = get_at(client, &path, &[]).await;
        let doc: Value = serde_json::from_slice(&body).unwrap_or_default();
        let spec = &doc["components"]["schemas"]["dev.kubeforge.conformance.lastmodified.v1.Stamp"]
            ["properties"]["spec"];
        (code == 200 && spec["properties"].get(property).is_some()).then_some((headers, asked))
    })
    .await
    .unwrap_or_else(|| panic!("the Stamp schema with {property} is served"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_v3_documents_are_dated_when_they_are_installed() {
    use k8s_openapi::api::core::v1::Namespace;
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};

    let env = env().await;
    let client = client(&env).await;
    let later = || tokio::time::sleep(std::time::Duration::from_millis(1100));

    // A built-in group-version: installed at start-up (around when the server made
    // kube-system: a real server may build it a second or two before), not when first asked
    // for.
    later().await;
    let started = Api::<Namespace>::all(env.client())
        .get("kube-system")
        .await
        .unwrap()
        .metadata
        .creation_timestamp
        .unwrap()
        .0;
    let asked = this_second();
    let (code, headers, _) = get_at(&client, "/openapi/v3/apis/apps/v1", &[]).await;
    assert_eq!(code, 200);
    let built_in = last_modified(&headers);
    assert!(
        started.as_second() - 2 <= built_in.timestamp() && built_in < asked,
        "kube-system made at {started}, apps/v1 dated {built_in}, asked at {asked}"
    );

    // A custom group-version: installed when its CRD is written, read a while later.
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let name = format!("stamps.{STAMPS_GROUP}");
    let _ = crds.delete(&name, &DeleteParams::default()).await;
    eventually(30, || async {
        crds.get_opt(&name).await.unwrap().is_none().then_some(())
    })
    .await
    .expect("an old Stamp CRD is gone");
    let created_at = this_second();
    let crd: CustomResourceDefinition =
        serde_json::from_value(stamps_crd(serde_json::json!({"a": {"type": "string"}}))).unwrap();
    crds.create(&PostParams::default(), &crd).await.unwrap();
    eventually(30, || async {
        let crd = crds.get(&name).await.unwrap();
        let conditions = crd.status.and_then(|s| s.conditions).unwrap_or_default();
        conditions
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True")
            .then_some(())
    })
    .await
    .expect("the Stamp CRD is established");
    // Not read until seconds later (a real server installs it within a second or so of the
    // write).
    let a_while = || tokio::time::sleep(std::time::Duration::from_millis(3100));
    a_while().await;
    let (headers, asked) = stamps_document_with(&client, "a").await;
    let installed = last_modified(&headers);
    assert!(
        created_at <= installed && installed + chrono::TimeDelta::seconds(2) <= asked,
        "created at {created_at}, dated {installed}, asked at {asked}"
    );
    let path = format!("/openapi/v3/apis/{STAMPS_GROUP}/v1");
    let since = header(&headers, "last-modified").to_string();
    let (code, ..) = get_at(&client, &path, &[("If-Modified-Since", &since)]).await;
    assert_eq!(code, 304);

    // A change to metadata leaves the document as it was, and its date.
    let label = serde_json::json!({"metadata": {"labels": {"touched": "yes"}}});
    crds.patch(&name, &PatchParams::default(), &Patch::Merge(&label))
        .await
        .unwrap();
    later().await;
    let (headers, _) = stamps_document_with(&client, "a").await;
    assert_eq!(last_modified(&headers), installed);

    // A changed schema is a new version, dated by the change.
    let changed_at = this_second();
    let spec = stamps_crd(serde_json::json!({"a": {"type": "string"}, "b": {"type": "integer"}}));
    let spec = serde_json::json!({"spec": spec["spec"]});
    crds.patch(&name, &PatchParams::default(), &Patch::Merge(&spec))
        .await
        .unwrap();
    a_while().await;
    let (headers, asked) = stamps_document_with(&client, "b").await;
    let changed = last_modified(&headers);
    assert!(
        changed_at <= changed && changed + chrono::TimeDelta::seconds(2) <= asked,
        "changed at {changed_at}, dated {changed}, asked at {asked}"
    );
    // A copy from before the change is out of date.
    let (code, ..) = get_at(&client, &path, &[("If-Modified-Since", &since)]).await;
    assert_eq!(code, 200);
    crds.delete(&name, &DeleteParams::default()).await.unwrap();
}

/// A path's parameters as names: `$name` for a reference to a shared parameter (resolved
/// through the document's `parameters`), `name` for one written inline.
fn parameter_names(doc: &Value, parameters: &Value) -> Vec<String> {
    let shared = doc["parameters"].as_object().expect("shared parameters");
    parameters
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| match p["$ref"].as_str() {
            Some(r) => {
                let key = r
                    .strip_prefix("#/parameters/")
                    .unwrap_or_else(|| panic!("{r} is not a shared parameter"));
                let target = shared
                    .get(key)
                    .unwrap_or_else(|| panic!("dangling $ref {r}"));
                format!("${}", target["name"].as_str().unwrap())
            }
            None => p["name"].as_str().unwrap().to_string(),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn common_parameters_are_shared_under_parameters() {
    let env = env().await;
    let client = client(&env).await;
    let doc = document_with_widgets(&client).await;
    let shared = doc["parameters"].as_object().expect("top-level parameters");
    // Each is named after its `name` and a hash of it (8 characters of URL-safe base64).
    let mut names: Vec<&str> = Vec::new();
    for (key, p) in shared {
        let name = p["name"].as_str().unwrap();
        let hash = key
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('-'))
            .unwrap_or_else(|| panic!("{key} does not start with {name}-"));
        assert!(
            hash.len() == 8
                && hash
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "{key}"
        );
        if names.last() != Some(&name) {
            names.push(name);
        }
        // Never shared: `name`, `dryRun`, `fieldValidation` and the kinds' own bodies.
        assert!(
            !["name", "dryRun", "fieldValidation"].contains(&name),
            "{key}"
        );
        if p["in"] == "body" {
            let schema = p["schema"]["$ref"].as_str().unwrap();
            assert!(
                schema.starts_with("#/definitions/io.k8s.apimachinery"),
                "{key}"
            );
        }
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(
        names,
        [
            "allowWatchBookmarks",
            "body",
            "command",
            "container",
            "continue",
            "fieldManager",
            "fieldSelector",
            "follow",
            "force",
            "gracePeriodSeconds",
            "ignoreStoreReadErrorWithClusterBreakingPotential",
            "insecureSkipTLSVerifyBackend",
            "labelSelector",
            "limit",
            "limitBytes",
            "namespace",
            "orphanDependents",
            "path",
            "ports",
            "pretty",
            "previous",
            "propagationPolicy",
            "resourceVersion",
            "resourceVersionMatch",
            "sendInitialEvents",
            "sinceSeconds",
            "stderr",
            "stdin",
            "stdout",
            "stream",
            "tailLines",
            "timeoutSeconds",
            "timestamps",
            "tty",
            "watch",
        ]
    );

    // Which parameters each operation refers to and which it writes inline, as the real
    // server lists them.
    let paths = &doc["paths"];
    let names_at = |path: &str, method: Option<&str>| {
        let item = &paths[path];
        let list = match method {
            Some(m) => &item[m]["parameters"],
            None => &item["parameters"],
        };
        parameter_names(&doc, list)
    };
    let list_options = [
        "$allowWatchBookmarks",
        "$continue",
        "$fieldSelector",
        "$labelSelector",
        "$limit",
        "$resourceVersion",
        "$resourceVersionMatch",
        "$sendInitialEvents",
        "$timeoutSeconds",
        "$watch",
    ];
    let deletion = [
        "$body",
        "dryRun",
        "$gracePeriodSeconds",
        "$ignoreStoreReadErrorWithClusterBreakingPotential",
        "$orphanDependents",
        "$propagationPolicy",
    ];
    let write = ["body", "dryRun", "$fieldManager", "fieldValidation"];
    let patch = [
        "$body",
        "dryRun",
        "$fieldManager",
        "fieldValidation",
        "$force",
    ];
    let configmap = "/api/v1/namespaces/{namespace}/configmaps/{name}";
    assert_eq!(names_at(configmap, None), ["name", "$namespace", "$pretty"]);
    assert_eq!(names_at(configmap, Some("get")), Vec::<String>::new());
    assert_eq!(names_at(configmap, Some("put")), write);
    assert_eq!(names_at(configmap, Some("delete")), deletion);
    assert_eq!(names_at(configmap, Some("patch")), patch);
    let configmaps = "/api/v1/namespaces/{namespace}/configmaps";
    assert_eq!(names_at(configmaps, None), ["$namespace", "$pretty"]);
    assert_eq!(names_at(configmaps, Some("get")), list_options);
    assert_eq!(names_at(configmaps, Some("post")), write);
    let scale = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale";
    assert_eq!(names_at(scale, Some("patch")), patch);
    let watch = "/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}";
    let mut expected: Vec<&str> = list_options.to_vec();
    expected.extend(["name", "$namespace", "$pretty"]);
    expected.sort_by_key(|n| n.trim_start_matches('$'));
    assert_eq!(names_at(watch, None), expected);
    let log = "/api/v1/namespaces/{namespace}/pods/{name}/log";
    assert_eq!(
        names_at(log, None),
        [
            "$container",
            "$follow",
            "$insecureSkipTLSVerifyBackend",
            "$limitBytes",
            "name",
            "$namespace",
            "$pretty",
            "$previous",
            "$sinceSeconds",
            "$stream",
            "$tailLines",
            "$timestamps",
        ]
    );
    let token = "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token";
    assert_eq!(
        names_at(token, None),
        [
            "dryRun",
            "$fieldManager",
            "fieldValidation",
            "name",
            "$namespace",
            "$pretty"
        ]
    );
    assert_eq!(names_at(token, Some("post")), ["body"]);
    // A custom kind's operations share the same parameters.
    let widget = format!("{WIDGETS}/namespaces/{{namespace}}/widgets/{{name}}");
    assert_eq!(names_at(&widget, None), ["name", "$namespace", "$pretty"]);
    assert_eq!(names_at(&widget, Some("put")), write);
    assert_eq!(names_at(&widget, Some("patch")), patch);
    assert_eq!(
        names_at(
            &format!("{WIDGETS}/namespaces/{{namespace}}/widgets"),
            Some("post")
        ),
        write
    );

    // The protobuf form carries the shared parameters (field 10) and the references.
    let (code, _, body) = get(&client, &[("Accept", PROTOBUF)]).await;
    assert_eq!(code, 200);
    let find = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
    let namespace = shared.keys().find(|k| k.starts_with("namespace-")).unwrap();
    assert!(find(format!("#/parameters/{namespace}").as_bytes()));
    let named = [&[0x0a, namespace.len() as u8][..], namespace.as_bytes()].concat();
    assert!(find(&named));
}
