//! Which binaries a private control plane runs: envtest's `KUBEBUILDER_ASSETS` convention,
//! its per-binary `TEST_ASSET_*` overrides, and whether kube-controller-manager runs.

use std::path::{Path, PathBuf};

use crate::Error;

/// envtest's variable naming the directory of `etcd`, `kube-apiserver` (and here, optionally,
/// `kube-controller-manager`), as `setup-envtest use -p path` prints it.
pub const ASSETS_VAR: &str = "KUBEBUILDER_ASSETS";

/// Turns kube-controller-manager off when set to `off`, `false`, `0` or `no`.
pub const CONTROLLER_MANAGER_VAR: &str = "KUBEFORGE_TEST_CONTROLLER_MANAGER";

/// envtest's directory when `KUBEBUILDER_ASSETS` is unset.
const DEFAULT_ASSETS: &str = "/usr/local/kubebuilder/bin";

const ETCD: &str = "etcd";
const KUBE_APISERVER: &str = "kube-apiserver";
const KUBE_CONTROLLER_MANAGER: &str = "kube-controller-manager";

/// Where the binaries of [`Mode::Binaries`](crate::Mode::Binaries) come from and whether
/// kube-controller-manager runs.
///
/// [`Binaries::from_env`] follows envtest: a binary's own `TEST_ASSET_<NAME>` variable
/// (`TEST_ASSET_ETCD`, `TEST_ASSET_KUBE_APISERVER`, `TEST_ASSET_KUBE_CONTROLLER_MANAGER`),
/// else `KUBEBUILDER_ASSETS/<name>`, else `/usr/local/kubebuilder/bin/<name>`. So the
/// binaries `setup-envtest` downloads work unchanged. kube-controller-manager runs when it
/// is found (setup-envtest does not ship it) unless turned off.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Binaries {
    /// The directory given explicitly; `None` reads the environment.
    assets: Option<PathBuf>,
    /// Whether kube-controller-manager may run; `None` reads `KUBEFORGE_TEST_CONTROLLER_MANAGER`.
    controller_manager: Option<bool>,
}

/// The binaries one control plane runs, resolved to files that exist. Control planes are
/// shared per process by this value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Resolved {
    /// The etcd binary.
    pub etcd: PathBuf,
    /// The kube-apiserver binary.
    pub kube_apiserver: PathBuf,
    /// The kube-controller-manager binary, when it runs.
    pub kube_controller_manager: Option<PathBuf>,
}

impl Binaries {
    /// Binaries found as envtest finds them (see the type's documentation).
    pub fn from_env() -> Self {
        Self::default()
    }

    /// Binaries in `dir` (`etcd`, `kube-apiserver`, optionally `kube-controller-manager`),
    /// ignoring the environment's asset variables.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        Binaries {
            assets: Some(dir.into()),
            controller_manager: None,
        }
    }

    /// `false` never runs kube-controller-manager (no garbage collection, namespaces stay
    /// Terminating); `true` runs it when it is found. Overrides
    /// `KUBEFORGE_TEST_CONTROLLER_MANAGER`.
    pub fn controller_manager(mut self, run: bool) -> Self {
        self.controller_manager = Some(run);
        self
    }

    /// Checks that etcd and kube-apiserver are found, so a test can skip itself (printing
    /// the error, which names what is missing and how to provide it) where they are not.
    pub fn available(&self) -> Result<(), Error> {
        self.resolve().map(|_| ())
    }

    /// Finds the binaries; errors name what is missing and how to provide it.
    pub(crate) fn resolve(&self) -> Result<Resolved, Error> {
        let find = |name: &str| self.locate(name);
        let etcd = require(ETCD, find(ETCD))?;
        let kube_apiserver = require(KUBE_APISERVER, find(KUBE_APISERVER))?;
        let run_kcm = self.controller_manager.unwrap_or_else(|| {
            !std::env::var(CONTROLLER_MANAGER_VAR).is_ok_and(|v| {
                matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "off" | "false" | "0" | "no"
                )
            })
        });
        let kube_controller_manager =
            Some(find(KUBE_CONTROLLER_MANAGER).0).filter(|p| run_kcm && is_executable(p));
        Ok(Resolved {
            etcd,
            kube_apiserver,
            kube_controller_manager,
        })
    }

    /// The path of `name` and where that path came from (for errors).
    fn locate(&self, name: &str) -> (PathBuf, String) {
        if let Some(dir) = &self.assets {
            return (dir.join(name), format!("the directory {}", dir.display()));
        }
        let own = format!(
            "TEST_ASSET_{}",
            name.to_ascii_uppercase()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        if let Some(path) = std::env::var_os(&own).filter(|v| !v.is_empty()) {
            return (PathBuf::from(path), own);
        }
        if let Some(dir) = std::env::var_os(ASSETS_VAR).filter(|v| !v.is_empty()) {
            let dir = PathBuf::from(dir);
            return (dir.join(name), format!("{ASSETS_VAR}={}", dir.display()));
        }
        (
            Path::new(DEFAULT_ASSETS).join(name),
            format!("envtest's default directory {DEFAULT_ASSETS} ({ASSETS_VAR} is not set)"),
        )
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn require(name: &'static str, (path, origin): (PathBuf, String)) -> Result<PathBuf, Error> {
    if is_executable(&path) {
        return Ok(path);
    }
    Err(Error::BinaryNotFound { name, path, origin })
}
