//! One module per API group: the behaviour of its resources and subresources beyond what
//! the cross-cutting modules (crud, listing, watch, patches, ...) cover, pinned against the
//! real server by running in every mode.

mod admissionregistration;
mod apiregistration;
mod apps;
mod authentication;
mod authorization;
mod autoscaling;
mod batch;
mod certificates;
mod coordination;
mod core;
mod core_api_machinery;
mod core_decoding;
mod core_limits;
mod core_namespaces;
mod core_nodes;
mod core_pod_checks;
mod core_pod_rules;
mod core_services;
mod core_tls;
mod discovery;
mod events;
mod flowcontrol;
mod impersonation;
mod networking;
mod node;
mod pod_security;
mod policy;
mod resource;
mod resource_raw;
mod scheduling;
mod storage;
