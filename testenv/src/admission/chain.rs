//! kube-apiserver's default admission plugins, in its order. On a create: the mutating half
//! (LimitRanger defaults, ServiceAccount, Priority, DefaultTolerationSeconds,
//! DefaultStorageClass, StorageObjectInUseProtection, RuntimeClass, DefaultIngressClass,
//! TaintNodesByCondition) before the object is validated, the validating half after it
//! (LimitRanger bounds before PodSecurity and the policies, ResourceQuota after them). On
//! an update: a Pod's Priority and DefaultTolerationSeconds before it is validated,
//! PersistentVolumeClaimResize after it, ResourceQuota last (after PodSecurity and the
//! policies, as on a create).

use serde_json::Value;

use super::{defaults, limit_ranger, plugins, pvc_resize, quota, runtime_class, service_account};
use crate::storage::Store;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Whether a mutating plugin may change a created object of `def` (their changes come
/// after the field manager, so they are not the creator's fields).
pub fn mutates(def: &ResourceDef) -> bool {
    matches!(
        (def.group.as_str(), def.plural.as_str()),
        (
            "",
            "pods" | "persistentvolumeclaims" | "persistentvolumes" | "nodes"
        ) | ("networking.k8s.io", "ingresses")
            | ("storage.k8s.io", "volumeattributesclasses")
    )
}

/// The mutating plugins on an object of `def` being created in namespace `ns`.
pub fn mutate(
    store: &Store,
    def: &ResourceDef,
    ns: &str,
    object: &mut Value,
) -> Result<(), ApiError> {
    match (def.group.as_str(), def.plural.as_str()) {
        ("", "pods") => {
            // The real server defaults a Pod while decoding it, before admission: the
            // LimitRanger sees requests already copied from limits.
            defaults::apply_builtin_defaults(&def.group, &def.version, &def.kind, object);
            limit_ranger::default_pod(store, object, ns);
            service_account::admit_pod(store, object, ns)?;
            plugins::pod(store, object)?;
            runtime_class::admit_pod(store, object)?;
        }
        ("networking.k8s.io", "ingresses") => plugins::ingress(store, object),
        ("", "persistentvolumeclaims") => plugins::claim(store, object),
        ("", "persistentvolumes") => plugins::volume(object),
        ("", "nodes") => plugins::node(object),
        ("storage.k8s.io", "volumeattributesclasses") => {
            plugins::volume_attributes_class(object);
        }
        _ => {}
    }
    Ok(())
}

/// The mutating plugins on the update of `old` to `object` (of `def`) at its main
/// endpoint: a Pod's Priority and DefaultTolerationSeconds (the others act on creates), and
/// what the Node strategy drops of an update.
pub fn mutate_update(def: &ResourceDef, object: &mut Value, old: &Value) {
    match (def.group.as_str(), def.plural.as_str()) {
        ("", "pods") => plugins::pod_update(object, old),
        ("", "nodes") => plugins::node_update(object),
        _ => {}
    }
}

/// The validating plugins that come before PodSecurity and the policies on an object of
/// `def` being created in `ns`: LimitRanger's bounds of a Pod's containers.
pub fn validate_limits(
    store: &Store,
    def: &ResourceDef,
    ns: &str,
    object: &mut Value,
) -> Result<(), ApiError> {
    if !ns.is_empty() && def.group.is_empty() && def.plural == "pods" {
        limit_ranger::validate_pod(store, object, ns)?;
    }
    Ok(())
}

/// The validating plugins that come after the policies on an object of `def` named `name`
/// being created in `ns`: ResourceQuota.
pub fn validate(
    store: &Store,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    object: &mut Value,
) -> Result<(), ApiError> {
    if ns.is_empty() {
        return Ok(());
    }
    quota::admit_create(store, &def.plural, &def.storage_key, ns, name, object)
}

/// The validating plugins that come before the policies on the update of `old` to `object`
/// (of `def`, named `name`, in `ns`): PersistentVolumeClaimResize.
pub fn validate_update(
    store: &Store,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    object: &Value,
    old: &Value,
) -> Result<(), ApiError> {
    if !ns.is_empty() && def.group.is_empty() && def.plural == "persistentvolumeclaims" {
        pvc_resize::admit_update(store, name, object, old)?;
    }
    Ok(())
}

/// The validating plugin that comes last, after PodSecurity and the policies, on the update
/// of `old` to `object` (of `def`, named `name`, in `ns`): ResourceQuota on what the update
/// adds. The quota plugin passes over subresources but `pods/resize`, whose growth it
/// charges.
pub fn validate_update_last(
    store: &Store,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    object: &Value,
    old: &Value,
) -> Result<(), ApiError> {
    if ns.is_empty() {
        return Ok(());
    }
    quota::admit_update(store, &def.plural, &def.storage_key, ns, name, object, old)
}
