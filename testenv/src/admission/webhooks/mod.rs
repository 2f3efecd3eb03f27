//! Admission webhooks (Mutating- and ValidatingWebhookConfigurations) around the write
//! handlers and before CONNECT requests, as kube-apiserver calls them (the HTTPS client is
//! `support::webhook_client`).

pub mod chain;
pub mod config;
pub mod connect;
pub mod dispatch;
pub mod review;
pub mod selection;
