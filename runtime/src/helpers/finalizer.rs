//! Finalizers: kube-runtime's [`finalizer`] is the one way to run cleanup before an object goes.
//!
//! It adds the finalizer to a live object before the first [`Event::Apply`] reaches the
//! reconcile (so external state is never created for an object that could vanish unseen),
//! calls [`Event::Cleanup`] once the object is being deleted, and removes the finalizer after
//! the cleanup succeeded; the patches are guarded by JSON-patch `test` operations, so a
//! concurrent change makes them fail rather than clobber it. Its [`FinalizerError`] keeps the
//! reconcile's error as its `source()`, so a [`ReconcileError::terminal`] inside is still
//! found by the controller (no retry).
//!
//! ```ignore
//! async fn reconcile(obj: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action, FinalizerError<Error>> {
//!     let api = Api::namespaced(ctx.client.clone(), &obj.namespace().unwrap());
//!     finalizer(&api, "cache.example.com/cleanup", obj, |event| async {
//!         match event {
//!             Event::Apply(obj) => apply(obj, &ctx).await,
//!             Event::Cleanup(obj) => cleanup(obj, &ctx).await,
//!         }
//!     })
//!     .await
//! }
//! ```
//!
//! kubeforge adds only the two questions a reconcile asks of an object outside that flow:
//! [`has_finalizer`] and [`is_deleting`].
//!
//! [`ReconcileError::terminal`]: crate::ReconcileError::terminal

pub use kube::runtime::finalizer::{Error as FinalizerError, Event, finalizer};

use kube::{Resource, ResourceExt};

/// Whether `obj` carries the finalizer `name`.
pub fn has_finalizer<K: Resource>(obj: &K, name: &str) -> bool {
    obj.finalizers().iter().any(|f| f == name)
}

/// Whether `obj` is being deleted (has a deletionTimestamp).
pub fn is_deleting<K: Resource>(obj: &K) -> bool {
    obj.meta().deletion_timestamp.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::{
        api::core::v1::ConfigMap, apimachinery::pkg::apis::meta::v1::Time, jiff::Timestamp,
    };

    #[test]
    fn finalizer_and_deletion_are_read_from_the_metadata() {
        let mut cm = ConfigMap::default();
        assert!(!has_finalizer(&cm, "a/b"));
        assert!(!is_deleting(&cm));
        cm.metadata.finalizers = Some(vec!["x/y".into(), "a/b".into()]);
        cm.metadata.deletion_timestamp = Some(Time(Timestamp::UNIX_EPOCH));
        assert!(has_finalizer(&cm, "a/b"));
        assert!(!has_finalizer(&cm, "a"));
        assert!(is_deleting(&cm));
    }
}
