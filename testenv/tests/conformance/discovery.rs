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

/// The health endpoints answer in plain text as Go's `healthz` handlers do: `ok`, or each check
/// and `<endpoint> check passed` with `?verbose`, one check at `/<endpoint>/<check>`.
#[tokio::test]
async fn health_endpoints_answer_in_plain_text() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let (code, headers, body) =
        crate::support::raw::exchange(&client, "GET", "/healthz", &[], None).await;
    assert_eq!((code, body.as_ref()), (200, b"ok".as_slice()));
    assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let (code, _, body) = crate::support::raw::exchange(
        &client,
        "GET",
        "/readyz?verbose&exclude=log&exclude=nope",
        &[],
        None,
    )
    .await;
    let text = String::from_utf8_lossy(&body);
    assert_eq!(code, 200);
    assert!(
        text.starts_with("[+]ping ok\n[+]log excluded: ok\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for \"nope\"\nreadyz check passed\n"
        ),
        "{text}"
    );
    let (code, _, body) =
        crate::support::raw::exchange(&client, "GET", "/livez/ping", &[], None).await;
    assert_eq!((code, body.as_ref()), (200, b"ok".as_slice()));
    let (code, _, _) =
        crate::support::raw::exchange(&client, "GET", "/livez/shutdown", &[], None).await;
    assert_eq!(code, 404);
}

/// Aggregated discovery is cached by entity tag, as kubectl's disk cache and client-go's
/// discovery client rely on: the same tag in JSON and protobuf, `Cache-Control: public`,
/// `Vary: Accept`, and a 304 without a body for a client that names the tag.
#[tokio::test]
async fn aggregated_discovery_answers_its_entity_tag_with_not_modified() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    const FORM: &str = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    let json = format!("application/json{FORM}");
    let protobuf = format!("application/vnd.kubernetes.protobuf{FORM}");
    let get = |accept: String, tag: Option<String>| {
        let client = client.clone();
        async move {
            let mut headers = vec![("Accept", accept.as_str())];
            if let Some(tag) = &tag {
                headers.push(("If-None-Match", tag.as_str()));
            }
            crate::support::raw::exchange(&client, "GET", "/api", &headers, None).await
        }
    };
    let (code, headers, body) = get(json.clone(), None).await;
    assert_eq!(code, 200);
    assert!(!body.is_empty());
    let tag = headers["etag"].to_str().unwrap().to_string();
    // SHA-512 in upper-case hex, quoted.
    assert_eq!(tag.len(), 130, "{tag}");
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
    assert_eq!(headers["cache-control"], "public");
    assert_eq!(headers["vary"], "Accept");
    let (code, headers, _) = get(protobuf.clone(), None).await;
    assert_eq!(code, 200);
    assert_eq!(headers["etag"], tag.as_str());
    for accept in [json.clone(), protobuf] {
        let (code, headers, body) = get(accept, Some(tag.clone())).await;
        assert_eq!(code, 304);
        assert!(body.is_empty());
        assert_eq!(headers["etag"], tag.as_str());
        assert!(headers.get("content-type").is_none());
    }
    // Go compares the header with the tag as strings: a weak tag is another version.
    let (code, _, _) = get(json, Some(format!("W/{tag}"))).await;
    assert_eq!(code, 200);
    // The legacy document has no tag and is not cached.
    let (code, headers, _) = get("application/json".into(), Some(tag)).await;
    assert_eq!(code, 200);
    assert!(headers.get("etag").is_none());
    assert_eq!(headers["cache-control"], "no-cache, private");
}

/// The service account issuer's OpenID documents, which token verifiers outside the cluster
/// fetch: compact JSON in their Go types' order, cacheable for an hour, each a go-restful
/// route producing one media type.
#[tokio::test]
async fn openid_discovery_documents_are_written_as_go_marshals_them() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let get = |path: &'static str, accept: &'static str| {
        let client = client.clone();
        async move {
            crate::support::raw::exchange(&client, "GET", path, &[("Accept", accept)], None).await
        }
    };
    let in_order = |text: &str, names: &[&str]| {
        let at: Vec<usize> = names
            .iter()
            .map(|n| text.find(&format!("\"{n}\":")).unwrap_or(usize::MAX))
            .collect();
        at.windows(2).all(|w| w[0] < w[1]) && at.iter().all(|&i| i != usize::MAX)
    };
    let (code, headers, body) = get("/.well-known/openid-configuration", "*/*").await;
    let text = String::from_utf8_lossy(&body).to_string();
    assert_eq!(code, 200, "{text}");
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["cache-control"], "public, max-age=3600");
    assert!(
        text.starts_with("{\"issuer\":") && !text.ends_with('\n'),
        "{text}"
    );
    let names = [
        "issuer",
        "jwks_uri",
        "response_types_supported",
        "subject_types_supported",
        "id_token_signing_alg_values_supported",
    ];
    assert!(in_order(&text, &names), "{text}");
    let config: serde_json::Value = serde_json::from_str(&text).unwrap();
    let jwks_uri = config["jwks_uri"].as_str().unwrap();
    assert!(
        jwks_uri.starts_with("https://") && jwks_uri.ends_with("/openid/v1/jwks"),
        "{jwks_uri}"
    );
    let (code, headers, body) = get("/openid/v1/jwks", "*/*").await;
    let text = String::from_utf8_lossy(&body).to_string();
    assert_eq!(code, 200, "{text}");
    assert_eq!(headers["content-type"], "application/jwk-set+json");
    assert_eq!(headers["cache-control"], "public, max-age=3600");
    assert!(text.starts_with("{\"keys\":[{\"use\":\"sig\","), "{text}");
    assert!(
        in_order(&text, &["use", "kty", "kid", "crv", "alg", "x", "y"]),
        "{text}"
    );
    // Each route produces one media type: asking for another is go-restful's 406.
    let (code, _, body) = get("/openid/v1/jwks", "application/json").await;
    assert_eq!(code, 406);
    let status: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        status["message"],
        "406: Not Acceptable\n\nAvailable representations: application/jwk-set+json"
    );
    let (code, _, _) = get("/.well-known/openid-configuration", "text/plain").await;
    assert_eq!(code, 406);
}
