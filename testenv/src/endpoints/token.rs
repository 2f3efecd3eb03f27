//! `serviceaccounts/<name>/token`: a TokenRequest answered with a token signed by the
//! server, which it then accepts as that service account (see [`super::authn`]), as
//! kube-apiserver's TokenRequest API does.

use std::sync::Arc;

use serde_json::{Value, json};

use super::fields::{Fields, managers_after};
use super::state::Api;
use super::subresource::Endpoint;
use crate::support::meta;
use crate::support::request::{Reply, Req, Target, json_body};
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};
use crate::support::tokens::ISSUER;

/// The TokenRequest kind, for its error messages.
fn token_request_def() -> ResourceDef {
    ResourceDef::named(
        "authentication.k8s.io",
        "v1",
        "TokenRequest",
        "tokenrequests",
    )
}

fn invalid(field: &str, value: &Value, message: &str) -> ApiError {
    ApiError::invalid(
        &token_request_def(),
        "",
        vec![Cause {
            reason: "FieldValueInvalid".into(),
            message: format!("Invalid value: {value}: {message}"),
            field: field.into(),
        }],
    )
}

/// POST of a TokenRequest.
pub fn create(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let mut request = json_body(req)?;
    let ns = target.namespace.as_deref().unwrap_or_default();
    let name = target.name.as_deref().unwrap_or_default();
    let (sa, bound) = {
        let cluster = api.lock();
        let sa = cluster
            .store
            .get(&target.def.storage_key, ns, name)
            .ok_or_else(|| ApiError::not_found(&target.def, name))?;
        let bound = match request["spec"]["boundObjectRef"].as_object() {
            None => None,
            Some(r) => {
                let kind = r.get("kind").and_then(Value::as_str).unwrap_or_default();
                let bound_name = r.get("name").and_then(Value::as_str).unwrap_or_default();
                let key = match kind {
                    "Pod" => "/pods",
                    "Secret" => "/secrets",
                    "Node" => "/nodes",
                    _ => {
                        return Err(invalid(
                            "spec.boundObjectRef.kind",
                            &json!(kind),
                            "supported values: \"Pod\", \"Secret\", \"Node\"",
                        ));
                    }
                };
                let object_ns = if kind == "Node" { "" } else { ns };
                let object = cluster
                    .store
                    .get(key, object_ns, bound_name)
                    .ok_or_else(|| {
                        let plural = key.trim_start_matches('/');
                        let mut e = ApiError::new(
                            404,
                            "NotFound",
                            format!("{plural} \"{bound_name}\" not found"),
                        );
                        e.details = json!({"name": bound_name, "kind": plural});
                        e
                    })?;
                let uid = meta::meta_str(&object, "uid")
                    .unwrap_or_default()
                    .to_string();
                if let Some(want) = r
                    .get("uid")
                    .and_then(Value::as_str)
                    .filter(|u| !u.is_empty())
                    && want != uid
                {
                    return Err(ApiError::new(
                        409,
                        "Conflict",
                        format!(
                            "Operation cannot be fulfilled on {} \"{bound_name}\": the UID in the bound object reference ({want}) does not match the UID in record. The object might have been deleted and then recreated",
                            key.trim_start_matches('/')
                        ),
                    ));
                }
                Some((kind.to_ascii_lowercase(), bound_name.to_string(), uid))
            }
        };
        (sa, bound)
    };
    let seconds = request["spec"]["expirationSeconds"]
        .as_i64()
        .unwrap_or(3600);
    if seconds < 600 {
        return Err(invalid(
            "spec.expirationSeconds",
            &json!(seconds),
            "may not specify a duration less than 10 minutes",
        ));
    }
    if seconds > 1 << 32 {
        return Err(invalid(
            "spec.expirationSeconds",
            &json!(seconds),
            "may not specify a duration larger than 2^32 seconds",
        ));
    }
    let audiences = match request["spec"]["audiences"].as_array() {
        Some(a) if !a.is_empty() => Value::Array(a.clone()),
        _ => json!([ISSUER]),
    };
    let now = jiff::Timestamp::now();
    let iat = now.as_second();
    let exp = iat + seconds;
    let sa_uid = meta::meta_str(&sa, "uid").unwrap_or_default().to_string();
    let mut k8s = json!({"namespace": ns, "serviceaccount": {"name": name, "uid": sa_uid}});
    if let Some((kind, bound_name, uid)) = &bound {
        k8s[kind] = json!({"name": bound_name, "uid": uid});
    }
    let claims = json!({
        "aud": audiences, "exp": exp, "iat": iat, "iss": ISSUER, "jti": meta::new_uid(),
        "kubernetes.io": k8s, "nbf": iat, "sub": format!("system:serviceaccount:{ns}:{name}"),
    });
    let token = api.signer().sign(&claims);
    let expires = jiff::Timestamp::from_second(exp)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default();
    request["apiVersion"] = json!("authentication.k8s.io/v1");
    request["kind"] = json!("TokenRequest");
    // The generic create handler records the request's fields (decoded and defaulted, the
    // status a client sent included) as the `token` subresource's before the token is made.
    let mut decoded = request.clone();
    decoded["spec"]["expirationSeconds"] = json!(seconds);
    decoded["metadata"] = json!({});
    let mut managers = managers_after(
        &token_request_def(),
        None,
        &decoded,
        None,
        Endpoint::Main,
        Fields::of_request(req, &decoded),
    );
    for entry in &mut managers.entries {
        entry.owner.subresource = "token".into();
    }
    managers.write_to(&mut decoded);
    request["metadata"] = json!({
        "name": name, "namespace": ns, "uid": sa_uid, "creationTimestamp": meta::now(),
    });
    if let Some(managed) = decoded["metadata"].get("managedFields") {
        request["metadata"]["managedFields"] = managed.clone();
    }
    request["spec"]["audiences"] = audiences;
    request["spec"]["expirationSeconds"] = json!(seconds);
    if request["spec"].get("boundObjectRef").is_none() {
        request["spec"]["boundObjectRef"] = Value::Null;
    }
    request["status"] = json!({"token": token, "expirationTimestamp": expires});
    Ok(Reply::json(201, request))
}
