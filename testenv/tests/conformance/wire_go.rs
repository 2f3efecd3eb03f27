//! Built-in objects on the wire as kube-apiserver writes them: it decodes each into its Go
//! type and encodes it again, so keys come in the Go struct's declaration order, `omitempty`
//! zero values are left out (a Service's `externalName: ""`), slices without `omitempty`
//! that are absent or empty come back `null` (a Role without rules), struct values are
//! always written (`"resources":{}`). These compare the raw bytes of each answer.

use crate::common::env;
use crate::support::raw::client;

/// The raw text of the answer to `request`, without the line end kube-apiserver's encoder
/// puts after a document (the embedded server writes none; that is not what is compared).
async fn text_of(raw: &kube::Client, request: http::Request<Vec<u8>>) -> String {
    let text = raw.request_text(request).await.unwrap();
    text.strip_suffix('\n').map(str::to_string).unwrap_or(text)
}

/// The raw text of the answer to a POST of `body` to `path`.
async fn create(raw: &kube::Client, path: &str, body: serde_json::Value) -> String {
    let request = http::Request::post(path)
        .header("Content-Type", "application/json")
        .body(body.to_string().into_bytes())
        .unwrap();
    text_of(raw, request).await
}

/// `text` split around the value of its first `"metadata"` key: (before, the metadata
/// object, after). Braces inside strings (managed fields keys) are not counted.
fn around_metadata(text: &str) -> (&str, &str, &str) {
    let start = text.find(r#""metadata":{"#).expect("a metadata object") + 11;
    let (mut depth, mut in_string, mut escaped) = (0, false, false);
    for (i, c) in text[start..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' if !in_string => depth += 1,
            '}' if !in_string => {
                depth -= 1;
                if depth == 0 {
                    let end = start + i + 1;
                    return (&text[..start], &text[start..end], &text[end..]);
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced metadata in {text}")
}

#[tokio::test]
async fn a_deployment_is_written_in_go_order_with_struct_values_and_without_zeros() {
    let env = env().await;
    let ns = env.namespace();
    let raw = client(&env).await;
    let text = create(
        &raw,
        &format!("/apis/apps/v1/namespaces/{ns}/deployments"),
        serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "go-order"},
            "spec": {"paused": false, "selector": {"matchLabels": {"app": "go-order"}},
                "template": {"metadata": {"labels": {"app": "go-order"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx", "workingDir": "", "command": []}]}}}}),
    )
    .await;
    let (before, metadata, after) = around_metadata(&text);
    assert_eq!(
        before,
        r#"{"kind":"Deployment","apiVersion":"apps/v1","metadata":"#
    );
    assert!(
        metadata.starts_with(&format!(
            r#"{{"name":"go-order","namespace":"{ns}","uid":""#
        )),
        "{metadata}"
    );
    assert_eq!(
        after,
        concat!(
            r#","spec":{"replicas":1,"selector":{"matchLabels":{"app":"go-order"}},"template":{"metadata":{"labels":{"app":"go-order"}},"#,
            r#""spec":{"containers":[{"name":"c","image":"nginx","resources":{},"terminationMessagePath":"/dev/termination-log","#,
            r#""terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"#,
            r#""dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},"#,
            r#""strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"#,
            r#""revisionHistoryLimit":10,"progressDeadlineSeconds":600},"status":{}}"#
        )
    );
}

#[tokio::test]
async fn a_service_drops_an_empty_external_name_and_a_role_without_rules_has_null_rules() {
    let env = env().await;
    let ns = env.namespace();
    let raw = client(&env).await;
    let text = create(
        &raw,
        &format!("/api/v1/namespaces/{ns}/services"),
        serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "go-zeros"},
            "spec": {"externalName": "", "ports": [{"port": 80, "name": ""}], "selector": {"app": "go"}}}),
    )
    .await;
    let (_, _, after) = around_metadata(&text);
    assert!(
        after.starts_with(
            r#","spec":{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"selector":{"app":"go"},"clusterIP":""#
        ),
        "{after}"
    );
    assert!(
        after.ends_with(
            r#""type":"ClusterIP","sessionAffinity":"None","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","internalTrafficPolicy":"Cluster"},"status":{"loadBalancer":{}}}"#
        ),
        "{after}"
    );
    assert!(!text.contains("externalName"), "{text}");
    // The creator is not credited with the zero values it sent.
    assert!(!text.contains("f:externalName"), "{text}");

    let text = create(
        &raw,
        &format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles"),
        serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "go-no-rules"}}),
    )
    .await;
    let (before, _, after) = around_metadata(&text);
    assert_eq!(
        before,
        r#"{"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1","metadata":"#
    );
    assert_eq!(after, r#","rules":null}"#);
    // Nothing was set, so nobody manages anything.
    assert!(!text.contains("managedFields"), "{text}");
}

#[tokio::test]
async fn a_pod_container_and_an_endpoint_slice_without_endpoints() {
    let env = env().await;
    let ns = env.namespace();
    let raw = client(&env).await;
    let text = create(
        &raw,
        &format!("/api/v1/namespaces/{ns}/pods"),
        serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "go-pod"},
            "spec": {"containers": [{"name": "c", "image": "nginx", "tty": false,
                "ports": [{"containerPort": 80, "hostPort": 0}]}]}}),
    )
    .await;
    let (_, _, after) = around_metadata(&text);
    assert!(
        after.contains(
            r#""containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{},"volumeMounts":[{"name":"kube-api-access-"#
        ),
        "{after}"
    );
    assert!(
        after.ends_with(concat!(
            r#""readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"#,
            r#""terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"#,
            r#""restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","#,
            r#""serviceAccountName":"default","serviceAccount":"default","securityContext":{},"schedulerName":"default-scheduler","#,
            r#""tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},"#,
            r#"{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"#,
            r#""priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"#,
            r#""status":{"phase":"Pending","qosClass":"BestEffort"}}"#
        )),
        "{after}"
    );

    let path = format!("/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices");
    let text = create(
        &raw,
        &path,
        serde_json::json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "go-slice"}, "addressType": "IPv4"}),
    )
    .await;
    let (before, _, after) = around_metadata(&text);
    assert_eq!(
        before,
        r#"{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":"#
    );
    assert_eq!(
        after,
        r#","addressType":"IPv4","endpoints":null,"ports":null}"#
    );
    // Read back the same way.
    let request = http::Request::get(format!("{path}/go-slice"))
        .body(Vec::new())
        .unwrap();
    let got = text_of(&raw, request).await;
    assert_eq!(
        around_metadata(&got).2,
        r#","addressType":"IPv4","endpoints":null,"ports":null}"#
    );
}

#[tokio::test]
async fn a_custom_resource_is_written_with_sorted_keys_as_an_unstructured_map() {
    let env = env().await;
    let ns = env.namespace();
    let raw = client(&env).await;
    let path = format!("/apis/conformance.kubeforge.dev/v1/namespaces/{ns}/widgets");
    let text = create(
        &raw,
        &path,
        serde_json::json!({"kind": "Widget", "apiVersion": "conformance.kubeforge.dev/v1",
            "metadata": {"name": "sorted", "labels": {"z": "1", "a": "2"}},
            "spec": {"replicas": 2, "color": "red"}}),
    )
    .await;
    assert!(
        text.starts_with(r#"{"apiVersion":"conformance.kubeforge.dev/v1","kind":"Widget","metadata":{"creationTimestamp":"#),
        "{text}"
    );
    let (_, metadata, after) = around_metadata(&text);
    assert!(
        metadata.contains(r#""labels":{"a":"2","z":"1"},"managedFields":[{"apiVersion":"conformance.kubeforge.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"#),
        "{metadata}"
    );
    assert!(
        metadata.contains(&format!(
            r#""name":"sorted","namespace":"{ns}","resourceVersion":"#
        )),
        "{metadata}"
    );
    assert_eq!(after, r#","spec":{"color":"red","replicas":2}}"#);
    let list = text_of(&raw, http::Request::get(&path).body(Vec::new()).unwrap()).await;
    assert!(
        list.starts_with(r#"{"apiVersion":"conformance.kubeforge.dev/v1","items":[{"apiVersion":"#),
        "{list}"
    );
    assert!(
        list.contains(r#"}],"kind":"WidgetList","metadata":{"#),
        "{list}"
    );
}

#[tokio::test]
async fn answers_end_with_a_line_and_are_pretty_for_curl_or_when_asked() {
    let env = env().await;
    let raw = client(&env).await;
    let get = |path: &str, agent: &str| {
        http::Request::get(path)
            .header(http::header::USER_AGENT, agent)
            .body(Vec::new())
            .unwrap()
    };
    let path = "/api/v1/namespaces/default";
    let compact = raw
        .request_text(get(path, "kubectl/v1.34.9"))
        .await
        .unwrap();
    assert!(
        compact.starts_with(r#"{"kind":"Namespace","apiVersion":"v1","metadata":{"#),
        "{compact}"
    );
    assert!(compact.ends_with("}\n"), "{compact:?}");
    let pretty = raw.request_text(get(path, "curl/8.5.0")).await.unwrap();
    assert!(pretty.starts_with("{\n  \"kind\": \"Namespace\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {\n    \"name\": \"default\","), "{pretty}");
    assert!(pretty.ends_with("\n}"), "{pretty:?}");
    let asked = raw
        .request_text(get(&format!("{path}?pretty=true"), "kubectl/v1.34.9"))
        .await
        .unwrap();
    assert_eq!(asked, pretty);
    let refused = raw
        .request_text(get(&format!("{path}?pretty=false"), "curl/8.5.0"))
        .await
        .unwrap();
    assert_eq!(refused, compact);
    // The version handler indents whoever asks.
    let version = raw
        .request_text(get("/version", "kubectl/v1.34.9"))
        .await
        .unwrap();
    assert!(version.starts_with("{\n  \"major\": \"1\",\n"), "{version}");
    assert!(version.ends_with("\n}"), "{version:?}");
}
