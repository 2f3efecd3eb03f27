//! Discovery as kubectl asks for it: aggregated discovery (`apidiscovery.k8s.io/v2`) lists the
//! installed custom kind with its scope, verbs and subresources.

use crate::common::env;

#[tokio::test]
async fn aggregated_discovery_lists_custom_kinds() {
    let env = env().await;
    let request = http::Request::get("/apis")
        .header(
            "Accept",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
        )
        .body(Vec::new())
        .unwrap();
    let text = env.client().request_text(request).await.unwrap();
    let list: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(list["kind"], "APIGroupDiscoveryList", "{list}");
    let group = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["metadata"]["name"] == "conformance.kubeforge.dev")
        .unwrap_or_else(|| panic!("the custom group is listed: {list}"));
    let version = &group["versions"][0];
    assert_eq!(version["version"], "v1");
    let widgets = version["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == "widgets")
        .unwrap_or_else(|| panic!("widgets are listed: {group}"));
    assert_eq!(widgets["scope"], "Namespaced");
    assert_eq!(widgets["responseKind"]["kind"], "Widget");
    assert!(
        widgets["verbs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "watch"),
        "{widgets}"
    );
    let subresources: Vec<&str> = widgets["subresources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["subresource"].as_str())
        .collect();
    assert!(
        subresources.contains(&"status") && subresources.contains(&"scale"),
        "{widgets}"
    );
}
