//! Calling the matched webhooks of one request: mutating webhooks one after the other
//! (JSONPatch responses applied, `reinvocationPolicy: IfNeeded` re-invocation), validating
//! webhooks concurrently; failurePolicy, sideEffects with dryRun, denials and warnings with
//! the real server's wording.

use std::borrow::Cow;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::config::Hook;
use super::review::{self, Attributes, Verdict};
use crate::support::meta;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;
use crate::support::webhook_client::{self as client, ClientConfig, Transport};

/// A webhook selected for a request, with the resource version it is called in.
pub type Matched = (Hook, Arc<ResourceDef>);

/// How a request's objects are seen in the version a webhook matched through an equivalent
/// version (`matchPolicy: Equivalent`) is called in, and how its patched object comes back.
pub trait Convert: Sync {
    /// `object` in `to`'s version (a `subresource`'s object, such as a Scale, as it is).
    fn convert<'a>(
        &'a self,
        object: &'a Value,
        to: &'a ResourceDef,
        subresource: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Value, ApiError>>;
}

/// Versions that differ only in `apiVersion` (built-in kinds, custom resources converted
/// with the `None` strategy).
pub struct Relabel;

impl Convert for Relabel {
    fn convert<'a>(
        &'a self,
        object: &'a Value,
        to: &'a ResourceDef,
        subresource: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Value, ApiError>> {
        Box::pin(async move { Ok(review::in_version(object, to, subresource)) })
    }
}

/// Where the webhooks of a request are called: the connections, and the conversion to the
/// versions they are called in.
#[derive(Clone, Copy)]
pub struct Calls<'a> {
    /// The connections webhook calls reuse.
    pub transport: &'a Transport,
    /// The conversion of objects to a matched version.
    pub convert: &'a dyn Convert,
}

/// `attrs` with its objects in `as_def`'s version, when the webhook was matched through
/// another version than the request's.
async fn attrs_in<'a>(
    calls: Calls<'_>,
    attrs: &'a Attributes,
    as_def: &ResourceDef,
) -> Result<Cow<'a, Attributes>, ApiError> {
    let connect = attrs.operation == super::config::Operation::Connect;
    if as_def.version == attrs.def.version || connect {
        return Ok(Cow::Borrowed(attrs));
    }
    let sub = attrs.subresource.as_deref();
    let mut converted = attrs.clone();
    if let Some(object) = &attrs.object {
        converted.object = Some(calls.convert.convert(object, as_def, sub).await?);
    }
    if let Some(old) = &attrs.old_object {
        converted.old_object = Some(calls.convert.convert(old, as_def, sub).await?);
    }
    Ok(Cow::Owned(converted))
}

/// Calls one webhook; `Err` is the reason of a failed call (transport or invalid response),
/// to which the failure policy applies.
async fn call(
    transport: &Transport,
    hook: &Hook,
    attrs: &Attributes,
    as_def: &ResourceDef,
) -> Result<Verdict, String> {
    let config = ClientConfig::parse(&hook.client_config)
        .map_err(|e| format!("failed to call webhook: {e}"))?;
    let uid = meta::new_uid();
    let body = review::request(attrs, as_def, &uid);
    let answer = client::post_json(transport, &config, &body, hook.timeout)
        .await
        .map_err(|e| format!("failed to call webhook: {e}"))?;
    review::read_response(&answer, &uid)
        .map_err(|e| format!("received invalid webhook response: {e}"))
}

/// `Internal error occurred: failed calling webhook "<name>": <reason>` (500).
fn calling_error(hook: &Hook, reason: &str) -> ApiError {
    let message = format!("failed calling webhook \"{}\": {reason}", hook.name);
    let mut e = ApiError::internal(format!("Internal error occurred: {message}"));
    e.details = json!({"causes": [{"message": message}]});
    e
}

/// The `StatusReason`s a webhook may answer with (an unknown one is dropped).
fn known_reason(reason: &str) -> &'static str {
    const REASONS: &[&str] = &[
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "AlreadyExists",
        "Conflict",
        "Gone",
        "Invalid",
        "ServerTimeout",
        "Timeout",
        "TooManyRequests",
        "BadRequest",
        "MethodNotAllowed",
        "NotAcceptable",
        "RequestEntityTooLarge",
        "UnsupportedMediaType",
        "InternalError",
        "Expired",
        "ServiceUnavailable",
    ];
    REASONS
        .iter()
        .find(|r| **r == reason)
        .copied()
        .unwrap_or("")
}

/// A denial: `admission webhook "<name>" denied the request: <message>`, with the code of
/// `response.status.code` (403 when absent or below 400).
pub fn denial(hook_name: &str, status: &Value) -> ApiError {
    let denied_by = format!("admission webhook \"{hook_name}\" denied the request");
    let code = status["code"]
        .as_u64()
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| *c >= 400)
        .unwrap_or(403);
    let message = status["message"].as_str().unwrap_or_default();
    let reason = status["reason"].as_str().unwrap_or_default();
    let message = if !message.is_empty() {
        format!("{denied_by}: {message}")
    } else if !reason.is_empty() {
        format!("{denied_by}: {reason}")
    } else {
        format!("{denied_by} without explanation")
    };
    let mut e = ApiError::internal(message);
    e.code = code;
    e.reason = known_reason(reason);
    e.details = status.get("details").cloned().unwrap_or(Value::Null);
    e
}

/// `Internal error occurred: admission webhook "<name>" attempted to modify the object,
/// which is not supported for this operation` (500): a non-empty patch for a DELETE.
fn modify_unsupported(hook: &Hook) -> ApiError {
    let message = format!(
        "admission webhook \"{}\" attempted to modify the object, which is not supported for this operation",
        hook.name
    );
    let mut e = ApiError::internal(format!("Internal error occurred: {message}"));
    e.details = json!({"causes": [{"message": message}]});
    e
}

/// `admission webhook "<name>" does not support dry run` (400).
fn dry_run_unsupported(hook: &Hook) -> ApiError {
    ApiError::bad_request(format!(
        "admission webhook \"{}\" does not support dry run",
        hook.name
    ))
}

/// Match conditions that could not be evaluated: with `failurePolicy: Fail` the request
/// is refused without calling the webhook, as the real server refuses it (403 Forbidden
/// naming the resource and object); with `Ignore` the webhook is skipped.
fn conditions_failed(hook: &Hook, attrs: &Attributes, why: &str) -> Result<(), ApiError> {
    if hook.ignore_failures {
        tracing::warn!(webhook = %hook.name, %why, "failed evaluating match conditions, skipping the webhook (failurePolicy: Ignore)");
        return Ok(());
    }
    if attrs.name.is_empty() {
        let mut e = ApiError::new(
            403,
            "Forbidden",
            format!("{} is forbidden: {why}", attrs.def.qualified()),
        );
        e.details = json!({"kind": attrs.def.plural});
        if !attrs.def.group.is_empty() {
            e.details["group"] = json!(attrs.def.group);
        }
        return Err(e);
    }
    Err(ApiError::forbidden(&attrs.def, &attrs.name, why))
}

/// What one webhook call means for the request: `Ok(None)` when its failure is ignored.
fn judge(
    hook: &Hook,
    outcome: Result<Verdict, String>,
    warnings: &mut Vec<String>,
) -> Result<Option<Verdict>, ApiError> {
    match outcome {
        Err(reason) if hook.ignore_failures => {
            tracing::warn!(webhook = %hook.name, %reason, "failed calling webhook, failing open (failurePolicy: Ignore)");
            Ok(None)
        }
        Err(reason) => Err(calling_error(hook, &reason)),
        Ok(verdict) => {
            warnings.extend(verdict.warnings.iter().cloned());
            if verdict.allowed {
                Ok(Some(verdict))
            } else {
                Err(denial(&hook.name, &verdict.status))
            }
        }
    }
}

/// Calls one mutating webhook and applies its patch to `attrs.object`; true when the
/// object changed.
async fn mutate_once(
    calls: Calls<'_>,
    (hook, as_def): &Matched,
    attrs: &mut Attributes,
    warnings: &mut Vec<String>,
) -> Result<bool, ApiError> {
    let seen = attrs_in(calls, attrs, as_def).await?.into_owned();
    let request = || review::condition_request(&seen, as_def);
    match hook.conditions_hold(request, || attrs.authorizer_variables()) {
        Ok(true) => {}
        Ok(false) => return Ok(false),
        Err(why) => {
            conditions_failed(hook, attrs, &why)?;
            return Ok(false);
        }
    }
    if attrs.dry_run && !hook.supports_dry_run() {
        return Err(dry_run_unsupported(hook));
    }
    let outcome = call(calls.transport, hook, &seen, as_def).await;
    let Some(verdict) = judge(hook, outcome, warnings)? else {
        return Ok(false);
    };
    let Some(ops) = verdict
        .patch
        .filter(|ops| ops.as_array().is_none_or(|a| !a.is_empty()))
    else {
        return Ok(false);
    };
    let Some(object) = seen.object.as_ref() else {
        // A DELETE has no object to patch: an error whatever the failure policy.
        return Err(modify_unsupported(hook));
    };
    let sub = attrs.subresource.as_deref();
    let mut patched = review::in_version(object, as_def, sub);
    crate::support::patch::json_patch(&mut patched, &ops).map_err(|e| {
        ApiError::internal(format!(
            "Internal error occurred: failed to apply the JSONPatch of webhook \"{}\": {e}",
            hook.name
        ))
    })?;
    // A CONNECT's options are decoded as the webhook left them (a changed kind or
    // apiVersion is the connect handler's error); objects go back to the request's version.
    let patched = if attrs.operation == super::config::Operation::Connect {
        patched
    } else if as_def.version != attrs.def.version {
        calls.convert.convert(&patched, &attrs.def, sub).await?
    } else {
        review::in_version(&patched, &attrs.def, sub)
    };
    let changed = Some(&patched) != attrs.object.as_ref();
    attrs.object = Some(patched);
    Ok(changed)
}

/// Runs the mutating webhooks in order on `attrs.object`; webhooks with
/// `reinvocationPolicy: IfNeeded` are called once more when a later webhook changed the
/// object after them.
pub async fn mutate(
    calls: Calls<'_>,
    hooks: &[Matched],
    attrs: &mut Attributes,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    // For each reinvocable webhook called: the object right after its call.
    let mut reinvocable: Vec<(usize, Option<Value>)> = Vec::new();
    for (i, matched) in hooks.iter().enumerate() {
        mutate_once(calls, matched, attrs, warnings).await?;
        if matched.0.reinvoke {
            reinvocable.push((i, attrs.object.clone()));
        }
    }
    for (i, after_own_call) in reinvocable {
        if attrs.object != after_own_call {
            mutate_once(calls, &hooks[i], attrs, warnings).await?;
        }
    }
    Ok(())
}

/// Calls the validating webhooks concurrently; the first denial or failed call (in
/// configuration order) fails the request.
pub async fn validate(
    calls: Calls<'_>,
    hooks: &[Matched],
    attrs: &Attributes,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    // Webhooks whose match conditions do not hold are not called.
    let mut called: Vec<(&Matched, Attributes)> = Vec::new();
    for matched in hooks {
        let seen = attrs_in(calls, attrs, &matched.1).await?.into_owned();
        match matched.0.conditions_hold(
            || review::condition_request(&seen, &matched.1),
            || attrs.authorizer_variables(),
        ) {
            Ok(true) => called.push((matched, seen)),
            Ok(false) => {}
            Err(why) => conditions_failed(&matched.0, attrs, &why)?,
        }
    }
    if attrs.dry_run
        && let Some(((hook, _), _)) = called.iter().find(|((h, _), _)| !h.supports_dry_run())
    {
        return Err(dry_run_unsupported(hook));
    }
    let outcomes = futures::future::join_all(
        called
            .iter()
            .map(|((hook, as_def), seen)| call(calls.transport, hook, seen, as_def)),
    )
    .await;
    let mut first_error = None;
    for (((hook, _), _), outcome) in called.iter().zip(outcomes) {
        if let Err(e) = judge(hook, outcome, warnings)
            && first_error.is_none()
        {
            first_error = Some(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::webhooks::config::Operation;
    use crate::registry::Registry;

    #[tokio::test]
    async fn dry_run_needs_side_effect_free_webhooks() {
        let transport = Transport::default();
        let calls = Calls {
            transport: &transport,
            convert: &Relabel,
        };
        let def = Registry::with_builtins()
            .get("", "v1", "configmaps")
            .unwrap();
        let hook = |effects: &str| {
            Hook::parse(&json!({"name": "h.example.com", "sideEffects": effects,
                // Nothing listens there: a call would fail with failurePolicy Fail.
                "clientConfig": {"url": "https://127.0.0.1:1/x"}}))
        };
        let mut attrs = Attributes {
            operation: Operation::Create,
            def: def.clone(),
            subresource: None,
            namespace: "default".into(),
            name: "c".into(),
            object: Some(json!({"metadata": {"name": "c"}})),
            old_object: None,
            dry_run: true,
            options: json!({}),
            user: crate::support::user::User::admin(),
            authorizer: None,
        };
        for effects in ["Some", "Unknown"] {
            let hooks = vec![(hook(effects), def.clone())];
            let e = validate(calls, &hooks, &attrs, &mut Vec::new())
                .await
                .unwrap_err();
            assert_eq!(e.code, 400);
            assert_eq!(
                e.message,
                "admission webhook \"h.example.com\" does not support dry run"
            );
            let e = mutate(calls, &hooks, &mut attrs, &mut Vec::new())
                .await
                .unwrap_err();
            assert_eq!(e.code, 400);
        }
        // NoneOnDryRun is called (and fails here for want of a server).
        let hooks = vec![(hook("NoneOnDryRun"), def.clone())];
        let e = validate(calls, &hooks, &attrs, &mut Vec::new())
            .await
            .unwrap_err();
        assert_eq!(e.code, 500);
        assert!(e.message.contains("connection refused"), "{}", e.message);
    }

    #[test]
    fn denial_wording_and_code() {
        let e = denial("v.example.com", &json!({"code": 422, "message": "no"}));
        assert_eq!(e.code, 422);
        assert_eq!(
            e.message,
            "admission webhook \"v.example.com\" denied the request: no"
        );
        let e = denial("v.example.com", &Value::Null);
        assert_eq!(e.code, 403);
        assert_eq!(
            e.message,
            "admission webhook \"v.example.com\" denied the request without explanation"
        );
        let e = denial(
            "v.example.com",
            &json!({"code": 200, "reason": "Forbidden"}),
        );
        assert_eq!((e.code, e.reason), (403, "Forbidden"));
        assert!(e.message.ends_with("denied the request: Forbidden"));
    }
}
