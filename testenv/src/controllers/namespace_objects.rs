//! What kube-controller-manager puts into every namespace when it appears: the `default`
//! ServiceAccount (service account controller) and the `kube-root-ca.crt` ConfigMap with
//! the cluster's CA (root CA certificate publisher).

use serde_json::json;

use crate::endpoints::hooks::Client;
use crate::support::tls;

const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/// A namespace named `ns` was created.
pub fn created(client: &mut dyn Client, ns: &str) {
    if let Some(def) = client.registry().get("", "v1", "serviceaccounts")
        && client
            .store()
            .get(&def.storage_key, ns, "default")
            .is_none()
    {
        let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "default", "namespace": ns}});
        if let Err(e) = client.create(&def, ns, sa, "kube-controller-manager") {
            tracing::warn!(ns, error = %e, "the default service account could not be made");
        }
    }
    let Ok(certs) = tls::certs() else {
        return;
    };
    if let Some(def) = client.registry().get("", "v1", "configmaps")
        && client
            .store()
            .get(&def.storage_key, ns, "kube-root-ca.crt")
            .is_none()
    {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kube-root-ca.crt", "namespace": ns,
                "annotations": {"kubernetes.io/description": DESCRIPTION}},
            "data": {"ca.crt": certs.ca_pem}});
        if let Err(e) = client.create(&def, ns, cm, "kube-controller-manager") {
            tracing::warn!(ns, error = %e, "kube-root-ca.crt could not be made");
        }
    }
}
