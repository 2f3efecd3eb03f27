//! The validation of a status update for the kinds whose status strategy checks only the
//! metadata and the status (not the whole object, as an update of the main resource is
//! checked), and gives no warnings: PersistentVolumes and Services.

use serde_json::Value;

use super::errors::Errors;
use super::meta::object_meta;
use super::service;

/// Whether a status update of `kind` of `group` is validated by [`status_update`] instead of
/// as an update of the whole object.
pub fn validates_status_alone(group: &str, kind: &str) -> bool {
    matches!((group, kind), ("", "PersistentVolume" | "Service"))
}

/// Every validation error of a status update of a kind [`validates_status_alone`] names, in
/// the real server's order: the metadata's errors three times (the generic registry checks
/// the object meta as it is and as an update, then the status strategy as an update), then
/// the status's own (a Service's load balancer; a volume's status is not checked).
pub fn status_update(group: &str, kind: &str, object: &Value) -> Errors {
    let mut out = Vec::new();
    for _ in 0..3 {
        out.extend(object_meta(object));
    }
    if (group, kind) == ("", "Service") {
        out.extend(service::status(object));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metadata_three_times_then_the_status() {
        let svc = json!({"metadata": {"labels": {"bad key!": "v"}},
            "spec": {"type": "ClusterIP"},
            "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}});
        let fields: Vec<String> = status_update("", "Service", &svc)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(
            fields,
            [
                "metadata.labels",
                "metadata.labels",
                "metadata.labels",
                "status.loadBalancer.ingress"
            ]
        );
        let pv = json!({"metadata": {"annotations": {"Bad/x/y": "v"}},
            "spec": {"accessModes": ["Bogus"]}, "status": {"phase": "Bogus"}});
        let fields: Vec<String> = status_update("", "PersistentVolume", &pv)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(fields, ["metadata.annotations"; 3]);
        assert!(validates_status_alone("", "Service"));
        assert!(!validates_status_alone("apps", "Deployment"));
    }
}
