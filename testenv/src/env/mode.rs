//! [`Mode`]: which API server a [`TestEnv`](super::TestEnv) runs against, chosen by the
//! builder or by `KUBEFORGE_TEST_CLUSTER`.

use super::binaries::Binaries;
use crate::Error;

/// Environment variable selecting where tests run: unset (or `embedded`) for the in-process
/// server, `binaries` for a private control plane of envtest's binaries (`KUBEBUILDER_ASSETS`),
/// `existing` for the cluster of `KUBECONFIG`.
pub const MODE_VAR: &str = "KUBEFORGE_TEST_CLUSTER";

/// Which API server a test environment runs against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The embedded server, in the test process (the default): offline, started in
    /// milliseconds, a server per environment, fault injection.
    #[default]
    Embedded,
    /// A private control plane of real binaries (etcd, kube-apiserver and, when present,
    /// kube-controller-manager), started once per test process and shared by its
    /// environments, a namespace each. Stopped when the process ends.
    Binaries(Binaries),
    /// The cluster of `KUBECONFIG`, a namespace per environment.
    Existing,
}

impl Mode {
    /// The mode named by `KUBEFORGE_TEST_CLUSTER` (`embedded` when unset or empty;
    /// `binaries` finds its binaries with [`Binaries::from_env`]).
    pub fn from_env() -> Result<Mode, Error> {
        match std::env::var(MODE_VAR).ok().as_deref().map(str::trim) {
            None | Some("" | "embedded") => Ok(Mode::Embedded),
            Some("binaries") => Ok(Mode::Binaries(Binaries::from_env())),
            Some("existing") => Ok(Mode::Existing),
            Some(other) => Err(Error::UnknownMode(other.to_string())),
        }
    }

    /// The mode's name, as `KUBEFORGE_TEST_CLUSTER` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Embedded => "embedded",
            Mode::Binaries(_) => "binaries",
            Mode::Existing => "existing",
        }
    }
}
