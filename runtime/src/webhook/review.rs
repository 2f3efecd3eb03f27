//! AdmissionReview v1 in and out: parses the request part the handlers need, runs a typed
//! [`Defaulter`] or [`Validator`] on it, and renders the response review (same `uid`,
//! `allowed`, `status {code, message, reason}`, `warnings`, and for mutations
//! `patchType: JSONPatch` with the base64 patch).

use std::{panic::AssertUnwindSafe, sync::Arc};

use futures::{FutureExt, future::BoxFuture};
use kube::core::{Resource, admission::Operation};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::Value;

use super::{
    admission::{Defaulter, Denied, Validator, Warnings, status_reason},
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReviewIn {
    #[serde(default)]
    api_version: String,
    #[serde(default)]
    kind: String,
    request: Option<RequestIn>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestIn {
    uid: String,
    operation: Operation,
    #[serde(default)]
    object: Option<Value>,
    #[serde(default)]
    old_object: Option<Value>,
}

/// The parts of an admission request a handler works on.
pub(crate) struct AdmissionInput {
    api_version: String,
    uid: String,
    operation: Operation,
    object: Option<Value>,
    old_object: Option<Value>,
}

/// Parses a request body; the error is the message of the 400 answer.
pub(crate) fn parse(body: &[u8]) -> Result<AdmissionInput, String> {
    let review: ReviewIn =
        serde_json::from_slice(body).map_err(|e| format!("malformed AdmissionReview: {e}"))?;
    if review.kind != "AdmissionReview" || !API_VERSIONS.contains(&review.api_version.as_str()) {
        return Err(format!(
            "expected kind AdmissionReview of apiVersion admission.k8s.io/v1, got kind {:?} of apiVersion {:?}",
            review.kind, review.api_version
        ));
    }
    let request = review
        .request
        .ok_or_else(|| "the AdmissionReview has no request".to_string())?;
    Ok(AdmissionInput {
        api_version: review.api_version,
        uid: request.uid,
        operation: request.operation,
        object: request.object.filter(|o| !o.is_null()),
        old_object: request.old_object.filter(|o| !o.is_null()),
    })
}

/// What a handler decided.
pub(crate) struct Outcome {
    allowed: bool,
    code: u16,
    message: String,
    warnings: Warnings,
    patch: Option<json_patch::Patch>,
}

impl Outcome {
    fn allowed(warnings: Warnings) -> Self {
        Outcome {
            allowed: true,
            code: 200,
            message: String::new(),
            warnings,
            patch: None,
        }
    }

    fn denied(denied: Denied) -> Self {
        Outcome {
            allowed: false,
            code: denied.code,
            message: denied.reason,
            warnings: denied.warnings,
            patch: None,
        }
    }

    /// A refusal because the request could not be handled (`code` 400 or 500).
    pub(crate) fn error(code: u16, message: impl Into<String>) -> Self {
        Outcome {
            allowed: false,
            code,
            message: message.into(),
            warnings: Vec::new(),
            patch: None,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReviewOut<'a> {
    api_version: &'a str,
    kind: &'static str,
    response: ResponseOut<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResponseOut<'a> {
    uid: &'a str,
    allowed: bool,
    status: StatusOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch_type: Option<&'static str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    warnings: &'a [String],
}

#[derive(Serialize)]
struct StatusOut<'a> {
    code: u16,
    #[serde(skip_serializing_if = "str::is_empty")]
    message: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'static str,
}

/// Renders the response review for `uid` (empty when the request could not be read).
pub(crate) fn render(api_version: &str, uid: &str, outcome: &Outcome) -> Vec<u8> {
    let patch = outcome
        .patch
        .as_ref()
        .filter(|p| !p.0.is_empty())
        .map(|p| patch::base64(&serde_json::to_vec(p).expect("a JSON patch serializes")));
    let review = ReviewOut {
        api_version,
        kind: "AdmissionReview",
        response: ResponseOut {
            uid,
            allowed: outcome.allowed,
            status: StatusOut {
                code: outcome.code,
                message: &outcome.message,
                reason: if outcome.allowed {
                    ""
                } else {
                    status_reason(outcome.code)
                },
            },
            patch_type: patch.as_ref().map(|_| "JSONPatch"),
            patch,
            warnings: &outcome.warnings,
        },
    };
    serde_json::to_vec(&review).expect("an AdmissionReview serializes")
}

/// Renders the answer to a review that could not be read (HTTP 400 bodies).
pub(crate) fn render_error(code: u16, message: &str) -> Vec<u8> {
    render(API_VERSIONS[0], "", &Outcome::error(code, message))
}

/// A type-erased admission handler: one registered defaulter or validator.
pub(crate) type AdmissionHandler =
    Arc<dyn Fn(AdmissionInput) -> BoxFuture<'static, Vec<u8>> + Send + Sync>;

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
    Arc::new(move |input: AdmissionInput| {
        let run = run.clone();
        Box::pin(async move {
            let outcome = guarded(run(input.operation, input.object, input.old_object)).await;
            render(&input.api_version, &input.uid, &outcome)
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
                return Outcome::denied(denied);
            }
            match (before, serde_json::to_value(&obj)) {
                (Ok(before), Ok(after)) => Outcome {
                    patch: Some(patch::defaulting_patch(&raw, &before, &after)),
                    ..Outcome::allowed(Vec::new())
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
                Err(denied) => Outcome::denied(denied),
            }
        }
    })
}
