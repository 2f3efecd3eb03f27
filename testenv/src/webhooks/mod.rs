//! Calling webhooks like kube-apiserver: the HTTPS client shared by admission and
//! conversion webhooks, and admission webhooks (Mutating- and
//! ValidatingWebhookConfigurations) around the REST write handlers.

pub mod admission;
pub mod client;
pub mod config;
pub mod dispatch;
pub mod review;
pub mod validate;
