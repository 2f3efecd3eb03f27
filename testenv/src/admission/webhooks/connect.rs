//! Admission of CONNECT requests (`pods/exec`, `pods/attach`, `pods/portforward` and the
//! `pods`, `services` and `nodes` proxies), as kube-apiserver's connect handler runs it
//! before it connects: the options object (`PodExecOptions`, `ServiceProxyOptions`, ...)
//! goes to the mutating webhooks, whose patches change the options the connection uses
//! (decoded into the options type after each webhook, as the real dispatcher decodes every
//! patched object), then to the validating admission policies (handed over by the caller),
//! then to the validating webhooks. There is no old object, no dry run and no options of
//! the request.

use std::sync::Arc;

use serde_json::Value;

use super::config::{self, Hook, Operation};
use super::dispatch::{self, Matched};
use super::review::{Attributes, Decider};
use super::selection::{self, Namespaces};
use crate::storage::Store;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;
use crate::support::user::User;
use crate::support::webhook_client::Transport;

/// The webhooks whose rules cover a CONNECT to one subresource.
#[derive(Debug, Default)]
pub struct Plan {
    mutating: Vec<Hook>,
    validating: Vec<Hook>,
}

impl Plan {
    /// The stored configurations' webhooks whose rules name CONNECT on `def`'s
    /// `subresource` (read under the store lock; called without it).
    pub fn load(store: &Store, def: &Arc<ResourceDef>, subresource: &str) -> Plan {
        let covers = |h: &Hook| {
            h.matching_version(Operation::Connect, def, Some(subresource), &[])
                .is_some()
        };
        let mut mutating = config::load(store, config::MUTATING_KEY);
        let mut validating = config::load(store, config::VALIDATING_KEY);
        mutating.retain(covers);
        validating.retain(covers);
        Plan {
            mutating,
            validating,
        }
    }
}

/// One CONNECT request as admission sees it.
pub struct Request {
    /// The resource (`pods`, `services`, `nodes`).
    pub def: Arc<ResourceDef>,
    /// `exec`, `attach`, `portforward` or `proxy`.
    pub subresource: String,
    /// The namespace (empty for nodes).
    pub namespace: String,
    /// The name as addressed (`name:port` and `scheme:name:port` for proxies).
    pub name: String,
    /// The options object with its `kind` and `apiVersion`.
    pub options: Value,
    /// Who connects.
    pub user: User,
    /// The authorizer the match conditions ask.
    pub authorizer: Option<Decider>,
}

/// What admission let through: the options (as the mutating webhooks left them) and the
/// warnings the webhooks and policies answered with.
#[derive(Debug)]
pub struct Admitted {
    /// The options object the connection uses.
    pub options: Value,
    /// `Warning` headers for the answer.
    pub warnings: Vec<String>,
}

/// What the caller decides between the steps of a CONNECT's admission.
pub struct Steps<D, P> {
    /// Decodes the options as a mutating webhook's patch left them into the options type
    /// (what Go's decoder makes of them: fields it does not know and zero values gone), at
    /// once after each webhook, so a patch the type cannot hold fails there and the next
    /// webhook sees the decoded options.
    pub decode: D,
    /// The validating admission policies, given the admitted attributes: their warnings,
    /// or the refusal.
    pub policies: P,
}

/// Runs the admission of a CONNECT: mutating webhooks, the decoding of what they left,
/// the validating admission policies, validating webhooks. A refusal carries the warnings
/// gathered before it.
pub async fn admit<D, P>(
    plan: &Plan,
    request: Request,
    namespaces: Namespaces<'_>,
    transport: &Transport,
    steps: Steps<D, P>,
) -> Result<Admitted, ApiError>
where
    D: FnMut(&Value) -> Result<Value, ApiError>,
    P: FnOnce(&Attributes) -> Result<Vec<String>, ApiError>,
{
    let mut attrs = Attributes {
        operation: Operation::Connect,
        def: request.def,
        subresource: Some(request.subresource),
        namespace: request.namespace,
        name: request.name,
        object: Some(request.options),
        old_object: None,
        dry_run: false,
        options: Value::Null,
        user: request.user,
        authorizer: request.authorizer,
    };
    let mut warnings = Vec::new();
    let outcome = run(
        plan,
        &mut attrs,
        namespaces,
        transport,
        steps,
        &mut warnings,
    )
    .await;
    match outcome {
        Ok(()) => Ok(Admitted {
            options: attrs.object.unwrap_or(Value::Null),
            warnings,
        }),
        Err(mut e) => {
            warnings.append(&mut e.warnings);
            e.warnings = warnings;
            Err(e)
        }
    }
}

async fn run<D, P>(
    plan: &Plan,
    attrs: &mut Attributes,
    namespaces: Namespaces<'_>,
    transport: &Transport,
    mut steps: Steps<D, P>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError>
where
    D: FnMut(&Value) -> Result<Value, ApiError>,
    P: FnOnce(&Attributes) -> Result<Vec<String>, ApiError>,
{
    // Each mutating webhook is matched when its turn comes, as the real dispatcher does:
    // one whose namespaceSelector needs a missing namespace answers the 404 after the
    // webhooks before it were called.
    let mut called: Vec<Matched> = Vec::new();
    // For each reinvocable webhook called: the options right after its call.
    let mut reinvocable: Vec<(usize, Option<Value>)> = Vec::new();
    for hook in &plan.mutating {
        for matched in selection::select(namespaces, std::slice::from_ref(hook), attrs, &[])? {
            mutate_once(transport, &matched, attrs, &mut steps.decode, warnings).await?;
            if matched.0.reinvoke {
                reinvocable.push((called.len(), attrs.object.clone()));
            }
            called.push(matched);
        }
    }
    for (i, after_own_call) in reinvocable {
        if attrs.object != after_own_call {
            mutate_once(transport, &called[i], attrs, &mut steps.decode, warnings).await?;
        }
    }
    warnings.extend((steps.policies)(attrs)?);
    if !plan.validating.is_empty() {
        let validating = selection::select(namespaces, &plan.validating, attrs, &[])?;
        let calls = dispatch::Calls {
            transport,
            convert: &dispatch::Relabel,
        };
        dispatch::validate(calls, &validating, attrs, warnings).await?;
    }
    Ok(())
}

/// Calls one mutating webhook and decodes the options its patch left.
async fn mutate_once<D>(
    transport: &Transport,
    matched: &Matched,
    attrs: &mut Attributes,
    decode: &mut D,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError>
where
    D: FnMut(&Value) -> Result<Value, ApiError>,
{
    let before = attrs.object.clone();
    let calls = dispatch::Calls {
        transport,
        convert: &dispatch::Relabel,
    };
    dispatch::mutate(calls, std::slice::from_ref(matched), attrs, warnings).await?;
    if attrs.object != before {
        attrs.object = Some(decode(attrs.object.as_ref().unwrap_or(&Value::Null))?);
    }
    Ok(())
}
