//! Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-<key>`; kube-rs's
//! `AuthInfo::impersonate`) and RBAC's escalation and bind checks on roles and bindings,
//! with the real server's answers: the embedded server runs with `Policy::rbac()`, as a real
//! cluster decides every request with RBAC.

use std::collections::HashMap;

use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};
use kubeforge_testenv::{Policy, TestEnv};
use serde_json::{Value, json};

use crate::common::widget_crd;
use crate::support::raw::{client, eventually, exchange, send};

const JSON: &str = "application/json";
const REVIEWS: &str = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
const RBAC: &str = "/apis/rbac.authorization.k8s.io/v1";

async fn rbac_env() -> TestEnv {
    TestEnv::builder()
        .crd(widget_crd())
        .policy(Policy::rbac())
        .start()
        .await
        .unwrap()
}

/// A client of `env`'s admin that asks to act as `auth` describes.
async fn impersonating(env: &TestEnv, auth: kube::config::AuthInfo) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig_path()).unwrap();
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    config.default_retry = false;
    config.auth_info.impersonate = auth.impersonate;
    config.auth_info.impersonate_groups = auth.impersonate_groups;
    config.auth_info.impersonate_uid = auth.impersonate_uid;
    config.auth_info.impersonate_user_extra = auth.impersonate_user_extra;
    kube::Client::try_from(config).unwrap()
}

/// A client acting as the service account `name` of `env`'s namespace.
async fn as_account(env: &TestEnv, name: &str) -> kube::Client {
    let user = format!("system:serviceaccount:{}:{name}", env.namespace());
    impersonating(
        env,
        kube::config::AuthInfo {
            impersonate: Some(user),
            ..Default::default()
        },
    )
    .await
}

async fn whoami(client: &kube::Client) -> Value {
    let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
    let (code, body) = send(client, "POST", REVIEWS, JSON, Some(review)).await;
    assert_eq!(code, 201, "{body}");
    body["status"]["userInfo"].clone()
}

async fn create_account(env: &TestEnv, name: &str) {
    let accounts: Api<ServiceAccount> = Api::namespaced(env.client(), env.namespace());
    let sa: ServiceAccount = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    accounts.create(&PostParams::default(), &sa).await.unwrap();
}

/// Creates `object` at `path` as the admin.
async fn admin_creates(env: &TestEnv, path: &str, object: Value) {
    let (code, body) = send(&client(env).await, "POST", path, JSON, Some(object)).await;
    assert_eq!(code, 201, "{body}");
}

/// A Role named `name` in `ns` with `rules`, and a RoleBinding of it to the account.
async fn grant(env: &TestEnv, name: &str, account: &str, rules: Value) {
    let ns = env.namespace();
    admin_creates(
        env,
        &format!("{RBAC}/namespaces/{ns}/roles"),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": name}, "rules": rules}),
    )
    .await;
    admin_creates(
        env,
        &format!("{RBAC}/namespaces/{ns}/rolebindings"),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": ns}]}),
    )
    .await;
}

#[tokio::test]
async fn a_client_configured_to_impersonate_is_served_as_that_user() {
    let env = rbac_env().await;
    let ns = env.namespace().to_string();
    let bot = as_account(&env, "imp-bot").await;
    assert_eq!(
        whoami(&bot).await,
        json!({"username": format!("system:serviceaccount:{ns}:imp-bot"),
            "groups": ["system:serviceaccounts", format!("system:serviceaccounts:{ns}"), "system:authenticated"]})
    );
    // The account has no rights of its own.
    let (code, body) = send(
        &bot,
        "GET",
        &format!("/api/v1/namespaces/{ns}/pods"),
        "",
        None,
    )
    .await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "pods is forbidden: User \"system:serviceaccount:{ns}:imp-bot\" cannot list resource \"pods\" in API group \"\" in the namespace \"{ns}\""
        ))
    );
    // A user with groups, a uid and extras (keys lowercased and percent-decoded).
    let alice = impersonating(
        &env,
        kube::config::AuthInfo {
            impersonate: Some("alice".into()),
            impersonate_groups: Some(vec!["g1".into(), "g2".into()]),
            impersonate_uid: Some("u-1".into()),
            impersonate_user_extra: Some(HashMap::from([(
                "example.com/Scope".to_string(),
                vec!["a".to_string(), "b".to_string()],
            )])),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        whoami(&alice).await,
        json!({"username": "alice", "uid": "u-1", "groups": ["g1", "g2", "system:authenticated"],
            "extra": {"example.com/scope": ["a", "b"]}})
    );
}

#[tokio::test]
async fn groups_without_a_user_are_an_internal_error() {
    let env = rbac_env().await;
    let admin = client(&env).await;
    let (code, headers, body) = exchange(
        &admin,
        "GET",
        "/api/v1/namespaces/default/configmaps?limit=1&x=y",
        &[("Impersonate-Group", "g1"), ("Impersonate-Uid", "u1")],
        None,
    )
    .await;
    assert_eq!(code, 500);
    assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
    assert_eq!(
        String::from_utf8_lossy(&body),
        "Internal Server Error: \"/api/v1/namespaces/default/configmaps?limit=1&amp;x=y\": requested [{Group  g1    } {UID  u1  authentication.k8s.io/v1  }] without impersonating a user\n"
    );
}

#[tokio::test]
async fn impersonating_needs_the_impersonate_verb() {
    let env = rbac_env().await;
    let ns = env.namespace().to_string();
    let plain = env.service_account_client("imp-plain").await.unwrap();
    let requester = format!("system:serviceaccount:{ns}:imp-plain");
    let refused = |what: &str, resource: &str, group: &str, place: &str| {
        let subject = if group.is_empty() {
            format!("{resource} \"{what}\"")
        } else {
            format!("{resource}.{group} \"{what}\"")
        };
        format!(
            "{subject} is forbidden: User \"{requester}\" cannot impersonate resource \"{}\" in API group \"{group}\" {place}",
            if resource == "userextras" {
                "userextras/scope"
            } else {
                resource
            }
        )
    };
    let attempt = |headers: Vec<(&'static str, String)>| {
        let plain = plain.clone();
        async move {
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let review =
                json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
            let mut all = headers.clone();
            all.push(("Content-Type", JSON));
            let (code, _, body) = exchange(&plain, "POST", REVIEWS, &all, Some(&review)).await;
            (
                code,
                serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null),
            )
        }
    };
    let (code, body) = attempt(vec![("Impersonate-User", "alice".into())]).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        json!(refused("alice", "users", "", "at the cluster scope"))
    );
    assert_eq!(body["details"], json!({"name": "alice", "kind": "users"}));
    let (code, body) = attempt(vec![(
        "Impersonate-User",
        format!("system:serviceaccount:{ns}:other"),
    )])
    .await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        json!(refused(
            "other",
            "serviceaccounts",
            "",
            &format!("in the namespace \"{ns}\"")
        ))
    );

    // Users and service accounts, but not groups, uids or extras.
    let name = format!("imp-users-{ns}");
    admin_creates(
        &env,
        &format!("{RBAC}/clusterroles"),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name},
            "rules": [{"apiGroups": [""], "resources": ["users", "serviceaccounts"], "verbs": ["impersonate"]}]}),
    )
    .await;
    admin_creates(
        &env,
        &format!("{RBAC}/clusterrolebindings"),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": "imp-plain", "namespace": ns}]}),
    )
    .await;
    let allowed = eventually(20, || async {
        let (code, body) = attempt(vec![("Impersonate-User", "alice".into())]).await;
        (code == 201).then_some(body)
    })
    .await;
    let groups = attempt(vec![
        ("Impersonate-User", "alice".into()),
        ("Impersonate-Group", "g1".into()),
    ])
    .await;
    let uid = attempt(vec![
        ("Impersonate-User", "alice".into()),
        ("Impersonate-Uid", "1234".into()),
    ])
    .await;
    let extra = attempt(vec![
        ("Impersonate-User", "alice".into()),
        ("Impersonate-Extra-Scope", "v1".into()),
    ])
    .await;
    let admin = client(&env).await;
    for path in ["clusterrolebindings", "clusterroles"] {
        send(&admin, "DELETE", &format!("{RBAC}/{path}/{name}"), "", None).await;
    }
    let allowed = allowed.expect("the binding lets the account impersonate users");
    assert_eq!(
        allowed["status"]["userInfo"],
        json!({"username": "alice", "groups": ["system:authenticated"]})
    );
    assert_eq!(groups.0, 403, "{}", groups.1);
    assert_eq!(
        groups.1["message"],
        json!(refused("g1", "groups", "", "at the cluster scope"))
    );
    assert_eq!(uid.0, 403, "{}", uid.1);
    assert_eq!(
        uid.1["message"],
        json!(refused(
            "1234",
            "uids",
            "authentication.k8s.io",
            "at the cluster scope"
        ))
    );
    assert_eq!(
        uid.1["details"],
        json!({"name": "1234", "group": "authentication.k8s.io", "kind": "uids"})
    );
    assert_eq!(extra.0, 403, "{}", extra.1);
    assert_eq!(
        extra.1["message"],
        json!(refused(
            "v1",
            "userextras",
            "authentication.k8s.io",
            "at the cluster scope"
        ))
    );
}

#[tokio::test]
async fn roles_grant_only_what_their_writer_holds() {
    let env = rbac_env().await;
    let ns = env.namespace().to_string();
    create_account(&env, "esc-narrow").await;
    grant(
        &env,
        "esc-narrow",
        "esc-narrow",
        json!([{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"],
            "verbs": ["create", "update", "patch", "get"]},
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]),
    )
    .await;
    let narrow = as_account(&env, "esc-narrow").await;
    let roles = format!("{RBAC}/namespaces/{ns}/roles");
    let role = |name: &str, rules: Value| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": name}, "rules": rules})
    };
    // Rules it holds: allowed (once the real server's caches see the binding).
    let held = role(
        "esc-held",
        json!([{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]),
    );
    let created = eventually(20, || async {
        let (code, _) = send(&narrow, "POST", &roles, JSON, Some(held.clone())).await;
        (code == 201).then_some(())
    })
    .await;
    assert!(created.is_some(), "a role with the rules held is created");
    let groups = format!(
        "[\"system:serviceaccounts\" \"system:serviceaccounts:{ns}\" \"system:authenticated\"]"
    );
    let attempting = |name: &str, resource: &str, missing: &str| {
        format!(
            "{resource}.rbac.authorization.k8s.io \"{name}\" is forbidden: user \"system:serviceaccount:{ns}:esc-narrow\" (groups={groups}) is attempting to grant RBAC permissions not currently held:\n{missing}"
        )
    };
    let wider = role(
        "esc-wider",
        json!([{"apiGroups": [""], "resources": ["secrets", "configmaps"], "verbs": ["get", "watch"]},
            {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["*"], "resourceNames": ["x"]}]),
    );
    let (code, body) = send(&narrow, "POST", &roles, JSON, Some(wider)).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        json!(attempting(
            "esc-wider",
            "roles",
            "{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"watch\"]}\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"watch\"]}\n{APIGroups:[\"apps\"], Resources:[\"deployments\"], ResourceNames:[\"x\"], Verbs:[\"*\"]}"
        ))
    );
    assert_eq!(
        body["details"],
        json!({"name": "esc-wider", "group": "rbac.authorization.k8s.io", "kind": "roles"})
    );

    // A binding needs the role's rules held, or bind on the role.
    admin_creates(
        &env,
        &roles,
        role(
            "esc-secrets",
            json!([{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]),
        ),
    )
    .await;
    let bindings = format!("{RBAC}/namespaces/{ns}/rolebindings");
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "esc-binds"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "esc-secrets"},
        "subjects": [{"kind": "User", "name": "someone"}]});
    let (code, body) = send(&narrow, "POST", &bindings, JSON, Some(binding.clone())).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        json!(attempting(
            "esc-binds",
            "rolebindings",
            "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}"
        ))
    );
    let mut missing = binding.clone();
    missing["metadata"]["name"] = json!("esc-missing");
    missing["roleRef"]["name"] = json!("esc-nowhere");
    let (code, body) = send(&narrow, "POST", &bindings, JSON, Some(missing)).await;
    assert_eq!(code, 404, "{body}");
    assert_eq!(
        body["message"],
        json!("rolebindings.rbac.authorization.k8s.io \"esc-nowhere\" not found")
    );
    grant(
        &env,
        "esc-bind",
        "esc-narrow",
        json!([{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"],
            "verbs": ["bind"], "resourceNames": ["esc-secrets"]}]),
    )
    .await;
    let bound = eventually(20, || async {
        let (code, _) = send(&narrow, "POST", &bindings, JSON, Some(binding.clone())).await;
        (code == 201).then_some(())
    })
    .await;
    assert!(bound.is_some(), "bind on the role lets the account bind it");
}
