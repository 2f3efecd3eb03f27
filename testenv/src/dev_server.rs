//! `kubeforge dev-server`: the embedded API server run standalone in the foreground, so a user
//! can develop an operator (`make run`, kubectl) without any cluster.

use std::path::PathBuf;

use crate::endpoints::ApiOptions;
use crate::env::load_crds;
use crate::server::Server;
pub use crate::support::features::FeatureGates;

/// Options of `kubeforge dev-server`.
#[derive(Debug, Clone)]
pub struct DevServerOptions {
    /// Port to listen on at 127.0.0.1; 0 picks a random free port.
    pub port: u16,
    /// Where to write the kubeconfig that points kubectl and the operator at the server.
    pub kubeconfig_path: PathBuf,
    /// Directories whose `*.yaml` CustomResourceDefinitions are installed at start-up.
    pub crd_dirs: Vec<PathBuf>,
    /// Feature gates (`--feature-gates ShardedListAndWatch=true`; all off by default).
    pub feature_gates: FeatureGates,
}

/// Why the dev server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Starting the server, reading CRDs or writing the kubeconfig failed.
    #[error(transparent)]
    Start(#[from] crate::Error),
    /// Waiting for Ctrl-C failed.
    #[error("could not wait for Ctrl-C: {0}")]
    Signal(std::io::Error),
}

/// The text printed once the server is up.
pub fn usage(url: &str, kubeconfig: &std::path::Path, crds: usize) -> String {
    let k = kubeconfig.display();
    format!(
        "kubeforge dev-server: Kubernetes API server on {url} ({crds} CRDs installed)\n\
         kubeconfig written to {k}\n\
         \n\
         Use it with kubectl:\n\
         \x20 export KUBECONFIG={k}\n\
         \x20 kubectl get namespaces\n\
         \n\
         Run your operator against it (from your project directory):\n\
         \x20 KUBECONFIG={k} make run\n\
         \n\
         State lives in memory and is lost when the server stops. Press Ctrl-C to stop.\n"
    )
}

/// Starts the server, writes the kubeconfig, prints how to use it, and serves until Ctrl-C.
pub async fn run(options: DevServerOptions) -> Result<(), Error> {
    let mut sources = Vec::new();
    for dir in &options.crd_dirs {
        sources.push(crate::env::CrdSource::Dir(dir.clone()));
    }
    let crds = load_crds(&sources)?;
    let count = crds.len();
    let api = crate::server::new_api(ApiOptions {
        feature_gates: options.feature_gates,
        ..ApiOptions::default()
    });
    crate::env::install_crds(&api, crds)?;
    let server = Server::start(api, options.port).await?;
    let path = if options.kubeconfig_path.is_absolute() {
        options.kubeconfig_path.clone()
    } else {
        std::env::current_dir().map_or_else(
            |_| options.kubeconfig_path.clone(),
            |d| d.join(&options.kubeconfig_path),
        )
    };
    crate::support::kubeconfig::write(&path, &server.url(), server.ca_pem())?;
    print!("{}", usage(&server.url(), &path, count));
    tokio::signal::ctrl_c().await.map_err(Error::Signal)?;
    drop(server);
    println!("kubeforge dev-server stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_mentions_kubectl_and_make_run() {
        let text = usage("https://127.0.0.1:1234", std::path::Path::new("/tmp/kc"), 2);
        assert!(text.contains("export KUBECONFIG=/tmp/kc"));
        assert!(text.contains("make run"));
        assert!(text.contains("2 CRDs"));
    }
}
