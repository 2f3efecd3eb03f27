//! [`TestEnv::faults`]: the fault-injection handle of the embedded server.

use super::TestEnv;
use crate::Error;
use crate::faults::Faults;

impl TestEnv {
    /// A handle to inject faults (failures, latency, lost watch events, closed watches,
    /// compaction, restarts) into the embedded API server.
    ///
    /// Errors with [`Error::FaultsUnavailable`] against a real kube-apiserver
    /// (`KUBEFORGE_TEST_CLUSTER=binaries` or `existing`), which is not ours to break; tests
    /// that need faults can skip themselves on that error.
    pub fn faults(&self) -> Result<Faults, Error> {
        self.backend.faults()
    }
}
