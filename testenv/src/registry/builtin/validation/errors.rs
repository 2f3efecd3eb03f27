//! Field errors as apimachinery words them (`field.Invalid`, `field.Required`, ...), and the
//! name and value rules of `k8s.io/apimachinery/pkg/util/validation` the built-in kinds use.

use serde_json::{Map, Value};

pub use crate::support::meta::{dns1123_label, dns1123_subdomain};
use crate::support::meta::{label_key_errors, label_value_error};
use crate::support::status::Cause;

/// The errors of one object, in the order the real server finds them.
pub type Errors = Vec<Cause>;

/// `field.Invalid`: the value as Go prints it, then why.
pub fn invalid(field: &str, value: &Value, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {}: {why}", go_value(value)),
        field: field.into(),
    }
}

/// `field.Invalid` with the value already printed (Go struct order matters there).
pub fn invalid_text(field: &str, value: &str, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {value}: {why}"),
        field: field.into(),
    }
}

/// `field.Invalid` of a string value.
pub fn invalid_str(field: &str, value: &str, why: &str) -> Cause {
    invalid(field, &Value::String(value.into()), why)
}

/// `field.Required`.
pub fn required(field: &str) -> Cause {
    Cause {
        reason: "FieldValueRequired".into(),
        message: "Required value".into(),
        field: field.into(),
    }
}

/// `field.Required` with a detail: `Required value: <detail>`.
pub fn required_because(field: &str, detail: &str) -> Cause {
    Cause {
        message: format!("Required value: {detail}"),
        ..required(field)
    }
}

/// `field.Forbidden`.
pub fn forbidden(field: &str, why: &str) -> Cause {
    Cause {
        reason: "FieldValueForbidden".into(),
        message: format!("Forbidden: {why}"),
        field: field.into(),
    }
}

/// `field.Duplicate`.
pub fn duplicate(field: &str, value: &Value) -> Cause {
    Cause {
        reason: "FieldValueDuplicate".into(),
        message: format!("Duplicate value: {}", go_value(value)),
        field: field.into(),
    }
}

/// `field.NotSupported`, listing the supported values in the order given.
pub fn not_supported(field: &str, value: &str, supported: &[&str]) -> Cause {
    let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    Cause {
        reason: "FieldValueNotSupported".into(),
        message: format!(
            "Unsupported value: {value:?}: supported values: {}",
            list.join(", ")
        ),
        field: field.into(),
    }
}

/// The error of an immutable field that changed (`ValidateImmutableField`).
pub fn immutable(field: &str, value: &Value) -> Cause {
    invalid(field, value, "field is immutable")
}

/// A value as the real server prints it in a field error: strings quoted, numbers bare,
/// objects and lists as JSON.
pub fn go_value(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// A child path: `spec` + `ports` → `spec.ports`.
pub fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// An index path: `spec.ports` + 1 → `spec.ports[1]`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// A key path: `data` + `k` → `data[k]`.
pub fn key(path: &str, k: &str) -> String {
    format!("{path}[{k}]")
}

const CONFIG_KEY: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/// `ValidateDNS1123Label` at `field`.
pub fn check_dns1123_label(field: &str, value: &str) -> Errors {
    dns1123_label(value)
        .iter()
        .map(|m| invalid_str(field, value, m))
        .collect()
}

/// `IsConfigMapKey`: keys of ConfigMap and Secret data.
pub fn config_key(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > 253 {
        out.push("must be no more than 253 characters".to_string());
    }
    if !value
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        || value.is_empty()
    {
        out.push(CONFIG_KEY.to_string());
    }
    if value == "." {
        out.push("must not be '.'".to_string());
    } else if value == ".." {
        out.push("must not be '..'".to_string());
    } else if value.starts_with("..") {
        out.push("must not start with '..'".to_string());
    }
    out
}

/// `IsValidPortNum`.
pub fn port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec!["must be between 1 and 65535, inclusive".to_string()]
    }
}

/// `IsValidPortName`: an IANA service name.
pub fn port_name(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if name.len() > 15 {
        out.push("must be no more than 15 characters".to_string());
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
    {
        out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".into());
    }
    if !name.bytes().any(|c| c.is_ascii_lowercase()) {
        out.push("must contain at least one letter (a-z)".into());
    }
    if name.contains("--") {
        out.push("must not contain consecutive hyphens".into());
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not begin or end with a hyphen".into());
    }
    out
}

/// `ValidatePortNumOrName`: a number in range or a valid port name.
pub fn check_port_num_or_name(field: &str, value: &Value) -> Errors {
    match value {
        Value::String(s) if s.is_empty() => vec![required(field)],
        Value::String(s) => port_name(s)
            .iter()
            .map(|m| invalid_str(field, s, m))
            .collect(),
        other => {
            let n = other.as_i64().unwrap_or(0);
            port_num(n)
                .iter()
                .map(|m| invalid(field, other, m))
                .collect()
        }
    }
}

/// `ValidateLabels` of a label map at `field` (selectors, template labels).
pub fn check_labels(field: &str, labels: Option<&Map<String, Value>>) -> Errors {
    let mut out = Vec::new();
    for (k, v) in labels.into_iter().flatten() {
        for why in label_key_errors(k) {
            out.push(invalid_str(field, k, &why));
        }
        let value = v.as_str().unwrap_or_default();
        if let Some(why) = label_value_error(value) {
            out.push(invalid_str(field, value, why));
        }
    }
    out
}

/// `ValidateNonnegativeField` of an optional integer at `field`.
pub fn check_nonnegative(field: &str, value: Option<&Value>) -> Errors {
    match value.and_then(Value::as_i64) {
        Some(n) if n < 0 => vec![invalid(
            field,
            &Value::from(n),
            "must be greater than or equal to 0",
        )],
        _ => Vec::new(),
    }
}

/// `field: message` of each error, as the tests compare them.
#[cfg(test)]
pub(super) fn field_messages(errors: &Errors) -> Vec<String> {
    errors
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_keys() {
        assert!(config_key("a.b-c_D").is_empty());
        assert_eq!(config_key("bad key"), vec![CONFIG_KEY.to_string()]);
        assert_eq!(config_key(".."), vec!["must not be '..'".to_string()]);
        assert_eq!(
            config_key("..a"),
            vec!["must not start with '..'".to_string()]
        );
    }

    #[test]
    fn port_names() {
        assert!(port_name("http").is_empty());
        assert_eq!(port_name("Bad_Name").len(), 1);
        assert_eq!(port_name("80").len(), 1);
    }
}
