//! Reads the `#[kube(...)]` attributes of kube-derive's `CustomResource`, which stay the single
//! place where group, version, kind and the other CRD-level settings are written.

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, LitStr};

/// The CRD-level settings kubeforge needs to register the type.
#[derive(Debug, Default)]
pub struct KubeAttrs {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The generated root type (kube's `root = ".."`, default the kind).
    pub root: String,
    pub namespaced: bool,
    pub status: Option<syn::Path>,
    pub storage: bool,
    pub served: bool,
    pub printcolumn_types: Vec<LitStr>,
    /// JSON paths to check: (what, required prefix, literal).
    pub paths: Vec<(&'static str, &'static str, LitStr)>,
    /// Whether `doc = ".."` was given.
    pub has_doc: bool,
    /// `plural = ".."`, if given.
    pub plural: Option<String>,
    /// `singular = ".."`, if given.
    pub singular: Option<String>,
}

impl KubeAttrs {
    /// The plural kube-derive uses: the given one, else the English plural of the singular
    /// (the lowercased kind unless given).
    pub fn plural(&self) -> String {
        if let Some(p) = &self.plural {
            return p.clone();
        }
        let word = self
            .singular
            .clone()
            .unwrap_or_else(|| self.kind.to_ascii_lowercase());
        if ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|e| word.ends_with(e))
        {
            format!("{word}es")
        } else if word.len() > 1
            && word.ends_with('y')
            && !matches!(
                word.as_bytes()[word.len() - 2],
                b'a' | b'e' | b'i' | b'o' | b'u'
            )
        {
            format!("{}ies", &word[..word.len() - 1])
        } else {
            format!("{word}s")
        }
    }
}

fn skip_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: TokenStream = content.parse()?;
    }
    Ok(())
}

fn bool_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let b: syn::LitBool = meta.value()?.parse()?;
        Ok(b.value)
    } else {
        Ok(true)
    }
}

/// Where `#[kubeforge::api]` has kube-derive find schemars: schemars itself, with the structural
/// rewrite added to the settings kube-derive's `crd()` starts from.
pub const SCHEMARS_FOR_CRDS: &str = "::kubeforge::__private::schemars_for_crds";

/// Sets `crates(schemars = ..)` to [`SCHEMARS_FOR_CRDS`] in the `#[kube(...)]` attributes: inside
/// the user's own `crates(...)` if there is one (kube accepts it once), else in a new attribute.
pub fn route_schemars(attrs: &mut Vec<Attribute>) -> syn::Result<()> {
    use proc_macro2::{Delimiter, Group, TokenTree};
    let addition: TokenStream = quote::quote!(schemars = #SCHEMARS_FOR_CRDS);
    for attr in attrs.iter_mut().filter(|a| a.path().is_ident("kube")) {
        let syn::Meta::List(list) = &mut attr.meta else {
            continue;
        };
        let mut tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        let Some(at) = tokens.windows(2).position(|w| {
            matches!(&w[0], TokenTree::Ident(i) if i == "crates")
                && matches!(&w[1], TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis)
        }) else {
            continue;
        };
        let TokenTree::Group(group) = &tokens[at + 1] else {
            unreachable!("checked above")
        };
        let inner: Vec<TokenTree> = group.stream().into_iter().collect();
        if inner
            .iter()
            .any(|t| matches!(t, TokenTree::Ident(i) if i == "schemars"))
        {
            return Err(syn::Error::new(
                group.span(),
                "#[kubeforge::api] sets `crates(schemars = ..)` itself (to make every shape structural); remove `schemars` from `crates(...)`",
            ));
        }
        let mut stream: TokenStream = inner.iter().cloned().collect();
        if !matches!(inner.last(), None | Some(TokenTree::Punct(_))) {
            stream.extend(quote::quote!(,));
        }
        stream.extend(addition);
        let mut replaced = Group::new(Delimiter::Parenthesis, stream);
        replaced.set_span(group.span());
        tokens[at + 1] = TokenTree::Group(replaced);
        list.tokens = tokens.into_iter().collect();
        return Ok(());
    }
    attrs.push(syn::parse_quote!(#[kube(crates(#addition))]));
    Ok(())
}

/// Parses every `#[kube(...)]` attribute; errors when group, version or kind is missing.
pub fn parse(attrs: &[Attribute], span: Span) -> syn::Result<KubeAttrs> {
    let mut out = KubeAttrs {
        storage: true,
        served: true,
        ..Default::default()
    };
    let mut seen = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("kube")) {
        seen = true;
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(std::string::ToString::to_string)
                .unwrap_or_default();
            match key.as_str() {
                "group" => out.group = meta.value()?.parse::<LitStr>()?.value(),
                "version" => out.version = meta.value()?.parse::<LitStr>()?.value(),
                "kind" => out.kind = meta.value()?.parse::<LitStr>()?.value(),
                "root" => out.root = meta.value()?.parse::<LitStr>()?.value(),
                "doc" => {
                    out.has_doc = true;
                    skip_value(&meta)?;
                }
                "plural" => out.plural = Some(meta.value()?.parse::<LitStr>()?.value()),
                "singular" => out.singular = Some(meta.value()?.parse::<LitStr>()?.value()),
                "namespaced" => out.namespaced = bool_value(&meta)?,
                "storage" => out.storage = bool_value(&meta)?,
                "served" => out.served = bool_value(&meta)?,
                "status" => {
                    let s: LitStr = meta.value()?.parse()?;
                    out.status = Some(s.parse()?);
                }
                "printcolumn" if meta.input.peek(syn::token::Paren) => {
                    meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("type_") {
                            out.printcolumn_types.push(inner.value()?.parse()?);
                        } else if inner.path.is_ident("json_path") {
                            out.paths
                                .push(("printcolumn json_path", "", inner.value()?.parse()?));
                        } else {
                            skip_value(&inner)?;
                        }
                        Ok(())
                    })?;
                }
                "scale" if meta.input.peek(syn::token::Paren) => {
                    meta.parse_nested_meta(|inner| {
                        let key = inner
                            .path
                            .get_ident()
                            .map(std::string::ToString::to_string)
                            .unwrap_or_default();
                        let prefix = match key.as_str() {
                            "spec_replicas_path" => ".spec.",
                            "status_replicas_path" | "label_selector_path" => ".status.",
                            _ => "",
                        };
                        let what = match key.as_str() {
                            "spec_replicas_path" => "spec_replicas_path",
                            "status_replicas_path" => "status_replicas_path",
                            "label_selector_path" => "label_selector_path",
                            _ => "",
                        };
                        if what.is_empty() {
                            skip_value(&inner)?;
                        } else {
                            out.paths.push((what, prefix, inner.value()?.parse()?));
                        }
                        Ok(())
                    })?;
                }
                _ => skip_value(&meta)?,
            }
            Ok(())
        })?;
    }
    if !seen {
        return Err(syn::Error::new(
            span,
            "#[kubeforge::api] goes on a `#[derive(CustomResource)]` spec struct with `#[kube(group = \"..\", version = \"..\", kind = \"..\")]`",
        ));
    }
    for (name, value) in [
        ("group", &out.group),
        ("version", &out.version),
        ("kind", &out.kind),
    ] {
        if value.is_empty() {
            return Err(syn::Error::new(
                span,
                format!("#[kube(...)] needs `{name} = \"..\"`"),
            ));
        }
    }
    if out.root.is_empty() {
        out.root = out.kind.clone();
    }
    for (what, prefix, path) in &out.paths {
        let value = path.value();
        if !value.starts_with('.') {
            return Err(syn::Error::new(
                path.span(),
                format!("{what} is a JSON path starting with `.` (like `.spec.size`)"),
            ));
        }
        if !prefix.is_empty() && !value.starts_with(prefix) {
            // controller-gen and the API server: specReplicasPath under .spec, the others under .status.
            return Err(syn::Error::new(
                path.span(),
                format!("{what} must be under `{prefix}`"),
            ));
        }
    }
    for ty in &out.printcolumn_types {
        const TYPES: [&str; 5] = ["integer", "number", "string", "boolean", "date"];
        if !TYPES.contains(&ty.value().as_str()) {
            return Err(syn::Error::new(
                ty.span(),
                format!("printer column type must be one of {}", TYPES.join(", ")),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kube_attributes_and_skips_the_rest() {
        let input: syn::DeriveInput = syn::parse_quote! {
            #[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced,
                   status = "MemcachedStatus", shortname = "mc", annotation("a", "b"),
                   printcolumn(name = "Size", type_ = "integer", json_path = ".spec.size"),
                   scale(spec_replicas_path = ".spec.size", status_replicas_path = ".status.size"),
                   storage = false, deprecated = "use v1")]
            struct MemcachedSpec {}
        };
        let k = parse(&input.attrs, Span::call_site()).unwrap();
        assert_eq!(
            (
                k.group.as_str(),
                k.version.as_str(),
                k.kind.as_str(),
                k.root.as_str()
            ),
            ("cache.example.com", "v1alpha1", "Memcached", "Memcached")
        );
        assert!(k.namespaced && !k.storage && k.served);
        assert!(k.status.is_some());
        assert!(!k.has_doc);
        assert_eq!(k.plural(), "memcacheds");
        let plural = |kind: &str| {
            KubeAttrs {
                kind: kind.into(),
                ..Default::default()
            }
            .plural()
        };
        assert_eq!(
            (
                plural("Policy"),
                plural("Gateway"),
                plural("Box"),
                plural("Mesh")
            ),
            (
                "policies".into(),
                "gateways".into(),
                "boxes".into(),
                "meshes".into()
            )
        );
    }

    #[test]
    fn schemars_is_routed_through_the_structural_settings() {
        let mut input: syn::DeriveInput = syn::parse_quote! {
            #[kube(group = "g", version = "v1", kind = "K")]
            struct S {}
        };
        route_schemars(&mut input.attrs).unwrap();
        let last = &input.attrs[1];
        assert_eq!(
            quote::quote!(#last).to_string(),
            "# [kube (crates (schemars = \"::kubeforge::__private::schemars_for_crds\"))]"
        );
        let mut input: syn::DeriveInput = syn::parse_quote! {
            #[kube(group = "g", version = "v1", kind = "K", crates(kube_core = "::k::core",))]
            struct S {}
        };
        route_schemars(&mut input.attrs).unwrap();
        assert_eq!(input.attrs.len(), 1);
        let text = quote::quote!(#input).to_string();
        assert!(
            text.contains("crates (kube_core = \"::k::core\" , schemars = \"::kubeforge::__private::schemars_for_crds\")"),
            "{text}"
        );
        let mut input: syn::DeriveInput = syn::parse_quote! {
            #[kube(group = "g", version = "v1", kind = "K", crates(schemars = "::s"))]
            struct S {}
        };
        let e = route_schemars(&mut input.attrs).unwrap_err();
        assert!(e.to_string().contains("remove `schemars`"), "{e}");
    }

    #[test]
    fn missing_kind_and_bad_column_type_are_errors() {
        let input: syn::DeriveInput = syn::parse_quote! {
            #[kube(group = "g", version = "v1")]
            struct S {}
        };
        assert!(
            parse(&input.attrs, Span::call_site())
                .unwrap_err()
                .to_string()
                .contains("kind")
        );
        let input: syn::DeriveInput = syn::parse_quote! {
            #[kube(group = "g", version = "v1", kind = "K", printcolumn(name = "A", type_ = "int", json_path = ".spec.a"))]
            struct S {}
        };
        assert!(
            parse(&input.attrs, Span::call_site())
                .unwrap_err()
                .to_string()
                .contains("printer column type")
        );
        let input: syn::DeriveInput = syn::parse_quote!(
            struct S {}
        );
        assert!(parse(&input.attrs, Span::call_site()).is_err());
    }
}
