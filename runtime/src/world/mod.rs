//! State-of-world reconciliation: one reconcile function sees every watched object at once.
//!
//! Per-object controllers ([`Controller`](crate::Controller)) are told which object to look at.
//! Controllers of policies, gateways, or anything relating many kinds want the whole world
//! instead: a [`WorldController`] watches several kinds through the manager's shared cache (no
//! second watch) and calls one reconcile function with
//!
//! - an immutable [`Snapshot`] of every watched object, taken at one moment, with typed access
//!   per kind and a [`Topology`] of declared links (owner references, label selectors, fields
//!   naming another object) to query parents, children, policy targets and paths;
//! - the [`Changes`] since the previous successful call: one net change per object
//!   (created, updated, deleted, with the old and new version).
//!
//! Changes arriving while a reconcile runs are batched into the next call, after a
//! configurable debounce; two calls never overlap. A failing call is retried with backoff on the
//! latest snapshot, its changes merged with the ones that arrived since. An optional periodic
//! re-list from the API server ([`WorldController::resync`]) replaces the world atomically and
//! reports what the watches missed as changes, so a lost watch event is corrected within one
//! period. Reconciles are counted in controller-runtime's metrics and traced like the
//! per-object controller's.
//!
//! ```ignore
//! let world = WorldController::new(&manager, "policies")
//!     .watches::<Policy>()
//!     .watches::<Deployment>()
//!     .debounce(Duration::from_millis(100))
//!     .resync(Duration::from_secs(300))
//!     .topology(Topology::new().target_ref::<Policy, Deployment>(|p| p.spec.target_ref.clone()))
//!     .reconcile(reconcile, ctx);
//! manager.add(world);
//! ```

mod changes;
mod controller;
mod kind;
mod object;
mod snapshot;
mod topology;

pub use crate::cache::Change;
pub use changes::{ChangeSummary, ChangeType, Changes};
pub use controller::{Requeue, WorldController};
pub use object::ObjectKey;
pub use snapshot::{Snapshot, SnapshotBuilder};
pub use topology::{
    IntoReferences, IntoSelector, LinkType, NodeRef, Reference, TargetRef, Topology, TopologyView,
};
