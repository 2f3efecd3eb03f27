//! Rust names for JSON names: field identifiers (snake_case, keywords as raw identifiers),
//! type and variant names (UpperCamelCase), and the bookkeeping that keeps them unique when two
//! JSON names map to one Rust name (`foo` and `Foo`, `fooBar.baz` and `foo.barBaz`).

use std::collections::BTreeSet;

/// Rust keywords a field may still use as a raw identifier (`r#type`).
const RAW_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers: they get a trailing `_` instead.
const UNRAWABLE: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Names every generated file uses from std, serde, schemars and kube, which a generated type
/// must not shadow.
pub const RESERVED_TYPES: &[&str] = &[
    "BTreeMap",
    "Box",
    "Clone",
    "CustomResource",
    "Debug",
    "Default",
    "Deserialize",
    "IntOrString",
    "JsonSchema",
    "Option",
    "PartialEq",
    "Result",
    "Serialize",
    "String",
    "Vec",
];

/// The words of a name: split at non-alphanumeric characters and at case changes
/// (`issuerRef` → `issuer`, `Ref`; `HTTPHeader` → `HTTP`, `Header`; `x-foo_bar` → `x`, `foo`,
/// `bar`). Digits stay with the letters before them.
pub fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let chars: Vec<char> = part.chars().collect();
        let mut current = String::new();
        for (i, &c) in chars.iter().enumerate() {
            if c.is_ascii_uppercase() && !current.is_empty() {
                let prev = chars[i - 1];
                let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
                if prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower)
                {
                    words.push(std::mem::take(&mut current));
                }
            }
            current.push(c);
        }
        if !current.is_empty() {
            words.push(current);
        }
    }
    words
}

/// `issuerRef` → `issuer_ref`; `$ref` → `ref`; `1st` → `_1st`; `` → `field`.
fn snake(name: &str) -> String {
    let joined = words(name)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    match joined.chars().next() {
        None => "field".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("_{joined}"),
        Some(_) => joined,
    }
}

/// `issuer_ref` → `IssuerRef`, `HTTPRoute` → `HttpRoute`, `r#type` → `Type`, `1st` → `V1st`.
pub fn camel(name: &str) -> String {
    let name = name.strip_prefix("r#").unwrap_or(name);
    let mut out = String::new();
    for word in words(name) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    match out.chars().next() {
        None => "Value".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("V{out}"),
        Some(_) => out,
    }
}

/// A field identifier for the JSON name `name` (before making it unique): snake_case, keywords
/// as raw identifiers.
pub fn field_ident(name: &str) -> String {
    let ident = snake(name);
    if UNRAWABLE.contains(&ident.as_str()) {
        format!("{ident}_")
    } else if RAW_KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else {
        ident
    }
}

/// The identifier without a raw prefix (`r#type` → `type`), as serde names the field.
pub fn unraw(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// Field identifiers for the JSON names of one object, unique: a name that maps to an
/// identifier another name maps to as well gets `_2`, `_3`... in JSON-name order, except the name
/// that is its identifier already (`Foo` and `foo` → `foo_2` and `foo`). `taken` holds
/// identifiers already used in the struct.
pub fn field_idents(json_names: &[&str], taken: &[&str]) -> Vec<String> {
    let wanted: Vec<String> = json_names.iter().map(|n| field_ident(n)).collect();
    let mut used: BTreeSet<String> = taken.iter().map(|t| (*t).to_owned()).collect();
    let mut out: Vec<Option<String>> = vec![None; json_names.len()];
    // First those whose JSON name is exactly their identifier (give or take the `r#` or `_`
    // a keyword gets), then the others in order.
    let exact = |i: &usize| unraw(&wanted[*i]).trim_end_matches('_') == json_names[*i];
    let first = (0..json_names.len()).filter(exact);
    let rest = (0..json_names.len()).filter(|i| !exact(i));
    for i in first.chain(rest) {
        let mut candidate = wanted[i].clone();
        let mut n = 2;
        while used.contains(&candidate) {
            candidate = format!("{}_{n}", unraw(&wanted[i]).trim_end_matches('_'));
            n += 1;
        }
        used.insert(candidate.clone());
        out[i] = Some(candidate);
    }
    out.into_iter().map(Option::unwrap_or_default).collect()
}

/// Type names handed out in one generated file, kept unique.
#[derive(Debug, Default)]
pub struct TypeNames {
    used: BTreeSet<String>,
}

impl TypeNames {
    /// A registry where `reserved` (and [`RESERVED_TYPES`]) are taken.
    pub fn new(reserved: &[&str]) -> Self {
        let mut used: BTreeSet<String> = RESERVED_TYPES.iter().map(|s| (*s).to_owned()).collect();
        used.extend(reserved.iter().map(|s| (*s).to_owned()));
        Self { used }
    }

    /// `wanted` if free, else `wanted2`, `wanted3`...; the name is taken from now on.
    pub fn claim(&mut self, wanted: &str) -> String {
        let mut candidate = wanted.to_owned();
        let mut n = 2;
        while self.used.contains(&candidate) {
            candidate = format!("{wanted}{n}");
            n += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }
}

/// Variant names for the values of a string enum, unique among themselves and not `other`
/// (the catch-all variant).
pub fn variant_names(values: &[&str], other: &str) -> Vec<String> {
    let mut used: BTreeSet<String> = BTreeSet::from([other.to_owned()]);
    values
        .iter()
        .map(|value| {
            let base = if value.is_empty() {
                "Empty".to_owned()
            } else {
                camel(value)
            };
            let base = if base == other {
                format!("{base}Value")
            } else {
                base
            };
            let mut candidate = base.clone();
            let mut n = 2;
            while used.contains(&candidate) {
                candidate = format!("{base}{n}");
                n += 1;
            }
            used.insert(candidate.clone());
            candidate
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words() {
        assert_eq!(words("issuerRef"), ["issuer", "Ref"]);
        assert_eq!(words("HTTPHeader"), ["HTTP", "Header"]);
        assert_eq!(words("x-foo_bar.baz"), ["x", "foo", "bar", "baz"]);
        assert_eq!(words("ipv4Address"), ["ipv4", "Address"]);
        assert_eq!(words("$ref"), ["ref"]);
    }

    #[test]
    fn field_names() {
        assert_eq!(field_ident("issuerRef"), "issuer_ref");
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("crate"), "crate_");
        assert_eq!(field_ident("1st"), "_1st");
        assert_eq!(field_ident(""), "field");
        assert_eq!(field_ident("@type"), "r#type");
        assert_eq!(field_ident("x-kubernetes"), "x_kubernetes");
    }

    #[test]
    fn names_differing_only_in_case_stay_apart() {
        let idents = field_idents(&["Foo", "FOO", "foo", "type", "Type", "Self", "self"], &[]);
        assert_eq!(
            idents,
            [
                "foo_2", "foo_3", "foo", "r#type", "type_2", "self_2", "self_"
            ]
        );
        assert_eq!(field_idents(&["extra"], &["extra"]), ["extra_2"]);
    }

    #[test]
    fn type_and_variant_names() {
        assert_eq!(camel("issuer_ref"), "IssuerRef");
        assert_eq!(camel("r#type"), "Type");
        assert_eq!(camel("ECDSA"), "Ecdsa");
        assert_eq!(camel("3rd"), "V3rd");
        let mut names = TypeNames::new(&["Certificate"]);
        assert_eq!(names.claim("Certificate"), "Certificate2");
        assert_eq!(names.claim("Option"), "Option2");
        assert_eq!(names.claim("Spec"), "Spec");
        assert_eq!(
            variant_names(&["RSA", "rsa", "Other", "", "*"], "Other"),
            ["Rsa", "Rsa2", "OtherValue", "Empty", "Value"]
        );
    }
}
