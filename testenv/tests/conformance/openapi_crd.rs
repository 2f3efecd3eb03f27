//! A custom kind's `/openapi/v3` group-version document as the apiextensions server builds
//! it: operation tags and ids, each operation's parameters and bodies, the answers a patch
//! lists. Compared by name and shape (the descriptions are shorter than the real ones).

use serde_json::Value;

use crate::common::env;
use crate::support::raw::{client, eventually};

fn names(params: &Value) -> Vec<&str> {
    params
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str())
        .collect()
}

fn keys(object: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = object
        .as_object()
        .into_iter()
        .flat_map(|o| o.keys())
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

const LIST_OPTIONS: &[&str] = &[
    "allowWatchBookmarks",
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
    "watch",
];

#[tokio::test]
async fn a_custom_kinds_operations_are_listed_as_the_apiextensions_server_lists_them() {
    let env = env().await;
    let raw = client(&env).await;
    let doc: Value = eventually(30, || async {
        let request = http::Request::get("/openapi/v3/apis/conformance.kubeforge.dev/v1")
            .body(Vec::new())
            .unwrap();
        let text = raw.request_text(request).await.ok()?;
        serde_json::from_str::<Value>(&text)
            .ok()
            .filter(|d| d["paths"].is_object())
    })
    .await
    .expect("the custom group-version document is served");
    let collection =
        &doc["paths"]["/apis/conformance.kubeforge.dev/v1/namespaces/{namespace}/widgets"];
    let item =
        &doc["paths"]["/apis/conformance.kubeforge.dev/v1/namespaces/{namespace}/widgets/{name}"];
    let all = &doc["paths"]["/apis/conformance.kubeforge.dev/v1/widgets"];

    assert_eq!(collection["get"]["tags"][0], "conformanceKubeforgeDev_v1");
    assert_eq!(
        collection["delete"]["operationId"],
        "deleteConformanceKubeforgeDevV1CollectionNamespacedWidget"
    );
    assert_eq!(names(&collection["delete"]["parameters"]), LIST_OPTIONS);
    assert!(collection["delete"].get("requestBody").is_none());
    assert_eq!(
        keys(&collection["post"]["requestBody"]["content"]),
        ["application/json", "application/yaml"]
    );

    assert_eq!(
        names(&item["delete"]["parameters"]),
        [
            "dryRun",
            "gracePeriodSeconds",
            "ignoreStoreReadErrorWithClusterBreakingPotential",
            "orphanDependents",
            "propagationPolicy"
        ]
    );
    assert_eq!(
        item["delete"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
    );
    assert_eq!(keys(&item["patch"]["responses"]), ["200", "401"]);
    assert_eq!(
        keys(&item["put"]["requestBody"]["content"]),
        ["application/json", "application/yaml"]
    );

    // Listing in all namespaces: the list options are the path's own, `pretty` among them.
    assert!(all["get"].get("parameters").is_none());
    let mut expected: Vec<&str> = LIST_OPTIONS.to_vec();
    expected.push("pretty");
    expected.sort_unstable();
    assert_eq!(names(&all["parameters"]), expected);

    let list_meta = &doc["components"]["schemas"]["dev.kubeforge.conformance.v1.WidgetList"]["properties"]
        ["metadata"];
    assert!(list_meta.get("default").is_none(), "{list_meta}");
}
