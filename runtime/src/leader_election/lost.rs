//! Why a leader lost its lease: the cause [`crate::Error::LeaderElectionLost`] carries. A file of
//! its own, below both the error type and the elector that returns it.

use std::time::Duration;

/// Why a leader lost its lease ([`crate::Error::LeaderElectionLost`]).
#[derive(Debug, thiserror::Error)]
pub enum LeaseLost {
    /// Another candidate holds the lease now (it expired on its clock and it took it).
    #[error("lease {lease} is now held by {holder}")]
    TakenOver {
        /// The lease's name.
        lease: String,
        /// Its holder now, or `nobody`.
        holder: String,
    },
    /// No renewal succeeded within the renew deadline: the leader stops before the lease can
    /// expire for the others.
    #[error("could not renew lease {lease} within {deadline:?}{}", last_error.as_ref().map(|e| format!(" (last error: {e})")).unwrap_or_default())]
    NotRenewed {
        /// The lease's name.
        lease: String,
        /// The renew deadline.
        deadline: Duration,
        /// The last renewal's error, if the API server answered one (none when renewals timed
        /// out).
        #[source]
        last_error: Option<kube::Error>,
    },
}
