//! Rewrites a struct or enum carrying `#[kubeforge(...)]` attributes into one whose
//! `#[derive(JsonSchema)]` produces the requested schema: each attribute becomes a
//! `#[schemars(transform = ...)]` patch, presence becomes `#[schemars(required)]` /
//! `#[serde(default)]`, and list map keys are checked against the item type by a const.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use serde_json::{Map, Value};
use syn::{Attribute, Data, DeriveInput, Fields};

use crate::serde_names::{container_rename_all, field_serde, json_name};
use crate::types::unwrap_option;
use crate::validation::{KeyCheck, Level, parse_attrs};

/// The output of processing an item: the rewritten item and extra items to emit after it.
pub struct Processed {
    pub item: DeriveInput,
    pub extra: TokenStream,
}

fn strip(attrs: &mut Vec<Attribute>) {
    attrs.retain(|a| !a.path().is_ident("kubeforge"));
}

fn transform_attr(patch: Map<String, Value>) -> Option<Attribute> {
    if patch.is_empty() {
        return None;
    }
    let text = Value::Object(patch).to_string();
    Some(syn::parse_quote! {
        #[schemars(transform = ::kubeforge::__private::SchemaPatch(#text))]
    })
}

fn process_fields(
    fields: &mut Fields,
    rename_rule: Option<crate::serde_names::RenameRule>,
    key_checks: &mut Vec<KeyCheck>,
    default_presence: Option<bool>,
) -> syn::Result<Vec<(syn::Ident, String)>> {
    let mut names = Vec::new();
    let mut errors: Option<syn::Error> = None;
    for field in fields.iter_mut() {
        let parsed = match parse_attrs(&field.attrs, Some(&field.ty), Level::Field) {
            Ok(p) => p,
            Err(e) => {
                match &mut errors {
                    Some(all) => all.combine(e),
                    None => errors = Some(e),
                }
                continue;
            }
        };
        let serde = field_serde(&field.attrs);
        if let Err(e) = crate::shapes::check_field(field, &serde) {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
        if let Some(ident) = &field.ident
            && !serde.skipped
            && !serde.flatten
        {
            names.push((ident.clone(), json_name(ident, &serde, rename_rule)));
        }
        strip(&mut field.attrs);
        key_checks.extend(parsed.key_checks);
        let presence = if serde.skipped || serde.flatten {
            parsed.required
        } else {
            parsed.required.or(default_presence)
        };
        match presence {
            Some(true) => field.attrs.push(syn::parse_quote!(#[schemars(required)])),
            Some(false) => {
                let (_, is_option) = unwrap_option(&field.ty);
                if !is_option && !serde.has_default {
                    field.attrs.push(syn::parse_quote!(#[serde(default)]));
                }
            }
            None => {}
        }
        if let Some(attr) = transform_attr(parsed.patch) {
            field.attrs.push(attr);
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(names),
    }
}

/// Emits the const that fails compilation when a list map key is not a field of the item type.
fn key_check_tokens(check: &KeyCheck) -> TokenStream {
    let item = &check.item;
    let (item, _) = unwrap_option(item);
    let key = &check.key;
    let item_name = quote!(#item).to_string().replace(' ', "");
    let message = format!("list_map_keys: `{key}` is not a field of `{item_name}`");
    quote_spanned! {check.span=>
        const _: () = {
            if !::kubeforge::__private::contains(
                <#item as ::kubeforge::__private::SchemaFields>::FIELDS,
                #key,
            ) {
                ::core::panic!(#message)
            }
        };
    }
}

/// Rewrites `input`; `Err` carries every misuse found, each pointing at its attribute.
pub fn process(mut input: DeriveInput) -> syn::Result<Processed> {
    let rename_rule = container_rename_all(&input.attrs);
    crate::shapes::check_enum(&input)?;
    let mut container = parse_attrs(&input.attrs, None, Level::Container)?;
    strip(&mut input.attrs);
    let mut key_checks = Vec::new();
    let mut field_names = None;
    let mut errors: Option<syn::Error> = None;
    let mut push_err = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    match &mut input.data {
        Data::Struct(s) => match process_fields(
            &mut s.fields,
            rename_rule,
            &mut key_checks,
            container.required,
        ) {
            Ok(names) => {
                if matches!(s.fields, Fields::Named(_)) {
                    field_names = Some(names);
                }
            }
            Err(e) => push_err(e),
        },
        Data::Enum(e) => {
            for variant in &mut e.variants {
                if variant.attrs.iter().any(|a| a.path().is_ident("kubeforge")) {
                    push_err(syn::Error::new_spanned(
                        variant
                            .attrs
                            .iter()
                            .find(|a| a.path().is_ident("kubeforge")),
                        "kubeforge schema attributes go on the enum or on the fields of a variant, not on the variant",
                    ));
                }
                if let Err(e) = process_fields(
                    &mut variant.fields,
                    None,
                    &mut key_checks,
                    container.required,
                ) {
                    push_err(e);
                }
            }
        }
        Data::Union(u) => {
            push_err(syn::Error::new(
                u.union_token.span,
                "unions have no JSON schema",
            ));
        }
    }
    // Field groups (exactly/at most/at least one of) name fields of this struct.
    for (idents, span, kind) in std::mem::take(&mut container.one_of_groups) {
        let Some(names) = &field_names else {
            push_err(syn::Error::new(
                span,
                "field groups apply to structs with named fields",
            ));
            continue;
        };
        let mut resolved = Vec::new();
        for ident in &idents {
            match names
                .iter()
                .find(|(i, j)| i == ident || j == &ident.to_string())
            {
                Some((_, json)) => resolved.push(json.clone()),
                None => push_err(syn::Error::new(
                    ident.span(),
                    format!("`{ident}` is not a serialized field of `{}`", input.ident),
                )),
            }
        }
        if resolved.len() == idents.len() {
            let rule = kind.rule(&resolved);
            match container
                .patch
                .entry("x-kubernetes-validations")
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                Value::Array(rules) => rules.push(rule),
                _ => unreachable!("validations are an array"),
            }
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    key_checks.extend(container.key_checks);
    if let Some(attr) = transform_attr(container.patch) {
        input.attrs.push(attr);
    }
    let mut extra = TokenStream::new();
    if let Some(names) = &field_names {
        let ident = &input.ident;
        let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
        let json_names = names.iter().map(|(_, j)| j);
        extra.extend(quote! {
            impl #impl_generics ::kubeforge::__private::SchemaFields for #ident #ty_generics #where_clause {
                const FIELDS: &'static [&'static str] = &[#(#json_names),*];
            }
        });
    }
    if input.generics.params.is_empty() {
        for check in &key_checks {
            extra.extend(key_check_tokens(check));
        }
    }
    Ok(Processed { item: input, extra })
}

/// `#[kubeforge::schema]`: processes a nested type.
pub fn expand(args: TokenStream, input: DeriveInput) -> syn::Result<TokenStream> {
    if !args.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            "#[kubeforge::schema] takes no arguments; put attributes in #[kubeforge(...)]",
        ));
    }
    let Processed { item, extra, .. } = process(input)?;
    Ok(quote! { #item #extra })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_get_transforms_and_presence() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(rename_all = "camelCase")]
            #[kubeforge(exactly_one_of(config_map, secret_name))]
            struct Source {
                #[kubeforge(min_length = 1, required)]
                config_map: Option<String>,
                #[kubeforge(optional)]
                secret_name: String,
                #[kubeforge(list_map_keys = ["name"])]
                ports: Vec<Port>,
            }
        };
        let out = process(input).unwrap();
        let item = &out.item;
        let text = quote!(#item).to_string();
        assert!(!text.contains("kubeforge (min_length"), "{text}");
        assert!(text.contains("schemars (required)"), "{text}");
        assert!(text.contains("serde (default)"), "{text}");
        assert!(
            text.contains("has(self.configMap),has(self.secretName)"),
            "{text}"
        );
        let extra = out.extra.to_string();
        assert!(
            extra.contains("[\"configMap\" , \"secretName\" , \"ports\"]"),
            "{extra}"
        );
        assert!(extra.contains("SchemaFields for Source"), "{extra}");
        assert!(
            extra.contains("list_map_keys: `name` is not a field of `Port`"),
            "{extra}"
        );
    }

    #[test]
    fn type_level_presence_is_the_default_for_fields() {
        let input: DeriveInput = syn::parse_quote! {
            #[kubeforge(optional)]
            struct S {
                a: String,
                #[kubeforge(required)]
                b: String,
                c: Option<String>,
            }
        };
        let item = process(input).unwrap().item;
        let syn::Data::Struct(s) = &item.data else {
            unreachable!()
        };
        let attrs: Vec<String> = s
            .fields
            .iter()
            .map(|f| {
                f.attrs
                    .iter()
                    .map(|a| quote!(#a).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            attrs,
            ["# [serde (default)]", "# [schemars (required)]", ""]
        );
        let input: DeriveInput = syn::parse_quote! {
            #[kubeforge(required)]
            struct T { c: Option<String> }
        };
        let item = process(input).unwrap().item;
        assert!(quote!(#item).to_string().contains("schemars (required)"));
    }

    #[test]
    fn unknown_group_fields_are_errors() {
        let input: DeriveInput = syn::parse_quote! {
            #[kubeforge(at_most_one_of(a, nope))]
            struct S { a: Option<i32>, b: Option<i32> }
        };
        let e = process(input).err().unwrap();
        assert!(
            e.to_string()
                .contains("`nope` is not a serialized field of `S`"),
            "{e}"
        );
    }

    #[test]
    fn several_errors_are_reported_together() {
        let input: DeriveInput = syn::parse_quote! {
            struct S {
                #[kubeforge(pattern = "x")] a: i32,
                #[kubeforge(minimum = 1)] b: String,
            }
        };
        let e = process(input).err().unwrap();
        assert_eq!(e.into_iter().count(), 2);
    }
}
