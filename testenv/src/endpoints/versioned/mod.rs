//! Requests to a non-storage version of a CRD converted by webhook
//! (`spec.conversion.strategy: Webhook`), served as kube-apiserver serves them.
//!
//! A request to a version other than the CRD's storage version is served by the storage
//! version's handlers, with the objects converted on the way in and out by the CRD's webhook:
//! request bodies are converted to the storage version before they are stored, and every
//! object returned (get, list — one `ConversionReview` per list —, watch events as they are
//! sent, create/update/patch/delete responses) is converted back to the requested version.
//! Patches apply to the object as seen in the requested version. Requests to the storage
//! version and to kinds using the `None` strategy never call a webhook.
//!
//! The conversions run outside the store lock: a slow webhook delays only its own request.
//! The storage layer's codec (`crate::storage::conversion::Codec`) converts; it reaches the
//! CRD's webhook through the [`webhook::WebhookConverter`] handed to it here.

mod inner;
mod managers;
mod patch;
mod raw_texts;
mod reads;
mod serve;
mod watch;
pub mod webhook;
mod writes;

pub use serve::serve;
