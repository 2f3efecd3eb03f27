//! The review kinds, answered by the server: TokenReview (who a token belongs to),
//! SelfSubjectReview (who the requester is), SubjectAccessReview, SelfSubjectAccessReview
//! and LocalSubjectAccessReview (may someone do something), SelfSubjectRulesReview (what
//! may the requester do), with a configurable [`Policy`](super::policy::Policy). Each is
//! validated as kube-apiserver's REST storage of the kind validates it, and answered in the
//! shape it answers.

use serde_json::{Value, json};

use super::authn::review_token;
use super::body_type::check_type;
use super::fields::{Fields, managers_after};
use super::policy::Authorizer;
use super::rbac::{self, Attributes};
use super::state::Api;
use super::subresource::Endpoint;
use crate::admission::admit::FieldValidation;
use crate::registry::validation::{access_review_errors, selector_evaluation_error};
use crate::support::meta;
use crate::support::request::Target;
use crate::support::request::{Reply, Req, json_body};
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};
use crate::support::user::User;

const ALLOWED_BY_POLICY: &str = "allowed by the kubeforge-testenv policy";

/// The access decision for a review `spec` (with `user` and `groups` set): allowed, and why.
/// [`Policy::allow_all`](super::policy::Policy::allow_all), which lets every request
/// through, answers a review as RBAC would, but for service accounts, whose requests it
/// allows (the users its tokens authenticate as are in `system:masters`, which RBAC allows
/// everything).
pub fn decide(api: &Api, spec: &Value) -> (bool, String) {
    match api.options.policy.authorizer() {
        Authorizer::AllowAll => {
            let user = spec["user"].as_str().unwrap_or_default();
            if user.starts_with("system:serviceaccount:") {
                (true, ALLOWED_BY_POLICY.into())
            } else {
                rbac_decision(api, spec)
            }
        }
        Authorizer::Custom(f) => {
            if f(spec) {
                (true, ALLOWED_BY_POLICY.into())
            } else {
                (false, "denied by the kubeforge-testenv policy".into())
            }
        }
        Authorizer::Rbac => rbac_decision(api, spec),
    }
}

fn rbac_decision(api: &Api, spec: &Value) -> (bool, String) {
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
        Err(reason) => (false, reason),
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

/// Audiences as Go's `%q` prints a string slice: `["a" "b"]`.
fn go_quoted(list: &[&Value]) -> String {
    let quoted: Vec<String> = list
        .iter()
        .map(|a| format!("{:?}", a.as_str().unwrap_or_default()))
        .collect();
    format!("[{}]", quoted.join(" "))
}

/// A TokenReview's status: the token's user when the server issued it and one of its
/// audiences is one the review asks for (the server's own when it names none).
fn token_review(api: &Api, review: &mut Value) -> Result<(), ApiError> {
    let token = review["spec"]["token"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if token.is_empty() {
        return Err(ApiError::bad_request(
            "token is required for TokenReview in authentication",
        ));
    }
    let wanted = match review["spec"]["audiences"].as_array() {
        Some(a) if !a.is_empty() => a.clone(),
        _ => vec![json!(crate::support::tokens::ISSUER)],
    };
    review["status"] = match review_token(api, &token) {
        Ok((user, audiences)) => {
            // Only a service account token carries audiences; the others are valid for
            // whatever the review asks.
            let has: Vec<&Value> = match &audiences {
                Some(Value::Array(a)) => a.iter().collect(),
                _ => wanted.iter().collect(),
            };
            let shared: Vec<&Value> = wanted.iter().filter(|a| has.contains(a)).collect();
            if shared.is_empty() {
                let wanted: Vec<&Value> = wanted.iter().collect();
                json!({"user": {}, "error": format!(
                    "[invalid bearer token, token audiences {} is invalid for the target audiences {}]",
                    go_quoted(&has), go_quoted(&wanted)
                )})
            } else {
                json!({"authenticated": true, "user": user.to_json(), "audiences": shared})
            }
        }
        Err(why) => json!({"user": {}, "error": why.0}),
    };
    Ok(())
}

/// 422 for an access review: the real server names no kind (its internal object has none)
/// and no name.
fn invalid_review(def: &ResourceDef, causes: &[Cause]) -> ApiError {
    let mut e = ApiError::invalid(def, "", causes.to_vec());
    let summary = e
        .message
        .split_once(" is invalid: ")
        .map_or(String::new(), |(_, s)| s.to_string());
    e.message = format!(".{} \"\" is invalid: {summary}", def.group);
    e.details = json!({
        "group": def.group,
        "causes": causes.iter().map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field})).collect::<Vec<_>>(),
    });
    e
}

/// The metadata the generic create handler leaves on the object before the kind's storage
/// sees it: the path's namespace for a namespaced kind (a different one in the body is
/// refused), none for a cluster-scoped one; and the request's managed fields.
fn prepare_meta(req: &Req, target: &Target, review: &mut Value) -> Result<(), ApiError> {
    if !review.get("metadata").is_some_and(Value::is_object) {
        review["metadata"] = json!({});
    }
    let sent_ns = review["metadata"]["namespace"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    match &target.namespace {
        Some(ns) => {
            if !sent_ns.is_empty() && &sent_ns != ns {
                return Err(ApiError::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            review["metadata"]["namespace"] = json!(ns);
        }
        None => {
            if let Some(m) = review["metadata"].as_object_mut() {
                m.remove("namespace");
            }
        }
    }
    let def = &target.def;
    if def.kind == "SelfSubjectAccessReview"
        && let Some(spec) = review["spec"].as_object_mut()
    {
        // Not fields of its spec: dropped as the body is decoded.
        for k in ["user", "groups", "extra", "uid"] {
            spec.remove(k);
        }
    }
    let sent = review["metadata"].get("managedFields").cloned();
    let fields = Fields::of_request(req, review);
    let managers = managers_after(def, None, review, sent.as_ref(), Endpoint::Main, fields);
    managers.write_to(review);
    Ok(())
}

/// An access review's status: the decision, and the selectors the authorizer had to ignore.
fn access_review(
    api: &Api,
    req: &Req,
    target: &Target,
    review: &mut Value,
) -> Result<(), ApiError> {
    let def = &target.def;
    let causes = access_review_errors(&def.kind, review);
    if !causes.is_empty() {
        return Err(invalid_review(def, &causes));
    }
    let mut spec = review["spec"].clone();
    if def.kind == "SelfSubjectAccessReview" {
        // Asked for the requester.
        spec["user"] = json!(req.user.username);
        spec["groups"] = json!(req.user.groups);
    }
    let (allowed, reason) = decide(api, &spec);
    let mut status = match (allowed, reason.is_empty()) {
        (true, true) => json!({"allowed": true}),
        (true, false) => json!({"allowed": true, "reason": reason}),
        (false, true) => json!({"allowed": false}),
        // A custom policy denies; RBAC only has no opinion, with the roles it could not find.
        (false, false) if matches!(api.options.policy.authorizer(), Authorizer::Custom(_)) => {
            json!({"allowed": false, "denied": true, "reason": reason})
        }
        (false, false) => json!({"allowed": false, "reason": reason}),
    };
    if let Some(error) = selector_evaluation_error(&spec["resourceAttributes"]) {
        status["evaluationError"] = json!(error);
    }
    review["status"] = status;
    Ok(())
}

/// The rules the requester has in the review's namespace (the answer is a new object: no
/// metadata, an empty spec).
fn rules_review(api: &Api, req: &Req, review: &Value) -> Result<Value, ApiError> {
    let ns = review["spec"]["namespace"].as_str().unwrap_or_default();
    if ns.is_empty() {
        return Err(ApiError::bad_request("no namespace on request"));
    }
    let cluster = api.lock();
    // Only RBAC resolves rules: `system:masters`, allowed everything by the privileged-group
    // authorizer, gets no rules of its own, only those its bindings grant (on a cluster,
    // `cluster-admin`'s), as on the real server.
    let status = rbac::rules_review(&cluster.store, &req.user, ns);
    Ok(json!({"metadata": {}, "spec": {}, "status": status}))
}

/// What the decoder found in the body: a value of the wrong type refuses it; unknown and
/// repeated fields are warned about, or refused with `fieldValidation=Strict`.
fn decoding_warnings(def: &ResourceDef, req: &Req) -> Result<Vec<String>, ApiError> {
    let validation = FieldValidation::from_query(&req.query)?;
    let refused = |why: &str| {
        ApiError::bad_request(format!(
            "{kind} in version {:?} cannot be handled as a {kind}: {why}",
            def.version,
            kind = def.kind
        ))
    };
    let Some(decoding) = req.query.decoding() else {
        return Ok(Vec::new());
    };
    if let Some(why) = &decoding.type_error {
        return Err(refused(why));
    }
    let strict = if decoding.strict.is_empty() {
        decoding
            .duplicates
            .iter()
            .map(|path| format!("duplicate field {path:?}"))
            .collect()
    } else {
        decoding.strict.clone()
    };
    match validation {
        FieldValidation::Strict if !strict.is_empty() => Err(refused(&format!(
            "strict decoding error: {}",
            strict.join(", ")
        ))),
        FieldValidation::Warn => Ok(strict),
        _ => Ok(Vec::new()),
    }
}

/// POST of a review kind.
pub fn create(api: &Api, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let mut review = json_body(req)?;
    let def = &target.def;
    let warnings = decoding_warnings(def, req)?;
    check_type(def, &mut review)?;
    let typed = |mut v: Value| {
        v["apiVersion"] = json!(def.api_version());
        v["kind"] = json!(def.kind);
        v
    };
    let answer = match def.kind.as_str() {
        // Answered with new objects: who asks, and what they may do.
        "SelfSubjectReview" => json!({
            "metadata": {"creationTimestamp": meta::now()},
            "status": {"userInfo": req.user.to_json()},
        }),
        "SelfSubjectRulesReview" => rules_review(api, req, &review)?,
        kind => {
            prepare_meta(req, target, &mut review)?;
            if kind == "TokenReview" {
                token_review(api, &mut review)?;
            } else {
                access_review(api, req, target, &mut review)?;
            }
            review
        }
    };
    let mut reply = Reply::json(201, typed(answer));
    if let Reply::Json { warnings: w, .. } = &mut reply {
        *w = warnings;
    }
    Ok(reply)
}
