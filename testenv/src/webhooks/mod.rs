//! Calling webhooks like kube-apiserver: the HTTPS client shared by admission and
//! conversion webhooks.

pub mod client;
