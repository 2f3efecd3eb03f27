//! One broken rule, shaped like apimachinery's `field.Error`: the path, the error type, the bad
//! value where one is printed, and the detail, word for word as kube-apiserver writes them.

use std::fmt;

use serde_json::Value;

/// The error type of a [`Violation`] (apimachinery's `field.ErrorType`), with the bad value
/// for the types that print one.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `Required value`.
    Required,
    /// `Forbidden`.
    Forbidden,
    /// `Invalid value: <value>`.
    Invalid(Value),
    /// `Unsupported value: <value>: supported values: "a", "b"`.
    NotSupported(Value, Vec<String>),
}

/// One violated rule of a CRD version's schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The field path in the CRD, in the real server's form
    /// (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`).
    pub path: String,
    /// The error type (and bad value).
    pub kind: Kind,
    /// The explanation, as the real server words it.
    pub detail: String,
}

impl Violation {
    fn new(path: impl Into<String>, kind: Kind, detail: &str) -> Self {
        Violation {
            path: path.into(),
            kind,
            detail: detail.to_string(),
        }
    }

    /// `field.Required(path, detail)`.
    pub fn required(path: impl Into<String>, detail: &str) -> Self {
        Self::new(path, Kind::Required, detail)
    }

    /// `field.Forbidden(path, detail)`.
    pub fn forbidden(path: impl Into<String>, detail: &str) -> Self {
        Self::new(path, Kind::Forbidden, detail)
    }

    /// `field.Invalid(path, value, detail)`.
    pub fn invalid(path: impl Into<String>, value: &Value, detail: &str) -> Self {
        Self::new(path, Kind::Invalid(value.clone()), detail)
    }

    /// `field.NotSupported(path, value, supported)`.
    pub fn not_supported(path: impl Into<String>, value: &Value, supported: &[String]) -> Self {
        Self::new(
            path,
            Kind::NotSupported(value.clone(), supported.to_vec()),
            "",
        )
    }
}

/// A value as apimachinery prints it in a field error: `%v` for scalars, `%q` for strings,
/// JSON for the rest.
fn go_value(v: &Value) -> String {
    match v {
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        other => other.to_string(),
    }
}

impl fmt::Display for Violation {
    /// The error as the real server prints it: `path: Invalid value: "x": detail`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path)?;
        match &self.kind {
            Kind::Required => write!(f, "Required value")?,
            Kind::Forbidden => write!(f, "Forbidden")?,
            Kind::Invalid(v) => write!(f, "Invalid value: {}", go_value(v))?,
            Kind::NotSupported(v, supported) => {
                write!(f, "Unsupported value: {}", go_value(v))?;
                if !supported.is_empty() {
                    let quoted: Vec<String> = supported
                        .iter()
                        .map(|s| go_value(&Value::from(s.as_str())))
                        .collect();
                    write!(f, ": supported values: {}", quoted.join(", "))?;
                }
            }
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}
