//! Field-level validation errors, shaped and printed like apimachinery's `field.Error`.
//!
//! The server turns a list of these into a 422 `Status` whose `details.causes` carry
//! `reason()` as the cause type, `field` as the cause field and `message` as the cause
//! message, exactly like `apierrors.NewInvalid` does.

pub use crate::support::go_quote::go_quote;
use serde_json::Value;
use std::fmt;

/// The kind of a field error, one to one with apimachinery's `field.ErrorType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldErrorKind {
    /// A required value is missing (`Required value`).
    Required,
    /// A value is malformed or out of bounds (`Invalid value`).
    Invalid,
    /// A value is not allowed in the current context (`Forbidden`).
    Forbidden,
    /// A value is not one of an enumerated set (`Unsupported value`).
    NotSupported,
    /// A string is longer than allowed (`Too long`).
    TooLong,
    /// A list or map has more entries than allowed (`Too many`).
    TooMany,
    /// A value collides with another that must be unique (`Duplicate value`).
    Duplicate,
    /// A value does not have the schema's type (printed as `Invalid value`).
    TypeInvalid,
    /// A referenced value was not found (`Not found`).
    NotFound,
    /// Something went wrong that is not the client's fault (`Internal error`).
    Internal,
}

impl FieldErrorKind {
    /// The `field.ErrorType` string, used as the Status cause `reason`.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Required => "FieldValueRequired",
            Self::Invalid => "FieldValueInvalid",
            Self::Forbidden => "FieldValueForbidden",
            Self::NotSupported => "FieldValueNotSupported",
            Self::TooLong => "FieldValueTooLong",
            Self::TooMany => "FieldValueTooMany",
            Self::Duplicate => "FieldValueDuplicate",
            Self::TypeInvalid => "FieldValueTypeInvalid",
            Self::NotFound => "FieldValueNotFound",
            Self::Internal => "InternalError",
        }
    }

    /// The human text apimachinery prints for this type (`ErrorType.String()`).
    pub fn label(self) -> &'static str {
        match self {
            Self::Required => "Required value",
            Self::Invalid | Self::TypeInvalid => "Invalid value",
            Self::Forbidden => "Forbidden",
            Self::NotSupported => "Unsupported value",
            Self::TooLong => "Too long",
            Self::TooMany => "Too many",
            Self::Duplicate => "Duplicate value",
            Self::NotFound => "Not found",
            Self::Internal => "Internal error",
        }
    }

    /// Whether apimachinery prints the bad value for this type (it omits it for
    /// Required, Forbidden, TooLong and Internal).
    fn prints_value(self) -> bool {
        !matches!(
            self,
            Self::Required | Self::Forbidden | Self::TooLong | Self::Internal
        )
    }
}

/// One field-level validation error.
///
/// `message` is the error body without the field (apimachinery's `ErrorBody()`), e.g.
/// `Invalid value: "string": spec.replicas in body must be of type integer: "string"`;
/// it is what the real server puts in a Status cause's `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field path, e.g. `spec.replicas` or `spec.containers[0].name`.
    pub field: String,
    /// What kind of error this is.
    pub kind: FieldErrorKind,
    /// The error body as the real server prints it (without the leading `field: `).
    pub message: String,
}

impl FieldError {
    /// Builds an error whose body is `<label>[: <value>][: <detail>]` as apimachinery prints it.
    ///
    /// `value` is the bad value (printed for the kinds that print one; `None` means
    /// "omit the value"), `detail` the optional explanation.
    pub fn new(
        field: impl Into<String>,
        kind: FieldErrorKind,
        value: Option<&Value>,
        detail: &str,
    ) -> Self {
        let mut body = kind.label().to_string();
        if kind.prints_value()
            && let Some(v) = value
        {
            body.push_str(": ");
            body.push_str(&go_value(v));
        }
        if !detail.is_empty() {
            body.push_str(": ");
            body.push_str(detail);
        }
        FieldError {
            field: field.into(),
            kind,
            message: body,
        }
    }

    /// `field.Required(path, detail)`.
    pub fn required(field: impl Into<String>, detail: &str) -> Self {
        Self::new(field, FieldErrorKind::Required, None, detail)
    }

    /// `field.Invalid(path, value, detail)`.
    pub fn invalid(field: impl Into<String>, value: &Value, detail: &str) -> Self {
        Self::new(field, FieldErrorKind::Invalid, Some(value), detail)
    }

    /// `field.TypeInvalid(path, value, detail)`.
    pub fn type_invalid(field: impl Into<String>, value: &Value, detail: &str) -> Self {
        Self::new(field, FieldErrorKind::TypeInvalid, Some(value), detail)
    }

    /// `field.Forbidden(path, detail)`.
    pub fn forbidden(field: impl Into<String>, detail: &str) -> Self {
        Self::new(field, FieldErrorKind::Forbidden, None, detail)
    }

    /// `field.Duplicate(path, value)`.
    pub fn duplicate(field: impl Into<String>, value: &Value) -> Self {
        Self::new(field, FieldErrorKind::Duplicate, Some(value), "")
    }

    /// `field.NotSupported(path, value, supported)`: detail `supported values: "a", "b"`.
    pub fn not_supported(field: impl Into<String>, value: &Value, supported: &[String]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(field, FieldErrorKind::NotSupported, Some(value), &detail)
    }

    /// `field.TooLong(path, value, max)`: `Too long: may not be more than 5 bytes`.
    pub fn too_long(field: impl Into<String>, max: i64) -> Self {
        let detail = if max >= 0 {
            format!(
                "may not be more than {max} {}",
                if max == 1 { "byte" } else { "bytes" }
            )
        } else {
            "value is too long".to_string()
        };
        Self::new(field, FieldErrorKind::TooLong, None, &detail)
    }

    /// `field.TooMany(path, actual, max)`: `Too many: 6: must have at most 5 items`.
    pub fn too_many(field: impl Into<String>, actual: i64, max: i64) -> Self {
        let detail = if max >= 0 {
            format!(
                "must have at most {max} {}",
                if max == 1 { "item" } else { "items" }
            )
        } else {
            "has too many items".to_string()
        };
        let actual = (actual >= 0).then(|| Value::from(actual));
        Self::new(field, FieldErrorKind::TooMany, actual.as_ref(), &detail)
    }

    /// `field.NotFound(path, value)`.
    pub fn not_found(field: impl Into<String>, value: &Value) -> Self {
        Self::new(field, FieldErrorKind::NotFound, Some(value), "")
    }

    /// `field.InternalError(path, err)`.
    pub fn internal(field: impl Into<String>, detail: &str) -> Self {
        Self::new(field, FieldErrorKind::Internal, None, detail)
    }

    /// The Status cause reason: `FieldValueRequired`, `FieldValueInvalid`, ...
    pub fn reason(&self) -> &'static str {
        self.kind.reason()
    }

    /// The full text as the real apiserver prints it: `<field>: <body>`, e.g.
    /// `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`.
    pub fn to_message(&self) -> String {
        format!("{}: {}", self.field, self.message)
    }
}

impl From<&kubeforge_schema::Violation> for FieldError {
    /// A violated CRD schema rule (shared with the runtime), printed as the real server does.
    fn from(v: &kubeforge_schema::Violation) -> Self {
        use kubeforge_schema::Kind;
        match &v.kind {
            Kind::Required => FieldError::required(&v.path, &v.detail),
            Kind::Forbidden => FieldError::forbidden(&v.path, &v.detail),
            Kind::Invalid(value) => FieldError::invalid(&v.path, value, &v.detail),
            Kind::NotSupported(value, supported) => {
                FieldError::not_supported(&v.path, value, supported)
            }
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_message())
    }
}

impl std::error::Error for FieldError {}

/// The message of a 422 Invalid Status as the apiserver builds it:
/// `<Kind>.<group> "<name>" is invalid: <errors>` (one error printed bare, several as
/// `[a, b]`, duplicates removed as `ErrorList.ToAggregate()` does).
///
/// `qualified_kind` is `Kind.group` (just `Kind` for the core group).
pub fn invalid_status_message(qualified_kind: &str, name: &str, errors: &[FieldError]) -> String {
    let mut seen = std::collections::HashSet::new();
    let msgs: Vec<String> = errors
        .iter()
        .map(FieldError::to_message)
        .filter(|m| seen.insert(m.clone()))
        .collect();
    let list = match msgs.len() {
        0 => String::new(),
        1 => msgs[0].clone(),
        _ => format!("[{}]", msgs.join(", ")),
    };
    format!("{qualified_kind} {} is invalid: {list}", go_quote(name))
}

/// Prints a JSON value the way apimachinery's `ErrorBody` prints a bad value: numbers and
/// booleans bare (`%v`), strings quoted (`%q`), anything else (null included) as JSON.
pub fn go_value(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_number(n),
        Value::String(s) => go_quote(s),
        other => other.to_string(),
    }
}

/// Prints a JSON number as Go's `%v` does for the int64/float64 an unstructured decode yields.
pub fn go_number(n: &serde_json::Number) -> String {
    // The server decodes a number beyond int64 as a float64, and prints it as one.
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else {
        go_float(n.as_f64().unwrap_or(0.0))
    }
}

/// Go's `%v` for a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest
/// representation, in exponent form when the exponent is below -4 or at least 6
/// (so a million prints as `1e+06`, like the real server's messages).
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest round-trip digits via Rust's `{:e}` formatting: "d.ddde<exp>".
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let mut m = digits[..1].to_string();
        if digits.len() > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{m}e{esign}{:02}", exp.abs());
    }
    // Fixed notation.
    let dp = exp + 1; // digits before the decimal point
    let s = if dp <= 0 {
        format!("0.{}{}", "0".repeat((-dp) as usize), digits)
    } else if dp as usize >= digits.len() {
        format!("{}{}", digits, "0".repeat(dp as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    };
    format!("{sign}{s}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_match_apimachinery() {
        assert_eq!(
            FieldError::required("spec.foo", "").to_message(),
            "spec.foo: Required value"
        );
        assert_eq!(
            FieldError::not_supported("spec.mode", &json!("x"), &["a".into(), "b".into()])
                .to_message(),
            r#"spec.mode: Unsupported value: "x": supported values: "a", "b""#
        );
        assert_eq!(
            FieldError::too_many("spec.items", 6, 5).to_message(),
            "spec.items: Too many: 6: must have at most 5 items"
        );
        assert_eq!(
            FieldError::too_long("spec.name", 5).to_message(),
            "spec.name: Too long: may not be more than 5 bytes"
        );
        assert_eq!(
            FieldError::invalid("spec.l", &json!(["a", 1]), "bad").to_message(),
            r#"spec.l: Invalid value: ["a",1]: bad"#
        );
        assert_eq!(
            FieldError::forbidden("x", "no").reason(),
            "FieldValueForbidden"
        );
        assert_eq!(
            FieldError::type_invalid("x", &json!("string"), "").reason(),
            "FieldValueTypeInvalid"
        );
    }

    #[test]
    fn go_float_formatting() {
        assert_eq!(go_float(1.0), "1");
        assert_eq!(go_float(1.5), "1.5");
        assert_eq!(go_float(100000.0), "100000");
        assert_eq!(go_float(1000000.0), "1e+06");
        assert_eq!(go_float(0.0001), "0.0001");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(go_float(-2.25), "-2.25");
        assert_eq!(go_float(123456789.0), "1.23456789e+08");
    }

    #[test]
    fn invalid_status_message_aggregates() {
        let errs = vec![
            FieldError::required("spec.a", ""),
            FieldError::required("spec.a", ""),
            FieldError::required("spec.b", ""),
        ];
        assert_eq!(
            invalid_status_message("Memcached.cache.example.com", "m", &errs),
            r#"Memcached.cache.example.com "m" is invalid: [spec.a: Required value, spec.b: Required value]"#
        );
    }
}
