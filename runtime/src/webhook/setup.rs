//! [`add_to_manager`]: the webhook server of an operator's `main`, configured from the
//! manager flags (`--webhook-port`, `--webhook-cert-dir`, `--webhook-local`, `--enable-http2`).

use std::net::{Ipv4Addr, SocketAddr};

use super::{
    WebhookServerBuilder,
    local::{self, LOCAL_HOSTS},
};
use crate::{
    Manager, ManagerArgs,
    manager::{RunnableGroup, from_fn},
};

/// Builds the webhook server from `builder` and the flags and adds it to `manager` (it runs on
/// every replica, not only the leader).
///
/// In a cluster it listens on `0.0.0.0:<--webhook-port>` with the certificate in
/// `--webhook-cert-dir` (mounted by cert-manager). With `--webhook-local` (`make run`) it
/// instead generates a self-signed certificate for 127.0.0.1/localhost into
/// `--webhook-cert-dir`, binds 127.0.0.1:<port>, and installs the webhook configurations and
/// CRD conversion clientConfigs (url `https://127.0.0.1:<port>/<path>`, that CA as caBundle)
/// into the API server the manager's client talks to; they are removed again when the manager
/// stops. A builder without webhooks adds nothing.
pub async fn add_to_manager(
    manager: &mut Manager,
    builder: WebhookServerBuilder,
    args: &ManagerArgs,
) -> Result<(), crate::Error> {
    if builder.declarations().is_empty() {
        tracing::debug!("no webhooks registered; not starting the webhook server");
        return Ok(());
    }
    let mut options = builder.current_options().clone();
    options.cert_dir = args.webhook_cert_dir.clone();
    options.enable_http2 = args.enable_http2;
    if !args.webhook_local {
        options.bind_address = SocketAddr::from(([0, 0, 0, 0], args.webhook_port));
        manager.add(builder.options(options).build()?);
        return Ok(());
    }
    options.bind_address = SocketAddr::from((Ipv4Addr::LOCALHOST, args.webhook_port));
    let ca = super::generate_self_signed(&options.cert_dir, &LOCAL_HOSTS)?;
    tracing::info!(dir = %options.cert_dir.display(), "generated a self-signed webhook certificate");
    let declarations = builder.declarations().clone();
    let bound = builder.options(options).build()?.bind().await?;
    let addr = bound.local_addr();
    let client = manager.client();
    let installed =
        local::install(&client, &declarations, &local::endpoint(addr, &ca.ca_pem)).await?;
    tracing::info!(address = %addr, "serving webhooks locally");
    manager.add(
        from_fn("webhook-server", move |context| async move {
            bound.serve(context.shutdown.cancelled_owned()).await;
            local::uninstall_quietly(&client, &installed).await;
            Ok::<_, crate::error::BoxError>(())
        })
        .in_group(RunnableGroup::Webhooks),
    );
    Ok(())
}
