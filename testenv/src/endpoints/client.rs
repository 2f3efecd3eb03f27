//! The in-process [`Client`] the controllers act through: the locked cluster itself, with
//! deletions and removals going through the DELETE handler's rules.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::create::create_object_as;
use super::delete::{delete_object, remove_now};
use super::delete_options::{DeleteOptions, Deleted};
use super::fields::Fields;
use super::hooks::{Client, Job};
use super::state::Cluster;
use crate::registry::{Registry, crd};
use crate::storage::Store;
use crate::support::query::Query;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

impl Client for Cluster {
    fn later(&mut self, delay: Duration, job: Job) {
        if let Some(job) = self.deferred.push(Instant::now() + delay, job) {
            job(self);
        }
    }

    fn store(&self) -> &Store {
        &self.store
    }

    fn registry(&self) -> &Registry {
        &self.registry
    }

    fn put(&mut self, def: &ResourceDef, ns: &str, name: &str, object: Value) -> Arc<Value> {
        let stored = self.store.put(&def.storage_key, ns, name, object);
        // A CRD's status decides whether its resources are served.
        if crd::is_crd(def) {
            crd::register(&mut self.registry, &stored);
        }
        stored
    }

    fn delete(
        &mut self,
        def: &Arc<ResourceDef>,
        ns: &str,
        name: &str,
        options: &DeleteOptions,
    ) -> Result<Deleted, ApiError> {
        delete_object(self, def, ns, name, options)
    }

    fn create(
        &mut self,
        def: &ResourceDef,
        ns: &str,
        object: Value,
        manager: &str,
    ) -> Result<Arc<Value>, ApiError> {
        let ns = (!ns.is_empty()).then_some(ns);
        let fields = Fields::Update(manager.to_string());
        create_object_as(self, def, ns, object, &Query::default(), fields).map(|(o, _)| o)
    }

    fn create_unvalidated(
        &mut self,
        def: &ResourceDef,
        ns: &str,
        object: Value,
        manager: &str,
    ) -> Result<Arc<Value>, ApiError> {
        let ns = (!ns.is_empty()).then_some(ns);
        let fields = Fields::Update(manager.to_string());
        let query = Query::default().stop_before_validation();
        create_object_as(self, def, ns, object, &query, fields).map(|(o, _)| o)
    }

    fn remove(
        &mut self,
        def: &ResourceDef,
        ns: &str,
        name: &str,
        last: Option<Value>,
    ) -> Option<Arc<Value>> {
        remove_now(self, def, ns, name, last)
    }
}
