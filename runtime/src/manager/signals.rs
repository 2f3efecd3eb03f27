//! Waiting for SIGTERM or SIGINT (what Kubernetes and Ctrl-C send).

/// Resolves on the first SIGTERM or SIGINT.
pub async fn terminate() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => tracing::info!("SIGTERM received, shutting down"),
                    _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT received, shutting down"),
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only SIGINT stops the manager");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
