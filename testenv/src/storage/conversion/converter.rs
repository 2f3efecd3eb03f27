//! Delivering a `ConversionReview` to a CRD's webhook. The storage layer's codec only sees
//! the [`Converter`] trait, so it is tested without a network; the layer that serves a
//! request hands it the real one (an HTTPS call with the shared webhook client).

use futures::future::BoxFuture;
use serde_json::Value;

use crate::support::resource::ResourceDef;

/// Sends one `ConversionReview` and returns the webhook's answer, or why the call failed
/// (the text that follows `failed:` in the real server's message).
pub trait Converter: Send + Sync {
    /// Posts `review` and returns the decoded answer.
    fn call(&self, review: Value) -> BoxFuture<'_, Result<Value, String>>;

    /// Fits an object converted to `def`'s version to that version's schema, as the real
    /// server prunes every converted custom resource; nothing by default.
    fn fit(&self, _def: &ResourceDef, _object: &mut Value) {}
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    type Handler = dyn Fn(Value) -> Result<Value, String> + Send + Sync;

    /// A webhook answered by a closure, counting its calls.
    pub struct FnConverter {
        handler: Box<Handler>,
        calls: AtomicUsize,
    }

    impl FnConverter {
        /// A converter answering every review with `handler`.
        pub fn new(
            handler: impl Fn(Value) -> Result<Value, String> + Send + Sync + 'static,
        ) -> Self {
            FnConverter {
                handler: Box::new(handler),
                calls: AtomicUsize::new(0),
            }
        }

        /// How many reviews were sent.
        pub fn calls(&self) -> usize {
            self.calls.load(Ordering::SeqCst)
        }
    }

    impl Converter for FnConverter {
        fn call(&self, review: Value) -> BoxFuture<'_, Result<Value, String>> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let answer = (self.handler)(review);
            Box::pin(async move { answer })
        }
    }
}
