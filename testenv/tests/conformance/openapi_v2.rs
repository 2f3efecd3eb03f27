//! `/openapi/v2`: the whole API as one Swagger 2.0 document, in JSON and in the protobuf form
//! client-go asks for, with an `ETag`; what `kubectl explain --output=plaintext-openapiv2`
//! reads. It and the `/openapi/v3` documents are served as Go's `http.ServeContent` serves
//! files: `Last-Modified`, `Accept-Ranges`, 304 and 206 answers.

use http_body_util::BodyExt;
use serde_json::Value;

use crate::common::env;
use crate::kubectl::{run, text};
use crate::support::raw::{client, eventually};

const PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
const WIDGETS: &str = "/apis/conformance.kubeforge.dev/v1";

/// `GET /openapi/v2` with these headers: status, headers and body.
async fn get(
    client: &kube::Client,
    headers: &[(&str, &str)],
) -> (u16, http::HeaderMap, bytes::Bytes) {
    get_at(client, "/openapi/v2", headers).await
}

/// `GET path` with these headers: status, headers and body.
async fn get_at(
    client: &kube::Client,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, http::HeaderMap, bytes::Bytes) {
    let mut request = http::Request::builder().uri(path);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let request = request.body(Vec::new()).unwrap();
    let response = client
        .send(request.map(kube::client::Body::from))
        .await
        .unwrap();
    let code = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (code, headers, body)
}

/// The JSON document once it describes the Widget kind (a real server publishes a new
/// CRD's schema a few seconds after it is established).
async fn document_with_widgets(client: &kube::Client) -> Value {
    eventually(30, || async {
        let (code, _, body) = get(client, &[("Accept", "application/json")]).await;
        assert_eq!(code, 200);
        let doc: Value = serde_json::from_slice(&body).unwrap();
        doc["definitions"]
            .get("dev.kubeforge.conformance.v1.Widget")
            .is_some()
            .then_some(doc)
    })
    .await
    .expect("the Widget kind appears in /openapi/v2")
}

fn is_widget_path(p: &str) -> bool {
    let Some(rest) = p.strip_prefix(WIDGETS) else {
        return false;
    };
    let rest = rest.strip_prefix("/namespaces/{namespace}").unwrap_or(rest);
    rest == "/widgets" || rest.starts_with("/widgets/")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swagger_document_has_paths_and_definitions_of_built_in_and_custom_kinds() {
    let env = env().await;
    let client = client(&env).await;
    let doc = document_with_widgets(&client).await;
    assert_eq!(doc["swagger"], "2.0");
    assert_eq!(doc["info"]["title"], "Kubernetes");
    let defs = doc["definitions"].as_object().unwrap();
    for name in [
        "io.k8s.api.apps.v1.Deployment",
        "io.k8s.api.apps.v1.DeploymentList",
        "io.k8s.api.apps.v1.DeploymentSpec",
        "io.k8s.api.core.v1.PodSpec",
        "io.k8s.api.core.v1.ConfigMap",
        "io.k8s.api.autoscaling.v1.Scale",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
        "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
        "dev.kubeforge.conformance.v1.Widget",
        "dev.kubeforge.conformance.v1.WidgetList",
    ] {
        assert!(defs.contains_key(name), "definition {name} missing");
    }
    // Every reference is a Swagger 2.0 one and resolves.
    let text = doc.to_string();
    assert!(!text.contains("#/components/"));
    for part in text.split("\"#/definitions/").skip(1) {
        let name = &part[..part.find('"').unwrap()];
        assert!(defs.contains_key(name), "dangling $ref {name}");
    }
    // Kinds carry their group-version-kind; fields their types and patch metadata.
    let deployment = &defs["io.k8s.api.apps.v1.Deployment"];
    assert_eq!(
        deployment["x-kubernetes-group-version-kind"],
        serde_json::json!([{"group": "apps", "kind": "Deployment", "version": "v1"}])
    );
    assert_eq!(
        deployment["properties"]["spec"]["$ref"],
        "#/definitions/io.k8s.api.apps.v1.DeploymentSpec"
    );
    let containers = &defs["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
    assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
    assert_eq!(containers["x-kubernetes-patch-strategy"], "merge");
    assert_eq!(containers["x-kubernetes-list-type"], "map");
    assert_eq!(
        containers["x-kubernetes-list-map-keys"],
        serde_json::json!(["name"])
    );
    assert_eq!(
        containers["items"]["$ref"],
        "#/definitions/io.k8s.api.core.v1.Container"
    );
    assert_eq!(
        defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"],
        "int-or-string"
    );
    let widget = &defs["dev.kubeforge.conformance.v1.Widget"];
    assert_eq!(
        widget["x-kubernetes-group-version-kind"],
        serde_json::json!([{"group": "conformance.kubeforge.dev", "kind": "Widget", "version": "v1"}])
    );
    assert_eq!(
        widget["properties"]["metadata"]["$ref"],
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    assert_eq!(
        widget["properties"]["spec"]["properties"]["color"]["type"],
        "string"
    );
    assert_eq!(
        defs["dev.kubeforge.conformance.v1.WidgetList"]["properties"]["items"]["items"]["$ref"],
        "#/definitions/dev.kubeforge.conformance.v1.Widget"
    );

    // The paths of the Widget resource, as the real server lists them (no watch paths).
    let paths = doc["paths"].as_object().unwrap();
    let mut widget_paths: Vec<&str> = paths
        .keys()
        .map(String::as_str)
        .filter(|p| is_widget_path(p))
        .collect();
    widget_paths.sort_unstable();
    let item = format!("{WIDGETS}/namespaces/{{namespace}}/widgets/{{name}}");
    let expected = [
        format!("{WIDGETS}/namespaces/{{namespace}}/widgets"),
        item.clone(),
        format!("{item}/scale"),
        format!("{item}/status"),
        format!("{WIDGETS}/widgets"),
    ];
    assert_eq!(
        widget_paths,
        expected.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let methods = |p: &str| {
        let mut m: Vec<String> = paths[p]
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "parameters")
            .cloned()
            .collect();
        m.sort();
        m
    };
    assert_eq!(methods(&item), ["delete", "get", "patch", "put"]);
    assert_eq!(methods(&expected[0]), ["delete", "get", "post"]);
    assert_eq!(methods(&format!("{item}/scale")), ["get", "patch", "put"]);
    let patch = &paths[&item]["patch"];
    assert_eq!(patch["x-kubernetes-action"], "patch");
    assert_eq!(patch["x-kubernetes-group-version-kind"]["kind"], "Widget");
    // A parameter is written inline or shared under the top-level `parameters`.
    let resolve = |p: &Value| match p["$ref"].as_str() {
        Some(r) => doc["parameters"][r.trim_start_matches("#/parameters/")].clone(),
        None => p.clone(),
    };
    let body = patch["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(resolve)
        .find(|p| p["in"] == "body")
        .expect("a body parameter");
    assert_eq!(
        body["schema"]["$ref"],
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
    );
    assert_eq!(
        paths[&item]["put"]["responses"]["200"]["schema"]["$ref"],
        "#/definitions/dev.kubeforge.conformance.v1.Widget"
    );
    assert_eq!(
        paths[&format!("{item}/scale")]["get"]["responses"]["200"]["schema"]["$ref"],
        "#/definitions/io.k8s.api.autoscaling.v1.Scale"
    );

    // A built-in group-version: every resource path of Deployments, with the verbs served.
    let apps = "/apis/apps/v1";
    let mut deployment_paths: Vec<&str> = paths
        .keys()
        .map(String::as_str)
        .filter(|p| p.starts_with(apps) && p.contains("/deployments"))
        .collect();
    deployment_paths.sort_unstable();
    assert_eq!(
        deployment_paths,
        [
            "/apis/apps/v1/deployments",
            "/apis/apps/v1/namespaces/{namespace}/deployments",
            "/apis/apps/v1/namespaces/{namespace}/deployments/{name}",
            "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
            "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status",
            "/apis/apps/v1/watch/deployments",
            "/apis/apps/v1/watch/namespaces/{namespace}/deployments",
            "/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}",
        ]
    );
    let d = &paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"];
    assert_eq!(d["get"]["operationId"], "readAppsV1NamespacedDeployment");
    assert_eq!(d["put"]["x-kubernetes-action"], "put");
    assert_eq!(
        d["patch"]["x-kubernetes-group-version-kind"],
        serde_json::json!({"group": "apps", "kind": "Deployment", "version": "v1"})
    );
    assert!(
        d["patch"]["consumes"]
            .as_array()
            .unwrap()
            .contains(&Value::from("application/strategic-merge-patch+json"))
    );
    assert!(paths["/apis/apps/v1/"]["get"].is_object());
    assert!(paths["/api/v1/namespaces/{namespace}/pods/{name}/log"]["get"].is_object());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etag_protobuf_and_not_acceptable() {
    let env = env().await;
    let client = client(&env).await;
    let (code, headers, body) = get(&client, &[]).await;
    assert_eq!(code, 200);
    assert_eq!(headers["content-type"], "application/json");
    assert!(serde_json::from_slice::<Value>(&body).is_ok());
    assert!(headers.contains_key("etag"));
    // A copy still current gets 304 without a body under the same tag, in either form (on a
    // shared cluster other tests' CRDs change the document: then ask again).
    let checked = eventually(30, || async {
        let (_, headers, _) = get(&client, &[]).await;
        let etag = headers["etag"].to_str().unwrap().to_string();
        assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
        let (code, headers, body) = get(&client, &[("If-None-Match", &etag)]).await;
        if code != 304 {
            return None;
        }
        assert!(body.is_empty());
        assert_eq!(headers["etag"], etag.as_str());
        // What client-go asks for: gnostic's protobuf, under the same tag.
        let (code, headers, body) = get(&client, &[("Accept", PROTOBUF)]).await;
        assert_eq!(code, 200);
        assert_eq!(
            headers["content-type"],
            "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
        );
        // Field 1 of the Document message, `swagger`: "2.0".
        assert_eq!(&body[..5], b"\x0a\x032.0");
        if headers["etag"] != etag.as_str() {
            return None;
        }
        let inm = [("Accept", PROTOBUF), ("If-None-Match", etag.as_str())];
        let (code, _, body) = get(&client, &inm).await;
        (code == 304 && body.is_empty()).then_some(())
    })
    .await;
    assert!(checked.is_some(), "no 304 for a current ETag");
    let (code, _, body) = get(&client, &[("If-None-Match", "\"stale\"")]).await;
    assert_eq!(code, 200);
    assert!(!body.is_empty());
    // A type it cannot give: 406.
    let (code, _, _) = get(&client, &[("Accept", "text/html")]).await;
    assert_eq!(code, 406);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_explain_reads_the_openapi_v2_document() {
    let env = env().await;
    let client = client(&env).await;
    document_with_widgets(&client).await;
    let Some(out) = run(
        &env,
        &[
            "explain",
            "--output=plaintext-openapiv2",
            "deployments.spec",
        ],
        None,
    )
    .await
    else {
        return;
    };
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("KIND:") && shown.contains("Deployment"),
        "{shown}"
    );
    assert!(shown.contains("RESOURCE: spec <Object>"), "{shown}");
    for field in [
        "replicas\t<integer>",
        "selector\t<Object>",
        "template\t<Object>",
    ] {
        assert!(shown.contains(field), "{field} missing: {shown}");
    }
    let out = run(
        &env,
        &["explain", "--output=plaintext-openapiv2", "widgets.spec"],
        None,
    )
    .await
    .unwrap();
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("Widget"), "{shown}");
    assert!(shown.contains("color\t<string>"), "{shown}");
    assert!(shown.contains("replicas\t<integer>"), "{shown}");
    // A field that does not exist is an error, as with the real schema.
    let out = run(
        &env,
        &[
            "explain",
            "--output=plaintext-openapiv2",
            "widgets.spec.nope",
        ],
        None,
    )
    .await
    .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
}

/// A header's value as text.
fn header<'a>(headers: &'a http::HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .unwrap_or_else(|| panic!("no {name} in {headers:?}"))
        .to_str()
        .unwrap()
}

/// Checks that `Last-Modified` is an HTTP date in GMT (`Sat, 28 Nov 2026 02:21:58 GMT`) no
/// later than now.
fn assert_http_date(headers: &http::HeaderMap) {
    let value = header(headers, "last-modified");
    let date = chrono::NaiveDateTime::parse_from_str(value, "%a, %d %b %Y %H:%M:%S GMT")
        .unwrap_or_else(|e| panic!("Last-Modified {value:?}: {e}"))
        .and_utc();
    assert!(
        date <= chrono::Utc::now() + chrono::TimeDelta::seconds(5),
        "{value}"
    );
}

/// The conditional and range answers of the document at `path` (as `accept`), checked
/// against one version of it: `Some` once every answer was about the same version (on a
/// shared cluster other tests' CRDs change `/openapi/v2`: then the caller asks again).
async fn served_as_content(client: &kube::Client, path: &str, accept: &str) -> Option<()> {
    let full = get_at(client, path, &[("Accept", accept)]).await;
    let (code, headers, body) = &full;
    assert_eq!(*code, 200);
    assert_eq!(header(headers, "accept-ranges"), "bytes");
    assert_http_date(headers);
    let etag = header(headers, "etag").to_string();
    let modified = header(headers, "last-modified").to_string();
    let size = body.len();
    let at = |extra: &[(&'static str, String)]| {
        let mut all = vec![("Accept", accept.to_string()), ("If-Range", etag.clone())];
        all.extend(extra.iter().cloned());
        async move {
            let pairs: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
            get_at(client, path, &pairs).await
        }
    };
    // One range of this version: 206 with its bytes (a 200 means the version changed).
    for (range, start, end) in [
        ("bytes=0-9".to_string(), 0, 9),
        (
            format!("bytes={}-{}", size / 2, size / 2 + 99),
            size / 2,
            size / 2 + 99,
        ),
        ("bytes=-5".to_string(), size - 5, size - 1),
        (format!("bytes={}-", size - 1), size - 1, size - 1),
    ] {
        let (code, headers, part) = at(&[("Range", range.clone())]).await;
        if code == 200 {
            return None;
        }
        assert_eq!(code, 206, "{range}");
        assert_eq!(
            header(&headers, "content-range"),
            format!("bytes {start}-{end}/{size}")
        );
        assert_eq!(header(&headers, "accept-ranges"), "bytes");
        assert_eq!(header(&headers, "etag"), etag);
        assert_eq!(header(&headers, "last-modified"), modified);
        assert_eq!(part, body.slice(start..=end), "{range}");
    }
    // If-Range naming another version, or several ranges: the whole document.
    let (code, _, whole) = get_at(
        client,
        path,
        &[
            ("Accept", accept),
            ("Range", "bytes=0-9"),
            ("If-Range", "\"stale\""),
        ],
    )
    .await;
    assert_eq!((code, whole.is_empty()), (200, false));
    let (code, _, whole) = at(&[("Range", "bytes=0-0,5-9".into())]).await;
    assert_eq!((code, whole.is_empty()), (200, false));
    // A range past the end: 416 naming the size.
    let (code, headers, _) = at(&[("Range", format!("bytes={}-", size + 10))]).await;
    if code == 200 {
        return None;
    }
    assert_eq!(code, 416);
    assert_eq!(header(&headers, "content-range"), format!("bytes */{size}"));
    // A copy as recent as Last-Modified: 304 without a body, under the ETag only.
    let (code, headers, empty) = get_at(
        client,
        path,
        &[("Accept", accept), ("If-Modified-Since", &modified)],
    )
    .await;
    if code != 304 {
        return None;
    }
    assert!(empty.is_empty());
    assert_eq!(header(&headers, "etag"), etag);
    assert!(!headers.contains_key("last-modified"));
    // An older copy gets the document.
    let old = [
        ("Accept", accept),
        ("If-Modified-Since", "Thu, 01 Jan 2015 00:00:00 GMT"),
    ];
    let (code, _, again) = get_at(client, path, &old).await;
    assert_eq!((code, again.is_empty()), (200, false));
    Some(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn last_modified_if_modified_since_and_ranges() {
    let env = env().await;
    let client = client(&env).await;
    for accept in ["application/json", PROTOBUF] {
        let checked = eventually(30, || served_as_content(&client, "/openapi/v2", accept)).await;
        assert!(checked.is_some(), "{accept}: the document kept changing");
    }
    // Both forms are one version: the same ETag and Last-Modified.
    let checked = eventually(30, || async {
        let (_, json, _) = get(&client, &[]).await;
        let (_, proto, _) = get(&client, &[("Accept", PROTOBUF)]).await;
        (json["etag"] == proto["etag"]).then(|| {
            assert_eq!(json["last-modified"], proto["last-modified"]);
        })
    })
    .await;
    assert!(checked.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_v3_documents_are_served_as_content_too() {
    let env = env().await;
    let client = client(&env).await;
    let checked = eventually(30, || {
        served_as_content(&client, "/openapi/v3/apis/apps/v1", "application/json")
    })
    .await;
    assert!(checked.is_some());
    let (_, headers, _) = get_at(&client, "/openapi/v3/apis/apps/v1", &[]).await;
    let etag = header(&headers, "etag").to_string();
    let (code, headers, body) = get_at(
        &client,
        "/openapi/v3/apis/apps/v1",
        &[("If-None-Match", &etag)],
    )
    .await;
    assert_eq!((code, body.is_empty()), (304, true));
    assert_eq!(header(&headers, "etag"), etag);
    // Under the address the index gives (with the document's hash) it may be cached for good.
    let (code, headers, index) = get_at(&client, "/openapi/v3", &[]).await;
    assert_eq!(code, 200);
    assert_eq!(header(&headers, "accept-ranges"), "bytes");
    assert_http_date(&headers);
    let index: Value = serde_json::from_slice(&index).unwrap();
    let url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, headers, body) = get_at(&client, &url, &[]).await;
    assert_eq!((code, body.is_empty()), (200, false));
    assert_eq!(header(&headers, "cache-control"), "public, immutable");
    assert!(headers.contains_key("expires"));
    assert_eq!(header(&headers, "etag"), etag);
}

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

    // A built-in group-version: installed at start-up (after the server made kube-system),
    // not when first asked for.
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
        started.as_second() <= built_in.timestamp() && built_in < asked,
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
