//! The Kubernetes CEL libraries cel-rust lacks, registered on its environment: lists
//! (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`), regex (`find`, `findAll`),
//! sets (`sets.contains`, `sets.equivalent`, `sets.intersects`), quantity, URL, IP and CIDR,
//! format and semver, the authz library of admission policies, and the helpers of
//! two-variable comprehensions.
//!
//! Each function is written over [`cel::Value`] and lifted into an overload by
//! `overload::value_fn!`; values of the Kubernetes types (quantity, URL, IP, CIDR) are opaque values.

pub mod authz;
mod comprehension;
mod format;
mod lists;
mod net;
mod overload;
mod quantity;
mod url;

use cel::{DeclarationError, Env};

/// Registers every library of this module on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    lists::register(env)?;
    authz::register(env)?;
    format::register(env)?;
    comprehension::register(env)?;
    quantity::register(env)?;
    url::register(env)?;
    net::register(env)?;
    Ok(())
}
