//! Reconcile errors: the convenience [`ReconcileError`], terminal errors, and the runtime's own
//! failure kinds (panic, timeout).

use std::{error::Error as StdError, time::Duration};

/// A convenient error type for reconcile functions.
///
/// Converts from `kube::Error` and `serde_json::Error` so `?` works; build one from a message
/// with [`ReconcileError::new`] or mark it as not retryable with [`ReconcileError::terminal`].
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ReconcileError {
    message: String,
    #[source]
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    terminal: bool,
}

impl ReconcileError {
    /// A retryable error with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
            terminal: false,
        }
    }

    /// A terminal error: logged and counted, never retried (until the object changes again).
    pub fn terminal(message: impl Into<String>) -> Self {
        Self {
            terminal: true,
            ..Self::new(message)
        }
    }

    /// A retryable error wrapping another error.
    pub fn wrap(source: impl StdError + Send + Sync + 'static) -> Self {
        Self {
            message: source.to_string(),
            source: Some(Box::new(source)),
            terminal: false,
        }
    }

    /// Marks this error as terminal.
    #[must_use]
    pub fn into_terminal(mut self) -> Self {
        self.terminal = true;
        self
    }

    /// Whether this error is terminal.
    pub fn is_terminal(&self) -> bool {
        self.terminal
    }
}

impl From<kube::Error> for ReconcileError {
    fn from(e: kube::Error) -> Self {
        Self::wrap(e)
    }
}

impl From<serde_json::Error> for ReconcileError {
    fn from(e: serde_json::Error) -> Self {
        Self::wrap(e)
    }
}

/// How the runtime classifies a reconcile error.
///
/// Implemented for every error type: an error is terminal when it, or any error in its
/// `source()` chain, is a [`ReconcileError`] built with [`ReconcileError::terminal`]. Your own
/// error enum can carry one as a `#[source]` (not `#[error(transparent)]`, which hides it) to
/// make that variant terminal.
pub trait ReconcileFailure {
    /// Whether the error must not be retried.
    fn is_terminal(&self) -> bool;
}

impl<E: StdError + 'static> ReconcileFailure for E {
    fn is_terminal(&self) -> bool {
        let mut current: Option<&(dyn StdError + 'static)> = Some(self);
        while let Some(err) = current {
            if let Some(e) = err.downcast_ref::<ReconcileError>()
                && e.terminal
            {
                return true;
            }
            current = err.source();
        }
        false
    }
}

/// What went wrong in one reconcile, as seen by the runtime's error policy.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The reconcile function returned an error.
    #[error("{source}")]
    Reconcile {
        /// The user's error.
        source: Box<dyn StdError + Send + Sync + 'static>,
        /// Whether it is terminal (not retried).
        terminal: bool,
    },
    /// The reconcile function panicked; the panic was caught and the object will be retried.
    #[error("reconcile panicked: {0}")]
    Panic(String),
    /// The reconcile exceeded the controller's per-reconcile timeout and was cancelled.
    #[error("reconcile timed out after {0:?}")]
    Timeout(Duration),
}

impl WorkerError {
    /// Whether the object must not be retried.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Reconcile { terminal: true, .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    enum MyError {
        #[error("bad spec")]
        BadSpec(#[source] ReconcileError),
        #[error("io")]
        Io(#[from] std::io::Error),
    }

    #[test]
    fn terminal_is_found_in_the_source_chain() {
        assert!(ReconcileError::terminal("x").is_terminal());
        assert!(!ReconcileError::new("x").is_terminal());
        assert!(ReconcileFailure::is_terminal(&MyError::BadSpec(
            ReconcileError::terminal("bad")
        )));
        assert!(!ReconcileFailure::is_terminal(&MyError::BadSpec(
            ReconcileError::new("retry")
        )));
        assert!(!ReconcileFailure::is_terminal(&MyError::Io(
            std::io::Error::other("x")
        )));
    }
}
