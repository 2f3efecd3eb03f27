//! The kubeconfig file pointing kubectl and kube clients at an embedded server.

use std::path::{Path, PathBuf};

use crate::Error;

/// Name used for the cluster, user and context entries.
pub const CONTEXT: &str = "kubeforge-testenv";

/// Bearer token written to the kubeconfig; the server accepts any token, and TokenReview
/// reports this one as the `kubeforge-testenv` admin user.
pub const TOKEN: &str = "kubeforge-testenv-admin";

/// The kubeconfig YAML for a server at `url` whose CA is in `ca_path`.
pub fn render(url: &str, ca_path: &Path) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: {CONTEXT}\n  cluster:\n    server: {url}\n    certificate-authority: {ca}\nusers:\n- name: {CONTEXT}\n  user:\n    token: {TOKEN}\ncontexts:\n- name: {CONTEXT}\n  context:\n    cluster: {CONTEXT}\n    user: {CONTEXT}\n    namespace: default\ncurrent-context: {CONTEXT}\npreferences: {{}}\n",
        ca = ca_path.display()
    )
}

/// Writes `ca.crt` next to the kubeconfig and the kubeconfig itself; returns the CA path.
pub fn write(kubeconfig_path: &Path, url: &str, ca_pem: &str) -> Result<PathBuf, Error> {
    let dir = kubeconfig_path.parent().unwrap_or(Path::new("."));
    if !dir.as_os_str().is_empty() {
        std::fs::create_dir_all(dir).map_err(|source| Error::Write {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let stem = kubeconfig_path
        .file_name()
        .map_or_else(|| "kubeconfig".into(), |f| f.to_string_lossy().into_owned());
    let ca_path = dir.join(format!("{stem}.ca.crt"));
    let ca_path = if ca_path.is_absolute() {
        ca_path
    } else {
        std::env::current_dir()
            .map(|d| d.join(&ca_path))
            .unwrap_or(ca_path)
    };
    std::fs::write(&ca_path, ca_pem).map_err(|source| Error::Write {
        path: ca_path.clone(),
        source,
    })?;
    std::fs::write(kubeconfig_path, render(url, &ca_path)).map_err(|source| Error::Write {
        path: kubeconfig_path.to_path_buf(),
        source,
    })?;
    Ok(ca_path)
}

/// A kube client configured from the kubeconfig file, exactly as a user's program would be.
pub async fn client_from(kubeconfig_path: &Path) -> Result<kube::Client, Error> {
    client_of(config_from(kubeconfig_path).await?)
}

/// The client configuration of the kubeconfig at `kubeconfig_path` (its current context).
pub async fn config_from(kubeconfig_path: &Path) -> Result<kube::Config, Error> {
    let kubeconfig = kube::config::Kubeconfig::read_from(kubeconfig_path)
        .map_err(|e| Error::Client(e.into()))?;
    kube::Config::from_custom_kubeconfig(kubeconfig, &kube::config::KubeConfigOptions::default())
        .await
        .map_err(|e| Error::Client(e.into()))
}

/// A client made from `config`.
pub fn client_of(config: kube::Config) -> Result<kube::Client, Error> {
    kube::Client::try_from(config).map_err(|e| Error::Client(e.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_kubeconfig_that_cannot_be_read_keeps_kubes_error_as_the_cause() {
        let Err(err) = client_from(Path::new("/nonexistent/kubeforge/kubeconfig")).await else {
            panic!("a kubeconfig that does not exist gave a client");
        };
        assert!(matches!(err, Error::Client(_)), "{err:?}");
        let cause = std::error::Error::source(&err).expect("kube's error is the source");
        assert!(
            cause.is::<kube::config::KubeconfigError>(),
            "typed, not text: {cause:?}"
        );
        assert!(err.to_string().contains(&cause.to_string()), "{err}");
    }
}
