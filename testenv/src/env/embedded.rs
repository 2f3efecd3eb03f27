//! The embedded mode: an in-process server on 127.0.0.1.

use serde_json::Value;

use super::{Backend, TestEnv};
use crate::Error;
use crate::rest::{Api, ApiOptions, Query, write};
use crate::server::Server;

/// What an embedded environment keeps alive.
pub struct Embedded {
    /// The HTTPS server (stopped on drop).
    pub server: Server,
    /// The server's state (webhook service routes are registered on it).
    pub api: std::sync::Arc<Api>,
    /// Holds the kubeconfig and CA files until the environment is dropped.
    _dir: tempfile::TempDir,
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
        write::create_object(&mut cluster, &def, None, crd, &Query::default()).map_err(|e| {
            Error::CrdRejected {
                name,
                message: e.message,
            }
        })?;
    }
    Ok(())
}

/// Starts the server, installs the CRDs, writes the kubeconfig and builds the client.
pub async fn start(options: ApiOptions, crds: Vec<Value>) -> Result<TestEnv, Error> {
    let api = Api::new(options);
    install_crds(&api, crds)?;
    let server = Server::start(api.clone(), 0).await?;
    let dir = tempfile::Builder::new()
        .prefix("kubeforge-testenv-")
        .tempdir()
        .map_err(|source| Error::Write {
            path: std::env::temp_dir(),
            source,
        })?;
    let kubeconfig_path = dir.path().join("kubeconfig");
    crate::kubeconfig::write(&kubeconfig_path, &server.url(), server.ca_pem())?;
    let client = crate::kubeconfig::client_from(&kubeconfig_path).await?;
    Ok(TestEnv {
        backend: Backend::Embedded(Embedded {
            server,
            api,
            _dir: dir,
        }),
        client,
        kubeconfig_path,
        namespace: "default".into(),
    })
}
