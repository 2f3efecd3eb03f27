//! Conformance tests: Kubernetes behaviour seen through kube::Client (and kubectl where it
//! is installed). They describe Kubernetes, not this implementation, so they also pass with
//! `KUBEFORGE_TEST_CLUSTER=existing` against a real cluster.

mod accept;
mod admission;
mod admission_connect;
mod admission_delete;
mod admission_validation;
mod apply;
mod apply_kubectl;
mod apply_versions;
mod cel;
mod common;
mod compression;
mod control_plane_small;
mod conversion;
mod crds;
mod crud;
mod discovery;
mod gc;
mod groups;
mod http1;
mod http1_framing;
mod http2;
mod kubectl;
mod kubectl_typed;
mod listing;
mod openapi_crd;
mod openapi_documents;
mod openapi_v2;
mod patches;
mod protobuf_answers;
mod protobuf_kinds;
mod semantics;
mod sharding;
mod status_strategies;
mod subresources;
mod support;
mod tables;
mod volume_binding;
mod watch;
mod watch_cache;
mod wire;
mod wire_go;
mod yaml_answers;
