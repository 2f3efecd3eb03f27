//! The scheme: every API type of the operator, registered by `#[kubeforge::api]` (no hand-kept
//! list), keyed by group/version/kind. `manifests` turns it into CRDs ([`crds`]: versions
//! merged, exactly one storage version); the runtime looks kinds up by GVK ([`lookup`],
//! [`versions_of`]) and converts objects between versions ([`convert`], with conversions
//! registered by [`conversion!`](crate::conversion) from `From` impls, e.g. for a conversion
//! webhook).

mod convert;
mod crds;
mod helpers;
mod patch;
#[doc(hidden)]
pub mod private;
mod registry;

pub use convert::{Conversion, ConvertError, convert, review};
pub use crds::{GroupKind, SchemeError, crd_for, crds, crds_each};
pub use helpers::patch_status;
pub use registry::{ApiObject, ApiType, api_types, lookup, versions_of};
