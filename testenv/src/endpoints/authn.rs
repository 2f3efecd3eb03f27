//! Authentication of requests and of TokenReviews, as kube-apiserver's authenticators do it
//! for the credentials a test server sees: its own admin token (the kubeconfig's), service
//! account tokens it signed (`serviceaccounts/<name>/token`), and any other token the
//! [`Policy`](super::policy::Policy) accepts. No token is `system:anonymous`.

use serde_json::Value;

use super::state::Api;
use crate::support::kubeconfig::TOKEN;
use crate::support::meta;
use crate::support::status::ApiError;
use crate::support::tokens::{ISSUER, looks_like_jwt};
use crate::support::user::User;

/// Why a token was not accepted (TokenReview's `status.error`).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected(pub String);

/// The service account user of verified token claims, if the account still exists with
/// the uid the token names and the token is within its lifetime.
fn service_account_user(api: &Api, claims: &Value) -> Result<User, Rejected> {
    let now = jiff::Timestamp::now().as_second();
    if claims["iss"] != ISSUER {
        return Err(Rejected(
            "invalid bearer token, token issuer is not valid".into(),
        ));
    }
    if claims["exp"].as_i64().is_some_and(|exp| exp < now) {
        return Err(Rejected("invalid bearer token, Token has expired.".into()));
    }
    if claims["nbf"].as_i64().is_some_and(|nbf| nbf > now + 60) {
        return Err(Rejected(
            "invalid bearer token, Token is not valid yet.".into(),
        ));
    }
    let k = &claims["kubernetes.io"];
    let ns = k["namespace"].as_str().unwrap_or_default();
    let name = k["serviceaccount"]["name"].as_str().unwrap_or_default();
    let uid = k["serviceaccount"]["uid"].as_str().unwrap_or_default();
    let stored = api.lock().store.get("/serviceaccounts", ns, name);
    match stored {
        Some(sa) if meta::meta_str(&sa, "uid") == Some(uid) => {}
        Some(_) => {
            return Err(Rejected(format!(
                "invalid bearer token, service account UID ({uid}) does not match claim"
            )));
        }
        None => {
            return Err(Rejected(format!(
                "invalid bearer token, serviceaccounts \"{name}\" not found"
            )));
        }
    }
    let mut user = User {
        username: format!("system:serviceaccount:{ns}:{name}"),
        uid: uid.to_string(),
        groups: vec![
            "system:serviceaccounts".into(),
            format!("system:serviceaccounts:{ns}"),
            "system:authenticated".into(),
        ],
        ..User::default()
    };
    if let Some(jti) = claims["jti"].as_str() {
        user.extra.insert(
            "authentication.kubernetes.io/credential-id".into(),
            vec![format!("JTI={jti}")],
        );
    }
    if let Some(pod) = k.get("pod") {
        for (key, field) in [("pod-name", "name"), ("pod-uid", "uid")] {
            if let Some(v) = pod[field].as_str() {
                user.extra.insert(
                    format!("authentication.kubernetes.io/{key}"),
                    vec![v.into()],
                );
            }
        }
    }
    Ok(user)
}

/// Who `token` belongs to, with the token's audiences when it is a service account token.
pub fn authenticate_token(api: &Api, token: &str) -> Result<(User, Option<Value>), Rejected> {
    if token == TOKEN {
        return Ok((User::admin(), None));
    }
    if looks_like_jwt(token) {
        if let Some(claims) = api.signer().verify(token) {
            return service_account_user(api, &claims).map(|u| (u, Some(claims["aud"].clone())));
        }
        if !api.options.policy.authenticates_itself() {
            return Err(Rejected(
                "invalid bearer token, square/go-jose: error in cryptographic primitive".into(),
            ));
        }
    }
    match api.options.policy.authenticate(token) {
        Some(info) => Ok((
            User {
                username: info.username,
                groups: info.groups,
                ..User::default()
            },
            None,
        )),
        None => Err(Rejected("invalid bearer token".into())),
    }
}

/// The user of a request with bearer token `bearer` (empty: anonymous), or 401.
pub fn authenticate(api: &Api, bearer: &str) -> Result<User, ApiError> {
    if bearer.is_empty() {
        return Ok(User::anonymous());
    }
    authenticate_token(api, bearer)
        .map(|(user, _)| user)
        .map_err(|_| ApiError::new(401, "Unauthorized", "Unauthorized"))
}
