//! Test support shared by conformance modules.

pub mod http2;
pub mod raw;
pub mod webhook_server;
