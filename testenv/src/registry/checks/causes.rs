//! The field errors of the checks, worded as apimachinery's `field.Error`s print.

use serde_json::Value;

use crate::support::status::Cause;

/// `Forbidden: <message>`.
pub fn forbidden(field: &str, message: &str) -> Cause {
    Cause {
        reason: "FieldValueForbidden".into(),
        message: format!("Forbidden: {message}"),
        field: field.into(),
    }
}

/// `Invalid value: <value>: field is immutable`.
pub fn immutable(field: &str, value: &Value) -> Cause {
    invalid(field, value, "field is immutable")
}

/// `Invalid value: <value as JSON>: <why>`.
pub fn invalid(field: &str, value: &Value, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {value}: {why}"),
        field: field.into(),
    }
}

/// `Required value` (with `: <detail>` when there is one).
pub fn required(field: &str, detail: &str) -> Cause {
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
pub fn unsupported(field: &str, value: &Value, supported: &[&str]) -> Cause {
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
