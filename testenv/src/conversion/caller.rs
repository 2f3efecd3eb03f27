//! Delivering a `ConversionReview` to a CRD's webhook. The conversion logic only sees the
//! [`Caller`] trait, so it is tested without a network; [`WebhookCaller`] is the real one,
//! posting over HTTPS with the shared webhook client (caBundle verification, `service`
//! references routed through `TestEnv::route_service`).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::rest::Api;
use crate::webhooks::client::{ClientConfig, post_json};

/// How long the server waits for a conversion webhook (kube-apiserver's 30 s).
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// Sends one `ConversionReview` and returns the webhook's answer, or why the call failed
/// (the text that follows `failed:` in the real server's message).
pub trait Caller: Send + Sync {
    /// Posts `review` and returns the decoded answer.
    fn call(&self, review: Value) -> BoxFuture<'_, Result<Value, String>>;
}

/// The webhook of one CRD: `spec.conversion.webhook.clientConfig` reached over HTTPS.
pub struct WebhookCaller {
    api: Arc<Api>,
    /// The parsed `clientConfig`, or why it cannot be used (reported by each call, as the
    /// real server reports it per request).
    client_config: Result<ClientConfig, String>,
}

impl WebhookCaller {
    /// A caller for the webhook described by `client_config` (parsed once, here).
    pub fn new(api: Arc<Api>, client_config: Value) -> Self {
        WebhookCaller {
            api,
            client_config: ClientConfig::parse(&client_config).map_err(|e| e.to_string()),
        }
    }
}

impl Caller for WebhookCaller {
    fn call(&self, review: Value) -> BoxFuture<'_, Result<Value, String>> {
        Box::pin(async move {
            let config = self.client_config.as_ref().map_err(Clone::clone)?;
            post_json(&self.api, config, &review, TIMEOUT)
                .await
                .map_err(|e| e.to_string())
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    type Handler = dyn Fn(Value) -> Result<Value, String> + Send + Sync;

    /// A webhook answered by a closure, counting its calls.
    pub struct FnCaller {
        handler: Box<Handler>,
        calls: AtomicUsize,
    }

    impl FnCaller {
        /// A caller answering every review with `handler`.
        pub fn new(
            handler: impl Fn(Value) -> Result<Value, String> + Send + Sync + 'static,
        ) -> Self {
            FnCaller {
                handler: Box::new(handler),
                calls: AtomicUsize::new(0),
            }
        }

        /// How many reviews were sent.
        pub fn calls(&self) -> usize {
            self.calls.load(Ordering::SeqCst)
        }
    }

    impl Caller for FnCaller {
        fn call(&self, review: Value) -> BoxFuture<'_, Result<Value, String>> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let answer = (self.handler)(review);
            Box::pin(async move { answer })
        }
    }
}
