//! CustomResourceDefinition schemas: CRD checking, and validation, pruning and defaulting
//! of custom resources, as the apiextensions apiserver does them.
//!
//! Everything here is a pure function over `serde_json::Value`:
//! - [`check_structural`]: the CRD-level checks run on CRD create/update (names, versions,
//!   structural schema rules), with the real server's messages;
//! - [`prune`]: drops unknown fields and reports them for `fieldValidation` Strict/Warn;
//! - [`apply_defaults`]: structural defaulting, including the nullable rules;
//! - [`validate`]: OpenAPI v3 validation of an object, with kube-openapi's paths and texts,
//!   the list-type and embedded-resource checks, and the `x-kubernetes-validations` CEL rules
//!   (evaluated with the `cel` crate, see the `cel` and `rules` modules); [`validate_update`]
//!   also runs the transition rules that use `oldSelf` and ratchets (drops errors about
//!   values the update did not change);
//! - [`FieldError`] and the message helpers ([`invalid_status_message`],
//!   [`strict_decoding_status_message`], [`unknown_field_message`]) that print what the real
//!   server prints.
//!
//! The server calls them on decode in the real order: prune, apply defaults, validate
//! (`validate_update` on updates); CRDs go through [`apply_crd_defaults`] then
//! [`check_structural`].

mod cel;
mod cel_check;
mod cel_lib;
pub(crate) mod cel_types;
mod cel_value;
mod check;
mod crd;
mod default;
mod default_validity;
mod errors;
mod extensions;
mod formats;
mod go_internal;
pub(crate) mod names;
mod prune;
mod ratchet;
mod rules;
mod scale;
mod structural;
mod validate;
mod values;

pub use cel::{CelError, Expression, compile_expression, eval_expression, json_to_cel};
pub use cel_value::RESERVED as CEL_RESERVED;
pub use check::{check_structural, check_structural_update};
pub use crd::apply_crd_defaults;
pub use default::apply_defaults;
pub use errors::{FieldError, FieldErrorKind, go_quote, go_value, invalid_status_message};
pub use formats::check_format;
pub use prune::{
    prune, strict_decoding_error, strict_decoding_status_message, undeclared_fields,
    unknown_field_message,
};
pub use scale::ScalePaths;
pub use validate::{validate, validate_custom_resource, validate_update};
