//! The in-process [`Client`] the controllers act through: the locked cluster itself, with
//! deletions and removals going through the DELETE handler's rules.

use std::sync::Arc;

use serde_json::Value;

use super::delete::{delete_object, remove_now};
use super::delete_options::{DeleteOptions, Deleted};
use super::hooks::Client;
use super::state::Cluster;
use crate::registry::Registry;
use crate::storage::Store;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

impl Client for Cluster {
    fn store(&self) -> &Store {
        &self.store
    }

    fn registry(&self) -> &Registry {
        &self.registry
    }

    fn put(&mut self, def: &ResourceDef, ns: &str, name: &str, object: Value) -> Arc<Value> {
        self.store.put(&def.storage_key, ns, name, object)
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
