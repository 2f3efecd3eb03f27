//! Kind-specific validation of built-in kinds beyond their schema, one file per group
//! family, worded as the real server words it: [`apps`] (workload selectors), [`cluster`]
//! (Leases, RuntimeClasses, EndpointSlices, FlowSchemas, ResourceClaims).

pub mod apps;
pub mod cluster;

use serde_json::Value;

use crate::support::status::Cause;

pub(crate) fn forbidden(field: &str, message: &str) -> Cause {
    Cause {
        reason: "FieldValueForbidden".into(),
        message: format!("Forbidden: {message}"),
        field: field.into(),
    }
}

pub(crate) fn immutable(field: &str, value: &Value) -> Cause {
    invalid(field, value, "field is immutable")
}

/// `Invalid value: <value as JSON>: <why>`.
pub(crate) fn invalid(field: &str, value: &Value, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {value}: {why}"),
        field: field.into(),
    }
}

/// `Required value` (with `: <detail>` when there is one).
pub(crate) fn required(field: &str, detail: &str) -> Cause {
    let message = if detail.is_empty() {
        "Required value".to_string()
    } else {
        format!("Required value: {detail}")
    };
    Cause {
        reason: "FieldValueRequired".into(),
        message,
        field: field.into(),
    }
}

/// `Unsupported value: "<value>": supported values: "<a>", "<b>"`.
pub(crate) fn unsupported(field: &str, value: &Value, supported: &[&str]) -> Cause {
    let list: Vec<String> = supported.iter().map(|s| format!("\"{s}\"")).collect();
    Cause {
        reason: "FieldValueNotSupported".into(),
        message: format!(
            "Unsupported value: {value}: supported values: {}",
            list.join(", ")
        ),
        field: field.into(),
    }
}

/// The checks of a create of a built-in `group`/`plural`.
pub fn create_causes(group: &str, plural: &str, object: &Value) -> Vec<Cause> {
    match group {
        "apps" => apps::create_causes(plural, object),
        _ => cluster::create_causes(group, plural, object),
    }
}

/// The checks of an update of a built-in `group`/`plural` (`old` is stored).
pub fn update_causes(group: &str, plural: &str, old: &Value, new: &Value) -> Vec<Cause> {
    match group {
        "apps" => apps::update_causes(plural, old, new),
        _ => cluster::update_causes(group, plural, old, new),
    }
}
