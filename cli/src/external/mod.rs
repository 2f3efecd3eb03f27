//! Kinds a project uses but does not own: where their files go ([`layout`]), where their CRDs
//! come from ([`source`]), and what can go wrong ([`ExternalError`]). The Rust types themselves
//! come from [`crate::typegen`].

pub mod error;
pub mod layout;
pub mod source;

pub use error::ExternalError;
pub use layout::ExternalLayout;
pub use source::CrdSource;
