//! Webhook service routes: where the embedded server sends calls addressed to a Service.
//!
//! A webhook configuration's `clientConfig.service` names a Service, which a real cluster
//! resolves through its network. The embedded server has no cluster network, so tests
//! register the address their in-process webhook listens on; the TLS server name stays
//! `<name>.<namespace>.svc`.

use std::net::SocketAddr;

use super::{TestEnv, TestEnvBuilder};
use crate::Error;

impl TestEnvBuilder {
    /// Sends webhook calls addressed to the Service `namespace/name` (any port) to `to`
    /// (embedded server only; against a real kube-apiserver `start` fails with an
    /// explanation, since it resolves services itself).
    pub fn route_service(mut self, namespace: &str, name: &str, to: SocketAddr) -> Self {
        self.options
            .service_routes
            .push((namespace.to_string(), name.to_string(), to));
        self
    }
}

impl TestEnv {
    /// Sends webhook calls addressed to the Service `namespace/name` (any port) to `to`,
    /// from now on. Against a real kube-apiserver (binaries or existing-cluster mode) this is
    /// an error: it resolves services itself.
    pub fn route_service(&self, namespace: &str, name: &str, to: SocketAddr) -> Result<(), Error> {
        self.backend.route_service(namespace, name, to)
    }
}
