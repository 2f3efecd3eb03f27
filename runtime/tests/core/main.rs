//! The runtime's integration tests against the embedded API server, in one test binary (one
//! link instead of one per file; on a 2-core machine that is minutes of every build). Each
//! module is one subject: the cache, controllers, the manager and its runnable groups, leader
//! election, outage and fault recovery, secure metrics, state-of-world controllers, the webhook
//! server in a manager, and every common Rust shape as a CRD (`shapes_round_trip`, whose API types are the only ones
//! registered in this binary, in a group of their own).
//!
//! Tests that need a process of their own stay beside this folder: the ones whose results depend
//! on every API type, webhook or RBAC declaration registered in the scheme (`manifests_*`,
//! `rbac_*`, `webhook_e2e`, `webhook_manifests`, `webhook_server`, `scheme_conversion`), install
//! a global logger (`logging`), send the process signals (`signals`), need a cargo feature
//! (`http2`), or register one kind `Thing` per module (`derive_fixes`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../shape_types/mod.rs"]
mod shape_types;

mod cache;
mod cache_backpressure;
mod cache_memory;
mod controller;
mod fault_recovery;
mod helpers;
mod leader_election;
mod manager;
mod outage;
mod runnables;
mod secure_metrics;
mod shapes_round_trip;
mod sharding;
mod webhook_manager;
mod world;
mod world_healing;
mod world_policy_example;
mod world_topology;
