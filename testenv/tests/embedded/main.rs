//! Tests of the embedded server itself, in one test binary (one link instead of one per file).
//! Unlike `conformance`, they describe this implementation, not Kubernetes:
//!
//! - `architecture`: the layers of `src/`, enforced on its import graph;
//! - `parity`: discovery and OpenAPI compared with a recording of kube-apiserver v1.34, and
//!   the README's list of served resources generated from that comparison;
//! - `outage`, `policy`: embedded-only behaviour (a simulated outage, the review policy and
//!   bookmark interval);
//! - `schema_*`: the schema pipeline (structural checks, pruning, defaulting, validation) as
//!   functions, through kubectl, and on generated odd input.
//!
//! Tests that change process-wide state (`faults` and `existing_cluster` set `KUBECONFIG` and
//! the mode variable) or start real control planes (`binaries`) keep binaries of their own.

// The CRD literals of `schema_crd_pipeline` nest deeper than `json!`'s default limit allows.
#![recursion_limit = "256"]

#[path = "../support/module_graph/mod.rs"]
mod module_graph;

mod architecture;
mod outage;
mod parity;
mod policy;
mod schema_builtin_defaults_roundtrip;
mod schema_crd_pipeline;
mod schema_kubectl;
mod schema_robustness;
