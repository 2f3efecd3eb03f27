//! The uid precondition a written Scale carries: kube-apiserver checks a PUT's in the storage
//! (a failed storage precondition on the object's key) and a patch's in the scale handler,
//! each with its own words.

use serde_json::Value;

use crate::support::meta;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// The etcd key of the object a Scale scales (a ReplicationController is stored under
/// `controllers`, a custom resource under its group).
fn storage_key(def: &ResourceDef, object: &Value) -> String {
    let prefix = match (def.group.as_str(), def.plural.as_str()) {
        ("", "replicationcontrollers") => "controllers".to_string(),
        (group, plural) if def.custom.is_some() => format!("{group}/{plural}"),
        (_, plural) => plural.to_string(),
    };
    let name = meta::meta_str(object, "name").unwrap_or_default();
    match meta::meta_str(object, "namespace").filter(|ns| !ns.is_empty()) {
        Some(ns) => format!("/registry/{prefix}/{ns}/{name}"),
        None => format!("/registry/{prefix}/{name}"),
    }
}

/// The uid a Scale names when it is not the object's: (sent, stored).
fn mismatch<'a>(current: &'a Value, scale: &'a Value) -> Option<(&'a str, &'a str)> {
    let sent = meta::meta_str(scale, "uid").filter(|u| !u.is_empty())?;
    let stored = meta::meta_str(current, "uid").unwrap_or_default();
    (sent != stored).then_some((sent, stored))
}

/// The 409 of a PUT of a Scale whose uid is not the object's: the storage's precondition
/// on the object's key, named after the object's resource.
pub fn put_uid(def: &ResourceDef, current: &Value, scale: &Value) -> Result<(), ApiError> {
    let Some((sent, stored)) = mismatch(current, scale) else {
        return Ok(());
    };
    let name = meta::meta_str(current, "name").unwrap_or_default();
    let why = format!(
        "StorageError: invalid object, Code: 4, Key: {}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {sent}, UID in object meta: {stored}",
        storage_key(def, current)
    );
    Err(ApiError::conflict_with(def, name, &why))
}

/// The 409 of a patch whose patched Scale names a uid not the object's: the scale handler's
/// precondition, named after the `<resource>/scale` subresource.
pub fn patch_uid(def: &ResourceDef, current: &Value, scale: &Value) -> Result<(), ApiError> {
    let Some((sent, stored)) = mismatch(current, scale) else {
        return Ok(());
    };
    let name = meta::meta_str(current, "name").unwrap_or_default();
    let mut scale_def = def.clone();
    scale_def.plural = format!("{}/scale", def.plural);
    let why =
        format!("Precondition failed: UID in precondition: {sent}, UID in object meta: {stored}");
    Err(ApiError::conflict_with(&scale_def, name, &why))
}
