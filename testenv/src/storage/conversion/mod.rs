//! Conversion between served and stored versions: the conversions the server makes itself
//! ([`builtin`]: events.k8s.io Events stored as core Events, `apiVersion`/`kind` of a served
//! version), and for CRDs with `strategy: Webhook` the [`Codec`] that sends `ConversionReview`s
//! ([`review`]) through a [`Converter`].

pub mod builtin;
pub mod codec;
pub mod converter;
pub mod hpa;
mod hpa_alpha;
pub mod review;

pub use codec::{Codec, Plan};
pub use converter::Converter;
