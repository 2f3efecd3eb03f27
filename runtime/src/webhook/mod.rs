//! Admission and conversion webhooks, as controller-runtime's webhook server.
//!
//! Operators implement typed traits and register them on a [`WebhookServer`]:
//!
//! - [`Defaulter`]: mutates the typed object; the server answers with the RFC 6902 patch from
//!   the request's object to the defaulted one (only what the defaulter changed).
//! - [`Validator`]: create, update (sees old and new) and delete; allows with [`Warnings`] or
//!   refuses with a [`Denied`] reason (and warnings).
//! - conversion: `/convert` answers CRD ConversionReviews through the conversions registered
//!   with [`conversion!`](crate::conversion) (hub and spokes); [`check_round_trip`] tests that
//!   a version survives the trip to the hub and back.
//!
//! Registrations are also recorded as [`Declarations`]: `manifests` writes
//! `config/webhook/manifests.yaml` and CRD `spec.conversion` from them
//! ([`run_with_webhooks`](crate::manifests::run_with_webhooks)), [`add_to_manager`] runs the
//! server from the manager flags, and [`local`] installs the same configurations pointing at
//! `https://127.0.0.1:<port>` for `make run --webhook-local` and tests ([`LocalWebhooks`]).
//!
//! Paths follow controller-runtime ([`mutate_path`], [`validate_path`], [`CONVERT_PATH`]), so
//! kubebuilder-style webhook configurations match. The server listens on 9443 with
//! `tls.crt`/`tls.key` from [`DEFAULT_CERT_DIR`], reloads them when they change
//! ([`CertWatcher`]), speaks HTTP/1.1 only, limits requests to [`MAX_REQUEST_BYTES`] and
//! answers larger or unreadable reviews with 400 and a message.
//!
//! ```ignore
//! let server = WebhookServer::builder()
//!     .defaulter::<Memcached>(MemcachedDefaulter)
//!     .validator::<Memcached>(MemcachedValidator)
//!     .conversion::<Memcached>()
//!     .build()?;
//! manager.add(server); // or: server.run(shutdown_future).await?
//! // in main: kubeforge::webhook::add_to_manager(&mut manager, builder, &cli.manager).await?
//! ```

mod admission;
mod certs;
mod conversion;
mod declare;
mod decode;
mod error;
pub mod local;
mod patch;
mod paths;
mod review;
mod server;
mod setup;

pub use admission::{Defaulter, Denied, Validator, Warnings};
pub use certs::{CA_FILE, CERT_FILE, CertWatcher, KEY_FILE, SelfSigned, generate_self_signed};
pub use conversion::{RoundTripError, check_round_trip};
pub use declare::{
    AdmissionDeclaration, AdmissionType, Configurations, ConversionHub, Declarations, Endpoint,
    MUTATING_CONFIGURATION, SERVICE_NAME, SERVICE_NAMESPACE, VALIDATING_CONFIGURATION,
};
pub use error::WebhookError;
pub use local::LocalWebhooks;
pub use paths::{CONVERT_PATH, mutate_path, validate_path};
pub use review::WebhookObject;
pub use server::{
    BoundWebhookServer, DEFAULT_CERT_DIR, DEFAULT_PORT, MAX_REQUEST_BYTES, WebhookOptions,
    WebhookServer, WebhookServerBuilder,
};
pub use setup::add_to_manager;

/// The webhook server runs as a manager runnable on every replica (not only the leader: the
/// API server calls any ready endpoint), in the [webhooks group](crate::manager::RunnableGroup::Webhooks)
/// (before the caches, which may need its conversions), stopping when the manager shuts down.
impl crate::Runnable for WebhookServer {
    fn name(&self) -> &str {
        "webhook-server"
    }
    fn group(&self) -> crate::manager::RunnableGroup {
        crate::manager::RunnableGroup::Webhooks
    }
    fn start(
        self: Box<Self>,
        context: crate::manager::RunContext,
    ) -> futures::future::BoxFuture<'static, Result<(), crate::error::BoxError>> {
        Box::pin(async move {
            self.run(context.shutdown.cancelled_owned()).await?;
            Ok(())
        })
    }
}
