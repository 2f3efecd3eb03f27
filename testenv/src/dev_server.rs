//! `kubeforge dev-server`: the embedded API server run standalone in the foreground, so a user
//! can develop an operator (`make run`, kubectl) without any cluster.

use std::path::PathBuf;

/// Options of `kubeforge dev-server`.
#[derive(Debug, Clone)]
pub struct DevServerOptions {
    /// Port to listen on at 127.0.0.1; 0 picks a random free port.
    pub port: u16,
    /// Where to write the kubeconfig that points kubectl and the operator at the server.
    pub kubeconfig_path: PathBuf,
    /// Directories whose `*.yaml` CustomResourceDefinitions are installed at start-up.
    pub crd_dirs: Vec<PathBuf>,
}

/// Why the dev server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server is not available in this build yet.
    #[error("the dev server could not start: {0}")]
    Start(String),
}

/// Starts the server, writes the kubeconfig, prints how to use it, and serves until Ctrl-C.
pub async fn run(options: DevServerOptions) -> Result<(), Error> {
    Err(Error::Start(format!(
        "not wired yet (kubeconfig would be written to {})",
        options.kubeconfig_path.display()
    )))
}
