//! [`TestEnv::faults`]: the fault-injection handle of the embedded server.

use super::{Backend, TestEnv};
use crate::Error;
use crate::faults::Faults;

impl TestEnv {
    /// A handle to inject faults (failures, latency, lost watch events, closed watches,
    /// compaction, restarts) into the embedded API server.
    ///
    /// Errors with [`Error::FaultsUnavailable`] in real-cluster mode
    /// (`KUBEFORGE_TEST_CLUSTER=existing`), where the server is not ours to break; tests
    /// that need faults can skip themselves on that error.
    pub fn faults(&self) -> Result<Faults, Error> {
        match &self.backend {
            Backend::Embedded(e) => Ok(e.server.faults()),
            Backend::Existing(e) => Err(Error::FaultsUnavailable { url: e.url.clone() }),
        }
    }
}
