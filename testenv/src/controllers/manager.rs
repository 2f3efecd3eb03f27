//! [`ControllerManager`]: every controller, told of the changes each reacts to.

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::Value;

use super::{
    aggregation, api_services, bootstrap, crds, disruption, flow_status, gc, namespace_objects,
    namespaces, policy_status, pv_protection, pvc_protection, quota, service_cidrs, service_ips,
    vac_protection, volume_binder,
};
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

fn is_cluster_role(def: &ResourceDef) -> bool {
    def.group == "rbac.authorization.k8s.io" && def.plural == "clusterroles"
}

/// Tells the disruption controller of a pod or budget that changed.
fn disruption_changed(client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
    if def.group.is_empty() && def.plural == "pods" {
        disruption::pods_changed(client, ns);
    } else if def.group == "policy" && def.plural == "poddisruptionbudgets" {
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        disruption::sync(client, ns, name);
    }
}

/// Tells the volume binder of a volume, claim, class or recycler pod that changed (a claim's
/// own Events are recorded again).
fn binder_changed(client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    if volume_binder::watches(&def.group, &def.plural) {
        let claim = pvc_protection::is_claim(&def.group, &def.plural).then_some((ns, name));
        volume_binder::sync(client, claim);
    } else if is_pod(def) && volume_binder::watches_pod(ns, name) {
        volume_binder::sync(client, None);
    }
}

fn is_pod(def: &ResourceDef) -> bool {
    def.group.is_empty() && def.plural == "pods"
}

impl Controllers for ControllerManager {
    fn created(&self, client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
        // A reference to an owner that does not exist is dealt with at once.
        gc::created(client, def, object, ns);
        disruption_changed(client, def, object, ns);
        binder_changed(client, def, object, ns);
        if def.group.is_empty() && def.plural == "events" {
            volume_binder::recycler::pod_event(client, object);
        }
        if service_ips::watches(&def.group, &def.plural) {
            service_ips::sync(client, object);
        }
        if service_cidrs::watches(&def.group, &def.plural) {
            service_cidrs::sync(client);
        }
        if is_namespace(def) {
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            namespace_objects::created(client, name);
        } else if is_cluster_role(def) {
            aggregation::aggregate_all(client);
        } else if policy_status::is_policy(def) {
            policy_status::sync(client, def, object);
        } else if flow_status::is_flow_control(def) {
            flow_status::sync_all(client);
        } else if crd::is_crd(def) {
            api_services::sync_crds(client);
        }
        quota::sync(client, ns);
    }

    fn updated(&self, client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
        // A reference to an owner that does not exist is dealt with at once, as on create.
        gc::updated(client, def, object, ns);
        disruption_changed(client, def, object, ns);
        binder_changed(client, def, object, ns);
        if def.group.is_empty() && def.plural == "pods"
            || pvc_protection::is_claim(&def.group, &def.plural)
        {
            pvc_protection::sync(client, ns);
        }
        if pv_protection::is_volume(&def.group, &def.plural) {
            pv_protection::sync(client);
        }
        if vac_protection::watches(&def.group, &def.plural) {
            vac_protection::sync(client);
        }
        if service_ips::watches(&def.group, &def.plural) {
            service_ips::sync(client, object);
        }
        if service_cidrs::watches(&def.group, &def.plural) {
            service_cidrs::sync(client);
        }
        if is_namespace(def) {
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            namespaces::finish_if_empty(client, name);
        } else if is_cluster_role(def) {
            aggregation::aggregate_all(client);
        } else if policy_status::is_policy(def) {
            policy_status::sync(client, def, object);
        } else if flow_status::is_flow_control(def) {
            flow_status::sync_all(client);
        } else if crd::is_crd(def) {
            crds::changed(client, object);
            api_services::sync_crds(client);
        }
        quota::sync(client, ns);
    }

    fn started(&self, client: &mut dyn Client) {
        bootstrap::started(client);
        flow_status::sync_all(client);
        service_cidrs::started(client);
    }

    fn serving(&self, client: &mut dyn Client, addr: SocketAddr) {
        bootstrap::kubernetes_service::serving(client, addr);
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
            if pvc_protection::is_claim(&def.group, &def.plural) {
                pvc_protection::sync(client, ns);
            }
            if pv_protection::is_volume(&def.group, &def.plural) {
                pv_protection::sync(client);
            }
            if vac_protection::watches(&def.group, &def.plural) {
                vac_protection::sync(client);
            }
            if service_cidrs::watches(&def.group, &def.plural) {
                service_cidrs::sync(client);
            }
        }
    }

    fn removed(&self, client: &mut dyn Client, def: &ResourceDef, object: &Value, ns: &str) {
        gc::removed(client, object, ns);
        if volume_binder::watches(&def.group, &def.plural) {
            // A claim gone releases its volume; a volume gone loses its claim.
            volume_binder::sync(client, None);
            pv_protection::sync(client);
        }
        if vac_protection::watches(&def.group, &def.plural) {
            // A claim or volume gone may release a class being deleted.
            vac_protection::sync(client);
        }
        if service_ips::watches(&def.group, &def.plural) {
            service_ips::removed(client, object);
        }
        if service_cidrs::watches(&def.group, &def.plural) {
            // An address or a range gone may release a ServiceCIDR being deleted.
            service_cidrs::sync(client);
        }
        if is_pod(def) {
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            volume_binder::recycler_pod_removed(client, ns, name);
            disruption::pods_changed(client, ns);
            pvc_protection::sync(client, ns);
        } else if is_cluster_role(def) {
            aggregation::aggregate_all(client);
        } else if flow_status::is_flow_control(def) {
            flow_status::sync_all(client);
        } else if crd::is_crd(def) {
            // The names it held are free: the group's other CRDs may take them.
            let group = object["spec"]["group"].as_str().unwrap_or_default();
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            crds::group_changed(client, group, name);
            api_services::sync_crds(client);
        }
        quota::sync(client, ns);
        if !ns.is_empty() {
            namespaces::finish_if_empty(client, ns);
        }
        if def.custom.is_some() {
            crds::finish_if_empty(client, def);
        }
    }
}
