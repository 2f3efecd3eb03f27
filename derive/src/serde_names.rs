//! The serialized names serde gives to fields, so that attributes naming fields (list map keys,
//! one-of groups) are checked against what actually appears in the JSON, as controller-gen checks
//! Go JSON tags.

use syn::{Attribute, LitStr};

/// A serde `rename_all` rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    /// Parses the rule names serde accepts.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// Applies the rule to a Rust field name (snake_case), as serde does.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_string(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut out = String::new();
                let mut capitalize = true;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(c.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            Self::Camel => {
                let pascal = Self::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// What the `#[serde(...)]` attributes of a field say about its name and presence.
#[derive(Default, Debug)]
pub struct FieldSerde {
    pub rename: Option<String>,
    pub skipped: bool,
    pub flatten: bool,
    pub has_default: bool,
}

/// Reads the container's `#[serde(rename_all = "...")]` (the deserialize side wins, as schemars
/// generates schemas for the deserialize contract).
pub fn container_rename_all(attrs: &[Attribute]) -> Option<RenameRule> {
    let mut rule = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                if meta.input.peek(syn::Token![=]) {
                    let s: LitStr = meta.value()?.parse()?;
                    rule = RenameRule::parse(&s.value());
                } else {
                    meta.parse_nested_meta(|inner| {
                        let s: LitStr = inner.value()?.parse()?;
                        if inner.path.is_ident("deserialize") {
                            rule = RenameRule::parse(&s.value());
                        }
                        Ok(())
                    })?;
                }
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        let _: syn::Expr = inner.value()?.parse()?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        });
    }
    rule
}

/// Reads the `#[serde(...)]` attributes of a field.
pub fn field_serde(attrs: &[Attribute]) -> FieldSerde {
    let mut out = FieldSerde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            let name = meta
                .path
                .get_ident()
                .map(std::string::ToString::to_string)
                .unwrap_or_default();
            match name.as_str() {
                "rename" => {
                    if meta.input.peek(syn::Token![=]) {
                        let s: LitStr = meta.value()?.parse()?;
                        out.rename = Some(s.value());
                    } else {
                        meta.parse_nested_meta(|inner| {
                            let s: LitStr = inner.value()?.parse()?;
                            if inner.path.is_ident("deserialize") {
                                out.rename = Some(s.value());
                            }
                            Ok(())
                        })?;
                    }
                    return Ok(());
                }
                "skip" | "skip_deserializing" => out.skipped = true,
                "flatten" => out.flatten = true,
                "default" => out.has_default = true,
                _ => {}
            }
            if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        let _: syn::Expr = inner.value()?.parse()?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        });
    }
    out
}

/// The JSON name of a field: its serde rename, else the container rule applied to the Rust name.
pub fn json_name(ident: &syn::Ident, serde: &FieldSerde, rule: Option<RenameRule>) -> String {
    if let Some(rename) = &serde.rename {
        return rename.clone();
    }
    let raw = ident.to_string();
    let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_string();
    match rule {
        Some(rule) => rule.apply_to_field(&raw),
        None => raw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_rules_match_serde() {
        assert_eq!(
            RenameRule::Camel.apply_to_field("list_map_key"),
            "listMapKey"
        );
        assert_eq!(
            RenameRule::Pascal.apply_to_field("list_map_key"),
            "ListMapKey"
        );
        assert_eq!(
            RenameRule::Kebab.apply_to_field("list_map_key"),
            "list-map-key"
        );
        assert_eq!(RenameRule::ScreamingSnake.apply_to_field("a_b"), "A_B");
        assert_eq!(RenameRule::ScreamingKebab.apply_to_field("a_b"), "A-B");
        assert_eq!(RenameRule::parse("nope"), None);
    }

    #[test]
    fn field_names_follow_serde_attributes() {
        let s: syn::ItemStruct = syn::parse_quote! {
            #[serde(rename_all = "camelCase")]
            struct S {
                container_port: i32,
                #[serde(rename = "proto")]
                protocol: String,
                #[serde(skip)]
                cache: u8,
            }
        };
        let rule = container_rename_all(&s.attrs);
        assert_eq!(rule, Some(RenameRule::Camel));
        let names: Vec<_> = s
            .fields
            .iter()
            .map(|f| {
                let serde = field_serde(&f.attrs);
                (
                    json_name(f.ident.as_ref().unwrap(), &serde, rule),
                    serde.skipped,
                )
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("containerPort".to_string(), false),
                ("proto".to_string(), false),
                ("cache".to_string(), true)
            ]
        );
    }
}
