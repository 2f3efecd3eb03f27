//! `authentication.k8s.io` and service account tokens: a token from
//! `serviceaccounts/<name>/token` is accepted back as that service account, by TokenReview,
//! SelfSubjectReview and every request made with it.

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenReview, TokenReviewSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};
use serde_json::json;

use crate::common::{api_error, env};
use crate::support::raw::{client_with_token, send};

async fn service_account(env: &kubeforge_testenv::TestEnv, name: &str) -> Api<ServiceAccount> {
    let accounts: Api<ServiceAccount> = Api::namespaced(env.client(), env.namespace());
    let sa: ServiceAccount = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    accounts.create(&PostParams::default(), &sa).await.unwrap();
    accounts
}

/// The SelfSubjectReview of the client's user (`kubectl auth whoami`).
async fn whoami(client: &kube::Client) -> serde_json::Value {
    let (code, me) = send(
        client,
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        "application/json",
        Some(json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})),
    )
    .await;
    assert_eq!(code, 201, "{me}");
    me
}

#[tokio::test]
async fn service_account_tokens_are_accepted_as_the_account() {
    let env = env().await;
    let ns = env.namespace().to_string();
    let accounts = service_account(&env, "robot").await;
    let request: TokenRequest = serde_json::from_value(json!({"spec": {}})).unwrap();
    let issued = accounts
        .create_token_request("robot", &PostParams::default(), &request)
        .await
        .unwrap();
    let spec = issued.spec;
    assert_eq!(spec.expiration_seconds, Some(3600));
    assert_eq!(
        spec.audiences.len(),
        1,
        "the issuer is the default audience"
    );
    let status = issued.status.unwrap();
    assert_eq!(status.token.split('.').count(), 3, "a signed JWT");
    let username = format!("system:serviceaccount:{ns}:robot");

    let reviews: Api<TokenReview> = Api::all(env.client());
    let review = TokenReview {
        spec: TokenReviewSpec {
            token: Some(status.token.clone()),
            ..Default::default()
        },
        ..Default::default()
    };
    let reviewed = reviews
        .create(&PostParams::default(), &review)
        .await
        .unwrap()
        .status
        .unwrap();
    assert_eq!(reviewed.authenticated, Some(true));
    let user = reviewed.user.unwrap();
    assert_eq!(user.username.as_deref(), Some(username.as_str()));
    assert_eq!(
        user.groups.unwrap(),
        [
            "system:serviceaccounts".to_string(),
            format!("system:serviceaccounts:{ns}"),
            "system:authenticated".to_string()
        ]
    );
    let account_uid = accounts.get("robot").await.unwrap().metadata.uid;
    assert_eq!(user.uid, account_uid);

    // Requests made with the token are the account's.
    let robot = client_with_token(&env, &status.token).await;
    let me = whoami(&robot).await;
    assert_eq!(me["status"]["userInfo"]["username"], json!(username));

    // A token of a deleted account is refused (a real server notices within its cache's
    // delay).
    accounts.delete("robot", &Default::default()).await.unwrap();
    let refused = crate::support::raw::eventually(20, || async {
        let status = reviews
            .create(&PostParams::default(), &review)
            .await
            .unwrap()
            .status
            .unwrap();
        (status.authenticated != Some(true)).then_some(())
    })
    .await;
    assert!(refused.is_some(), "the deleted account's token is refused");
}

#[tokio::test]
async fn token_requests_are_validated() {
    let env = env().await;
    let accounts = service_account(&env, "short-lived").await;
    let short: TokenRequest =
        serde_json::from_value(json!({"spec": {"expirationSeconds": 10}})).unwrap();
    let status = api_error(
        accounts
            .create_token_request("short-lived", &PostParams::default(), &short)
            .await,
    );
    assert_eq!(status.code, 422);
    assert_eq!(
        status.message,
        "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes"
    );
    let any: TokenRequest = serde_json::from_value(json!({"spec": {}})).unwrap();
    let status = api_error(
        accounts
            .create_token_request("nobody", &PostParams::default(), &any)
            .await,
    );
    assert_eq!(
        (status.code, status.message.as_str()),
        (404, "serviceaccounts \"nobody\" not found")
    );
}

#[tokio::test]
async fn a_bad_token_is_unauthorized() {
    let env = env().await;
    if !env.is_real_cluster() {
        // The embedded server's default policy accepts any token it does not know; a token
        // that looks like one of its own but is not is refused.
        let forged = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.AAAA";
        let client = client_with_token(&env, forged).await;
        let (code, body) = send(&client, "GET", "/api/v1/namespaces", "", None).await;
        assert_eq!((code, &body["message"]), (401, &json!("Unauthorized")));
        return;
    }
    let client = client_with_token(&env, "not-a-token").await;
    let (code, body) = send(&client, "GET", "/api/v1/namespaces", "", None).await;
    assert_eq!((code, &body["reason"]), (401, &json!("Unauthorized")));
}

/// POSTs a TokenReview of `spec`; the status code and the answer.
async fn token_review(client: &kube::Client, spec: serde_json::Value) -> (u16, serde_json::Value) {
    let review =
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec});
    send(
        client,
        "POST",
        "/apis/authentication.k8s.io/v1/tokenreviews",
        "application/json",
        Some(review),
    )
    .await
}

#[tokio::test]
async fn token_reviews_know_only_the_tokens_the_server_issued() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let (code, body) = token_review(&client, json!({"token": ""})).await;
    assert_eq!(
        (code, &body["message"]),
        (
            400,
            &json!("token is required for TokenReview in authentication")
        ),
        "{body}"
    );
    // A token the server never issued (the embedded server's default policy accepts it for
    // requests, but a review reports what a real server would).
    let (code, body) = token_review(&client, json!({"token": "never-issued"})).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["status"],
        json!({"user": {}, "error": "invalid bearer token"})
    );
    // A token that starts with a space is no bearer token: the anonymous user.
    let (_, body) = token_review(&client, json!({"token": " x", "audiences": ["a1"]})).await;
    assert_eq!(
        body["status"],
        json!({"authenticated": true, "audiences": ["a1"],
            "user": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}})
    );

    // A service account token: authenticated for one of its audiences only.
    let accounts = service_account(&env, "audience").await;
    let request: TokenRequest =
        serde_json::from_value(json!({"spec": {"audiences": ["aud1", "aud2"]}})).unwrap();
    let token = accounts
        .create_token_request("audience", &PostParams::default(), &request)
        .await
        .unwrap()
        .status
        .unwrap()
        .token;
    let (_, body) = token_review(
        &client,
        json!({"token": token, "audiences": ["aud2", "aud3"]}),
    )
    .await;
    assert_eq!(body["status"]["authenticated"], true, "{body}");
    assert_eq!(body["status"]["audiences"], json!(["aud2"]));
    let (_, body) = token_review(&client, json!({"token": token, "audiences": ["aud3"]})).await;
    assert_eq!(
        body["status"],
        json!({"user": {}, "error": "[invalid bearer token, token audiences [\"aud1\" \"aud2\"] is invalid for the target audiences [\"aud3\"]]"})
    );
    // A forged signature of the server's own issuer.
    let (_, body) = token_review(
        &client,
        json!({"token": format!("{token}x"), "audiences": ["aud1"]}),
    )
    .await;
    assert_eq!(
        body["status"],
        json!({"user": {}, "error": "[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]"})
    );
}

#[tokio::test]
async fn the_admin_is_the_same_user_in_the_embedded_server_and_the_binaries() {
    let env = env().await;
    if env.is_existing_cluster() {
        eprintln!("skipping: an existing cluster's admin is its own");
        return;
    }
    let me = whoami(&crate::support::raw::client(&env).await).await;
    let user = &me["status"]["userInfo"];
    assert_eq!(user["username"], "kubeforge-testenv-admin", "{me}");
    assert_eq!(
        user["groups"],
        json!(["system:masters", "system:authenticated"]),
        "{me}"
    );
}
