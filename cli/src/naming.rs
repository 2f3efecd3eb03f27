//! Names derived from a Kind, a group or a project name: Rust module names, plurals.

/// `MemcachedCluster` → `memcached_cluster`, `HTTPRoute` → `http_route`, `ConfigMap` → `config_map`.
pub fn snake_case(camel: &str) -> String {
    let chars: Vec<char> = camel.chars().collect();
    let mut out = String::with_capacity(camel.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_is_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_is_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The resource name kubebuilder derives from a Kind: lower-case, English plural
/// (`Memcached` → `memcacheds`, `Policy` → `policies`, `Ingress` → `ingresses`).
pub fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    const IRREGULAR: &[(&str, &str)] = &[
        ("endpoints", "endpoints"),
        ("person", "people"),
        ("child", "children"),
    ];
    if let Some((_, plural)) = IRREGULAR.iter().find(|(singular, _)| *singular == lower) {
        return (*plural).to_owned();
    }
    let ends_with_consonant_y =
        lower.ends_with('y') && !lower[..lower.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    if ends_with_consonant_y {
        format!("{}ies", &lower[..lower.len() - 1])
    } else if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| lower.ends_with(end))
    {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    }
}

/// A string as a Rust module name: '-' and '.' become '_'; a keyword is written as a raw
/// identifier (`type` → `r#type`).
pub fn module_ident(name: &str) -> String {
    let ident = name.replace(['-', '.'], "_");
    const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
        "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override",
        "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
    ];
    if KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else {
        ident
    }
}

/// A file-name-safe form of a module name (no `r#`).
pub fn file_stem(name: &str) -> String {
    name.replace(['-', '.'], "_")
}

/// The crate name Cargo gives a package: '-' becomes '_'.
pub fn crate_name(package: &str) -> String {
    package.replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake() {
        assert_eq!(snake_case("Memcached"), "memcached");
        assert_eq!(snake_case("MemcachedCluster"), "memcached_cluster");
        assert_eq!(snake_case("HTTPRoute"), "http_route");
        assert_eq!(snake_case("ConfigMap"), "config_map");
        assert_eq!(snake_case("V1Thing"), "v1_thing");
    }

    #[test]
    fn plurals() {
        assert_eq!(plural("Memcached"), "memcacheds");
        assert_eq!(plural("Policy"), "policies");
        assert_eq!(plural("Gateway"), "gateways");
        assert_eq!(plural("Ingress"), "ingresses");
        assert_eq!(plural("Box"), "boxes");
        assert_eq!(plural("Match"), "matches");
        assert_eq!(plural("Endpoints"), "endpoints");
    }

    #[test]
    fn idents() {
        assert_eq!(module_ident("my-group"), "my_group");
        assert_eq!(module_ident("type"), "r#type");
        assert_eq!(file_stem("type"), "type");
    }
}
