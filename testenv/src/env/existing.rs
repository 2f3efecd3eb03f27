//! Real-cluster mode (`KUBEFORGE_TEST_CLUSTER=existing`): CRDs are applied to the cluster of
//! `KUBECONFIG`, each environment gets a fresh namespace, and dropping the environment
//! deletes that namespace (and with it everything the test created there) and the CRDs the
//! tests created, once no environment, in this process or another, uses them any more.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams, Preconditions,
};
use kube::core::GroupVersionKind;
use serde_json::{Value, json};

use super::backend::{Backend, Kind, Started};
use crate::Error;

/// Field manager used for the server-side apply of CRDs.
const MANAGER: &str = "kubeforge-testenv";

/// Label on the CRDs that test environments created (they did not exist before): only these
/// are deleted again, never a CRD the cluster already had.
const CREATED_LABEL: &str = "testenv.kubeforge.dev/created";

/// Prefix of the annotation each environment using a CRD puts on it (one key per environment,
/// `<prefix><id>`). Environments of other test processes may share a CRD: the last one to
/// leave, finding no such key, deletes it. A process that dies leaves its key behind, so its
/// CRDs stay: safe, at the cost of a leftover.
const USER_PREFIX: &str = "testenv.kubeforge.dev/user.";

/// How long to wait for a CRD to become Established, or to finish being deleted.
const CRD_WAIT: Duration = Duration::from_secs(60);

/// What an existing-cluster environment must clean up.
pub struct Existing {
    /// An existing cluster, or a private control plane set up like one.
    kind: Kind,
    /// The cluster's URL.
    pub url: String,
    /// The client configuration, for the clean-up's own client.
    config: kube::Config,
    /// The test namespace, once created.
    namespace: Option<String>,
    /// The annotation key marking this environment's use of its CRDs.
    user_key: String,
    /// The CRDs this environment applied (and marked with `user_key`).
    crds: Vec<String>,
}

/// An identifier unique to this environment among all test processes using the cluster.
fn environment_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!(
        "{:x}-{:x}-{:x}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        nanos
    )
}

fn crd_api(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition");
    Api::all_with(client.clone(), &ApiResource::from_gvk(&gvk))
}

fn namespace_api(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("", "v1", "Namespace");
    Api::all_with(
        client.clone(),
        &ApiResource::from_gvk_with_plural(&gvk, "namespaces"),
    )
}

fn kubeconfig_path() -> PathBuf {
    if let Some(first) =
        std::env::var_os("KUBECONFIG").and_then(|v| std::env::split_paths(&v).next())
    {
        return first;
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join(".kube")
        .join("config")
}

fn established(crd: &DynamicObject) -> bool {
    crd.data["status"]["conditions"]
        .as_array()
        .is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "Established" && c["status"] == "True")
        })
}

/// Applies `crd` and marks it as used by this environment, then waits until it is
/// Established. A CRD that is being deleted (its last user just left) is waited out and
/// created again.
async fn install_crd(api: &Api<DynamicObject>, crd: &Value, user_key: &str) -> Result<(), Error> {
    let cluster_err = |e: kube::Error| Error::Cluster(e.into());
    let name = crd["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let deadline = Instant::now() + CRD_WAIT;
    let wait = |what: &str| {
        if Instant::now() > deadline {
            return Err(Error::Cluster(
                format!("CRD {name} {what} within {}s", CRD_WAIT.as_secs()).into(),
            ));
        }
        Ok(())
    };
    loop {
        let before = api.get_opt(&name).await.map_err(cluster_err)?;
        if before
            .as_ref()
            .is_some_and(|c| c.metadata.deletion_timestamp.is_some())
        {
            wait("was not deleted")?;
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let created_by_tests = match &before {
            None => true,
            Some(c) => {
                c.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(CREATED_LABEL))
                    == Some(&"true".to_string())
            }
        };
        let mut desired = crd.clone();
        if created_by_tests {
            desired["metadata"]["labels"][CREATED_LABEL] = json!("true");
        }
        api.patch(
            &name,
            &PatchParams::apply(MANAGER).force(),
            &Patch::Apply(&desired),
        )
        .await
        .map_err(|e| Error::CrdRejected {
            name: name.clone(),
            source: e.into(),
        })?;
        let mark = json!({"metadata": {"annotations": {user_key: ""}}});
        match api
            .patch(&name, &PatchParams::default(), &Patch::Merge(&mark))
            .await
        {
            Ok(_) => {}
            // The last user's delete finished between our apply and our mark: start again.
            Err(kube::Error::Api(s)) if s.code == 404 => continue,
            Err(e) => return Err(cluster_err(e)),
        }
        loop {
            let current = match api.get_opt(&name).await.map_err(cluster_err)? {
                Some(current) if current.metadata.deletion_timestamp.is_none() => current,
                // The last user deleted it between our apply and our mark (or it is gone
                // already): start again.
                _ => break,
            };
            if established(&current) {
                return Ok(());
            }
            wait("did not become Established")?;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Removes this environment's mark from `name`, and deletes the CRD when the tests created it
/// and no environment uses it any more. The delete is conditional on the resourceVersion read,
/// so an environment that marks the CRD in between keeps it.
async fn release_crd(api: &Api<DynamicObject>, name: &str, user_key: &str) {
    let unmark = json!({"metadata": {"annotations": {user_key: null}}});
    if api
        .patch(name, &PatchParams::default(), &Patch::Merge(&unmark))
        .await
        .is_err()
    {
        return;
    }
    let Ok(Some(current)) = api.get_opt(name).await else {
        return;
    };
    let created_by_tests = current
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(CREATED_LABEL))
        .is_some_and(|v| v == "true");
    let in_use = current
        .metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.keys().any(|k| k.starts_with(USER_PREFIX)));
    if created_by_tests && !in_use && current.metadata.deletion_timestamp.is_none() {
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                resource_version: current.metadata.resource_version.clone(),
                uid: current.metadata.uid.clone(),
            }),
            ..DeleteParams::background()
        };
        // A 409 means another environment marked it meanwhile: it stays.
        if api.delete(name, &params).await.is_ok() {
            purge_instances(api, &current).await;
        }
    }
}

/// Removes the finalizers of every remaining object of the CRD `crd`, which is being deleted,
/// so that its deletion completes. The controllers that would handle them stopped with their
/// tests; an object they left with a finalizer would otherwise keep the CRD (and its
/// namespace) terminating forever, and every later environment installing the CRD would wait
/// for it in vain. Gives up after [`CRD_WAIT`].
async fn purge_instances(crds: &Api<DynamicObject>, crd: &DynamicObject) {
    let spec = &crd.data["spec"];
    let version = spec["versions"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["storage"] == true).or(v.first()))
        .and_then(|v| v["name"].as_str());
    let (Some(group), Some(version), Some(kind), Some(plural)) = (
        spec["group"].as_str(),
        version,
        spec["names"]["kind"].as_str(),
        spec["names"]["plural"].as_str(),
    ) else {
        return;
    };
    let resource =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural);
    let client: kube::Client = crds.clone().into_client();
    let all: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
    let unmark = json!({"metadata": {"finalizers": null}});
    let deadline = Instant::now() + CRD_WAIT;
    while Instant::now() < deadline {
        // A 404 once the CRD is gone; an empty list once its objects are.
        let Ok(list) = all.list(&Default::default()).await else {
            return;
        };
        if list.items.is_empty() {
            return;
        }
        for object in &list.items {
            if object
                .metadata
                .finalizers
                .as_ref()
                .is_none_or(Vec::is_empty)
            {
                continue;
            }
            let name = object.metadata.name.as_deref().unwrap_or_default();
            let api: Api<DynamicObject> = match object.metadata.namespace.as_deref() {
                Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
                None => Api::all_with(client.clone(), &resource),
            };
            let _ = api
                .patch(name, &PatchParams::default(), &Patch::Merge(&unmark))
                .await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

impl Backend for Existing {
    fn kind(&self) -> Kind {
        self.kind
    }

    fn url(&self) -> String {
        self.url.clone()
    }
}

/// Connects to the cluster of `KUBECONFIG` (or the in-cluster configuration), applies the
/// CRDs, waits until they are Established, and creates the test namespace.
pub async fn start(crds: Vec<Value>) -> Result<Started, Error> {
    let config = kube::Config::infer()
        .await
        .map_err(|e| Error::Cluster(e.into()))?;
    set_up(config, kubeconfig_path(), crds, Kind::Existing, true).await
}

/// [`start`] for the cluster of the kubeconfig file `path`, reported as `kind` (a private
/// control plane is set up in the same way as an existing cluster). `accounts`: whether a
/// controller makes the namespace's `default` ServiceAccount (then it is waited for).
pub async fn connect(
    path: PathBuf,
    crds: Vec<Value>,
    kind: Kind,
    accounts: bool,
) -> Result<Started, Error> {
    let file = kube::config::Kubeconfig::read_from(&path).map_err(|e| Error::Client(e.into()))?;
    let config = kube::Config::from_custom_kubeconfig(file, &Default::default())
        .await
        .map_err(|e| Error::Client(e.into()))?;
    set_up(config, path, crds, kind, accounts).await
}

/// Waits (a few seconds at most) for the `default` ServiceAccount of a new namespace: the
/// ServiceAccount admission plugin refuses pods until the controller made it.
async fn wait_for_default_account(client: &kube::Client, namespace: &str) {
    let accounts: kube::Api<DynamicObject> = kube::Api::namespaced_with(
        client.clone(),
        namespace,
        &kube::api::ApiResource::from_gvk(&GroupVersionKind::gvk("", "v1", "ServiceAccount")),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        if let Ok(Some(_)) = accounts.get_opt("default").await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

async fn set_up(
    config: kube::Config,
    kubeconfig_path: PathBuf,
    crds: Vec<Value>,
    kind: Kind,
    accounts: bool,
) -> Result<Started, Error> {
    let cluster_err = |e: kube::Error| Error::Cluster(e.into());
    let url = config.cluster_url.to_string();
    let client = kube::Client::try_from(config.clone()).map_err(cluster_err)?;
    let crd_api = crd_api(&client);
    // Dropped on any error below, which releases what was set up so far.
    let mut existing = Existing {
        kind,
        url,
        config,
        namespace: None,
        user_key: format!("{USER_PREFIX}{}", environment_id()),
        crds: Vec::new(),
    };
    for crd in &crds {
        let name = crd["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        existing.crds.push(name);
        install_crd(&crd_api, crd, &existing.user_key).await?;
    }
    let ns: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"generateName": "kubeforge-test-", "labels": {"app.kubernetes.io/managed-by": MANAGER}},
    }))
    .map_err(|e| Error::Cluster(e.into()))?;
    let created = namespace_api(&client)
        .create(&PostParams::default(), &ns)
        .await
        .map_err(cluster_err)?;
    let namespace = created.metadata.name.unwrap_or_default();
    existing.namespace = Some(namespace.clone());
    // The test's client defaults to the test namespace, as a pod's client defaults to the
    // pod's: what it puts in "its own" namespace (a leader election Lease, say) stays apart
    // from the other environments sharing the cluster.
    let mut own = existing.config.clone();
    own.default_namespace = namespace.clone();
    let client = kube::Client::try_from(own).map_err(cluster_err)?;
    if accounts {
        wait_for_default_account(&client, &namespace).await;
    }
    Ok(Started {
        backend: Box::new(existing),
        client,
        kubeconfig_path,
        namespace,
    })
}

impl Drop for Existing {
    fn drop(&mut self) {
        let namespace = self.namespace.take();
        let crds = std::mem::take(&mut self.crds);
        let user_key = self.user_key.clone();
        let config = self.config.clone();
        // Drop cannot await and the test's runtime may be shutting down: clean up from a
        // separate thread with its own runtime and client.
        let cleanup = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                let Ok(client) = kube::Client::try_from(config) else {
                    return;
                };
                if let Some(namespace) = namespace {
                    let _ = namespace_api(&client)
                        .delete(&namespace, &DeleteParams::background())
                        .await;
                }
                let crd_api = crd_api(&client);
                for name in crds {
                    release_crd(&crd_api, &name, &user_key).await;
                }
            });
        });
        let _ = cleanup.join();
    }
}
