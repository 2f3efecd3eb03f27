//! Test support shared by conformance modules.

pub mod raw;
pub mod webhook_server;
