//! Kubernetes' format library (`format.dns1123Label()`, `format.named("...")`,
//! `<format>.validate(s)`) and semver library (`semver()`, `isSemver()`, `major()`, ...),
//! which the real server's CEL environment has and cel-rust lacks.

use std::sync::Arc;

use cel::common::types::{BOOL_TYPE, STRING_TYPE};
use cel::objects::{Opaque, OptionalValue};
use cel::{DeclarationError, Env, ExecutionError, Value};
use regex::Regex;

use super::overload::{fail, opaque_arg, opaque_type, str_arg, value_fn};

/// A named format whose `validate` checks strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format(&'static str);

impl Opaque for Format {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.NamedFormat"
    }
}

const FORMATS: &[&str] = &[
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern")
}

const DNS1035_LABEL: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";

/// `format.dns1123Label()`: apimachinery's `IsDNS1123Label`.
fn label_1123(s: &str) -> Vec<String> {
    crate::support::meta::dns1123_label(s)
}

fn label_1035(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".into());
    }
    if !re(&format!("^{DNS1035_LABEL}$")).is_match(s) {
        errs.push(format!("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '{DNS1035_LABEL}')"));
    }
    errs
}

/// `format.dns1123Subdomain()`: apimachinery's `IsDNS1123Subdomain`.
fn subdomain(s: &str) -> Vec<String> {
    crate::support::meta::dns1123_subdomain(s)
}

/// A name that may end in `-` (a prefix for generated names) is checked with an `a` after it.
fn prefixed(s: &str, check: fn(&str) -> Vec<String>) -> Vec<String> {
    match s.strip_suffix('-') {
        Some(head) => check(&format!("{head}-a")),
        None => check(s),
    }
}

/// The problems `format` finds with `s` (none: valid).
pub fn validate(format: &str, s: &str) -> Vec<String> {
    match format {
        "dns1123Label" => label_1123(s),
        "dns1123Subdomain" => subdomain(s),
        "dns1035Label" => label_1035(s),
        "dns1123LabelPrefix" => prefixed(s, label_1123),
        "dns1123SubdomainPrefix" => prefixed(s, subdomain),
        "dns1035LabelPrefix" => prefixed(s, label_1035),
        "qualifiedName" => crate::support::meta::label_key_errors(s),
        "labelValue" => {
            let mut errs = Vec::new();
            if s.len() > 63 {
                errs.push("must be no more than 63 characters".into());
            }
            if !re("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$").is_match(s) {
                errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".into());
            }
            errs
        }
        "uri" => match super::url::parse(s) {
            Ok(_) => Vec::new(),
            Err(_) => vec![format!("parse {s:?}: invalid URI for request")],
        },
        "uuid" => {
            let ok = re("^(urn:uuid:)?\\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\\}?$").is_match(s);
            if ok {
                Vec::new()
            } else {
                vec!["does not match the UUID format".into()]
            }
        }
        "byte" => {
            let ok = re("^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$").is_match(s);
            if ok {
                Vec::new()
            } else {
                vec!["invalid base64".into()]
            }
        }
        "date" => match jiff::civil::Date::strptime("%Y-%m-%d", s) {
            Ok(_) => Vec::new(),
            Err(_) => vec![format!("invalid date {s:?}")],
        },
        "datetime" => match s.parse::<jiff::Timestamp>() {
            Ok(_) => Vec::new(),
            Err(_) => vec![format!("invalid datetime {s:?}")],
        },
        _ => Vec::new(),
    }
}

/// Declares the format and semver functions on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    for name in FORMATS {
        env.add_overload(
            &format!("format.{name}"),
            &format!("format_{name}"),
            vec![],
            named_format(name),
        )?;
    }
    env.add_overload(
        "format.named",
        "format_named",
        vec![STRING_TYPE],
        format_named,
    )?;
    env.add_member_overload(
        "validate",
        "format_validate",
        opaque_type("kubernetes.NamedFormat"),
        vec![STRING_TYPE],
        format_validate,
    )?;
    env.add_overload("semver", "string_to_semver", vec![STRING_TYPE], semver_of)?;
    env.add_overload(
        "semver",
        "string_bool_to_semver",
        vec![STRING_TYPE, BOOL_TYPE],
        semver_of,
    )?;
    env.add_overload("isSemver", "is_semver", vec![STRING_TYPE], is_semver)?;
    env.add_overload(
        "isSemver",
        "is_semver_normalize",
        vec![STRING_TYPE, BOOL_TYPE],
        is_semver,
    )?;
    let sv = || opaque_type("kubernetes.Semver");
    env.add_member_overload("major", "semver_major", sv(), vec![], major)?;
    env.add_member_overload("minor", "semver_minor", sv(), vec![], minor)?;
    env.add_member_overload("patch", "semver_patch", sv(), vec![], patch)?;
    env.add_member_overload(
        "isGreaterThan",
        "semver_greater",
        sv(),
        vec![sv()],
        semver_greater,
    )?;
    env.add_member_overload("isLessThan", "semver_less", sv(), vec![sv()], semver_less)?;
    env.add_member_overload(
        "compareTo",
        "semver_compare_to",
        sv(),
        vec![sv()],
        semver_compare,
    )?;
    Ok(())
}

fn named_format(name: &'static str) -> cel::common::functions::Function {
    let f = FORMATS.iter().position(|n| *n == name).unwrap_or(0);
    // One function per format: the format is looked up by its position.
    const TABLE: [cel::common::functions::Function; 13] =
        [f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12];
    TABLE[f]
}

macro_rules! format_fn {
    ($($f:ident = $i:expr),*) => {
        $(value_fn!($f, |_a| Ok(Value::Opaque(Arc::new(Format(FORMATS[$i]))))) ;)*
    };
}
format_fn!(
    f0 = 0,
    f1 = 1,
    f2 = 2,
    f3 = 3,
    f4 = 4,
    f5 = 5,
    f6 = 6,
    f7 = 7,
    f8 = 8,
    f9 = 9,
    f10 = 10,
    f11 = 11,
    f12 = 12
);

value_fn!(format_named, |a| {
    let name = str_arg(a, 0)?;
    Ok(Value::Opaque(Arc::new(
        match FORMATS.iter().find(|f| **f == name) {
            Some(f) => OptionalValue::of(Value::Opaque(Arc::new(Format(f)))),
            None => OptionalValue::none(),
        },
    )))
});

value_fn!(format_validate, |a| {
    let format = opaque_arg::<Format>(a, 0)?;
    let errs = validate(format.0, str_arg(a, 1)?);
    Ok(Value::Opaque(Arc::new(if errs.is_empty() {
        OptionalValue::none()
    } else {
        let list = errs
            .into_iter()
            .map(|e| Value::String(Arc::new(e)))
            .collect();
        OptionalValue::of(Value::List(Arc::new(list)))
    })))
});

/// A semantic version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Semver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Vec<String>,
}

impl Opaque for Semver {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.Semver"
    }
}

fn number(s: &str) -> Option<u64> {
    if s.is_empty() || (s.len() > 1 && s.starts_with('0')) || !s.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    s.parse().ok()
}

/// Parses a semantic version 2.0.0; `normalize` accepts a leading `v`, missing minor and
/// patch, and leading zeros, as the real library's normalizing form does.
pub fn parse_semver(s: &str, normalize: bool) -> Result<Semver, String> {
    let err = || format!("Invalid semver: {s}");
    let mut text = s.to_string();
    if normalize {
        text = text.trim_start_matches('v').to_string();
    }
    let (core, rest) = match text.find(['-', '+']) {
        Some(i) => (text[..i].to_string(), text[i..].to_string()),
        None => (text.clone(), String::new()),
    };
    let mut parts: Vec<String> = core.split('.').map(str::to_string).collect();
    if normalize {
        while parts.len() < 3 {
            parts.push("0".into());
        }
        for p in &mut parts {
            let trimmed = p.trim_start_matches('0');
            *p = if trimmed.is_empty() {
                "0".into()
            } else {
                trimmed.to_string()
            };
        }
    }
    let [ma, mi, pa] = parts.as_slice() else {
        return Err(err());
    };
    let (major, minor, patch) = (
        number(ma).ok_or_else(err)?,
        number(mi).ok_or_else(err)?,
        number(pa).ok_or_else(err)?,
    );
    let pre_text = rest
        .strip_prefix('-')
        .map_or("", |r| r.split('+').next().unwrap_or(""));
    let pre: Vec<String> = if pre_text.is_empty() {
        Vec::new()
    } else {
        pre_text.split('.').map(str::to_string).collect()
    };
    if rest.starts_with('-')
        && pre
            .iter()
            .any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
    {
        return Err(err());
    }
    Ok(Semver {
        major,
        minor,
        patch,
        pre,
    })
}

fn compare(a: &Semver, b: &Semver) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let core = (a.major, a.minor, a.patch).cmp(&(b.major, b.minor, b.patch));
    if core != Ordering::Equal {
        return core;
    }
    match (a.pre.is_empty(), b.pre.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => {
            for (x, y) in a.pre.iter().zip(&b.pre) {
                let o = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(p), Ok(q)) => p.cmp(&q),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    _ => x.cmp(y),
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
            a.pre.len().cmp(&b.pre.len())
        }
    }
}

fn normalize_arg(a: &[Value]) -> bool {
    matches!(a.get(1), Some(Value::Bool(true)))
}

fn semver(a: &[Value], i: usize) -> Result<&Semver, ExecutionError> {
    opaque_arg::<Semver>(a, i)
}

value_fn!(semver_of, |a| parse_semver(
    str_arg(a, 0)?,
    normalize_arg(a)
)
.map(|v| Value::Opaque(Arc::new(v)))
.map_err(|e| fail("semver", e)));
value_fn!(is_semver, |a| Ok(Value::Bool(
    parse_semver(str_arg(a, 0)?, normalize_arg(a)).is_ok()
)));
value_fn!(major, |a| Ok(Value::Int(semver(a, 0)?.major as i64)));
value_fn!(minor, |a| Ok(Value::Int(semver(a, 0)?.minor as i64)));
value_fn!(patch, |a| Ok(Value::Int(semver(a, 0)?.patch as i64)));
value_fn!(semver_greater, |a| Ok(Value::Bool(
    compare(semver(a, 0)?, semver(a, 1)?).is_gt()
)));
value_fn!(semver_less, |a| Ok(Value::Bool(
    compare(semver(a, 0)?, semver(a, 1)?).is_lt()
)));
value_fn!(semver_compare, |a| Ok(Value::Int(
    compare(semver(a, 0)?, semver(a, 1)?) as i64
)));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_semvers() {
        assert!(validate("dns1123Label", "my-name").is_empty());
        assert_eq!(validate("dns1123Label", "My_Name").len(), 1);
        assert!(validate("dns1123LabelPrefix", "gen-").is_empty());
        assert!(validate("uuid", "0d4e28e3-28a7-472c-9e5a-9396694ccb6f").is_empty());
        assert!(validate("date", "2024-02-30").len() == 1);
        assert!(validate("datetime", "2024-01-01T00:00:00Z").is_empty());
        let v = parse_semver("1.2.3-alpha.1", false).unwrap();
        assert_eq!((v.major, v.minor, v.patch), (1, 2, 3));
        assert!(compare(&v, &parse_semver("1.2.3", false).unwrap()).is_lt());
        assert!(parse_semver("v1.2", false).is_err());
        assert_eq!(parse_semver("v1.2", true).unwrap().minor, 2);
        assert!(parse_semver("01.2.3", false).is_err());
    }
}
