//! The review kinds, answered by the server: TokenReview (who a token belongs to),
//! SelfSubjectReview (who the requester is), SubjectAccessReview, SelfSubjectAccessReview
//! and LocalSubjectAccessReview (may someone do something), SelfSubjectRulesReview (what
//! may the requester do), with a configurable [`Policy`](super::policy::Policy).

use serde_json::{Value, json};

use super::authn::authenticate_token;
use super::policy::Authorizer;
use super::rbac::{self, Attributes};
use super::state::Api;
use crate::support::meta;
use crate::support::request::Target;
use crate::support::request::{Reply, Req, json_body};
use crate::support::status::ApiError;
use crate::support::user::User;

/// The access decision for a review `spec` (with `user` and `groups` set): allowed, and why.
pub fn decide(api: &Api, spec: &Value) -> (bool, String) {
    match api.options.policy.authorizer() {
        Authorizer::AllowAll => (true, "allowed by the kubeforge-testenv policy".into()),
        Authorizer::Custom(f) => {
            if f(spec) {
                (true, "allowed by the kubeforge-testenv policy".into())
            } else {
                (false, "denied by the kubeforge-testenv policy".into())
            }
        }
        Authorizer::Rbac => {
            let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
            let user = User {
                username: s(&spec["user"]),
                uid: s(&spec["uid"]),
                groups: spec["groups"]
                    .as_array()
                    .map(|g| {
                        g.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
                ..User::default()
            };
            let cluster = api.lock();
            match rbac::authorize(&cluster.store, &user, &Attributes::of_review(spec)) {
                Ok(reason) => (true, reason),
                Err(()) => (false, String::new()),
            }
        }
    }
}

/// A review spec describing `user` doing `attributes` (what a request is checked as).
pub fn spec_of(user: &User, a: &Attributes) -> Value {
    let mut spec = json!({"user": user.username, "groups": user.groups});
    if !user.uid.is_empty() {
        spec["uid"] = json!(user.uid);
    }
    match &a.path {
        Some(path) => spec["nonResourceAttributes"] = json!({"path": path, "verb": a.verb}),
        None => {
            spec["resourceAttributes"] = json!({
                "verb": a.verb, "group": a.group, "version": "", "resource": a.resource,
                "subresource": a.subresource, "namespace": a.namespace, "name": a.name,
            });
        }
    }
    spec
}

fn token_review(api: &Api, review: &mut Value) {
    let token = review["spec"]["token"].as_str().unwrap_or_default();
    let wanted = review["spec"]["audiences"].clone();
    review["status"] = match authenticate_token(api, token) {
        Ok((user, audiences)) => {
            let audiences = audiences.unwrap_or_else(|| wanted.clone());
            let asked: Vec<&Value> = wanted
                .as_array()
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            let has: Vec<&Value> = audiences
                .as_array()
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            if !asked.is_empty() && !asked.iter().any(|a| has.contains(a)) {
                json!({"user": {}, "error": format!(
                    "[invalid bearer token, token audiences {} is invalid for the target audiences {}, unknown]",
                    json!(has), json!(asked)
                )})
            } else {
                let aud = if asked.is_empty() {
                    audiences
                } else {
                    json!(asked)
                };
                json!({"authenticated": true, "user": user.to_json(), "audiences": aud})
            }
        }
        Err(why) => json!({"user": {}, "error": why.0}),
    };
}

/// POST of a review kind.
pub fn create(api: &Api, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let mut review = json_body(req)?;
    let def = &target.def;
    review["apiVersion"] = json!(def.api_version());
    review["kind"] = json!(def.kind);
    if !review.get("metadata").is_some_and(Value::is_object) {
        review["metadata"] = json!({});
    }
    match def.kind.as_str() {
        "TokenReview" => token_review(api, &mut review),
        "SelfSubjectReview" => {
            review["metadata"]["creationTimestamp"] = json!(meta::now());
            review["status"] = json!({"userInfo": req.user.to_json()});
        }
        "SelfSubjectRulesReview" => {
            let ns = review["spec"]["namespace"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let cluster = api.lock();
            let mut status = rbac::rules_review(&cluster.store, &req.user, &ns);
            if req.user.in_group("system:masters") {
                // The privileged group is allowed everything, whatever is bound.
                status["resourceRules"]
                    .as_array_mut()
                    .into_iter()
                    .for_each(|r| {
                        r.insert(
                            0,
                            json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}),
                        );
                    });
                status["nonResourceRules"]
                    .as_array_mut()
                    .into_iter()
                    .for_each(|r| r.insert(0, json!({"verbs": ["*"], "nonResourceURLs": ["*"]})));
            }
            review["status"] = status;
        }
        _ => {
            if let Some(ns) = &target.namespace {
                review["spec"]["resourceAttributes"]["namespace"] = json!(ns);
            }
            let mut spec = review["spec"].clone();
            if def.kind == "SelfSubjectAccessReview" {
                // Asked for the requester.
                spec["user"] = json!(req.user.username);
                spec["groups"] = json!(req.user.groups);
            }
            let (allowed, reason) = decide(api, &spec);
            review["status"] = match (allowed, reason.is_empty()) {
                (true, _) => json!({"allowed": true, "reason": reason}),
                (false, true) => json!({"allowed": false}),
                (false, false) => json!({"allowed": false, "denied": true, "reason": reason}),
            };
        }
    }
    Ok(Reply::json(201, review))
}
