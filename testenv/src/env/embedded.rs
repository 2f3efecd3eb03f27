//! The embedded mode: an in-process server on 127.0.0.1.

use serde_json::Value;

use std::net::SocketAddr;

use super::backend::{Backend, Kind, Started};
use crate::Error;
use crate::endpoints::create;
use crate::endpoints::{Api, ApiOptions};
use crate::faults::Faults;
use crate::server::Server;
use crate::support::query::Query;
use crate::support::scratch::ScratchDir;

/// What an embedded environment keeps alive.
pub struct Embedded {
    /// The HTTPS server (stopped on drop).
    pub server: Server,
    /// The server's state (webhook service routes are registered on it).
    pub api: std::sync::Arc<Api>,
    /// Holds the kubeconfig and CA files until the environment is dropped.
    _dir: ScratchDir,
}

impl Backend for Embedded {
    fn kind(&self) -> Kind {
        Kind::Embedded
    }

    fn url(&self) -> String {
        self.server.url()
    }

    fn faults(&self) -> Result<Faults, Error> {
        Ok(self.server.faults())
    }

    fn route_service(&self, namespace: &str, name: &str, to: SocketAddr) -> Result<(), Error> {
        self.api.route_service(namespace, name, to);
        Ok(())
    }
}

/// Installs CRDs directly into the store (they are Established at once).
pub fn install_crds(api: &Api, crds: Vec<Value>) -> Result<(), Error> {
    let mut cluster = api.lock();
    let def = cluster
        .registry
        .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .expect("CRDs are a built-in resource");
    for crd in crds {
        let name = crd["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        create::create_object(&mut cluster, &def, None, crd, &Query::default()).map_err(|e| {
            Error::CrdRejected {
                name,
                source: e.into(),
            }
        })?;
    }
    Ok(())
}

/// Starts the server, installs the CRDs, writes the kubeconfig and builds the client.
pub async fn start(options: ApiOptions, crds: Vec<Value>) -> Result<Started, Error> {
    let api = crate::server::new_api(options);
    install_crds(&api, crds)?;
    let server = Server::start(api.clone(), 0).await?;
    let dir = ScratchDir::new("kubeforge-testenv-").map_err(|source| Error::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let kubeconfig_path = dir.path().join("kubeconfig");
    crate::support::kubeconfig::write(&kubeconfig_path, &server.url(), server.ca_pem())?;
    let client = crate::support::kubeconfig::client_from(&kubeconfig_path).await?;
    Ok(Started {
        backend: Box::new(Embedded {
            server,
            api,
            _dir: dir,
        }),
        client,
        kubeconfig_path,
        namespace: "default".into(),
    })
}
