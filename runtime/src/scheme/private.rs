//! Items the kubeforge macros expand to. Not a public API: names may change in any release.

pub use inventory;
pub use kube;
pub use schemars;
pub use serde_json;

pub use super::patch::SchemaPatch;

/// The serialized field names of a struct annotated with `#[kubeforge::api]` or
/// `#[kubeforge::schema]`; list map keys are checked against it at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no kubeforge field list",
    label = "list_map_keys need the item type to carry #[kubeforge::schema]",
    note = "annotate the item struct with #[kubeforge::schema] so its fields can be checked"
)]
pub trait SchemaFields {
    /// JSON names of the fields, in declaration order.
    const FIELDS: &'static [&'static str];
}

macro_rules! fields {
    ($($ty:path => [$($name:literal),* $(,)?];)*) => {
        $(impl SchemaFields for $ty {
            const FIELDS: &'static [&'static str] = &[$($name),*];
        })*
    };
}

// Kubernetes types commonly used as items of map lists in specs and statuses.
fields! {
    k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition => ["lastTransitionTime", "message", "observedGeneration", "reason", "status", "type"];
    k8s_openapi::api::core::v1::Container => ["args", "command", "env", "envFrom", "image", "imagePullPolicy", "lifecycle", "livenessProbe", "name", "ports", "readinessProbe", "resizePolicy", "resources", "restartPolicy", "securityContext", "startupProbe", "stdin", "stdinOnce", "terminationMessagePath", "terminationMessagePolicy", "tty", "volumeDevices", "volumeMounts", "workingDir"];
    k8s_openapi::api::core::v1::ContainerPort => ["containerPort", "hostIP", "hostPort", "name", "protocol"];
    k8s_openapi::api::core::v1::EnvVar => ["name", "value", "valueFrom"];
    k8s_openapi::api::core::v1::Volume => ["name"];
    k8s_openapi::api::core::v1::VolumeMount => ["mountPath", "mountPropagation", "name", "readOnly", "recursiveReadOnly", "subPath", "subPathExpr"];
    k8s_openapi::api::core::v1::ServicePort => ["appProtocol", "name", "nodePort", "port", "protocol", "targetPort"];
    k8s_openapi::api::core::v1::LocalObjectReference => ["name"];
}

/// `list.contains(&needle)` usable in constants.
pub const fn contains(list: &[&str], needle: &str) -> bool {
    let mut i = 0;
    while i < list.len() {
        let a = list[i].as_bytes();
        let b = needle.as_bytes();
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn contains_compares_whole_strings() {
        const LIST: &[&str] = &["name", "protocol"];
        assert!(super::contains(LIST, "name"));
        assert!(!super::contains(LIST, "nam"));
        assert!(!super::contains(LIST, "names"));
        assert!(!super::contains(&[], "x"));
    }
}
