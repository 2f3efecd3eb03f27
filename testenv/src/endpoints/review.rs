//! TokenReview and SubjectAccessReview, answered by a configurable policy.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::support::request::Target;
use crate::support::request::{Reply, Req, json_body};
use crate::support::status::ApiError;

/// Who a bearer token belongs to, as TokenReview reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct UserInfo {
    /// `status.user.username`
    pub username: String,
    /// `status.user.groups`
    pub groups: Vec<String>,
}

type Authenticate = dyn Fn(&str) -> Option<UserInfo> + Send + Sync;
type Authorize = dyn Fn(&Value) -> bool + Send + Sync;

/// How reviews are answered. The default authenticates every non-empty token as an admin
/// (`kubeforge-testenv`, groups `system:masters` and `system:authenticated`) and allows
/// every access.
#[derive(Clone)]
pub struct Policy {
    authenticate: Arc<Authenticate>,
    authorize: Arc<Authorize>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            authenticate: Arc::new(|token: &str| {
                (!token.is_empty()).then(|| UserInfo {
                    username: "kubeforge-testenv".into(),
                    groups: vec!["system:masters".into(), "system:authenticated".into()],
                })
            }),
            authorize: Arc::new(|_| true),
        }
    }
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Policy { .. }")
    }
}

impl Policy {
    /// Replaces the token check: `Some(user)` authenticates the token.
    pub fn with_authenticate(
        mut self,
        f: impl Fn(&str) -> Option<UserInfo> + Send + Sync + 'static,
    ) -> Self {
        self.authenticate = Arc::new(f);
        self
    }

    /// Replaces the access decision; the function receives the review's `spec`.
    pub fn with_authorize(mut self, f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        self.authorize = Arc::new(f);
        self
    }
}

/// POST of a TokenReview or (Self/Local)SubjectAccessReview.
pub fn create(policy: &Policy, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let mut review = json_body(req)?;
    let def = &target.def;
    review["apiVersion"] = json!(def.api_version());
    review["kind"] = json!(def.kind);
    if !review.get("metadata").is_some_and(Value::is_object) {
        review["metadata"] = json!({});
    }
    match def.kind.as_str() {
        "TokenReview" => {
            let token = review["spec"]["token"].as_str().unwrap_or_default();
            review["status"] = match (policy.authenticate)(token) {
                Some(user) => json!({
                    "authenticated": true,
                    "user": {"username": user.username, "groups": user.groups},
                    "audiences": review["spec"]["audiences"].clone(),
                }),
                None => json!({"authenticated": false, "error": "token is not valid"}),
            };
        }
        _ => {
            if let Some(ns) = &target.namespace {
                review["spec"]["resourceAttributes"]["namespace"] = json!(ns);
            }
            let allowed = (policy.authorize)(&review["spec"]);
            review["status"] = if allowed {
                json!({"allowed": true, "reason": "allowed by the kubeforge-testenv policy"})
            } else {
                json!({"allowed": false, "denied": true, "reason": "denied by the kubeforge-testenv policy"})
            };
        }
    }
    Ok(Reply::json(201, review))
}
