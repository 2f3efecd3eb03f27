//! kubebuilder's secure metrics: a bearer token is authenticated with a TokenReview and the
//! user authorized with a SubjectAccessReview for `get` on the non-resource URL `/metrics`.
//! Decisions are cached briefly so a scrape every few seconds costs no API calls.

use http::{HeaderMap, StatusCode};
use k8s_openapi::api::{
    authentication::v1::{TokenReview, TokenReviewSpec},
    authorization::v1::{NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec},
};
use kube::{Api, api::PostParams};
use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

/// How long an allow or deny decision is reused.
const CACHE_TTL: Duration = Duration::from_secs(10);

/// Authorizes metrics requests against the API server.
pub struct Authorizer {
    client: kube::Client,
    path: String,
    decisions: Mutex<HashMap<String, (bool, Instant)>>,
}

impl Authorizer {
    /// An authorizer for requests to `path` (normally `/metrics`).
    pub fn new(client: kube::Client, path: &str) -> Self {
        Self {
            client,
            path: path.to_string(),
            decisions: Mutex::new(HashMap::new()),
        }
    }

    /// `Ok` when the request's bearer token may `get` the path; otherwise the status to answer.
    pub async fn check(&self, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
        let token = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or((StatusCode::UNAUTHORIZED, "Unauthorized".to_string()))?;
        if let Some((allowed, at)) = self
            .decisions
            .lock()
            .expect("decisions lock")
            .get(token)
            .copied()
            && at.elapsed() < CACHE_TTL
        {
            return decision(allowed);
        }
        let allowed = self.review(token).await?;
        let mut decisions = self.decisions.lock().expect("decisions lock");
        decisions.retain(|_, (_, at)| at.elapsed() < CACHE_TTL);
        decisions.insert(token.to_string(), (allowed, Instant::now()));
        decision(allowed)
    }

    async fn review(&self, token: &str) -> Result<bool, (StatusCode, String)> {
        let internal = |e: kube::Error| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string());
        let review = TokenReview {
            spec: TokenReviewSpec {
                token: Some(token.to_string()),
                ..Default::default()
            },
            ..Default::default()
        };
        let reviewed = Api::<TokenReview>::all(self.client.clone())
            .create(&PostParams::default(), &review)
            .await
            .map_err(internal)?;
        let status = reviewed.status.unwrap_or_default();
        if status.authenticated != Some(true) {
            return Err((StatusCode::UNAUTHORIZED, "Unauthorized".to_string()));
        }
        let user = status.user.unwrap_or_default();
        let sar = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: user.username,
                uid: user.uid,
                groups: user.groups,
                extra: user.extra,
                non_resource_attributes: Some(NonResourceAttributes {
                    path: Some(self.path.clone()),
                    verb: Some("get".to_string()),
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let reviewed = Api::<SubjectAccessReview>::all(self.client.clone())
            .create(&PostParams::default(), &sar)
            .await
            .map_err(internal)?;
        Ok(reviewed.status.is_some_and(|s| s.allowed))
    }
}

fn decision(allowed: bool) -> Result<(), (StatusCode, String)> {
    if allowed {
        Ok(())
    } else {
        Err((StatusCode::FORBIDDEN, "Forbidden".to_string()))
    }
}
