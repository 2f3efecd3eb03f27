//! API machinery answers (on ConfigMaps, and a Deployment for patches): the `ListOptions` rules of lists and watches,
//! continue tokens, numbers in the query, a body's apiVersion and kind (the kinds the real
//! scheme registers), a ReplicationController's defaulted labels, and the errors of
//! strategic merge patches (Go's words, some of them a 500).

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::send;

fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn list_options_are_refused_as_one_list_options_error() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let base = format!("/api/v1/namespaces/{ns}/configmaps");
    let (code, body) = send(
        &client,
        "GET",
        &format!("{base}?resourceVersionMatch=Foo"),
        "",
        None,
    )
    .await;
    assert_eq!(code, 422);
    assert_eq!(
        message(&body),
        "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: \"Foo\": supported values: \"Exact\", \"NotOlderThan\", \"\"]"
    );
    assert_eq!(body["details"]["kind"], "ListOptions");
    assert_eq!(body["details"]["group"], "meta.k8s.io");
    assert_eq!(
        body["details"]["causes"][1]["reason"],
        "FieldValueNotSupported"
    );
    let (code, body) = send(
        &client,
        "GET",
        &format!("{base}?sendInitialEvents=true"),
        "",
        None,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            422,
            "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"
        )
    );
    // A plain watch is taken as one streaming its initial state first, so a continue
    // token is refused with the rule of resourceVersionMatch.
    let (code, body) = send(
        &client,
        "GET",
        &format!("{base}?watch=true&continue=abc"),
        "",
        None,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            422,
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"
        )
    );
    let (code, body) = send(
        &client,
        "GET",
        &format!("{base}?watch=true&resourceVersionMatch=Exact"),
        "",
        None,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            422,
            "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, resourceVersionMatch: Unsupported value: \"Exact\": supported values: \"NotOlderThan\"]"
        )
    );
}

#[tokio::test]
async fn numbers_in_the_query_are_read_as_go_integers() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let base = format!("/api/v1/namespaces/{ns}/configmaps");
    for (query, expected) in [
        (
            "timeoutSeconds=abc",
            "strconv.ParseInt: parsing \"abc\": invalid syntax",
        ),
        ("limit=", "strconv.ParseInt: parsing \"\": invalid syntax"),
        (
            "limit=99999999999999999999",
            "strconv.ParseInt: parsing \"99999999999999999999\": value out of range",
        ),
    ] {
        let (code, body) = send(&client, "GET", &format!("{base}?{query}"), "", None).await;
        assert_eq!((code, message(&body)), (400, expected), "{query}");
    }
    let (code, _) = send(
        &client,
        "GET",
        &format!("{base}?limit=-1&timeoutSeconds=-1"),
        "",
        None,
    )
    .await;
    assert_eq!(code, 200);
    // A get at a resourceVersion that is not a number fails in the storage: a 500.
    send(
        &client,
        "POST",
        &base,
        "application/json",
        Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "numbers"}})),
    )
    .await;
    let (code, body) = send(
        &client,
        "GET",
        &format!("{base}/numbers?resourceVersion=abc"),
        "",
        None,
    )
    .await;
    assert_eq!(
        (code, message(&body)),
        (
            500,
            "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax"
        )
    );
}

#[tokio::test]
async fn corrupt_continue_tokens_get_gos_words() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let base = format!("/api/v1/namespaces/{ns}/configmaps?limit=1&continue=");
    let prefix = "invalid continue token: continue key is not valid: ";
    for (token, why) in [
        ("YQ%3D", "illegal base64 data at input byte 2"),
        // {"v":"meta.k8s.io/v0","rv":1,"start":"a\u0000"}
        (
            "eyJ2IjoibWV0YS5rOHMuaW8vdjAiLCJydiI6MSwic3RhcnQiOiJhXHUwMDAwIn0",
            "server does not recognize this encoded version meta.k8s.io/v0",
        ),
        // {"v":"meta.k8s.io/v1","rv":"5","start":"x"}
        (
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6IjUiLCJzdGFydCI6IngifQ",
            "json: cannot unmarshal string into Go struct field continueToken.rv of type int64",
        ),
        // {"v":"meta.k8s.io/v1","rv":5}
        (
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NX0",
            "encoded start key empty (version meta.k8s.io/v1)",
        ),
        // {"v":"meta.k8s.io/v1","rv":5,"start":"../x"}
        (
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiIuLi94In0",
            "../x",
        ),
    ] {
        let (code, body) = send(&client, "GET", &format!("{base}{token}"), "", None).await;
        assert_eq!(code, 400, "{token}");
        assert_eq!(message(&body), format!("{prefix}{why}"), "{token}");
    }
}

#[tokio::test]
async fn a_core_body_of_another_version_or_kind_is_not_decoded() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/configmaps?dryRun=All");
    let scheme = "in scheme \"pkg/api/legacyscheme/scheme.go:30\"";
    for (api_version, kind, expected) in [
        (
            "v2",
            "ConfigMap",
            format!("ConfigMap in version \"v2\" cannot be handled as a ConfigMap: no kind \"ConfigMap\" is registered for version \"v2\" {scheme}"),
        ),
        (
            "v1",
            "Foo",
            format!("Foo in version \"v1\" cannot be handled as a ConfigMap: no kind \"Foo\" is registered for version \"v1\" {scheme}"),
        ),
        (
            "apps/v1",
            "Deployment",
            "Deployment in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): unknown conversion".to_string(),
        ),
    ] {
        let body = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}});
        let (code, answer) = send(&client, "POST", &path, "application/json", Some(body)).await;
        assert_eq!((code, message(&answer)), (400, expected.as_str()), "{api_version} {kind}");
    }
}

/// The real scheme registers every installed group version, served or not, with the option
/// and meta kinds: a kind of the resource's own internal type reaches the apiVersion check,
/// another registered one is an unknown conversion, the rest are not registered.
#[tokio::test]
async fn a_body_is_decoded_by_the_kinds_the_real_scheme_registers() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/apis/apps/v1/namespaces/{ns}/deployments?dryRun=All");
    let scheme = "in scheme \"pkg/api/legacyscheme/scheme.go:30\"";
    let converting = |kind: &str, version: &str, go_type: &str| {
        format!(
            "{kind} in version \"{version}\" cannot be handled as a Deployment: converting ({go_type}) to (apps.Deployment): unknown conversion"
        )
    };
    let missing = |kind: &str, api_version: &str| {
        let version = api_version.rsplit('/').next().unwrap_or_default();
        format!(
            "{kind} in version \"{version}\" cannot be handled as a Deployment: no kind \"{kind}\" is registered for version \"{api_version}\" {scheme}"
        )
    };
    let mismatch = |api_version: &str| {
        format!(
            "the API version in the data ({api_version}) does not match the expected API version (apps/v1)"
        )
    };
    for (api_version, kind, expected) in [
        (
            "extensions/v1beta1",
            "Deployment",
            mismatch("extensions/v1beta1"),
        ),
        ("apps/v1beta1", "Deployment", mismatch("apps/v1beta1")),
        (
            "extensions/v1beta1",
            "DaemonSet",
            converting("DaemonSet", "v1beta1", "v1beta1.DaemonSet"),
        ),
        (
            "apps/v1beta2",
            "Scale",
            converting("Scale", "v1beta2", "v1beta2.Scale"),
        ),
        (
            "policy/v1beta1",
            "DeleteOptions",
            converting("DeleteOptions", "v1beta1", "v1.DeleteOptions"),
        ),
        (
            "apps/v1",
            "WatchEvent",
            converting("WatchEvent", "v1", "v1.WatchEvent"),
        ),
        (
            "example.com/v1",
            "Status",
            converting("Status", "v1", "v1.Status"),
        ),
        (
            "example.com/v1",
            "DeleteOptions",
            missing("DeleteOptions", "example.com/v1"),
        ),
        (
            "apps/v1",
            "DeploymentRollback",
            missing("DeploymentRollback", "apps/v1"),
        ),
        (
            "apidiscovery.k8s.io/v2",
            "DeleteOptions",
            missing("DeleteOptions", "apidiscovery.k8s.io/v2"),
        ),
    ] {
        let body = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}});
        let (code, answer) = send(&client, "POST", &path, "application/json", Some(body)).await;
        assert_eq!(
            (code, message(&answer)),
            (400, expected.as_str()),
            "{api_version} {kind}"
        );
    }
    // The events of events.k8s.io are core Events inside: either version reaches the
    // apiVersion check.
    let path = format!("/api/v1/namespaces/{ns}/events?dryRun=All");
    let body =
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "x"}});
    let (code, answer) = send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(
        (code, message(&answer)),
        (
            400,
            "the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)"
        )
    );
}

/// A ReplicationController without labels gets its template's as it is decoded: invalid
/// ones are reported at `metadata.labels` too, before the spec's errors.
#[tokio::test]
async fn a_replication_controllers_labels_defaulted_from_its_template_are_validated() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/replicationcontrollers?dryRun=All");
    let body = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
        "spec": {"replicas": 1, "template": {"metadata": {"labels": {"-bad": "x"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}}});
    let (code, answer) = send(&client, "POST", &path, "application/json", Some(body)).await;
    assert_eq!(code, 422, "{answer}");
    let fields: Vec<&str> = answer["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["field"].as_str())
        .collect();
    assert_eq!(
        fields,
        ["metadata.labels", "spec.template.labels"],
        "{answer}"
    );
}

#[tokio::test]
async fn strategic_merge_patch_errors_of_the_merge_code_are_a_500() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let deployments = format!("/apis/apps/v1/namespaces/{ns}/deployments");
    send(
        &client,
        "POST",
        &deployments,
        "application/json",
        Some(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "smp"},
            "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}}})),
    )
    .await;
    let path = format!("{deployments}/smp?dryRun=All");
    let smp = "application/strategic-merge-patch+json";
    for (patch, code, expected) in [
        (
            json!({"spec": {"template": {"spec": {"containers": [{"image": "j"}]}}}}),
            500,
            "map: map[image:j] does not contain declared merge key: name",
        ),
        (
            json!({"spec": {"$patch": "bogus"}}),
            500,
            "unknown patch type: bogus in map: map[$patch:bogus]",
        ),
        (
            json!({"spec": {"template": {"spec": {"$setElementOrder/containers": "x"}}}}),
            500,
            "expected a []interface {}, but received a string",
        ),
        (
            json!({"spec": {"$retainKeys": "x"}}),
            400,
            "invalid patch format of retainKeys",
        ),
    ] {
        let (answer_code, answer) = send(&client, "PATCH", &path, smp, Some(patch.clone())).await;
        assert_eq!((answer_code, message(&answer)), (code, expected), "{patch}");
    }
}

/// A PUT's checks in the handler's order: the decoder's refusals (a value of the wrong type,
/// unknown fields under `fieldValidation=Strict`) first, then the body's namespace, then its
/// name (with the decoder's warnings), all before the object is looked for; a Scale's name
/// too, before its object.
#[tokio::test]
async fn a_puts_body_is_checked_before_its_object() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{ns}/configmaps/absent");
    let put = |query: &'static str, body: Value| {
        let client = client.clone();
        let path = format!("{path}{query}");
        async move {
            let (code, headers, bytes) = crate::support::raw::exchange(
                &client,
                "PUT",
                &path,
                &[("Content-Type", "application/json")],
                Some(&body),
            )
            .await;
            let warnings = crate::support::raw::warnings(&headers);
            let body: Value = serde_json::from_slice(&bytes).unwrap_or_default();
            (code, message(&body).to_string(), warnings)
        }
    };
    let named =
        |name: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
    let mut strict = named("other");
    strict["foo"] = json!(1);
    strict["metadata"]["namespace"] = json!("elsewhere");
    assert_eq!(
        put("?fieldValidation=Strict", strict.clone()).await,
        (
            400,
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"foo\"".into(),
            vec![]
        )
    );
    let mut typed = named("other");
    typed["data"] = json!(5);
    assert_eq!(
        put("", typed).await.1,
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string"
    );
    assert_eq!(
        put("", strict.clone()).await.1,
        "the namespace of the provided object does not match the namespace sent on the request"
    );
    strict["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("namespace");
    assert_eq!(
        put("?fieldValidation=Warn", strict).await,
        (
            400,
            "the name of the object (other) does not match the name on the URL (absent)".into(),
            vec!["299 - \"unknown field \\\"foo\\\"\"".to_string()]
        )
    );
    let scale =
        json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "other"}});
    let (code, body) = send(
        &client,
        "PUT",
        &format!("/apis/apps/v1/namespaces/{ns}/deployments/absent/scale"),
        "application/json",
        Some(scale),
    )
    .await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        message(&body),
        "the name of the object (other) does not match the name on the URL (absent)"
    );
}

/// A request refused by LimitRanger (a validating admission plugin, after the strategy's
/// warnings) is sent with the warnings it earned before.
#[tokio::test]
async fn warnings_are_kept_on_an_admission_refusal() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let limits = json!({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "cf-lr"},
        "spec": {"limits": [{"type": "Container", "max": {"cpu": "100m"}}]}});
    let (code, body) = send(
        &client,
        "POST",
        &format!("/api/v1/namespaces/{ns}/limitranges"),
        "application/json",
        Some(limits),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "cf-p",
            "annotations": {"seccomp.security.alpha.kubernetes.io/pod": "runtime/default"}},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": "200m"}}}]}});
    let (code, headers, bytes) = crate::support::raw::exchange(
        &client,
        "POST",
        &format!("/api/v1/namespaces/{ns}/pods?dryRun=All"),
        &[("Content-Type", "application/json")],
        Some(&pod),
    )
    .await;
    let body: Value = serde_json::from_slice(&bytes).unwrap_or_default();
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        message(&body),
        "pods \"cf-p\" is forbidden: maximum cpu usage per Container is 100m, but limit is 200m"
    );
    let warnings = crate::support::raw::warnings(&headers);
    assert_eq!(
        warnings,
        vec![
            "299 - \"metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the \\\"seccompProfile\\\" field instead\""
        ]
    );
    send(
        &client,
        "DELETE",
        &format!("/api/v1/namespaces/{ns}/limitranges/cf-lr"),
        "",
        None,
    )
    .await;
}

/// A list's `watch` parameter is read as the real query decoder reads a boolean: its first
/// value starts a watch unless it is `0` or `false` in any case (an empty value, `f` and any
/// other text start one).
#[tokio::test]
async fn a_lists_watch_parameter_is_false_only_for_0_and_false() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let base = format!("/api/v1/namespaces/{ns}/configmaps");
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cf-watched", "labels": {"cf-watch": "x"}}});
    let (code, body) = send(&client, "POST", &base, "application/json", Some(cm)).await;
    assert_eq!(code, 201, "{body}");
    for value in ["abc", "", "f", "no", "TRUE", "true&watch=false"] {
        let path = format!("{base}?labelSelector=cf-watch&timeoutSeconds=1&watch={value}");
        let (code, _, bytes) =
            crate::support::raw::exchange(&client, "GET", &path, &[], None).await;
        assert_eq!(code, 200, "watch={value}");
        let first: Value = bytes
            .split(|b| *b == b'\n')
            .next()
            .and_then(|line| serde_json::from_slice(line).ok())
            .unwrap_or_default();
        assert_eq!(first["type"], "ADDED", "watch={value}");
        assert_eq!(
            first["object"]["metadata"]["name"], "cf-watched",
            "watch={value}"
        );
    }
    for value in ["0", "false", "FALSE", "False", "false&watch=true"] {
        let path = format!("{base}?labelSelector=cf-watch&watch={value}");
        let (code, body) = send(&client, "GET", &path, "", None).await;
        assert_eq!(code, 200, "watch={value}");
        assert_eq!(body["kind"], "ConfigMapList", "watch={value}");
        assert_eq!(
            body["items"][0]["metadata"]["name"], "cf-watched",
            "watch={value}"
        );
    }
    send(&client, "DELETE", &format!("{base}/cf-watched"), "", None).await;
}

/// A continue token is decoded as Go's `encoding/json` fills its struct: the first member
/// of a wrong type in the document is named, as written; a negative resourceVersion reads
/// the current state.
#[tokio::test]
async fn continue_tokens_are_decoded_in_document_order() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let base = format!("/api/v1/namespaces/{ns}/configmaps");
    for name in ["cf-a", "cf-b"] {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"cf-token": "x"}}});
        let (code, body) = send(&client, "POST", &base, "application/json", Some(cm)).await;
        assert_eq!(code, 201, "{body}");
    }
    let prefix = "invalid continue token: continue key is not valid: ";
    for (token, why) in [
        // {"start":2,"rv":"x","v":1}
        (
            "eyJzdGFydCI6MiwicnYiOiJ4IiwidiI6MX0",
            "json: cannot unmarshal number into Go struct field continueToken.start of type string",
        ),
        // {"v":1,"rv":"x","start":2}
        (
            "eyJ2IjoxLCJydiI6IngiLCJzdGFydCI6Mn0",
            "json: cannot unmarshal number into Go struct field continueToken.v of type string",
        ),
        // {"RV":"x"}
        (
            "eyJSViI6IngifQ",
            "json: cannot unmarshal string into Go struct field continueToken.RV of type int64",
        ),
        // {"v":"meta.k8s.io/v1","rv":1e2,"start":true}
        (
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MWUyLCJzdGFydCI6dHJ1ZX0",
            "json: cannot unmarshal number 1e2 into Go struct field continueToken.rv of type int64",
        ),
    ] {
        let path = format!("{base}?limit=1&continue={token}");
        let (code, body) = send(&client, "GET", &path, "", None).await;
        assert_eq!(code, 400, "{token}");
        assert_eq!(message(&body), format!("{prefix}{why}"), "{token}");
    }
    // {"v":"meta.k8s.io/v1","rv":-1,"start":"cf-a\u0000"}
    let token = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiY2YtYVx1MDAwMCJ9";
    let path = format!("{base}?labelSelector=cf-token&limit=1&continue={token}");
    let (code, body) = send(&client, "GET", &path, "", None).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["items"][0]["metadata"]["name"], "cf-b");
    for name in ["cf-a", "cf-b"] {
        send(&client, "DELETE", &format!("{base}/{name}"), "", None).await;
    }
}

/// A label selector's `matchLabels` are checked before its `matchExpressions`.
#[tokio::test]
async fn a_selectors_match_labels_are_checked_before_its_expressions() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let policy = json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
        "metadata": {"name": "cf-np"},
        "spec": {"podSelector": {"matchExpressions": [{"key": "d/e/f", "operator": "Exists"}],
            "matchLabels": {"a": "!"}}}});
    let (code, body) = send(
        &client,
        "POST",
        &format!("/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies?dryRun=All"),
        "application/json",
        Some(policy),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let fields: Vec<&str> = body["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["field"].as_str())
        .collect();
    assert_eq!(
        fields,
        [
            "spec.podSelector.matchLabels",
            "spec.podSelector.matchExpressions[0].key"
        ]
    );
}
