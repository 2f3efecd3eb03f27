//! The patch type a request's `Content-Type` names.

use crate::support::status::ApiError;

/// The patch types of `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PatchType {
    /// `application/merge-patch+json`
    Merge,
    /// `application/json-patch+json`
    Json,
    /// `application/strategic-merge-patch+json`
    Strategic,
    /// `application/apply-patch+yaml` (server-side apply, see `super::apply`)
    Apply,
}

impl PatchType {
    /// Reads the patch type from the request's content type.
    pub fn from_content_type(ct: &str) -> Result<Self, ApiError> {
        let base = ct.split(';').next().unwrap_or_default().trim();
        match base {
            "application/merge-patch+json" => Ok(PatchType::Merge),
            "application/json-patch+json" => Ok(PatchType::Json),
            "application/strategic-merge-patch+json" => Ok(PatchType::Strategic),
            "application/apply-patch+yaml" | "application/apply-patch+cbor" => Ok(PatchType::Apply),
            _ => Err(ApiError {
                code: 415,
                reason: "UnsupportedMediaType",
                message: "415: Unsupported Media Type".into(),
                details: serde_json::json!({}),
                warnings: Vec::new(),
            }),
        }
    }
}
