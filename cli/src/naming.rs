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

pub use crate::plural::plural;

/// Rust's keywords (strict, reserved and edition 2024's), written as raw identifiers when they
/// name a module (`type` → `r#type`).
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers either; a module of that name gets a trailing `_`.
const NOT_RAW: &[&str] = &["self", "super", "crate", "Self"];

/// A string as a Rust module name: '-' and '.' become '_', a leading digit gets a leading '_'
/// (`1st` → `_1st`), a keyword is written as a raw identifier (`type` → `r#type`), and the
/// four that cannot be raw get a trailing '_' (`super` → `super_`).
pub fn module_ident(name: &str) -> String {
    let mut ident = name.replace(['-', '.'], "_");
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, '_');
    }
    if KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else if NOT_RAW.contains(&ident.as_str()) {
        format!("{ident}_")
    } else {
        ident
    }
}

/// The file or folder name of the module [`module_ident`] makes of `name` (no `r#`).
pub fn file_stem(name: &str) -> String {
    module_ident(name).trim_start_matches("r#").to_owned()
}

/// Whether `name` can name a Rust module at all, raw or not (`self`, `super` and `crate`
/// cannot: they are paths).
pub fn is_path_keyword(name: &str) -> bool {
    NOT_RAW.contains(&name)
}

/// CamelCase names that the generated Rust files other than the type file use unqualified:
/// their own items (`Error`, `Context`), what they import (`Api`, `Manager`, the prelude's
/// names) and the standard prelude's (`Result`, `Option`). A kind of one of these names is
/// imported under another name there ([`kind_ident`]), so it shadows none of them. The
/// catalogue's tests read every rendered template with a parser and fail when a template uses
/// a name missing here.
pub const TEMPLATE_NAMES: &[&str] = &[
    "Action",
    "Api",
    "Arc",
    "BTreeMap",
    "Change",
    "Changes",
    "Client",
    "Condition",
    "Context",
    "Controller",
    "Default",
    "Defaulter",
    "Denied",
    "Duration",
    "Error",
    "From",
    "Hub",
    "Into",
    "LocalWebhooks",
    "Manager",
    "ManagerOptions",
    "None",
    "Ok",
    "Option",
    "Patch",
    "PatchParams",
    "PostParams",
    "Result",
    "Snapshot",
    "Some",
    "Spoke",
    "String",
    "TestEnv",
    "Validator",
    "Vec",
    "Warnings",
    "WebhookServer",
    "WorldController",
];

/// The name the generated files other than the type file give the kind: the kind itself, or
/// `<Kind>Resource` when the kind is one of [`TEMPLATE_NAMES`] (`Error` → `ErrorResource`).
pub fn kind_ident(kind: &str) -> String {
    if TEMPLATE_NAMES.contains(&kind) {
        format!("{kind}Resource")
    } else {
        kind.to_owned()
    }
}

/// How those files import the kind: `Memcached`, or `Error as ErrorResource`.
pub fn kind_import(kind: &str) -> String {
    let ident = kind_ident(kind);
    if ident == kind {
        ident
    } else {
        format!("{kind} as {ident}")
    }
}

/// The names the type file uses unqualified, with their full paths. kube-derive defines the
/// kind's struct in that file, so a kind of one of these names would shadow it: the file then
/// writes the full path instead ([`type_file_names`]).
pub const TYPE_FILE_NAMES: &[(&str, &str)] = &[
    (
        "Condition",
        "::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
    ),
    ("Option", "::std::option::Option"),
    ("String", "::std::string::String"),
    ("Vec", "::std::vec::Vec"),
];

/// What the type file of `kind` writes for each of [`TYPE_FILE_NAMES`]: the name, or its full
/// path when it is the kind's own name.
pub fn type_file_names(kind: &str) -> std::collections::BTreeMap<&'static str, &'static str> {
    TYPE_FILE_NAMES
        .iter()
        .map(|&(name, path)| (name, if name == kind { path } else { name }))
        .collect()
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
    fn kinds_that_are_template_names_are_imported_under_another() {
        assert_eq!(kind_import("Memcached"), "Memcached");
        assert_eq!(kind_import("Error"), "Error as ErrorResource");
        for name in TEMPLATE_NAMES {
            assert!(
                !TEMPLATE_NAMES.contains(&kind_ident(name).as_str()),
                "{name}"
            );
        }
        assert_eq!(type_file_names("Option")["Option"], "::std::option::Option");
        assert_eq!(type_file_names("Option")["Vec"], "Vec");
    }

    #[test]
    fn idents() {
        assert_eq!(module_ident("my-group"), "my_group");
        assert_eq!(module_ident("type"), "r#type");
        assert_eq!(file_stem("type"), "type");
        assert_eq!(module_ident("super"), "super_");
        assert_eq!(file_stem("crate"), "crate_");
        assert_eq!(module_ident("1st-group"), "_1st_group");
    }
}
