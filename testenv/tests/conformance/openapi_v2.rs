//! `/openapi/v2`: the whole API as one Swagger 2.0 document, in JSON and in the protobuf form
//! client-go asks for, with an `ETag`; what `kubectl explain --output=plaintext-openapiv2`
//! reads. It and the `/openapi/v3` documents are served as Go's `http.ServeContent` serves
//! files: `Last-Modified`, `Accept-Ranges`, 304 and 206 answers.

use serde_json::Value;

use crate::common::env;
use crate::kubectl::{run, text};
use crate::support::raw::{client, eventually, exchange};

pub(crate) const PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
pub(crate) const WIDGETS: &str = "/apis/conformance.kubeforge.dev/v1";

/// `GET /openapi/v2` with these headers: status, headers and body.
pub(crate) async fn get(
    client: &kube::Client,
    headers: &[(&str, &str)],
) -> (u16, http::HeaderMap, bytes::Bytes) {
    get_at(client, "/openapi/v2", headers).await
}

/// `GET path` with these headers: status, headers and body.
pub(crate) async fn get_at(
    client: &kube::Client,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, http::HeaderMap, bytes::Bytes) {
    exchange(client, "GET", path, headers, None).await
}

/// The JSON document once it describes the Widget kind (a real server publishes a new
/// CRD's schema a few seconds after it is established).
pub(crate) async fn document_with_widgets(client: &kube::Client) -> Value {
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
pub(crate) fn header<'a>(headers: &'a http::HeaderMap, name: &str) -> &'a str {
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
    // On a shared real cluster the other cases' CRDs change the document for minutes: wait
    // for it to hold still (at once on a quiet server).
    const STILL: u64 = 180;
    for accept in ["application/json", PROTOBUF] {
        let checked = eventually(STILL, || served_as_content(&client, "/openapi/v2", accept)).await;
        assert!(checked.is_some(), "{accept}: the document kept changing");
    }
    // Both forms are one version: the same ETag and Last-Modified, once the document holds
    // still (a real server rebuilding it for other clients' CRDs may date one form anew
    // before the other, with the same content).
    let checked = eventually(STILL, || async {
        let (_, json, _) = get(&client, &[]).await;
        let (_, proto, _) = get(&client, &[("Accept", PROTOBUF)]).await;
        (json["etag"] == proto["etag"] && json["last-modified"] == proto["last-modified"])
            .then_some(())
    })
    .await;
    assert!(checked.is_some(), "the two forms never agreed");
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
