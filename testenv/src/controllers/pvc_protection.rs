//! The PVC protection controller of kube-controller-manager: a PersistentVolumeClaim being
//! deleted keeps its `kubernetes.io/pvc-protection` finalizer (added on create by the
//! StorageObjectInUseProtection admission plugin) while a Pod of its namespace, scheduled to a
//! node and not finished, uses it, and goes once none does. A claim that lost the finalizer
//! while not being deleted gets it back.

use serde_json::{Value, json};

use crate::endpoints::hooks::Client;
use crate::support::meta;

/// The finalizer that protects a claim in use.
pub const FINALIZER: &str = "kubernetes.io/pvc-protection";
const CLAIMS: &str = "/persistentvolumeclaims";

/// Whether `def` is the PersistentVolumeClaim resource.
pub fn is_claim(group: &str, plural: &str) -> bool {
    group.is_empty() && plural == "persistentvolumeclaims"
}

fn in_use(client: &dyn Client, ns: &str, claim: &str) -> bool {
    client
        .store()
        .bucket("/pods")
        .into_iter()
        .flatten()
        .filter(|((n, _), _)| n == ns)
        .map(|(_, pod)| pod)
        .filter(|pod| {
            !matches!(
                pod["status"]["phase"].as_str(),
                Some("Succeeded" | "Failed")
            )
        })
        .any(|pod| {
            pod["spec"]["volumes"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|v| v["persistentVolumeClaim"]["claimName"] == claim)
        })
}

/// Protects the claims of namespace `ns` that lost the finalizer (a write took it away; the
/// real controller puts it back) and releases those being deleted that no Pod uses any more.
pub fn sync(client: &mut dyn Client, ns: &str) {
    protect(client, ns);
    release(client, ns);
}

fn protect(client: &mut dyn Client, ns: &str) {
    let unprotected: Vec<(String, Value)> = client
        .store()
        .bucket(CLAIMS)
        .into_iter()
        .flatten()
        .filter(|((n, _), c)| {
            n == ns && !meta::is_deleting(c) && !meta::finalizers(c).iter().any(|f| f == FINALIZER)
        })
        .map(|((_, name), c)| (name.clone(), (**c).clone()))
        .collect();
    let Some(def) = client.registry().get("", "v1", "persistentvolumeclaims") else {
        return;
    };
    for (name, mut claim) in unprotected {
        let mut finalizers = meta::finalizers(&claim);
        finalizers.push(FINALIZER.into());
        claim["metadata"]["finalizers"] = json!(finalizers);
        client.put(&def, ns, &name, claim);
    }
}

fn release(client: &mut dyn Client, ns: &str) {
    let releasable: Vec<(String, Value)> = client
        .store()
        .bucket(CLAIMS)
        .into_iter()
        .flatten()
        .filter(|((n, _), c)| {
            n == ns && meta::is_deleting(c) && meta::finalizers(c).iter().any(|f| f == FINALIZER)
        })
        .map(|((_, name), c)| (name.clone(), (**c).clone()))
        .collect();
    let Some(def) = client.registry().get("", "v1", "persistentvolumeclaims") else {
        return;
    };
    for (name, mut claim) in releasable {
        if in_use(client, ns, &name) {
            continue;
        }
        let rest: Vec<String> = meta::finalizers(&claim)
            .into_iter()
            .filter(|f| f != FINALIZER)
            .collect();
        if rest.is_empty() {
            if let Some(m) = claim["metadata"].as_object_mut() {
                m.remove("finalizers");
            }
            client.remove(&def, ns, &name, Some(claim));
        } else {
            claim["metadata"]["finalizers"] = json!(rest);
            client.put(&def, ns, &name, claim);
        }
    }
}
