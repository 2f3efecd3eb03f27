//! Webhooks outside a cluster: for `make run` (`--webhook-local`) and for tests. The server
//! listens on 127.0.0.1 with a freshly generated self-signed certificate, and the webhook
//! configurations and CRD conversions are installed into the API server pointing at
//! `https://127.0.0.1:<port>/<path>` with that CA as `caBundle`. They are built from the same
//! [`Declarations`] as `config/webhook/manifests.yaml`, so local runs exercise exactly what a
//! deployment would.
//!
//! ```ignore
//! let env = TestEnv::builder().crds_from_dir("config/crd/bases").start().await?;
//! let webhooks = LocalWebhooks::start(env.client(), register(WebhookServer::builder())).await?;
//! // create objects through env.client(): the API server calls the webhooks
//! webhooks.stop().await?; // or drop it
//! ```

use std::{
    net::{Ipv4Addr, SocketAddr},
    path::{Path, PathBuf},
    time::Duration,
};

use k8s_openapi::{
    api::admissionregistration::v1::{
        MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
    },
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
};
use kube::{
    Api, Resource, ResourceExt,
    api::{DeleteParams, Patch, PatchParams, PostParams},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::json;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::{
    Declarations, Endpoint, WebhookError, WebhookServerBuilder,
    declare::{MUTATING_CONFIGURATION, VALIDATING_CONFIGURATION},
    generate_self_signed,
};

/// The names the generated local certificate is valid for.
pub const LOCAL_HOSTS: [&str; 2] = ["127.0.0.1", "localhost"];

/// How long removing the local configurations may take when the server stops.
const UNINSTALL_TIMEOUT: Duration = Duration::from_secs(5);

/// What [`install`] wrote into the API server, so [`uninstall`] removes exactly that.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Installed {
    /// The MutatingWebhookConfiguration was written.
    pub mutating: bool,
    /// The ValidatingWebhookConfiguration was written.
    pub validating: bool,
    /// CRDs whose `spec.conversion` now points at the local server.
    pub crds: Vec<String>,
}

fn install_error(what: impl Into<String>) -> impl FnOnce(kube::Error) -> WebhookError {
    let what = what.into();
    move |source| WebhookError::Install { what, source }
}

fn is_status(e: &kube::Error, code: u16) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == code)
}

/// Creates `object`, or replaces the existing object of that name (a previous run's).
async fn put<K>(api: &Api<K>, mut object: K, what: &str) -> Result<(), WebhookError>
where
    K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + std::fmt::Debug,
{
    match api.create(&PostParams::default(), &object).await {
        Ok(_) => Ok(()),
        Err(e) if is_status(&e, 409) => {
            let current = api
                .get(&object.name_any())
                .await
                .map_err(install_error(what))?;
            object.meta_mut().resource_version = current.meta().resource_version.clone();
            api.replace(&object.name_any(), &PostParams::default(), &object)
                .await
                .map(drop)
                .map_err(install_error(what))
        }
        Err(e) => Err(install_error(what)(e)),
    }
}

/// Deletes `name`; absent is fine.
async fn remove<K>(api: &Api<K>, name: &str, what: &str) -> Result<(), WebhookError>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug,
{
    match api.delete(name, &DeleteParams::default()).await {
        Ok(_) => Ok(()),
        Err(e) if is_status(&e, 404) => Ok(()),
        Err(e) => Err(install_error(what)(e)),
    }
}

/// Installs the webhook configurations of `declarations` pointing at `endpoint` into the API
/// server of `client`, replacing earlier ones of the same name (and removing a stale
/// configuration of a type no longer registered), and points `spec.conversion` of every
/// converted kind's CRD at it. Every converted CRD must already be installed.
pub async fn install(
    client: &kube::Client,
    declarations: &Declarations,
    endpoint: &Endpoint,
) -> Result<Installed, WebhookError> {
    let configurations = declarations.configurations(endpoint);
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    for (name, _) in &configurations.conversions {
        match crds.get_opt(name).await {
            Ok(Some(_)) => {}
            Ok(None) => return Err(WebhookError::CrdMissing(name.clone())),
            Err(e) => return Err(install_error(format!("CustomResourceDefinition {name}"))(e)),
        }
    }
    let mut installed = Installed::default();
    let mutating_api: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
    let what = format!("MutatingWebhookConfiguration {MUTATING_CONFIGURATION}");
    match configurations.mutating {
        Some(config) => {
            put(&mutating_api, config, &what).await?;
            installed.mutating = true;
        }
        None => remove(&mutating_api, MUTATING_CONFIGURATION, &what).await?,
    }
    let validating_api: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
    let what = format!("ValidatingWebhookConfiguration {VALIDATING_CONFIGURATION}");
    match configurations.validating {
        Some(config) => {
            put(&validating_api, config, &what).await?;
            installed.validating = true;
        }
        None => remove(&validating_api, VALIDATING_CONFIGURATION, &what).await?,
    }
    for (name, conversion) in configurations.conversions {
        // `service` and `url` exclude each other: a CRD installed from config/crd/bases
        // carries the Service reference, which the merge patch removes.
        let mut conversion = serde_json::to_value(&conversion).expect("conversions serialize");
        conversion["webhook"]["clientConfig"]["service"] = serde_json::Value::Null;
        let patch = json!({"spec": {"conversion": conversion}});
        crds.patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map_err(install_error(format!("CustomResourceDefinition {name}")))?;
        installed.crds.push(name);
    }
    tracing::info!(
        mutating = installed.mutating,
        validating = installed.validating,
        crds = ?installed.crds,
        "installed local webhook configurations"
    );
    Ok(installed)
}

/// Removes what [`install`] wrote: deletes the configurations and sets the CRDs' conversion
/// back to `None` (objects of a removed CRD are fine: it is skipped).
pub async fn uninstall(client: &kube::Client, installed: &Installed) -> Result<(), WebhookError> {
    if installed.mutating {
        let api: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
        remove(&api, MUTATING_CONFIGURATION, MUTATING_CONFIGURATION).await?;
    }
    if installed.validating {
        let api: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
        remove(&api, VALIDATING_CONFIGURATION, VALIDATING_CONFIGURATION).await?;
    }
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let patch = json!({"spec": {"conversion": {"strategy": "None", "webhook": null}}});
    for name in &installed.crds {
        match crds
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => {}
            Err(e) if is_status(&e, 404) => {}
            Err(e) => return Err(install_error(format!("CustomResourceDefinition {name}"))(e)),
        }
    }
    Ok(())
}

/// [`uninstall`] bounded by a timeout, logging instead of failing (used on shutdown).
pub(crate) async fn uninstall_quietly(client: &kube::Client, installed: &Installed) {
    match tokio::time::timeout(UNINSTALL_TIMEOUT, uninstall(client, installed)).await {
        Ok(Ok(())) => tracing::info!("removed local webhook configurations"),
        Ok(Err(e)) => tracing::warn!(error = %e, "removing local webhook configurations failed"),
        Err(_) => tracing::warn!("removing local webhook configurations timed out"),
    }
}

/// The URL base of a server listening on `addr` locally.
pub fn endpoint(addr: SocketAddr, ca_pem: &str) -> Endpoint {
    Endpoint::Url {
        base: format!("https://127.0.0.1:{}", addr.port()),
        ca_bundle: ca_pem.to_string(),
    }
}

/// A webhook server on 127.0.0.1 whose configurations are installed in an API server; see the
/// [module docs](self). Dropping it stops the server, deletes its certificate directory and
/// (best effort, in the background) removes the configurations; [`LocalWebhooks::stop`] does
/// the same and waits.
pub struct LocalWebhooks {
    client: kube::Client,
    addr: SocketAddr,
    ca_pem: String,
    dir: PathBuf,
    installed: Option<Installed>,
    stop: CancellationToken,
    server: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for LocalWebhooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalWebhooks")
            .field("addr", &self.addr)
            .field("dir", &self.dir)
            .field("installed", &self.installed)
            .finish_non_exhaustive()
    }
}

/// Serves `builder` on 127.0.0.1 (random port) with a fresh self-signed certificate and
/// installs its webhook configurations and CRD conversion clientConfigs (url + caBundle) into
/// the API server of `client`. Same as [`LocalWebhooks::start`].
pub async fn start(
    client: kube::Client,
    builder: WebhookServerBuilder,
) -> Result<LocalWebhooks, crate::Error> {
    LocalWebhooks::start(client, builder).await
}

fn fresh_dir() -> PathBuf {
    std::env::temp_dir().join(format!(
        "kubeforge-webhook-{}-{:016x}",
        std::process::id(),
        fastrand::u64(..)
    ))
}

impl LocalWebhooks {
    /// See [`start`].
    pub async fn start(
        client: kube::Client,
        builder: WebhookServerBuilder,
    ) -> Result<LocalWebhooks, crate::Error> {
        let dir = fresh_dir();
        let result = Self::start_in(client, builder, &dir).await;
        if result.is_err() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        result.map_err(Into::into)
    }

    async fn start_in(
        client: kube::Client,
        builder: WebhookServerBuilder,
        dir: &Path,
    ) -> Result<LocalWebhooks, WebhookError> {
        let ca = generate_self_signed(dir, &LOCAL_HOSTS)?;
        let declarations = builder.declarations().clone();
        let bound = builder
            .bind_address(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
            .cert_dir(dir)
            .build()?
            .bind()
            .await?;
        let addr = bound.local_addr();
        let stop = CancellationToken::new();
        let server = tokio::spawn(bound.serve(stop.clone().cancelled_owned()));
        let installed = match install(&client, &declarations, &endpoint(addr, &ca.ca_pem)).await {
            Ok(installed) => installed,
            Err(e) => {
                stop.cancel();
                return Err(e);
            }
        };
        Ok(LocalWebhooks {
            client,
            addr,
            ca_pem: ca.ca_pem,
            dir: dir.to_path_buf(),
            installed: Some(installed),
            stop,
            server: Some(server),
        })
    }

    /// Where the server listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The CA certificate (PEM) the server's certificate is signed by (the `caBundle`).
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// What was installed into the API server.
    pub fn installed(&self) -> &Installed {
        self.installed.as_ref().expect("installed until stopped")
    }

    /// Removes the installed configurations, then stops the server and waits for it.
    pub async fn stop(mut self) -> Result<(), crate::Error> {
        let installed = self.installed.take().expect("installed until stopped");
        let removed = uninstall(&self.client, &installed).await;
        self.stop.cancel();
        if let Some(server) = self.server.take() {
            let _ = server.await;
        }
        removed.map_err(Into::into)
    }
}

impl Drop for LocalWebhooks {
    fn drop(&mut self) {
        self.stop.cancel();
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some(installed) = self.installed.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let client = self.client.clone();
            runtime.spawn(async move { uninstall_quietly(&client, &installed).await });
        }
    }
}
