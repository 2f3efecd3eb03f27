//! The warnings of the core kinds a cluster's machinery writes: a Node's (its deprecated
//! `spec.externalID` and pod CIDRs in a non-standard form, see `node`), an Endpoints
//! object's (addresses in a non-standard form, see `endpoints`) and a ServiceAccount's
//! deprecated `kubernetes.io/enforce-mountable-secrets` annotation, when it is set on a
//! create or added by an update, and a TLS Secret's key pair that does not load (on every
//! write, see `secret_tls`).

use serde_json::Value;

/// The annotation that once limited the secrets a service account's pods may mount.
const ENFORCE_MOUNTABLE_SECRETS: &str = "kubernetes.io/enforce-mountable-secrets";

/// The warnings of a `kind` of the core group as written, over `old` on an update.
pub fn warnings(kind: &str, object: &Value, old: Option<&Value>) -> Vec<String> {
    match kind {
        "Node" => super::super::node::warnings(object),
        "Endpoints" => super::super::endpoints::warnings(object),
        "Secret" => super::super::secret_tls::warning(object)
            .into_iter()
            .collect(),
        "ServiceAccount" => {
            let has =
                |o: &Value| !o["metadata"]["annotations"][ENFORCE_MOUNTABLE_SECRETS].is_null();
            if has(object) && !old.is_some_and(has) {
                vec![format!(
                    "metadata.annotations[{ENFORCE_MOUNTABLE_SECRETS}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets"
                )]
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}
