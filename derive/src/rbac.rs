//! `#[kubeforge::rbac(...)]`: the equivalent of controller-gen's `+kubebuilder:rbac` marker, plus
//! `reconciles`/`owns`/`watches` forms whose rules are derived from the named kinds.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr};

const VERBS: [&str; 14] = [
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "*",
    "impersonate",
    "bind",
    "escalate",
    "use",
    "approve",
];

/// A `;`-separated string (controller-gen style) or a list of strings.
fn strings(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
    let lits: Vec<LitStr> = match &expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => vec![s.clone()],
        Expr::Array(a) => a
            .elems
            .iter()
            .map(|e| match e {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Ok(s.clone()),
                other => Err(syn::Error::new(other.span(), "expected a string")),
            })
            .collect::<syn::Result<_>>()?,
        other => {
            return Err(syn::Error::new(
                other.span(),
                "expected \"a;b\" or [\"a\", \"b\"]",
            ));
        }
    };
    Ok(lits
        .iter()
        .flat_map(|l| {
            l.value()
                .split(';')
                .map(|s| LitStr::new(s.trim(), l.span()))
                .collect::<Vec<_>>()
        })
        .collect())
}

fn types(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Vec<syn::Type>> {
    let expr: Expr = meta.value()?.parse()?;
    let elems: Vec<Expr> = match expr {
        Expr::Array(a) => a.elems.into_iter().collect(),
        other => vec![other],
    };
    elems
        .into_iter()
        .map(|e| match e {
            Expr::Path(p) => Ok(syn::Type::Path(syn::TypePath {
                qself: None,
                path: p.path,
            })),
            other => Err(syn::Error::new(other.span(), "expected a type name")),
        })
        .collect()
}

/// Expands `#[kubeforge::rbac(...)]`; the item it is written on is left unchanged.
pub fn expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut groups = None;
    let mut resources = None;
    let mut verbs: Option<Vec<LitStr>> = None;
    let mut names = Vec::new();
    let mut urls = Vec::new();
    let mut namespace: Option<LitStr> = None;
    let mut derived = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(std::string::ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "groups" => groups = Some(strings(&meta)?),
            "resources" => resources = Some(strings(&meta)?),
            "verbs" => {
                let v = strings(&meta)?;
                for verb in &v {
                    if !VERBS.contains(&verb.value().as_str()) {
                        return Err(syn::Error::new(
                            verb.span(),
                            format!(
                                "unknown verb `{}` (expected one of {})",
                                verb.value(),
                                VERBS.join(", ")
                            ),
                        ));
                    }
                }
                verbs = Some(v);
            }
            "resource_names" => names = strings(&meta)?,
            "urls" => urls = strings(&meta)?,
            "namespace" => namespace = Some(meta.value()?.parse()?),
            "reconciles" => {
                for t in types(&meta)? {
                    derived.push(quote!(::kubeforge::rbac::reconciles::<#t>()));
                }
            }
            "owns" => {
                for t in types(&meta)? {
                    derived.push(quote!(::kubeforge::rbac::owns::<#t>()));
                }
            }
            "watches" => {
                for t in types(&meta)? {
                    derived.push(quote!(::kubeforge::rbac::watches::<#t>()));
                }
            }
            _ => {
                return Err(meta.error(format!(
                    "unknown rbac key `{key}` (expected groups, resources, verbs, resource_names, urls, namespace, reconciles, owns, watches)"
                )));
            }
        }
        Ok(())
    });
    parser.parse2(args.clone())?;
    derived.extend(builder_calls(&item));

    let mut explicit = Vec::new();
    let has_resource_rule = groups.is_some() || resources.is_some();
    if has_resource_rule || !urls.is_empty() || verbs.is_some() {
        let Some(verbs) = verbs else {
            return Err(syn::Error::new_spanned(
                &args,
                "an rbac rule needs `verbs = \"get;list;watch\"`",
            ));
        };
        if has_resource_rule && !urls.is_empty() {
            return Err(syn::Error::new_spanned(
                &args,
                "a rule covers either resources or non-resource `urls`, not both",
            ));
        }
        if urls.is_empty() && (groups.is_none() || resources.is_none()) {
            return Err(syn::Error::new_spanned(
                &args,
                "an rbac rule needs both `groups` (\"\" for the core group) and `resources`",
            ));
        }
        let groups = groups.unwrap_or_default();
        let resources = resources.unwrap_or_default();
        explicit.push(quote! {
            ::kubeforge::rbac::Rule::new(&[#(#groups),*], &[#(#resources),*], &[#(#verbs),*])
                .with_resource_names(&[#(#names),*])
                .with_urls(&[#(#urls),*])
        });
    } else if derived.is_empty() {
        return Err(syn::Error::new_spanned(
            &args,
            "#[kubeforge::rbac] needs a rule (groups, resources, verbs) or reconciles/owns/watches, \
             or must be written on the function that builds the controller \
             (`Controller::<K>::new(..).owns::<C>()`), whose kinds it reads",
        ));
    }
    let ns = match &namespace {
        Some(ns) => quote!(::core::option::Option::Some(#ns)),
        None => quote!(::core::option::Option::None),
    };
    Ok(quote! {
        #item
        const _: () = {
            fn __kubeforge_rbac_rules() -> ::std::vec::Vec<::kubeforge::rbac::Rule> {
                let mut rules = ::std::vec::Vec::new();
                #(rules.push(#explicit);)*
                #(rules.extend(#derived);)*
                rules.into_iter().map(|r| r.in_namespace(#ns)).collect()
            }
            ::kubeforge::__private::inventory::submit! {
                ::kubeforge::rbac::Declaration::new(::core::module_path!(), __kubeforge_rbac_rules)
            }
        };
    })
}

/// The rules implied by the controller a function builds: `Controller::<K>::new(..)` reconciles
/// K, `.owns::<C>()` / `.owns_with::<C>(..)` owns C, `.watches::<O>(..)` watches O. Read from
/// the function's body, so the kinds a controller is built with need not be listed again in
/// the attribute. Only calls with the kind written as a turbofish are seen (a kind left to type
/// inference must be listed in the attribute).
fn builder_calls(item: &TokenStream) -> Vec<TokenStream> {
    use syn::visit::Visit;

    #[derive(Default)]
    struct Calls(Vec<TokenStream>);

    impl<'ast> Visit<'ast> for Calls {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if let Some(turbofish) = &call.turbofish
                && let Some(syn::GenericArgument::Type(t)) = turbofish.args.first()
            {
                match call.method.to_string().as_str() {
                    "owns" | "owns_with" => {
                        self.0.push(quote!(::kubeforge::rbac::owns::<#t>()));
                    }
                    "watches" => self.0.push(quote!(::kubeforge::rbac::watches::<#t>())),
                    _ => {}
                }
            }
            syn::visit::visit_expr_method_call(self, call);
        }

        fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
            let segments: Vec<_> = path.path.segments.iter().collect();
            if let [.., controller, new] = segments.as_slice()
                && controller.ident == "Controller"
                && new.ident == "new"
                && let syn::PathArguments::AngleBracketed(args) = &controller.arguments
                && let Some(syn::GenericArgument::Type(t)) = args.args.first()
            {
                self.0.push(quote!(::kubeforge::rbac::reconciles::<#t>()));
            }
            syn::visit::visit_expr_path(self, path);
        }
    }

    let Ok(function) = syn::parse2::<syn::ItemFn>(item.clone()) else {
        return Vec::new();
    };
    let mut calls = Calls::default();
    calls.visit_item_fn(&function);
    calls.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_gen_style_rules_expand() {
        let out = expand(
            quote!(
                groups = "apps",
                resources = "deployments;deployments/status",
                verbs = "get;list;watch"
            ),
            quote!(
                fn f() {}
            ),
        )
        .unwrap()
        .to_string();
        assert!(out.contains("fn f () { }"), "{out}");
        assert!(
            out.contains("& [\"deployments\" , \"deployments/status\"]"),
            "{out}"
        );
        assert!(out.contains("& [\"get\" , \"list\" , \"watch\"]"), "{out}");
    }

    #[test]
    fn kinds_are_read_from_the_controller_builder() {
        let out = expand(
            quote!(),
            quote!(
                pub fn add_to_manager(manager: &mut Manager) {
                    let controller = Controller::<Memcached>::new(manager, NAME)
                        .owns::<Deployment>()
                        .owns_with::<Service>(vec![])
                        .watches::<ConfigMap>(|c| vec![]);
                    manager.add(controller.reconcile(reconcile, context));
                }
            ),
        )
        .unwrap()
        .to_string();
        assert!(out.contains("reconciles :: < Memcached >"), "{out}");
        assert!(out.contains("owns :: < Deployment >"), "{out}");
        assert!(out.contains("owns :: < Service >"), "{out}");
        assert!(out.contains("watches :: < ConfigMap >"), "{out}");
        let e = expand(
            quote!(),
            quote!(
                fn nothing() {}
            ),
        )
        .unwrap_err();
        assert!(e.to_string().contains("builds the controller"), "{e}");
    }

    #[test]
    fn derived_rules_and_errors() {
        let out = expand(
            quote!(reconciles = Memcached, owns = [Deployment, Service]),
            quote!(
                fn f() {}
            ),
        )
        .unwrap()
        .to_string();
        assert!(out.contains("reconciles :: < Memcached >"), "{out}");
        assert!(out.contains("owns :: < Service >"), "{out}");
        let e = expand(
            quote!(groups = "apps", resources = "x", verbs = "fly"),
            quote!(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown verb `fly`"), "{e}");
        let e = expand(quote!(groups = "apps", verbs = "get"), quote!()).unwrap_err();
        assert!(e.to_string().contains("resources"), "{e}");
        let e = expand(quote!(), quote!()).unwrap_err();
        assert!(e.to_string().contains("needs a rule"), "{e}");
    }
}
