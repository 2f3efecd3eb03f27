//! Names derived from a Kind, a group or a project name: Rust module names, plurals.

/// `MemcachedCluster` → `memcached_cluster`, `HTTPRoute` → `http_route`, `ConfigMap` → `config_map`.
pub fn snake_case(camel: &str) -> String {
    let chars: Vec<char> = camel.chars().collect();
    let mut out = String::with_capacity(camel.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_is_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
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

/// Keywords that cannot be raw identifiers either: a module of that name gets a trailing `_`,
/// and so does `mod`, whose file (`mod.rs`) is the folder's own module.
const PATH_KEYWORDS: &[&str] = &["self", "super", "crate", "Self"];

/// A string as a Rust module name: '-' and '.' become '_', a leading digit gets a leading '_'
/// (`1st` → `_1st`), a keyword is written as a raw identifier (`type` → `r#type`), and the
/// four that cannot be raw get a trailing '_' (`super` → `super_`).
pub fn module_ident(name: &str) -> String {
    let mut ident = name.replace(['-', '.'], "_");
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, '_');
    }
    if PATH_KEYWORDS.contains(&ident.as_str()) || ident == "mod" {
        format!("{ident}_")
    } else if KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else {
        ident
    }
}

/// The file or folder name of the module [`module_ident`] makes of `name` (no `r#`).
pub fn file_stem(name: &str) -> String {
    module_ident(name).trim_start_matches("r#").to_owned()
}

/// Whether `name` is a keyword that no raw identifier escapes (`self`, `super`, `crate`,
/// `Self`): a crate of that name cannot be named in a path at all.
pub fn is_path_keyword(name: &str) -> bool {
    PATH_KEYWORDS.contains(&name)
}

/// Names joined into one snake_case name of items, files and test crates
/// (`["1st-group", "cron_job", "v1"]` → `_1st_group_cron_job_v1`): '-' and '.' become '_', no
/// '_' doubles or ends it, and a leading digit gets a leading '_'. Joined names are never
/// keywords.
pub fn join_snake(parts: &[&str]) -> String {
    let joined = parts.join("_").replace(['-', '.'], "_");
    let mut out = String::with_capacity(joined.len() + 1);
    for c in joined.chars() {
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    let mut out = out.trim_end_matches('_').to_owned();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// CamelCase names the generated Rust files other than the type file may use unqualified:
/// the standard prelude's (`Result`, `Option`, the traits whose methods they call), the
/// kubeforge prelude's (which they import with `use kubeforge::prelude::*`), and their own
/// items and imports (`Error`, `Context`, `TestEnv`). The Rust type of a kind of one of these
/// names is named otherwise ([`kind_ident`]): importing it would shadow the name (and a
/// shadowed trait no longer lends its methods). `commands/names_tests.rs` reads every
/// generated file with a parser and fails when one uses a CamelCase name missing here.
pub const TEMPLATE_NAMES: &[&str] = &[
    // The standard prelude (edition 2024).
    "AsMut",
    "AsRef",
    "AsyncFn",
    "AsyncFnMut",
    "AsyncFnOnce",
    "Box",
    "Clone",
    "Copy",
    "Default",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "Err",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromIterator",
    "Future",
    "Into",
    "IntoFuture",
    "IntoIterator",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
    // kubeforge::prelude.
    "Action",
    "Api",
    "Arc",
    "Changes",
    "Client",
    "Condition",
    "Controller",
    "CustomResource",
    "Defaulter",
    "Denied",
    "Deserialize",
    "Duration",
    "JsonSchema",
    "ListParams",
    "Manager",
    "ManagerArgs",
    "ManagerOptions",
    "ObjectMeta",
    "Patch",
    "PatchParams",
    "PostParams",
    "ReconcileError",
    "ReconcileFailure",
    "Requeue",
    "Resource",
    "ResourceExt",
    "Serialize",
    "Snapshot",
    "TargetRef",
    "Topology",
    "Validator",
    "Warnings",
    "WebhookServer",
    "WorldController",
    // The templates' own items and imports.
    "BTreeMap",
    "Change",
    "Context",
    "Error",
    "Hub",
    "LocalWebhooks",
    "Spoke",
    "TestEnv",
];

/// Kinds that are keywords: no type can be named `Self`, not even as a raw identifier.
const KEYWORD_KINDS: &[&str] = &["Self"];

/// The Rust name of the kind's type: the kind itself, or `<Kind>Resource` when the kind is one
/// of [`TEMPLATE_NAMES`] (`Error` → `ErrorResource`) or the keyword `Self` (`SelfResource`).
/// The type file names the type so (kube-derive's `root = "ErrorResource"`; the CRD's kind
/// stays `Error`), since kube-derive's own code uses prelude names such as `Option` and
/// `Default` unqualified beside it; for a built-in kind, the generated files import
/// k8s-openapi's type under that name.
pub fn kind_ident(kind: &str) -> String {
    if TEMPLATE_NAMES.contains(&kind) || KEYWORD_KINDS.contains(&kind) {
        format!("{kind}Resource")
    } else {
        kind.to_owned()
    }
}

/// How the generated files import a built-in kind: `Pod`, or `Binding as BindingResource`
/// when it is one of [`TEMPLATE_NAMES`].
pub fn kind_import(kind: &str) -> String {
    let ident = kind_ident(kind);
    if ident == kind {
        ident
    } else {
        format!("{kind} as {ident}")
    }
}

/// The crate name Cargo gives a package: '-' becomes '_'.
pub fn crate_name(package: &str) -> String {
    package.replace('-', "_")
}

/// The crate of a package as generated code names it in a path: its [`crate_name`], raw when
/// that is a keyword (`match` → `r#match`, as in `::r#match::controllers`). Cargo builds a
/// package of a keyword's name (only `cargo new` refuses one); `self`, `super` and `crate`,
/// which no raw identifier escapes, are not accepted as project names
/// ([`is_path_keyword`]).
pub fn crate_ident(package: &str) -> String {
    let name = crate_name(package);
    if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
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
    }

    #[test]
    fn self_is_a_kind_with_a_type_of_another_name() {
        assert_eq!(kind_ident("Self"), "SelfResource");
        assert_eq!(kind_import("Self"), "Self as SelfResource");
        assert_eq!(module_ident(&snake_case("Self")), "self_");
    }

    #[test]
    fn crates_of_keywords_are_named_raw() {
        assert_eq!(crate_ident("memcached-operator"), "memcached_operator");
        assert_eq!(crate_ident("match"), "r#match");
        assert_eq!(crate_ident("gen"), "r#gen");
        assert_eq!(crate_ident("mod"), "r#mod");
        assert_eq!(crate_ident("type-operator"), "type_operator");
        assert!(is_path_keyword("self") && is_path_keyword("Self"));
        assert!(!is_path_keyword("mod") && !is_path_keyword("match"));
    }

    #[test]
    fn idents() {
        assert_eq!(module_ident("my-group"), "my_group");
        assert_eq!(module_ident("type"), "r#type");
        assert_eq!(file_stem("type"), "type");
        assert_eq!(module_ident("super"), "super_");
        assert_eq!(file_stem("crate"), "crate_");
        assert_eq!(module_ident("1st-group"), "_1st_group");
        assert_eq!(module_ident("mod"), "mod_");
        assert_eq!(
            join_snake(&["1st-group", "super", "v1"]),
            "_1st_group_super_v1"
        );
        assert_eq!(join_snake(&["a.b", "cron_job"]), "a_b_cron_job");
    }
}
