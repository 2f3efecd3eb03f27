//! [`ControllerManager`]: every controller, told of the changes each reacts to.

use std::sync::Arc;

use serde_json::Value;

use super::{crds, gc, namespaces};
use crate::endpoints::hooks::{Client, Controllers};
use crate::registry::crd;
use crate::support::resource::ResourceDef;

/// The controllers of the embedded server, as kube-controller-manager would run them.
#[derive(Debug, Default, Clone, Copy)]
pub struct ControllerManager;

/// Whether `def` is the core Namespace resource.
fn is_namespace(def: &ResourceDef) -> bool {
    def.group.is_empty() && def.plural == "namespaces"
}

impl Controllers for ControllerManager {
    fn created(&self, client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
        // A reference to an owner that does not exist is dealt with at once.
        gc::created(client, def, object, ns);
    }

    fn deleting(&self, client: &mut dyn Client, def: &Arc<ResourceDef>, object: &Value, ns: &str) {
        // Namespaces and CRDs have their own deletion machinery; garbage-collection
        // finalizers are for everything else.
        if is_namespace(def) {
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            namespaces::terminating(client, name);
        } else if crd::is_crd(def) {
            crds::deleting(client, object);
        } else {
            gc::marked(client, def, object, ns);
        }
    }

    fn removed(&self, client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
        gc::removed(client, object, ns);
        if !ns.is_empty() {
            namespaces::finish_if_empty(client, ns);
        }
        if def.custom.is_some() {
            crds::finish_if_empty(client, def);
        }
    }
}
