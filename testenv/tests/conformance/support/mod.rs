//! Test support shared by conformance modules.

pub mod webhook_server;
