//! The versioning codec of a custom kind converted by webhook: objects between the version a
//! request addresses and the CRD's storage version, one `ConversionReview` per object or per
//! list, through the [`Converter`] the serving layer hands it.

use std::sync::Arc;

use serde_json::Value;

use super::converter::Converter;
use super::review::{ConversionError, ReviewVersion};
use crate::support::request::Reply;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// A request to a non-storage version of a kind converted by a webhook.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The version the client addressed.
    pub served: Arc<ResourceDef>,
    /// The CRD's storage version (what the store keeps).
    pub storage: Arc<ResourceDef>,
    /// The `ConversionReview` version to send; None when the CRD lists none this server speaks.
    pub review_version: Option<ReviewVersion>,
    /// `spec.conversion.webhook.clientConfig` (or the v1beta1-era `webhookClientConfig`).
    pub client_config: Value,
}

/// Converts objects between the requested version and the storage version of one CRD.
pub struct Codec {
    plan: Plan,
    converter: Box<dyn Converter>,
}

/// The 500 the real server answers when a conversion fails (no reason, the converter's
/// message).
fn conversion_failed(e: ConversionError) -> ApiError {
    ApiError {
        code: 500,
        reason: "",
        message: e.to_string(),
        details: Value::Null,
        warnings: Vec::new(),
    }
}

impl Codec {
    /// A codec for `plan` calling the webhook through `converter`.
    pub fn new(plan: Plan, converter: Box<dyn Converter>) -> Self {
        Codec { plan, converter }
    }

    async fn convert(
        &self,
        source: &Value,
        is_list: bool,
        objects: Vec<Value>,
        desired: &str,
    ) -> Result<Vec<Value>, ApiError> {
        let version = self
            .plan
            .review_version
            .ok_or_else(|| conversion_failed(ConversionError::NoReviewVersion))?;
        super::review::convert(
            self.converter.as_ref(),
            version,
            source,
            is_list,
            objects,
            desired,
        )
        .await
        .map_err(conversion_failed)
    }

    /// One object in the storage version.
    pub async fn to_storage(&self, object: Value) -> Result<Value, ApiError> {
        let desired = self.plan.storage.api_version();
        let mut out = self
            .convert(&object, false, vec![object.clone()], &desired)
            .await?;
        Ok(out.pop().unwrap_or_default())
    }

    /// One object in the requested version, fitted to its schema.
    pub async fn to_served(&self, object: Value) -> Result<Value, ApiError> {
        let desired = self.plan.served.api_version();
        let mut out = self
            .convert(&object, false, vec![object.clone()], &desired)
            .await?;
        let mut object = out.pop().unwrap_or_default();
        self.converter.fit(&self.plan.served, &mut object);
        Ok(object)
    }

    /// One object in another version of the kind (`group/version`), for the field manager,
    /// which compares each manager's fields in the version they were recorded in.
    pub async fn to_version(&self, object: Value, api_version: &str) -> Result<Value, ApiError> {
        let mut out = self
            .convert(&object, false, vec![object.clone()], api_version)
            .await?;
        Ok(out.pop().unwrap_or_default())
    }

    /// A `<Kind>List` in the requested version, converted with one review.
    pub async fn list_to_served(&self, mut list: Value) -> Result<Value, ApiError> {
        let desired = self.plan.served.api_version();
        let items = match list.get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        let mut items = self.convert(&list, true, items, &desired).await?;
        for item in &mut items {
            self.converter.fit(&self.plan.served, item);
        }
        list["items"] = Value::Array(items);
        list["apiVersion"] = Value::String(desired);
        Ok(list)
    }

    /// A handler's answer in the requested version: objects of the kind and lists of it are
    /// converted; `Status` objects and errors pass through.
    pub async fn reply_to_served(&self, reply: Reply) -> Result<Reply, ApiError> {
        let Reply::Json {
            code,
            body,
            content_type,
            warnings,
        } = reply
        else {
            return Ok(reply);
        };
        let kind = self.plan.served.kind.as_str();
        let body = if code >= 300 {
            body
        } else if body["kind"].as_str() == Some(kind) {
            self.to_served(body).await?
        } else if body["kind"].as_str() == Some(&format!("{kind}List")) {
            self.list_to_served(body).await?
        } else {
            body
        };
        Ok(Reply::Json {
            code,
            body,
            content_type,
            warnings,
        })
    }

    /// What the codec converts between.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The version the client asked for.
    pub fn served(&self) -> &ResourceDef {
        &self.plan.served
    }

    /// The CRD's storage version.
    pub fn storage(&self) -> &ResourceDef {
        &self.plan.storage
    }
}
