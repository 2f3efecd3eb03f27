//! The resource quota controller of kube-controller-manager: every ResourceQuota's status
//! (`hard` as its spec says, `used` counted over the namespace), kept up to date as objects
//! of its namespace come and go.

use crate::admission::quota;
use crate::endpoints::hooks::Client;

/// Brings the status of every ResourceQuota of namespace `ns` up to date.
pub fn sync(client: &mut dyn Client, ns: &str) {
    if ns.is_empty() {
        return;
    }
    let quotas: Vec<_> = client
        .store()
        .bucket(quota::QUOTAS)
        .into_iter()
        .flatten()
        .filter(|((n, _), _)| n == ns)
        .map(|((_, name), q)| (name.clone(), q.clone()))
        .collect();
    if quotas.is_empty() {
        return;
    }
    let Some(def) = client.registry().get("", "v1", "resourcequotas") else {
        return;
    };
    for (name, stored) in quotas {
        let status = quota::status(client.store(), ns, &stored);
        if stored["status"] == status {
            continue;
        }
        let mut updated = (*stored).clone();
        updated["status"] = status;
        client.put(&def, ns, &name, updated);
    }
}
