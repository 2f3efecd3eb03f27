//! Items the kubeforge macros expand to. Not a public API: names may change in any release.

pub use inventory;
pub use kube;
pub use schemars;
pub use serde_json;

pub use super::patch::SchemaPatch;
pub use crate::shapes::schemars_for_crds;

/// The serialized field names of a struct annotated with `#[kubeforge::api]` or
/// `#[kubeforge::schema]`; list map keys are checked against it at compile time.
///
/// A list map key must name a serialized field of the item type:
///
/// ```
/// # use kube::CustomResource;
/// # use schemars::JsonSchema;
/// # use serde::{Deserialize, Serialize};
/// #[kubeforge::schema]
/// #[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// pub struct Port {
///     pub name: String,
///     pub port: i32,
/// }
///
/// #[kubeforge::api]
/// #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// #[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
/// pub struct ThingSpec {
///     #[kubeforge(list_map_keys = ["name"])]
///     pub ports: Vec<Port>,
/// }
/// ```
///
/// The same type with a key that is not a field fails to compile, evaluating the check
/// (`list_map_keys: `protocol` is not a field of `Port``, at the key):
///
/// ```compile_fail,E0080
/// # use kube::CustomResource;
/// # use schemars::JsonSchema;
/// # use serde::{Deserialize, Serialize};
/// #[kubeforge::schema]
/// #[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// pub struct Port {
///     pub name: String,
///     pub port: i32,
/// }
///
/// #[kubeforge::api]
/// #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// #[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
/// pub struct ThingSpec {
///     #[kubeforge(list_map_keys = ["protocol"])]
///     pub ports: Vec<Port>,
/// }
/// ```
///
/// and so does an item type without `#[kubeforge::schema]`, which has no field list
/// (`` `Port` has no kubeforge field list ``, at the field's type):
///
/// ```compile_fail,E0277
/// # use kube::CustomResource;
/// # use schemars::JsonSchema;
/// # use serde::{Deserialize, Serialize};
/// #[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// pub struct Port {
///     pub name: String,
/// }
///
/// #[kubeforge::api]
/// #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// #[kube(group = "ui.example.com", version = "v1", kind = "Thing")]
/// pub struct ThingSpec {
///     #[kubeforge(list_map_keys = ["name"])]
///     pub ports: Vec<Port>,
/// }
/// ```
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
