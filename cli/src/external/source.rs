//! Where a CRD is read from: a file, an http(s) URL (through `curl`), or the cluster of the
//! kubeconfig (through `kubectl get crd <name> -o json`, which honours `KUBECONFIG` and the
//! current context exactly as the user's kubectl does).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::error::ExternalError;

/// The prefix of a cluster source (`cluster:certificates.cert-manager.io`).
pub const CLUSTER_PREFIX: &str = "cluster:";

/// Where a CRD comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrdSource {
    /// A YAML or JSON file (absolute).
    File(PathBuf),
    /// An http(s) URL.
    Url(String),
    /// A CRD of the cluster, by name.
    Cluster(String),
}

impl CrdSource {
    /// The source `text` names; a relative file is relative to `base`.
    pub fn parse(text: &str, base: &Path) -> Self {
        if let Some(name) = text.strip_prefix(CLUSTER_PREFIX) {
            CrdSource::Cluster(name.to_owned())
        } else if text.starts_with("http://") || text.starts_with("https://") {
            CrdSource::Url(text.to_owned())
        } else {
            CrdSource::File(base.join(text))
        }
    }

    /// How PROJECT records it: a file inside `project_root` relative to it (so the project can
    /// move), anything else as given.
    pub fn record(&self, project_root: &Path) -> String {
        match self {
            CrdSource::File(path) => path
                .strip_prefix(project_root)
                .unwrap_or(path)
                .to_string_lossy()
                .replace('\\', "/"),
            CrdSource::Url(url) => url.clone(),
            CrdSource::Cluster(name) => format!("{CLUSTER_PREFIX}{name}"),
        }
    }

    /// The source, for messages.
    pub fn describe(&self) -> String {
        match self {
            CrdSource::File(path) => path.display().to_string(),
            CrdSource::Url(url) => url.clone(),
            CrdSource::Cluster(name) => format!("the cluster's CRD {name}"),
        }
    }

    /// The CRD's text.
    pub fn fetch(&self) -> Result<String, ExternalError> {
        let failed = |(reason, source): Failure, fix: &str| ExternalError::Fetch {
            origin: self.describe(),
            reason,
            source,
            fix: fix.to_owned(),
        };
        match self {
            CrdSource::File(path) => std::fs::read_to_string(path).map_err(|e| {
                failed(
                    ("the file does not read".to_owned(), Some(e)),
                    "pass the path of a CRD file (relative to the current directory), a URL, or cluster:<crd name>",
                )
            }),
            CrdSource::Url(url) => run(
                Command::new("curl").args(["-fsSL", "--max-time", "60", url]),
                "curl",
            )
            .map_err(|failure| {
                failed(
                    failure,
                    "check the URL, or download the CRD and pass the file (reading a URL needs curl on the PATH)",
                )
            }),
            CrdSource::Cluster(name) => run(
                Command::new("kubectl").args(["get", "crd", name, "-o", "json"]),
                "kubectl",
            )
            .map_err(|failure| {
                failed(
                    failure,
                    "check the CRD's name (`kubectl get crd`) and KUBECONFIG, or pass the CRD as a file",
                )
            }),
        }
    }
}

/// Why fetching failed: what, in words, and the I/O error behind it when there is one.
type Failure = (String, Option<std::io::Error>);

/// Runs `command`; its stdout, or why it failed.
fn run(command: &mut Command, program: &str) -> Result<String, Failure> {
    let output = command
        .output()
        .map_err(|e| (format!("{program} could not run"), Some(e)))?;
    if !output.status.success() {
        return Err((
            format!(
                "{program} failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ),
            None,
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| {
        (
            format!("{program} printed no text"),
            Some(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_records() {
        let root = Path::new("/project");
        let file = CrdSource::parse("crds/a.yaml", root);
        assert_eq!(file, CrdSource::File(PathBuf::from("/project/crds/a.yaml")));
        assert_eq!(file.record(root), "crds/a.yaml");
        assert_eq!(
            CrdSource::parse("/tmp/a.yaml", root).record(root),
            "/tmp/a.yaml"
        );
        let url = CrdSource::parse("https://example.com/crd.yaml", root);
        assert_eq!(url, CrdSource::Url("https://example.com/crd.yaml".into()));
        let cluster = CrdSource::parse("cluster:certificates.cert-manager.io", root);
        assert_eq!(
            cluster,
            CrdSource::Cluster("certificates.cert-manager.io".into())
        );
        assert_eq!(cluster.record(root), "cluster:certificates.cert-manager.io");
    }

    #[test]
    fn a_missing_file_names_the_fix() {
        let err = CrdSource::parse("/nonexistent/crd.yaml", Path::new("/"))
            .fetch()
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("could not read the CRD from /nonexistent/crd.yaml"),
            "{text}"
        );
        assert!(text.contains("fix: pass the path of a CRD file"), "{text}");
        let source = std::error::Error::source(&err).expect("the I/O error is kept");
        let io = source
            .downcast_ref::<std::io::Error>()
            .expect("an I/O error");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }
}
