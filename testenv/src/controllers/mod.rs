//! The controllers a real control plane runs next to the API server (in
//! kube-controller-manager): the garbage collector, namespace lifecycle and CRD clean-up.
//!
//! They act only through the in-process client the API lends them
//! (`crate::endpoints::hooks::Client`), inside the request that made the change, so watchers
//! see the events in the real order. [`ControllerManager`] is what the server hands the API.

pub mod crds;
pub mod gc;
pub mod manager;
pub mod namespaces;

pub use manager::ControllerManager;
