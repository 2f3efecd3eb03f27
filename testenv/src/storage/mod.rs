//! The storage layer: the store (objects, one cluster-wide resourceVersion, a watch cache
//! per resource, the etcd-like history behind lists at past resourceVersions) and the
//! versioning codec that converts objects between the version a request addresses and the
//! version they are stored in. Nothing here knows about HTTP handlers,
//! admission or the registry; conversion webhooks are reached through the
//! [`conversion::Converter`] trait the layer above hands in.

pub mod cache;
pub mod conversion;
pub mod history;
pub mod numbers;
pub mod store;

pub use history::{Event, EventType};
pub use store::{Store, StoreError};
