//! The real [`Converter`] of a CRD: its `spec.conversion.webhook.clientConfig` reached over
//! HTTPS with the shared webhook client (caBundle verification, `service` references routed
//! through `TestEnv::route_service`).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::endpoints::state::Api;
use crate::storage::conversion::Converter;
use crate::support::resource::ResourceDef;
use crate::support::webhook_client::{ClientConfig, post_json};

/// How long the server waits for a conversion webhook (kube-apiserver's 30 s).
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The webhook of one CRD: `spec.conversion.webhook.clientConfig` reached over HTTPS.
pub struct WebhookConverter {
    api: Arc<Api>,
    /// The parsed `clientConfig`, or why it cannot be used (reported by each call, as the
    /// real server reports it per request).
    client_config: Result<ClientConfig, String>,
}

impl WebhookConverter {
    /// A converter for the webhook described by `client_config` (parsed once, here).
    pub fn new(api: Arc<Api>, client_config: Value) -> Self {
        WebhookConverter {
            api,
            client_config: ClientConfig::parse(&client_config).map_err(|e| e.to_string()),
        }
    }
}

impl Converter for WebhookConverter {
    fn call(&self, review: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move {
            let config = self.client_config.as_ref().map_err(Clone::clone)?;
            post_json(self.api.transport(), config, &review, TIMEOUT)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn fit(&self, def: &ResourceDef, object: &mut Value) {
        if let Some(schema) = def.custom.as_ref().and_then(|c| c.schema.as_ref()) {
            crate::registry::schema::prune(object, schema);
        }
    }
}
