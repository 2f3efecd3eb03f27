//! The controllers a real control plane runs next to the API server (in
//! kube-controller-manager): the garbage collector, namespace lifecycle, CRD clean-up and the
//! disruption controller (PodDisruptionBudget status), ResourceQuota usage ([`quota`]),
//! PVC, PV and VolumeAttributesClass protection ([`pvc_protection`], [`pv_protection`],
//! [`vac_protection`]), the ServiceCIDR finalizer and status ([`service_cidrs`]), the
//! persistent volume binder ([`volume_binder`]), the FlowSchema `Dangling`
//! condition kube-apiserver keeps ([`flow_status`]), the APIServices of what the server
//! serves ([`api_services`]), ClusterRole aggregation, the objects
//! a fresh cluster and every new namespace have ([`bootstrap`], [`namespace_objects`]).
//!
//! They act only through the in-process client the API lends them
//! (`crate::endpoints::hooks::Client`), inside the request that made the change, so watchers
//! see the events in the real order. [`ControllerManager`] is what the server hands the API.

pub mod aggregation;
pub mod api_services;
pub mod bootstrap;
pub mod crds;
pub mod disruption;
pub mod flow_status;
pub mod gc;
pub mod manager;
pub mod namespace_objects;
pub mod namespaces;
pub mod policy_status;
pub mod pv_protection;
pub mod pvc_protection;
pub mod quota;
pub mod service_cidrs;
pub mod service_ips;
pub mod vac_protection;
pub mod volume_binder;

pub use manager::ControllerManager;
