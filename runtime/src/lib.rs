//! # kubeforge: the operator runtime
//!
//! kube-rs provides watchers, reflectors and a `Controller`; this crate adds what
//! controller-runtime gives Go operators on top of them, as thin glue:
//!
//! - [`manager`]: the [`Manager`] that owns a shared [`cache`] (one watch per kind, however many
//!   controllers read it), runs controllers, [`leader_election`], the probe and metrics
//!   [`server`]s, and shuts everything down gracefully on SIGTERM/SIGINT.
//! - [`controller`]: the [`Controller`] builder (`for`/`owns`/`watches`, predicates, concurrency,
//!   rate-limited retries with per-object backoff, terminal errors, panic recovery, timeouts).
//! - [`client`]: a client that reads from the cache and writes to the API server.
//! - [`metrics`]: Prometheus metrics with controller-runtime's names and labels.
//! - [`helpers`]: finalizers, owner references, create-or-update, server-side apply, events,
//!   and [`conditions`].
//! - [`logging`]: tracing set-up from kubebuilder-style flags.
//! - [`world`]: state-of-world controllers: one reconcile over a snapshot of every watched
//!   object and the batch of changes, with a topology of links and periodic healing re-lists.

pub mod cache;
pub mod client;
pub mod controller;
mod error;
pub mod helpers;
mod identity;
pub mod leader_election;
pub mod logging;
pub mod manager;
pub mod metrics;
pub mod server;
pub mod shard;
pub mod webhook;
pub mod world;

pub mod manifests;
pub mod rbac;
pub mod scheme;
pub mod shapes;
/// The attribute macros: `#[kubeforge::api]`, `#[kubeforge::schema]`, `#[kubeforge::rbac(..)]`.
pub use kubeforge_derive::{api, rbac, schema};
#[doc(hidden)]
pub use scheme::private as __private;

pub use controller::{Action, Controller, ReconcileError, ReconcileFailure};
pub use error::{BoxError, Error};
pub use helpers::conditions;
pub use manager::{Manager, ManagerArgs, ManagerOptions, Runnable, ShutdownHandle};

/// Re-exports of kube and k8s-openapi so operators use the same versions as the runtime.
pub use k8s_openapi;
pub use kube;

/// Everything a generated operator needs, in one import: `use kubeforge::prelude::*;`.
pub mod prelude {
    pub use crate::conditions;
    pub use crate::webhook::{Defaulter, Denied, Validator, Warnings, WebhookServer};
    pub use crate::world::{Changes, Requeue, Snapshot, TargetRef, Topology, WorldController};
    pub use crate::{
        Action, Controller, Manager, ManagerArgs, ManagerOptions, ReconcileError, ReconcileFailure,
    };
    pub use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
    pub use kube::api::{ListParams, ObjectMeta, Patch, PatchParams, PostParams};
    pub use kube::{Api, Client, CustomResource, Resource, ResourceExt};
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
    pub use std::{sync::Arc, time::Duration};
}
