//! Compile-time errors for the Rust shapes that have no JSON form at all, so no schema can keep
//! their data: serde fails on them at run time, or writes a key twice. Every other shape gets a
//! structural schema at run time (see `kubeforge::shapes`); these are caught here, on the
//! field, with the fix, wherever the macro sees them (an `#[kubeforge::api]` spec, a type with
//! `#[kubeforge::schema]`).

use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Field, Fields, LitStr, Type, Variant};

use crate::serde_names::{FieldSerde, container_rename_all, field_serde, json_name};
use crate::types::{Shape, shape_of, unwrap_option};

/// The serde representation of an enum, as far as these checks need it.
struct EnumSerde {
    tag: Option<String>,
    content: Option<String>,
    untagged: bool,
}

fn enum_serde(attrs: &[Attribute]) -> EnumSerde {
    let mut out = EnumSerde {
        tag: None,
        content: None,
        untagged: false,
    };
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") {
                out.tag = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("content") {
                out.content = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("untagged") {
                out.untagged = true;
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _: proc_macro2::TokenStream = content.parse()?;
            }
            Ok(())
        });
    }
    out
}

fn combine(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

fn type_text(ty: &Type) -> String {
    quote::quote!(#ty).to_string().replace(' ', "")
}

/// Checks one field of a struct or variant.
pub fn check_field(field: &Field, serde: &FieldSerde) -> syn::Result<()> {
    let mut errors = None;
    let name = field
        .ident
        .as_ref()
        .map_or_else(|| "this field".into(), |i| format!("`{i}`"));
    let shape = shape_of(&field.ty);
    if serde.flatten
        && !matches!(shape, Shape::Map(_) | Shape::Other | Shape::Any)
        && !serde.skipped
    {
        combine(
            &mut errors,
            syn::Error::new(
                field.ty.span(),
                format!(
                    "{name} is {} and has #[serde(flatten)]: serde can only flatten structs and maps, and fails at run time on anything else. Remove #[serde(flatten)] so it is a field of its own",
                    shape.describe()
                ),
            ),
        );
    }
    check_map_keys(&field.ty, &name, &mut errors);
    match errors {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `BTreeMap<K, V>` (anywhere inside the field type) with a `K` JSON cannot use as a key.
fn check_map_keys(ty: &Type, name: &str, errors: &mut Option<syn::Error>) {
    let (ty, _) = unwrap_option(ty);
    let Type::Path(path) = ty else {
        if let Type::Array(a) = ty {
            check_map_keys(&a.elem, name, errors);
        }
        return;
    };
    let Some(seg) = path.path.segments.last() else {
        return;
    };
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return;
    };
    let types: Vec<&Type> = args
        .args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    let is_map = ["BTreeMap", "HashMap", "IndexMap"].contains(&seg.ident.to_string().as_str());
    if is_map && let Some(key) = types.first() {
        let (inner, optional) = unwrap_option(key);
        let bad = optional
            || matches!(inner, Type::Tuple(_) | Type::Array(_) | Type::Slice(_))
            || matches!(shape_of(inner), Shape::List(_) | Shape::Map(_) | Shape::Any);
        if bad {
            let key_text = type_text(key);
            combine(
                errors,
                syn::Error::new(
                    key.span(),
                    format!(
                        "{name} is a map keyed by `{key_text}`: JSON object keys are strings, and serde_json fails at run time to write a `{key_text}` as one. Key the map by a string (`BTreeMap<String, ..>`), or make it a list of entries with the key as a field"
                    ),
                ),
            );
        }
    }
    for t in types {
        check_map_keys(t, name, errors);
    }
}

/// Checks the variants of an enum against its serde representation.
pub fn check_enum(input: &DeriveInput) -> syn::Result<()> {
    let syn::Data::Enum(data) = &input.data else {
        return Ok(());
    };
    let repr = enum_serde(&input.attrs);
    let (Some(tag), None, false) = (&repr.tag, &repr.content, repr.untagged) else {
        return Ok(());
    };
    let fields_rule = rename_all_fields(&input.attrs);
    let mut errors = None;
    for variant in &data.variants {
        if variant_skipped(variant) {
            continue;
        }
        match &variant.fields {
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                let inner = &fields.unnamed[0].ty;
                let shape = shape_of(inner);
                if !matches!(shape, Shape::Map(_) | Shape::Other | Shape::Any) {
                    let v = &variant.ident;
                    combine(
                        &mut errors,
                        syn::Error::new(
                            inner.span(),
                            format!(
                                "variant `{v}` holds {} in an internally tagged enum (#[serde(tag = \"{tag}\")]): serde writes the tag into the variant's object, and fails at run time when there is none. Make it a struct variant (`{v} {{ value: {} }}`), or name a content field: #[serde(tag = \"{tag}\", content = \"value\")]",
                                shape.describe(),
                                type_text(inner)
                            ),
                        ),
                    );
                }
            }
            Fields::Named(fields) => {
                let rule = container_rename_all(&variant.attrs).or(fields_rule);
                for field in &fields.named {
                    let serde = field_serde(&field.attrs);
                    let Some(ident) = &field.ident else { continue };
                    if serde.skipped || serde.flatten {
                        continue;
                    }
                    if json_name(ident, &serde, rule) == *tag {
                        combine(
                            &mut errors,
                            syn::Error::new(
                                ident.span(),
                                format!(
                                    "field `{ident}` of variant `{}` is serialized as `{tag}`, the name of the enum's tag (#[serde(tag = \"{tag}\")]): the object would hold the key `{tag}` twice. Rename the field, e.g. #[serde(rename = \"{tag}Name\")]",
                                    variant.ident
                                ),
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn variant_skipped(variant: &Variant) -> bool {
    let serde = field_serde(&variant.attrs);
    serde.skipped
}

/// The enum's `#[serde(rename_all_fields = "..")]`.
fn rename_all_fields(attrs: &[Attribute]) -> Option<crate::serde_names::RenameRule> {
    let mut rule = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all_fields") && meta.input.peek(syn::Token![=]) {
                let s: LitStr = meta.value()?.parse()?;
                rule = crate::serde_names::RenameRule::parse(&s.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _: proc_macro2::TokenStream = content.parse()?;
            }
            Ok(())
        });
    }
    rule
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(f: syn::Field) -> syn::Result<()> {
        let serde = field_serde(&f.attrs);
        check_field(&f, &serde)
    }

    #[test]
    fn flattened_scalars_and_lists_are_errors() {
        let e = field(syn::parse_quote!(#[serde(flatten)] pub count: i32)).unwrap_err();
        assert!(
            e.to_string()
                .contains("`count` is an integer and has #[serde(flatten)]"),
            "{e}"
        );
        field(syn::parse_quote!(#[serde(flatten)] pub extra: BTreeMap<String, String>)).unwrap();
        field(syn::parse_quote!(#[serde(flatten)] pub common: Common)).unwrap();
    }

    #[test]
    fn map_keys_that_are_not_strings_are_errors() {
        let e =
            field(syn::parse_quote!(pub m: Option<Vec<BTreeMap<(String, u16), i32>>>)).unwrap_err();
        assert!(e.to_string().contains("map keyed by `(String,u16)`"), "{e}");
        let e = field(syn::parse_quote!(pub m: HashMap<Vec<u8>, i32>)).unwrap_err();
        assert!(e.to_string().contains("`Vec<u8>`"), "{e}");
        field(syn::parse_quote!(pub m: BTreeMap<u32, BTreeMap<String, Key>>)).unwrap();
    }

    #[test]
    fn tagged_newtypes_of_scalars_and_tag_collisions_are_errors() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(tag = "type", rename_all = "camelCase")]
            enum E {
                Text(String),
                Object(Inner),
                Named { #[serde(rename = "type")] kind: String },
                #[serde(rename_all = "camelCase")]
                Other { r#type: i32 },
                Plain { value: i32 },
            }
        };
        let e = check_enum(&input).unwrap_err();
        let messages: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages[0].starts_with("variant `Text` holds a string"),
            "{messages:?}"
        );
        assert!(
            messages[1].contains("field `kind` of variant `Named`"),
            "{messages:?}"
        );
        let adjacent: DeriveInput = syn::parse_quote! {
            #[serde(tag = "type", content = "value")]
            enum E { Text(String), Named { r#type: String } }
        };
        check_enum(&adjacent).unwrap();
    }
}
