//! The fields of a struct, read from the syntax tree.

use syn::{Fields, Item, Visibility};

use super::source::RustSource;

/// The names of the `pub` (and `pub(crate)`) fields of `pub struct <name> { ... }`, in order
/// (raw identifiers keep their `r#`); `None` when the file has no such struct (inline modules
/// are searched too).
pub fn struct_fields(source: &RustSource<'_>, name: &str) -> Option<Vec<String>> {
    find_struct(&source.file().items, name)
}

fn find_struct(items: &[Item], name: &str) -> Option<Vec<String>> {
    for item in items {
        match item {
            Item::Struct(s)
                if s.ident == name
                    && matches!(s.vis, Visibility::Public(_))
                    && matches!(s.fields, Fields::Named(_)) =>
            {
                return Some(
                    s.fields
                        .iter()
                        .filter(|f| visible(&f.vis))
                        .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
                        .collect(),
                );
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content
                    && let Some(found) = find_struct(items, name)
                {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// `pub` or `pub(crate)`: fields another module of the crate (the conversion) can read.
fn visible(vis: &Visibility) -> bool {
    match vis {
        Visibility::Public(_) => true,
        Visibility::Restricted(r) => r.in_token.is_none() && r.path.is_ident("crate"),
        Visibility::Inherited => false,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const TYPE: &str = r#"
/// Doc with { braces }.
#[kubeforge::api]
#[kube(group = "x", printcolumn(name = "A", json_path = ".a"))]
pub struct MemcachedSpec {
    /// How many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,
    pub labels: std::collections::BTreeMap<String, String>, // a comment: not_a_field
    pub nested: Vec<Inner<{ 3 }>>,
    pub(crate) r#type: String,
    private: bool,
    // pub commented_out: bool,
}

pub struct MemcachedStatus {
    pub conditions: Vec<Condition>,
}

mod inner {
    pub struct Nested {
        pub a: u8,
    }
}

pub struct Tuple(pub u8);
"#;

    fn fields(name: &str) -> Option<Vec<String>> {
        let source = RustSource::parse(Path::new("t.rs"), TYPE).unwrap();
        struct_fields(&source, name)
    }

    #[test]
    fn reads_the_visible_fields_of_a_struct() {
        assert_eq!(
            fields("MemcachedSpec").unwrap(),
            ["size", "labels", "nested", "r#type"]
        );
        assert_eq!(fields("MemcachedStatus").unwrap(), ["conditions"]);
        assert_eq!(fields("Nested").unwrap(), ["a"]);
    }

    #[test]
    fn names_only_a_pub_struct_with_named_fields() {
        assert_eq!(fields("Memcached"), None);
        assert_eq!(fields("MemcachedSpecs"), None);
        assert_eq!(fields("Tuple"), None);
    }
}
