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

impl Rejected {
    /// The service account authenticator's refusal of a token it recognised as its own:
    /// the bearer token authenticator's error aggregated with why.
    fn service_account(why: impl std::fmt::Display) -> Self {
        Rejected(format!("[invalid bearer token, {why}]"))
    }

    /// No authenticator recognised the token.
    fn unknown() -> Self {
        Rejected("invalid bearer token".into())
    }
}

/// The service account user of verified token claims, if the account still exists with
/// the uid the token names and the token is within its lifetime.
fn service_account_user(api: &Api, claims: &Value) -> Result<User, Rejected> {
    let now = jiff::Timestamp::now().as_second();
    if claims["iss"] != ISSUER {
        return Err(Rejected::service_account("token issuer is not valid"));
    }
    if claims["exp"].as_i64().is_some_and(|exp| exp < now) {
        return Err(Rejected::service_account("Token has expired."));
    }
    if claims["nbf"].as_i64().is_some_and(|nbf| nbf > now + 60) {
        return Err(Rejected::service_account("Token is not valid yet."));
    }
    let k = &claims["kubernetes.io"];
    let ns = k["namespace"].as_str().unwrap_or_default();
    let name = k["serviceaccount"]["name"].as_str().unwrap_or_default();
    let uid = k["serviceaccount"]["uid"].as_str().unwrap_or_default();
    let stored = api.lock().store.get("/serviceaccounts", ns, name);
    match stored {
        Some(sa) if meta::meta_str(&sa, "uid") == Some(uid) => {}
        Some(sa) => {
            let stored = meta::meta_str(&sa, "uid").unwrap_or_default();
            return Err(Rejected::service_account(format!(
                "service account UID ({stored}) does not match claim ({uid})"
            )));
        }
        None => {
            return Err(Rejected::service_account(format!(
                "serviceaccounts \"{name}\" not found"
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
/// The default policy takes any token the server does not know as an admin's.
pub fn authenticate_token(api: &Api, token: &str) -> Result<(User, Option<Value>), Rejected> {
    authenticate_with(api, token, true)
}

/// Who a TokenReview's `token` belongs to: as [`authenticate_token`], but only the tokens the
/// server issued (its admin token, the service account tokens it signed) and those a custom
/// policy accepts are authenticated, as a real server knows only its own. The review sends
/// the token as a bearer header: what follows a space is not part of it, and a token that
/// starts with one is no bearer token at all (the anonymous user).
pub fn review_token(api: &Api, token: &str) -> Result<(User, Option<Value>), Rejected> {
    let token = token.trim_end().split(' ').next().unwrap_or_default();
    if token.is_empty() {
        return Ok((User::anonymous(), None));
    }
    authenticate_with(api, token, api.options.policy.authenticates_itself())
}

fn authenticate_with(
    api: &Api,
    token: &str,
    ask_policy: bool,
) -> Result<(User, Option<Value>), Rejected> {
    if token == TOKEN {
        return Ok((User::admin(), None));
    }
    if looks_like_jwt(token) {
        if let Some(claims) = api.signer().verify(token) {
            return service_account_user(api, &claims).map(|u| (u, Some(claims["aud"].clone())));
        }
        if !api.options.policy.authenticates_itself() {
            // The service account authenticator checks the signature of the tokens of
            // its issuer; others are not its own.
            return Err(if unverified_issuer(token).as_deref() == Some(ISSUER) {
                Rejected::service_account("go-jose/go-jose: error in cryptographic primitive")
            } else {
                Rejected::unknown()
            });
        }
    }
    if !ask_policy {
        return Err(Rejected::unknown());
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
        None => Err(Rejected::unknown()),
    }
}

/// The `iss` claim of a token whose signature is not checked.
fn unverified_issuer(token: &str) -> Option<String> {
    use base64::Engine;
    let claims = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    claims["iss"].as_str().map(String::from)
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
