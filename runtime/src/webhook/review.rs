//! AdmissionReview in and out, on kube's wire types ([`kube::core::admission`]): parses the
//! review into an [`AdmissionRequest`], runs a typed [`Defaulter`] or [`Validator`] on its
//! objects, and answers with an [`AdmissionResponse`] for the same `uid` (`allowed`,
//! `status {code, message, reason}`, `warnings`, and for mutations a JSON patch).
//!
//! What kubeforge adds to kube's types: the typed decoding of the request's objects, the patch
//! computed from what the defaulter changed ([`super::patch`]), HTTP-style status codes and
//! reasons on refusals, and the patch written as Go writes a `[]byte` (base64), see [`render`].

use std::{panic::AssertUnwindSafe, sync::Arc};

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

/// A parsed admission review: the request, and its objects as sent. The objects stay raw JSON
/// so each is read once: decoded from there into the handler's Rust type, and used as is as
/// the base of a defaulting patch (nothing the Rust type does not know is lost).
pub(crate) struct Input {
    /// The review's request, without its objects.
    pub(crate) request: Request,
    /// `request.object`, when present and not null.
    pub(crate) object: Option<Value>,
    /// `request.oldObject`, when present and not null.
    pub(crate) old_object: Option<Value>,
}

/// Parses a request body; the error is the message of the 400 answer.
pub(crate) fn parse(body: &[u8]) -> Result<Input, String> {
    let malformed = |e: serde_json::Error| format!("malformed AdmissionReview: {e}");
    let review: Envelope = serde_json::from_slice(body).map_err(malformed)?;
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

/// A type-erased admission handler: one registered defaulter or validator.
pub(crate) type AdmissionHandler = Arc<dyn Fn(Input) -> BoxFuture<'static, Vec<u8>> + Send + Sync>;

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

fn handler<F, Fut>(run: F) -> AdmissionHandler
where
    F: Fn(Operation, Option<Value>, Option<Value>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Outcome> + Send + 'static,
{
    let run = Arc::new(run);
    Arc::new(move |input: Input| {
        let run = run.clone();
        Box::pin(async move {
            let Input {
                request,
                object,
                old_object,
            } = input;
            let outcome = guarded(run(request.operation.clone(), object, old_object)).await;
            render(respond(&request, outcome))
        })
    })
}

/// The handler of a [`Defaulter`]: decodes the object, defaults it, answers with the patch.
/// Requests other than CREATE and UPDATE are allowed unchanged.
pub(crate) fn defaulting<K: WebhookObject, D: Defaulter<K>>(defaulter: D) -> AdmissionHandler {
    let defaulter = Arc::new(defaulter);
    handler(move |operation, object, _old| {
        let defaulter = defaulter.clone();
        async move {
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
    })
}

/// The handler of a [`Validator`]: CREATE validates `object`, UPDATE `oldObject` against
/// `object`, DELETE the `oldObject` (the API server sends the deleted object there); CONNECT is
/// allowed.
pub(crate) fn validating<K: WebhookObject, V: Validator<K>>(validator: V) -> AdmissionHandler {
    let validator = Arc::new(validator);
    handler(move |operation, object, old| {
        let validator = validator.clone();
        async move {
            let result = match (operation, object, old) {
                (Operation::Create, Some(obj), _) => match decode::<K>(&obj, "object") {
                    Ok(obj) => validator.validate_create(&obj).await,
                    Err(outcome) => return outcome,
                },
                (Operation::Update, Some(new), Some(old)) => {
                    match (decode::<K>(&old, "oldObject"), decode::<K>(&new, "object")) {
                        (Ok(old), Ok(new)) => validator.validate_update(&old, &new).await,
                        (Err(outcome), _) | (_, Err(outcome)) => return outcome,
                    }
                }
                (Operation::Delete, _, Some(old)) => match decode::<K>(&old, "oldObject") {
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
    })
}
