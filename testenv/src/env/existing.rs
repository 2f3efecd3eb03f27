//! Real-cluster mode (`KUBEFORGE_TEST_CLUSTER=existing`): CRDs are applied to the cluster of
//! `KUBECONFIG`, each environment gets a fresh namespace, and dropping the environment
//! deletes that namespace (and with it everything the test created there).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use serde_json::{Value, json};

use super::{Backend, TestEnv};
use crate::Error;

/// Field manager used for the server-side apply of CRDs.
const MANAGER: &str = "kubeforge-testenv";

/// What an existing-cluster environment must clean up.
pub struct Existing {
    /// The cluster's URL.
    pub url: String,
    namespace: String,
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

/// Connects to the cluster, applies the CRDs, waits until they are Established, and
/// creates the test namespace.
pub async fn start(crds: Vec<Value>) -> Result<TestEnv, Error> {
    let cluster_err = |e: kube::Error| Error::Cluster(e.to_string());
    let config = kube::Config::infer()
        .await
        .map_err(|e| Error::Cluster(e.to_string()))?;
    let url = config.cluster_url.to_string();
    let client = kube::Client::try_from(config).map_err(cluster_err)?;
    let crd_api = crd_api(&client);
    for crd in &crds {
        let name = crd["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        crd_api
            .patch(
                &name,
                &PatchParams::apply(MANAGER).force(),
                &Patch::Apply(crd),
            )
            .await
            .map_err(|e| Error::CrdRejected {
                name: name.clone(),
                message: e.to_string(),
            })?;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let current = crd_api.get(&name).await.map_err(cluster_err)?;
            if established(&current) {
                break;
            }
            if Instant::now() > deadline {
                return Err(Error::Cluster(format!(
                    "CRD {name} did not become Established within 60s"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let ns: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"generateName": "kubeforge-test-", "labels": {"app.kubernetes.io/managed-by": MANAGER}},
    }))
    .map_err(|e| Error::Cluster(e.to_string()))?;
    let created = namespace_api(&client)
        .create(&PostParams::default(), &ns)
        .await
        .map_err(cluster_err)?;
    let namespace = created.metadata.name.unwrap_or_default();
    Ok(TestEnv {
        backend: Backend::Existing(Existing {
            url,
            namespace: namespace.clone(),
        }),
        client,
        kubeconfig_path: kubeconfig_path(),
        namespace,
    })
}

impl Drop for Existing {
    fn drop(&mut self) {
        let namespace = self.namespace.clone();
        // Drop cannot await and the test's runtime may be shutting down: delete the
        // namespace from a separate thread with its own runtime and client.
        let cleanup = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                if let Ok(client) = kube::Client::try_default().await {
                    let _ = namespace_api(&client)
                        .delete(&namespace, &DeleteParams::background())
                        .await;
                }
            });
        });
        let _ = cleanup.join();
    }
}
