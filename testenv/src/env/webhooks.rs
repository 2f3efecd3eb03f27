//! Webhook service routes: where the embedded server sends calls addressed to a Service.
//!
//! A webhook configuration's `clientConfig.service` names a Service, which a real cluster
//! resolves through its network. The embedded server has no cluster network, so tests
//! register the address their in-process webhook listens on; the TLS server name stays
//! `<name>.<namespace>.svc`.

use std::net::SocketAddr;

use super::{Backend, TestEnv, TestEnvBuilder};
use crate::Error;

/// The error for routes asked for in real-cluster mode.
pub(super) fn routes_need_embedded(routes: &[(String, String, SocketAddr)]) -> Error {
    let names: Vec<String> = routes
        .iter()
        .map(|(ns, name, _)| format!("{ns}/{name}"))
        .collect();
    Error::RouteNeedsEmbedded(names.join(", "))
}

impl TestEnvBuilder {
    /// Sends webhook calls addressed to the Service `namespace/name` (any port) to `to`
    /// (embedded server only; in real-cluster mode `start` fails with an explanation, since
    /// the cluster resolves services itself).
    pub fn route_service(mut self, namespace: &str, name: &str, to: SocketAddr) -> Self {
        self.options
            .service_routes
            .push((namespace.to_string(), name.to_string(), to));
        self
    }
}

impl TestEnv {
    /// Sends webhook calls addressed to the Service `namespace/name` (any port) to `to`,
    /// from now on. In real-cluster mode this is an error: the cluster resolves services
    /// itself.
    pub fn route_service(&self, namespace: &str, name: &str, to: SocketAddr) -> Result<(), Error> {
        match &self.backend {
            Backend::Embedded(e) => {
                e.api.route_service(namespace, name, to);
                Ok(())
            }
            Backend::Existing(_) => Err(routes_need_embedded(&[(
                namespace.to_string(),
                name.to_string(),
                to,
            )])),
        }
    }
}
