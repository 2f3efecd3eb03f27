//! One module per API group: the behaviour of its resources and subresources beyond what
//! the cross-cutting modules (crud, listing, watch, patches, ...) cover, pinned against the
//! real server by running in every mode.

mod admissionregistration;
mod authentication;
mod authorization;
mod autoscaling;
mod certificates;
mod core;
mod core_limits;
mod core_namespaces;
mod networking;
mod policy;
mod scheduling;
mod storage;
