//! What every backend of a [`TestEnv`](super::TestEnv) provides (the embedded server, a
//! private control plane of real binaries, an existing cluster), below both the backends and
//! `TestEnv`: the backends build a [`Started`] environment, `TestEnv` wraps it and asks its
//! [`Backend`] for what differs between them.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::Error;
use crate::faults::Faults;

/// Which kind of API server an environment runs against, as `KUBEFORGE_TEST_CLUSTER`
/// spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The in-process embedded server (`embedded`).
    Embedded,
    /// A private control plane of real binaries (`binaries`).
    Binaries,
    /// The cluster of `KUBECONFIG` (`existing`).
    Existing,
}

impl Kind {
    /// The name `KUBEFORGE_TEST_CLUSTER` uses for this kind.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Embedded => "embedded",
            Kind::Binaries => "binaries",
            Kind::Existing => "existing",
        }
    }
}

/// The part of a running environment that differs between backends. Dropping it stops the
/// embedded server, or cleans up the environment's namespace and CRDs in a real cluster.
pub trait Backend: Send + Sync {
    /// Which kind of server this is.
    fn kind(&self) -> Kind;

    /// The server's base URL.
    fn url(&self) -> String;

    /// The fault-injection handle (embedded server only).
    fn faults(&self) -> Result<Faults, Error> {
        Err(Error::FaultsUnavailable {
            url: self.url(),
            mode: self.kind().name(),
        })
    }

    /// Sends webhook calls addressed to the Service `namespace/name` to `to` (embedded server
    /// only: a real kube-apiserver resolves services itself).
    fn route_service(&self, namespace: &str, name: &str, to: SocketAddr) -> Result<(), Error> {
        Err(routes_need_embedded(&[(
            namespace.to_string(),
            name.to_string(),
            to,
        )]))
    }
}

/// An environment a backend has started, before it becomes a [`TestEnv`](super::TestEnv).
pub struct Started {
    /// What differs between backends (kept alive for the environment's lifetime).
    pub backend: Box<dyn Backend>,
    /// A ready client.
    pub client: kube::Client,
    /// The kubeconfig file the client was built from.
    pub kubeconfig_path: PathBuf,
    /// The namespace the test should use.
    pub namespace: String,
}

/// The error for service routes asked for against a real kube-apiserver.
pub fn routes_need_embedded(routes: &[(String, String, SocketAddr)]) -> Error {
    let names: Vec<String> = routes
        .iter()
        .map(|(ns, name, _)| format!("{ns}/{name}"))
        .collect();
    Error::RouteNeedsEmbedded(names.join(", "))
}
