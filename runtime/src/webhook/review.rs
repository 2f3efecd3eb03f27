//! AdmissionReview in and out, on kube's wire types ([`kube::core::admission`]): parses the
//! review into an [`AdmissionRequest`], runs a typed [`Defaulter`] or [`Validator`] on its
//! objects, and answers with an [`AdmissionResponse`] for the same `uid` (`allowed`,
//! `status {code, message, reason}`, `warnings`, and for mutations a JSON patch).
//!
//! What kubeforge adds to kube's types: the typed decoding of the request's objects, the patch
//! computed from what the defaulter changed ([`super::patch`]), HTTP-style status codes and
//! reasons on refusals, and the patch written as Go writes a `[]byte` (base64), see [`render`].

use std::{panic::AssertUnwindSafe, sync::Arc};

use bytes::Bytes;
use futures::{FutureExt, future::BoxFuture};
use k8s_openapi::ByteString;
use kube::core::{
    DynamicObject, Resource, TypeMeta,
    admission::{AdmissionRequest, AdmissionResponse, Operation},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

use super::{
    admission::{Defaulter, Denied, Validator, Warnings, status_reason},
    decode::{Envelope, RequestParts},
    patch,
};

/// A Rust type a webhook can be registered for: any kube resource with static type information
/// (CRD roots and k8s-openapi built-ins alike) that round-trips through serde.
pub trait WebhookObject:
    Resource<DynamicType = ()> + Serialize + DeserializeOwned + Send + Sync + 'static
{
}

impl<K> WebhookObject for K where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Send + Sync + 'static
{
}

/// The accepted `apiVersion`s of an AdmissionReview (the response uses the request's).
const API_VERSIONS: [&str; 2] = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"];

/// An admission request without its objects: kube's type for the review's metadata (uid,
/// operation, kind, user...), with `object` and `oldObject` left out and kept as raw JSON in
/// [`Input`].
pub(crate) type Request = AdmissionRequest<DynamicObject>;

/// A parsed admission review: the request, and its objects as sent, read as `O`: raw JSON
/// ([`Value`]) for a defaulter, which keeps the raw object as the base of its patch (nothing the
/// Rust type does not know is lost), or straight into the handler's Rust type for a validator.
pub(crate) struct Input<O = Value> {
    /// The review's request, without its objects.
    pub(crate) request: Request,
    /// `request.object`, when present and not null.
    pub(crate) object: Option<O>,
    /// `request.oldObject`, when present and not null.
    pub(crate) old_object: Option<O>,
}

/// Parses a request body, its objects as `O`; the error is the message of the 400 answer.
pub(crate) fn parse<O: DeserializeOwned>(body: &[u8]) -> Result<Input<O>, String> {
    let malformed = |e: serde_json::Error| format!("malformed AdmissionReview: {e}");
    let review: Envelope<O> = serde_json::from_slice(body).map_err(malformed)?;
    if review.kind != "AdmissionReview" || !API_VERSIONS.contains(&review.api_version.as_str()) {
        return Err(format!(
            "expected kind AdmissionReview of apiVersion admission.k8s.io/v1, got kind {:?} of apiVersion {:?}",
            review.kind, review.api_version
        ));
    }
    let types = review.types();
    let RequestParts {
        mut request,
        object,
        old_object,
    } = review
        .request
        .ok_or_else(|| "the AdmissionReview has no request".to_string())?;
    request.types = types;
    Ok(Input {
        request,
        object,
        old_object,
    })
}

/// What a handler decided.
pub(crate) enum Outcome {
    /// Allowed, with warnings and, for a defaulter that changed something, the patch.
    Allowed {
        warnings: Warnings,
        patch: Option<json_patch::Patch>,
    },
    /// Refused by the handler.
    Denied(Denied),
    /// Refused because the request could not be handled (`code` 400 or 500).
    Error { code: u16, message: String },
}

impl Outcome {
    fn allowed(warnings: Warnings) -> Self {
        Outcome::Allowed {
            warnings,
            patch: None,
        }
    }

    fn error(code: u16, message: impl Into<String>) -> Self {
        Outcome::Error {
            code,
            message: message.into(),
        }
    }
}

/// A refusal: `allowed: false`, the code, its reason (`Forbidden`, `Invalid`...) and message.
fn refuse(mut response: AdmissionResponse, code: u16, message: String) -> AdmissionResponse {
    response = response.deny(message);
    response.result.code = code;
    response.result.reason = status_reason(code).to_string();
    response
}

/// The answer to `request`: kube's response for it, with the outcome filled in.
fn respond(request: &Request, outcome: Outcome) -> AdmissionResponse {
    let response = AdmissionResponse::from(request);
    let (mut response, warnings) = match outcome {
        Outcome::Allowed { warnings, patch } => {
            let mut allowed = response;
            // controller-runtime answers an allowed request with status code 200.
            allowed.result.code = 200;
            match patch.filter(|p| !p.0.is_empty()) {
                None => (allowed, warnings),
                Some(patch) => match allowed.with_patch(patch) {
                    Ok(patched) => (patched, warnings),
                    Err(e) => (
                        refuse(
                            AdmissionResponse::from(request),
                            500,
                            format!("cannot encode the patch: {e}"),
                        ),
                        Vec::new(),
                    ),
                },
            }
        }
        Outcome::Denied(denied) => (
            refuse(response, denied.code, denied.reason),
            denied.warnings,
        ),
        Outcome::Error { code, message } => (refuse(response, code, message), Vec::new()),
    };
    response.warnings = (!warnings.is_empty()).then_some(warnings);
    response
}

/// The review as written on the wire. kube's [`AdmissionResponse::patch`] is a `Vec<u8>`,
/// which serde writes as an array of numbers; Go's `[]byte`, what controller-runtime sends and
/// API servers document, is a base64 string, so the patch is written beside the rest that way.
#[derive(Serialize)]
struct Wire<'a> {
    #[serde(flatten)]
    types: &'a TypeMeta,
    response: WireResponse<'a>,
}

#[derive(Serialize)]
struct WireResponse<'a> {
    #[serde(flatten)]
    response: &'a AdmissionResponse,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<ByteString>,
}

/// Serializes `response` as an AdmissionReview (the request's `apiVersion`, `kind`).
pub(crate) fn render(mut response: AdmissionResponse) -> Vec<u8> {
    let patch = response.patch.take().map(ByteString);
    let wire = Wire {
        types: &response.types,
        response: WireResponse {
            response: &response,
            patch,
        },
    };
    serde_json::to_vec(&wire).expect("an AdmissionReview serializes")
}

/// Renders the answer to a review that could not be read (HTTP 400 bodies): no `uid`.
pub(crate) fn render_error(code: u16, message: &str) -> Vec<u8> {
    let mut response = AdmissionResponse::invalid(message);
    response.result.code = code;
    response.result.reason = status_reason(code).to_string();
    render(response)
}

/// A type-erased admission handler: one registered defaulter or validator. It takes the
/// request body and answers with the response body, or with the message of a 400 answer when
/// the body is not an AdmissionReview.
pub(crate) type AdmissionHandler =
    Arc<dyn Fn(Bytes) -> BoxFuture<'static, Result<Vec<u8>, String>> + Send + Sync>;

fn decode<K: WebhookObject>(value: &Value, what: &str) -> Result<K, Outcome> {
    K::deserialize(value).map_err(|e| {
        Outcome::error(
            400,
            format!("cannot decode {what} as {}: {e}", K::kind(&())),
        )
    })
}

/// Runs `work` (user code), turning a panic into a 500 refusal rather than a dropped connection.
async fn guarded(work: impl Future<Output = Outcome> + Send) -> Outcome {
    AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .unwrap_or_else(|_| {
            tracing::error!("webhook handler panicked");
            Outcome::error(500, "the webhook panicked")
        })
}

/// The handler of a [`Defaulter`]: decodes the object, defaults it, answers with the patch.
/// Requests other than CREATE and UPDATE are allowed unchanged.
pub(crate) fn defaulting<K: WebhookObject, D: Defaulter<K>>(defaulter: D) -> AdmissionHandler {
    let defaulter = Arc::new(defaulter);
    Arc::new(move |body: Bytes| {
        let defaulter = defaulter.clone();
        Box::pin(async move {
            let Input {
                request, object, ..
            } = parse::<Value>(&body)?;
            let outcome = guarded(default(&*defaulter, &request.operation, object)).await;
            Ok(render(respond(&request, outcome)))
        })
    })
}

async fn default<K: WebhookObject, D: Defaulter<K>>(
    defaulter: &D,
    operation: &Operation,
    object: Option<Value>,
) -> Outcome {
    if !matches!(operation, Operation::Create | Operation::Update) {
        return Outcome::allowed(Vec::new());
    }
    let Some(raw) = object else {
        return Outcome::error(400, "the admission request has no object");
    };
    let mut obj: K = match decode(&raw, "object") {
        Ok(obj) => obj,
        Err(outcome) => return outcome,
    };
    let before = serde_json::to_value(&obj);
    if let Err(denied) = defaulter.default(&mut obj).await {
        return Outcome::Denied(denied);
    }
    match (before, serde_json::to_value(&obj)) {
        (Ok(before), Ok(after)) => Outcome::Allowed {
            warnings: Vec::new(),
            patch: Some(patch::defaulting_patch(&raw, &before, &after)),
        },
        (Err(e), _) | (_, Err(e)) => {
            Outcome::error(500, format!("cannot encode the defaulted object: {e}"))
        }
    }
}

/// An object of a review decoded into the handler's type, or the answer saying why it is not.
type Decoded<K> = Option<Result<K, Outcome>>;

/// The handler of a [`Validator`]: CREATE validates `object`, UPDATE `oldObject` against
/// `object`, DELETE the `oldObject` (the API server sends the deleted object there); CONNECT is
/// allowed.
///
/// The review is read in one pass with its objects decoded straight into `K`. A body that does
/// not read that way is read again with its objects as raw JSON, which tells a malformed review
/// from an object that is not a `K` and says which object and why.
pub(crate) fn validating<K: WebhookObject, V: Validator<K>>(validator: V) -> AdmissionHandler {
    let validator = Arc::new(validator);
    Arc::new(move |body: Bytes| {
        let validator = validator.clone();
        Box::pin(async move {
            let (request, object, old): (Request, Decoded<K>, Decoded<K>) = match parse::<K>(&body)
            {
                Ok(input) => (
                    input.request,
                    input.object.map(Ok),
                    input.old_object.map(Ok),
                ),
                Err(_) => {
                    let input = parse::<Value>(&body)?;
                    (
                        input.request,
                        input.object.map(|raw| decode(&raw, "object")),
                        input.old_object.map(|raw| decode(&raw, "oldObject")),
                    )
                }
            };
            let outcome = guarded(validate(&*validator, &request.operation, object, old)).await;
            Ok(render(respond(&request, outcome)))
        })
    })
}

async fn validate<K: WebhookObject, V: Validator<K>>(
    validator: &V,
    operation: &Operation,
    object: Decoded<K>,
    old: Decoded<K>,
) -> Outcome {
    let result = match (operation, object, old) {
        (Operation::Create, Some(obj), _) => match obj {
            Ok(obj) => validator.validate_create(&obj).await,
            Err(outcome) => return outcome,
        },
        (Operation::Update, Some(new), Some(old)) => match (old, new) {
            (Ok(old), Ok(new)) => validator.validate_update(&old, &new).await,
            (Err(outcome), _) | (_, Err(outcome)) => return outcome,
        },
        (Operation::Delete, _, Some(old)) => match old {
            Ok(old) => validator.validate_delete(&old).await,
            Err(outcome) => return outcome,
        },
        (Operation::Connect, _, _) => Ok(Vec::new()),
        (operation, _, _) => {
            return Outcome::error(
                400,
                format!("the {operation:?} admission request lacks its object"),
            );
        }
    };
    match result {
        Ok(warnings) => Outcome::allowed(warnings),
        Err(denied) => Outcome::Denied(denied),
    }
}
