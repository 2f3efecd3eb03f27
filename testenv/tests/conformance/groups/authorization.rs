//! `authorization.k8s.io` and `rbac.authorization.k8s.io`: RBAC decides what a service
//! account may do (the embedded server with `Policy::rbac()`), with the built-in roles a
//! cluster starts with and their aggregation.

use k8s_openapi::api::rbac::v1::{ClusterRole, Role, RoleBinding};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use kube::api::{Api, PostParams};
use kubeforge_testenv::{Policy, TestEnv};
use serde_json::json;

use crate::common::widget_crd;
use crate::support::raw::{eventually, send};

async fn rbac_env() -> TestEnv {
    TestEnv::builder()
        .crd(widget_crd())
        .policy(Policy::rbac())
        .start()
        .await
        .unwrap()
}

#[tokio::test]
async fn rbac_decides_what_a_service_account_may_do() {
    let env = rbac_env().await;
    let ns = env.namespace().to_string();
    let client = crate::support::raw::client(&env).await;
    let reader = env.service_account_client("reader").await.unwrap();
    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let (code, body) = send(&reader, "GET", &pods, "", None).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "pods is forbidden: User \"system:serviceaccount:{ns}:reader\" cannot list resource \"pods\" in API group \"\" in the namespace \"{ns}\""
        ))
    );

    let roles: Api<Role> = Api::namespaced(client.clone(), &ns);
    let role: Role = serde_json::from_value(json!({"metadata": {"name": "pod-reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}))
    .unwrap();
    roles.create(&PostParams::default(), &role).await.unwrap();
    let bindings: Api<RoleBinding> = Api::namespaced(client.clone(), &ns);
    let binding: RoleBinding = serde_json::from_value(json!({"metadata": {"name": "reader-reads"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": ns}]}))
    .unwrap();
    bindings
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    let listed = eventually(20, || async {
        let (code, _) = send(&reader, "GET", &pods, "", None).await;
        (code == 200).then_some(())
    })
    .await;
    assert!(listed.is_some(), "the binding lets the account list pods");
    let (code, _) = send(&reader, "DELETE", &format!("{pods}/x"), "", None).await;
    assert_eq!(code, 403, "deleting is still not allowed");

    // The account asks about itself.
    let ask = |verb: &str| {
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": verb, "resource": "pods", "namespace": ns}}})
    };
    let path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    let (_, allowed) = send(&reader, "POST", path, "application/json", Some(ask("list"))).await;
    assert_eq!(allowed["status"]["allowed"], true, "{allowed}");
    let (_, denied) = send(
        &reader,
        "POST",
        path,
        "application/json",
        Some(ask("delete")),
    )
    .await;
    assert_eq!(denied["status"]["allowed"], false, "{denied}");
}

#[tokio::test]
async fn a_fresh_cluster_has_the_built_in_roles() {
    let env = rbac_env().await;
    let client = crate::support::raw::client(&env).await;
    let roles: Api<ClusterRole> = Api::all(client.clone());
    let admin = roles.get("cluster-admin").await.unwrap();
    assert_eq!(
        serde_json::to_value(admin.rules.unwrap()).unwrap()[0],
        json!({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]})
    );
    // Aggregated roles carry the rules of the roles they select (a real cluster's
    // controller fills them in shortly after start-up).
    let view = roles.get("view").await.unwrap();
    assert!(view.aggregation_rule.is_some());
    let lists_pods = |rules: &serde_json::Value| {
        rules.as_array().is_some_and(|rules| {
            rules.iter().any(|r| {
                r["resources"]
                    .as_array()
                    .is_some_and(|x| x.contains(&json!("pods")))
                    && r["verbs"]
                        .as_array()
                        .is_some_and(|x| x.contains(&json!("list")))
            })
        })
    };
    let aggregated = eventually(20, || async {
        let rules = serde_json::to_value(roles.get("view").await.unwrap().rules).unwrap();
        lists_pods(&rules).then_some(())
    })
    .await;
    assert!(aggregated.is_some(), "view lets one list pods");
    let edit = serde_json::to_value(roles.get("edit").await.unwrap().rules).unwrap();
    assert!(
        edit.to_string().contains("\"secrets\""),
        "edit reaches secrets"
    );
    assert!(roles.get("system:auth-delegator").await.is_ok());
    let classes: Api<PriorityClass> = Api::all(client.clone());
    assert_eq!(
        classes.get("system-cluster-critical").await.unwrap().value,
        2_000_000_000
    );
    let (code, _) = send(
        &client,
        "GET",
        "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/catch-all",
        "",
        None,
    )
    .await;
    assert_eq!(code, 200);

    // A role labelled for aggregation joins the aggregated role.
    let name = format!("widget-viewer-{}", env.namespace());
    let extra: ClusterRole = serde_json::from_value(json!({"metadata": {"name": name,
        "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
        "rules": [{"apiGroups": ["conformance.kubeforge.dev"], "resources": ["widgets"], "verbs": ["get"]}]}))
    .unwrap();
    roles.create(&PostParams::default(), &extra).await.unwrap();
    let joined = eventually(20, || async {
        let view = roles.get("view").await.unwrap();
        serde_json::to_string(&view.rules)
            .unwrap()
            .contains("widgets")
            .then_some(())
    })
    .await;
    roles.delete(&name, &Default::default()).await.unwrap();
    assert!(joined.is_some(), "view aggregates the new role");
}

#[tokio::test]
async fn a_put_creates_absent_rbac_objects() {
    let env = crate::common::env().await;
    let ns = env.namespace().to_string();
    let client = crate::support::raw::client(&env).await;
    let json_type = "application/json";
    let roles = format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles");
    let role = |rv: Option<&str>, verb: &str| {
        let mut role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "put-made"},
            "rules": [{"verbs": [verb], "apiGroups": [""], "resources": ["pods"]}]});
        if let Some(rv) = rv {
            role["metadata"]["resourceVersion"] = json!(rv);
        }
        role
    };
    // A resourceVersion must be a number, and is ignored for the object created.
    let (code, body) = send(
        &client,
        "PUT",
        &format!("{roles}/put-made"),
        json_type,
        Some(role(Some("abc"), "get")),
    )
    .await;
    assert_eq!(
        (code, &body["message"]),
        (
            500,
            &json!("strconv.ParseUint: parsing \"abc\": invalid syntax")
        ),
        "{body}"
    );
    let (code, created) = send(
        &client,
        "PUT",
        &format!("{roles}/put-made"),
        json_type,
        Some(role(Some("5"), "get")),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert!(created["metadata"]["uid"].is_string(), "{created}");
    let (code, replaced) = send(
        &client,
        "PUT",
        &format!("{roles}/put-made"),
        json_type,
        Some(role(None, "list")),
    )
    .await;
    assert_eq!(code, 200, "{replaced}");
    assert_eq!(replaced["metadata"]["uid"], created["metadata"]["uid"]);
    assert_eq!(replaced["rules"][0]["verbs"], json!(["list"]));
    // An invalid object is refused as a create would refuse it.
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "put-made"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io"}});
    let path = format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings/put-made");
    let (code, body) = send(&client, "PUT", &path, json_type, Some(binding)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "RoleBinding.rbac.authorization.k8s.io \"put-made\" is invalid: [roleRef.kind: Unsupported value: \"\": supported values: \"Role\", \"ClusterRole\", roleRef.name: Required value]"
    );
    // A uid is a precondition an absent object cannot meet.
    let name = format!("put-made-{ns}");
    let cluster_role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": name, "uid": "1234"}});
    let path = format!("/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}");
    let (code, body) = send(&client, "PUT", &path, json_type, Some(cluster_role)).await;
    assert_eq!(code, 409, "{body}");
    assert_eq!(
        body["message"],
        format!(
            "Operation cannot be fulfilled on clusterroles.rbac.authorization.k8s.io \"{name}\": StorageError: invalid object, Code: 4, Key: /registry/clusterroles/{name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 1234, UID in object meta: "
        )
    );
    // Kinds whose strategy does not allow it answer 404.
    let config_map =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "absent"}});
    let path = format!("/api/v1/namespaces/{ns}/configmaps/absent");
    let (code, body) = send(&client, "PUT", &path, json_type, Some(config_map)).await;
    assert_eq!(code, 404, "{body}");
    let (code, body) = send(
        &client,
        "PUT",
        &path,
        json_type,
        Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})),
    )
    .await;
    assert_eq!(
        (code, &body["message"]),
        (
            400,
            &json!(
                "the name of the object (absent based on URL) was undeterminable: name must be provided"
            )
        ),
        "{body}"
    );
}

/// POSTs a review of `kind` to `path`; the status code and the answer.
async fn review(
    client: &kube::Client,
    path: &str,
    kind: &str,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let mut review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": kind});
    for (k, v) in body.as_object().unwrap() {
        review[k] = v.clone();
    }
    send(
        client,
        "POST",
        &format!("/apis/authorization.k8s.io/v1/{path}"),
        "application/json",
        Some(review),
    )
    .await
}

#[tokio::test]
async fn access_reviews_are_validated() {
    let env = crate::common::env().await;
    let ns = env.namespace().to_string();
    let client = crate::support::raw::client(&env).await;
    let sar = "subjectaccessreviews";
    let (code, body) = review(&client, sar, "SubjectAccessReview", json!({"spec": {}})).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        ".authorization.k8s.io \"\" is invalid: [spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: \"\": at least one of user or group must be specified]"
    );
    assert_eq!(body["details"]["group"], "authorization.k8s.io");
    assert!(body["details"].get("kind").is_none(), "{body}");
    let both = json!({"spec": {"user": "u", "resourceAttributes": {"verb": "get"},
        "nonResourceAttributes": {"path": "/x", "verb": "get"}}});
    let (_, body) = review(&client, sar, "SubjectAccessReview", both).await;
    assert_eq!(
        body["message"],
        ".authorization.k8s.io \"\" is invalid: spec.nonResourceAttributes: Invalid value: {\"Path\":\"/x\",\"Verb\":\"get\"}: cannot be specified in combination with resourceAttributes"
    );
    // The metadata must be empty; the message prints it with the request's managedFields.
    let named = json!({"metadata": {"name": "x"},
        "spec": {"user": "u", "nonResourceAttributes": {"path": "/x", "verb": "get"}}});
    let (code, body) = review(&client, sar, "SubjectAccessReview", named).await;
    assert_eq!(code, 422, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with(".authorization.k8s.io \"\" is invalid: metadata: Invalid value: {\"name\":\"x\",\"managedFields\":[{\"manager\":")
            && message.ends_with("\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:nonResourceAttributes\":{\".\":{},\"f:path\":{},\"f:verb\":{}},\"f:user\":{}}}}]}: must be empty"),
        "{message}"
    );
    // Selector attributes: requirements or a raw selector, and well-formed requirements.
    let selectors = json!({"spec": {"user": "u", "resourceAttributes": {"fieldSelector": {},
        "labelSelector": {"requirements": [{"key": "a", "operator": "Exists", "values": ["x"]}]}}}});
    let (_, body) = review(&client, sar, "SubjectAccessReview", selectors).await;
    assert_eq!(
        body["message"],
        ".authorization.k8s.io \"\" is invalid: [spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required, spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist']"
    );
    // A selector the authorizer cannot read is ignored, and said so.
    let unreadable = json!({"spec": {"groups": ["system:masters"], "resourceAttributes": {
        "verb": "list", "resource": "pods", "fieldSelector": {"rawSelector": "=bad=="}}}});
    let (_, body) = review(&client, sar, "SubjectAccessReview", unreadable).await;
    assert_eq!(
        body["status"],
        json!({"allowed": true, "evaluationError": "spec.resourceAttributes.fieldSelector ignored due to parse error"})
    );

    // A self review: the one-of rule, and no subject of its own.
    let ssar = "selfsubjectaccessreviews";
    let (_, body) = review(
        &client,
        ssar,
        "SelfSubjectAccessReview",
        json!({"spec": {}}),
    )
    .await;
    assert_eq!(
        body["message"],
        ".authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified"
    );
    let mine =
        json!({"spec": {"user": "u", "resourceAttributes": {"verb": "get", "resource": "pods"}}});
    let (code, body) = review(&client, ssar, "SelfSubjectAccessReview", mine).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["spec"],
        json!({"resourceAttributes": {"verb": "get", "resource": "pods"}})
    );

    // A local review: the path's namespace, and resource attributes only.
    let lsar = format!("namespaces/{ns}/localsubjectaccessreviews");
    let kind = "LocalSubjectAccessReview";
    let elsewhere = json!({"spec": {"user": "u", "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "other"}}});
    let (_, body) = review(&client, &lsar, kind, elsewhere).await;
    assert_eq!(
        body["message"],
        ".authorization.k8s.io \"\" is invalid: spec.resourceAttributes.namespace: Invalid value: \"other\": must match metadata.namespace"
    );
    let path =
        json!({"spec": {"user": "u", "nonResourceAttributes": {"verb": "get", "path": "/x"}}});
    let (_, body) = review(&client, &lsar, kind, path).await;
    assert_eq!(
        body["message"],
        ".authorization.k8s.io \"\" is invalid: spec.nonResourceAttributes: Invalid value: {\"Path\":\"/x\",\"Verb\":\"get\"}: disallowed on this kind of request"
    );
    // A user no role is bound to may not.
    let nobody = json!({"spec": {"user": "u", "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": ns}}});
    let (code, body) = review(&client, &lsar, kind, nobody).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["status"], json!({"allowed": false}));
    assert_eq!(body["metadata"]["namespace"], json!(ns));
}

#[tokio::test]
async fn self_reviews_answer_new_objects() {
    let env = crate::common::env().await;
    let ns = env.namespace().to_string();
    let client = crate::support::raw::client(&env).await;
    let rules = "selfsubjectrulesreviews";
    let kind = "SelfSubjectRulesReview";
    let (code, body) = review(&client, rules, kind, json!({"spec": {}})).await;
    assert_eq!(
        (code, &body["message"]),
        (400, &json!("no namespace on request"))
    );
    let named = json!({"metadata": {"name": "x", "labels": {"a": "b"}}, "spec": {"namespace": ns}});
    let (code, body) = review(&client, rules, kind, named).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!((&body["metadata"], &body["spec"]), (&json!({}), &json!({})));
    assert_eq!(body["status"]["incomplete"], false);
    // The admin (in `system:masters`) holds everything through `cluster-admin`'s binding,
    // listed once: the privileged group adds no rules of its own.
    let everything = |list: &str, rule: serde_json::Value| {
        body["status"][list]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| **r == rule)
            .count()
    };
    assert_eq!(
        (
            everything(
                "resourceRules",
                json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})
            ),
            everything(
                "nonResourceRules",
                json!({"verbs": ["*"], "nonResourceURLs": ["*"]})
            )
        ),
        (1, 1),
        "{body}"
    );
    let (code, me) = send(
        &client,
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        "application/json",
        Some(
            json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview",
            "metadata": {"name": "x", "labels": {"a": "b"}}}),
        ),
    )
    .await;
    assert_eq!(code, 201, "{me}");
    let metadata = me["metadata"].as_object().unwrap();
    assert_eq!(
        metadata.keys().collect::<Vec<_>>(),
        ["creationTimestamp"],
        "{me}"
    );
}

/// A 403 of the authorization filter ends with RBAC's reason when a binding of the user names
/// a missing role (cluster bindings first; several in brackets), and says not to sniff; a
/// path nothing serves is authorized first (403 rather than 404 for whom RBAC refuses);
/// access reviews carry the reason, a rules review the resolution error.
#[tokio::test]
async fn refusals_carry_rbacs_reason() {
    let env = rbac_env().await;
    let ns = env.namespace().to_string();
    let admin = crate::support::raw::client(&env).await;
    let user = format!("cf-carol-{ns}");
    let cluster_binding = format!("cf-missing-{ns}");
    let rbac = "/apis/rbac.authorization.k8s.io/v1";
    let (code, body) = send(&admin, "POST", &format!("{rbac}/clusterrolebindings"), "application/json",
        Some(json!({"metadata": {"name": cluster_binding},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": format!("cf-nope-{ns}")},
            "subjects": [{"kind": "User", "name": user}]}))).await;
    assert_eq!(code, 201, "{body}");
    let (code, body) = send(
        &admin,
        "POST",
        &format!("{rbac}/namespaces/{ns}/rolebindings"),
        "application/json",
        Some(json!({"metadata": {"name": "cf-missing"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cf-nope"},
            "subjects": [{"kind": "User", "name": user}]})),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let as_user = [("Impersonate-User", user.as_str())];
    let expected = format!(
        "pods is forbidden: User \"{user}\" cannot list resource \"pods\" in API group \"\" in the namespace \"{ns}\": RBAC: [clusterrole.rbac.authorization.k8s.io \"cf-nope-{ns}\" not found, role.rbac.authorization.k8s.io \"cf-nope\" not found]"
    );
    let pods = format!("/api/v1/namespaces/{ns}/pods");
    // A real server's RBAC caches see the bindings a moment later.
    let refused = eventually(20, || async {
        let (code, headers, bytes) =
            crate::support::raw::exchange(&admin, "GET", &pods, &as_user, None).await;
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        (code == 403 && body["message"] == json!(expected)).then_some(headers)
    })
    .await;
    let headers = refused.expect("the 403 names the missing roles");
    assert_eq!(headers["x-content-type-options"], "nosniff");

    let (code, headers, bytes) =
        crate::support::raw::exchange(&admin, "GET", "/healthzz", &as_user, None).await;
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    assert_eq!(code, 403, "{body}");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(
        body["message"],
        json!(format!(
            "forbidden: User \"{user}\" cannot get path \"/healthzz\": RBAC: clusterrole.rbac.authorization.k8s.io \"cf-nope-{ns}\" not found"
        ))
    );
    let (code, _, _) = crate::support::raw::exchange(&admin, "GET", "/healthzz", &[], None).await;
    assert_eq!(code, 404, "the administrator meets the missing page");

    let (_, body) = review(&admin, "subjectaccessreviews", "SubjectAccessReview",
        json!({"spec": {"user": user, "resourceAttributes": {"verb": "list", "resource": "pods", "namespace": ns}}})).await;
    assert_eq!(
        body["status"],
        json!({"allowed": false, "reason": format!(
            "RBAC: [clusterrole.rbac.authorization.k8s.io \"cf-nope-{ns}\" not found, role.rbac.authorization.k8s.io \"cf-nope\" not found]"
        )})
    );
    let (code, headers, bytes) = crate::support::raw::exchange(
        &admin,
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        &[
            ("Impersonate-User", user.as_str()),
            ("Content-Type", "application/json"),
        ],
        Some(
            &json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
            "spec": {"namespace": ns}}),
        ),
    )
    .await;
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    assert_eq!(code, 201, "{body} {headers:?}");
    assert_eq!(
        body["status"]["evaluationError"],
        json!(format!(
            "[clusterrole.rbac.authorization.k8s.io \"cf-nope-{ns}\" not found, role.rbac.authorization.k8s.io \"cf-nope\" not found]"
        ))
    );
    send(
        &admin,
        "DELETE",
        &format!("{rbac}/clusterrolebindings/{cluster_binding}"),
        "",
        None,
    )
    .await;
}

/// Each aggregation selector of a ClusterRole is a label selector: its labels, then its
/// expressions (values as label values), and a selector that does not convert is also
/// `invalid label selector.`, after the rules' own errors.
#[tokio::test]
async fn aggregation_selectors_are_label_selectors() {
    let env = crate::common::env().await;
    let client = crate::support::raw::client(&env).await;
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": format!("cf-agg-{}", env.namespace())},
        "rules": [{"apiGroups": [""], "resources": ["pods"]}],
        "aggregationRule": {"clusterRoleSelectors": [
            {"matchLabels": {"a b": "x"}, "matchExpressions": [{"key": "k", "operator": "Foo", "values": ["v"]}]},
            {"matchExpressions": [{"key": "k", "operator": "In"}]},
            {}]}});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles?dryRun=All",
        "application/json",
        Some(role),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let fields = crate::support::raw::causes(&body);
    let name_part = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let s = "aggregationRule.clusterRoleSelectors";
    assert_eq!(
        fields,
        vec![
            "rules[0].verbs: Required value: verbs must contain at least one value".to_string(),
            format!("{s}[0].matchLabels: Invalid value: \"a b\": {name_part}"),
            format!(
                "{s}[0].matchExpressions[0].operator: Invalid value: \"Foo\": not a valid selector operator"
            ),
            format!("{s}[0]: Invalid value: null: invalid label selector."),
            format!(
                "{s}[1].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
            ),
            format!("{s}[1]: Invalid value: null: invalid label selector."),
        ]
    );
}
