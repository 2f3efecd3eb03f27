//! Where the controllers plug into the API. A real control plane runs them outside the API
//! server (kube-controller-manager), as clients that watch and write; here they run inside
//! the request that triggers them, so that watchers see the events in the real order (an
//! owner marked, its dependents deleted, the owner deleted), but they still act only through
//! a [`Client`], never on the store directly. Work a real controller visibly does some time
//! after the write (emptying a deleted namespace) is deferred with [`Client::later`].
//!
//! The layer above (`crate::server`) hands the API its [`Controllers`] at construction; the
//! endpoints tell them what happened and lend them a client for the duration of the call.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::delete_options::{DeleteOptions, Deleted};
use crate::registry::Registry;
use crate::storage::Store;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Work a controller asks to run later, with a client of its own then.
pub type Job = Box<dyn FnOnce(&mut dyn Client) + Send>;

/// The in-process client a controller acts through: reads of the stored objects and of the
/// served resources, and writes with the API's own rules.
pub trait Client {
    /// The stored objects (read only).
    fn store(&self) -> &Store;

    /// The served resources.
    fn registry(&self) -> &Registry;

    /// Stores `object` as it is: a controller's change of references, finalizers or status
    /// (no admission, no managed fields), as the real controllers' patches.
    fn put(&mut self, def: &ResourceDef, ns: &str, name: &str, object: Value) -> Arc<Value>;

    /// Deletes an object as a DELETE request does: preconditions, finalizers, propagation.
    fn delete(
        &mut self,
        def: &Arc<ResourceDef>,
        ns: &str,
        name: &str,
        options: &DeleteOptions,
    ) -> Result<Deleted, ApiError>;

    /// Creates an object as a POST does (defaults, validation, uid, timestamps), its fields
    /// owned by `manager`: what a controller creates through the API.
    fn create(
        &mut self,
        def: &ResourceDef,
        ns: &str,
        object: Value,
        manager: &str,
    ) -> Result<Arc<Value>, ApiError>;

    /// Creates an object as [`Client::create`] does, defaulted but not validated: what the
    /// server writes for itself where a real server could not (the `kubernetes` Endpoints
    /// and EndpointSlice leading to a server that listens on a loopback address).
    fn create_unvalidated(
        &mut self,
        def: &ResourceDef,
        ns: &str,
        object: Value,
        manager: &str,
    ) -> Result<Arc<Value>, ApiError>;

    /// Removes an object whose deletion is complete (no finalizers left); `last` is its last
    /// state, as the DELETED event carries it. None when it was already gone.
    fn remove(
        &mut self,
        def: &ResourceDef,
        ns: &str,
        name: &str,
        last: Option<Value>,
    ) -> Option<Arc<Value>>;

    /// Runs `job` about `delay` from now, under the lock of a later moment, as a real
    /// controller acts from its queue some time after the write that woke it (the events of
    /// that write are then already out). Without a running server (no async runtime) it runs
    /// at once.
    fn later(&mut self, delay: Duration, job: Job);
}

/// The controllers, told of the changes they react to.
pub trait Controllers: Send + Sync {
    /// The API server was made (its bootstrap namespaces exist): start-up objects.
    fn started(&self, client: &mut dyn Client);

    /// The API server listens on `addr`: objects that point at it.
    fn serving(&self, client: &mut dyn Client, addr: SocketAddr);

    /// `object` was created.
    fn created(&self, client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str);

    /// `object` was changed by an update (not a deletion).
    fn updated(&self, client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str);

    /// `object` was marked for deletion, or its finalizers changed while it is deleting.
    fn deleting(&self, client: &mut dyn Client, def: &Arc<ResourceDef>, object: &Value, ns: &str);

    /// `object` was removed from the store (its last state).
    fn removed(&self, client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str);
}
