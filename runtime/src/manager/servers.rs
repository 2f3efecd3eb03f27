//! The manager's own runnables: the health probe and metrics servers (group
//! [`RunnableGroup::Servers`], bound before anything starts so a taken port fails at once) and
//! the shared cache (group [`RunnableGroup::Caches`]).

use std::sync::Arc;

use super::{ManagerOptions, RunContext, Runnable, RunnableGroup, from_fn, status::ManagerStatus};
use crate::{
    Error,
    cache::Cache,
    error::BoxError,
    metrics::Metrics,
    server::{self, Server, probes::Checks},
};

/// Binds the probe and metrics servers the options ask for; each serves once started.
pub(super) async fn bind(
    options: &ManagerOptions,
    checks: &Checks,
    metrics: &Metrics,
    client: &kube::Client,
    status: &ManagerStatus,
) -> Result<Vec<Box<dyn Runnable>>, Error> {
    let mut servers: Vec<Box<dyn Runnable>> = Vec::new();
    // Probes stay on HTTP/1.1 (what kubelet speaks); --enable-http2 is for metrics.
    let metrics_versions = server::HttpVersions::from_flag(options.enable_http2)?;
    if let Some(address) = &options.health_probe_bind_address
        && let Some(address) = server::parse_bind_address(address)?
    {
        let server = Server::bind("health probe", address, None, Default::default()).await?;
        let bound = server.local_addr();
        status.update(|s| s.probe_addr = Some(bound));
        tracing::info!(address = %bound, "serving health probes");
        let handler = checks.handler();
        servers.push(Box::new(serving("health-probe-server", server, handler)));
    }
    if let Some(metrics_options) = &options.metrics
        && let Some(address) = server::parse_bind_address(&metrics_options.bind_address)?
    {
        let (tls, authorizer) = if metrics_options.secure {
            let tls = match &metrics_options.cert_dir {
                Some(dir) => server::tls::from_dir(dir, metrics_versions)?,
                None => server::tls::self_signed(metrics_versions)?,
            };
            let authorizer = server::authz::Authorizer::new(client.clone(), "/metrics");
            (Some(tls), Some(Arc::new(authorizer)))
        } else {
            (None, None)
        };
        let secure = tls.is_some();
        let server = Server::bind("metrics", address, tls, metrics_versions).await?;
        let bound = server.local_addr();
        status.update(|s| s.metrics_addr = Some(bound));
        tracing::info!(address = %bound, secure, "serving metrics");
        let handler = server::metrics::handler(metrics.clone(), authorizer);
        servers.push(Box::new(serving("metrics-server", server, handler)));
    }
    Ok(servers)
}

fn serving(name: &str, server: Server, handler: server::Handler) -> impl Runnable {
    from_fn(name, move |context: RunContext| async move {
        server.serve(handler, context.shutdown).await;
        Ok::<_, BoxError>(())
    })
    .in_group(RunnableGroup::Servers)
}

/// The shared cache as a runnable: its informers watch until the group is stopped. The
/// manager waits for them to sync before starting the next group.
pub(super) struct CacheRunnable(pub(super) Cache);

impl Runnable for CacheRunnable {
    fn name(&self) -> &str {
        "cache"
    }
    fn group(&self) -> RunnableGroup {
        RunnableGroup::Caches
    }
    fn start(
        self: Box<Self>,
        context: RunContext,
    ) -> futures::future::BoxFuture<'static, Result<(), BoxError>> {
        Box::pin(async move {
            self.0.start(context.shutdown.clone());
            context.shutdown.cancelled().await;
            Ok(())
        })
    }
}
