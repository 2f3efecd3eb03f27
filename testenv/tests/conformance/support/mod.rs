//! Test support shared by conformance modules.

pub mod http2;
pub mod protobuf_wire;
pub mod raw;
pub mod webhook_server;
