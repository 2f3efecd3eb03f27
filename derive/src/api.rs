//! `#[kubeforge::api]`: on a `#[derive(CustomResource)]` spec struct, processes the schema
//! attributes, registers the kind in the scheme, and adds typed client helpers to the root type.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::DeriveInput;

use crate::kube_attrs;
use crate::schema::{Processed, process};

fn derives_custom_resource(input: &DeriveInput) -> bool {
    input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|m| {
                if m.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "CustomResource")
                {
                    found = true;
                }
                Ok(())
            });
            found
        })
}

/// Expands `#[kubeforge::api]`.
pub fn expand(args: TokenStream, input: DeriveInput) -> syn::Result<TokenStream> {
    if !args.is_empty() {
        return Err(syn::Error::new_spanned(
            args,
            "#[kubeforge::api] takes no arguments: group, version, kind and the other CRD settings stay in #[kube(...)]",
        ));
    }
    if !derives_custom_resource(&input) {
        return Err(syn::Error::new(
            input.ident.span(),
            "#[kubeforge::api] must be written above `#[derive(CustomResource, ...)]` (it builds on kube's CustomResource)",
        ));
    }
    let kube = kube_attrs::parse(&input.attrs, input.ident.span())?;
    let mut input = input;
    if !kube.has_doc {
        // The root object's description, as kubebuilder scaffolds it for Go types.
        let doc = format!("{} is the Schema for the {} API.", kube.kind, kube.plural());
        input.attrs.push(syn::parse_quote!(#[kube(doc = #doc)]));
    }
    kube_attrs::route_schemars(&mut input.attrs)?;
    let Processed { item, extra, .. } = process(input)?;
    let root = format_ident!("{}", kube.root, span = Span::call_site());
    let (group, version, kind) = (&kube.group, &kube.version, &kube.kind);
    let root_name = &kube.root;
    let private = quote!(::kubeforge::__private);

    let api_helpers = if kube.namespaced {
        quote! {
            /// An `Api` for objects of this kind in `namespace`.
            pub fn api(client: #private::kube::Client, namespace: &str) -> #private::kube::Api<Self> {
                #private::kube::Api::namespaced(client, namespace)
            }
            /// An `Api` for objects of this kind across all namespaces (list and watch).
            pub fn api_all(client: #private::kube::Client) -> #private::kube::Api<Self> {
                #private::kube::Api::all(client)
            }
            /// An `Api` for the namespace of `self` (the namespace of a reconciled object;
            /// `"default"` when the object has none yet, as `kubectl` does).
            pub fn api_for(&self, client: #private::kube::Client) -> #private::kube::Api<Self> {
                #private::kube::Api::namespaced(
                    client,
                    self.metadata.namespace.as_deref().unwrap_or("default"),
                )
            }
        }
    } else {
        quote! {
            /// An `Api` for this cluster-scoped kind.
            pub fn api(client: #private::kube::Client) -> #private::kube::Api<Self> {
                #private::kube::Api::all(client)
            }
            /// An `Api` for this cluster-scoped kind (same as [`Self::api`]).
            pub fn api_for(&self, client: #private::kube::Client) -> #private::kube::Api<Self> {
                #private::kube::Api::all(client)
            }
        }
    };
    let status_helpers = kube.status.as_ref().map(|_| {
        quote! {
            /// Writes `self.status` through the status subresource (a JSON merge patch of
            /// `{"status": ...}`) and returns the object the server stored.
            ///
            /// Generic over the client argument (any `Into<kube::Client>`, a `Client` itself
            /// included) so that, like kube's own generic helpers, it is compiled only in
            /// crates that call it: the request and the decoding of the answer instantiate
            /// serde for the whole type, which a crate that only declares its API types
            /// should not pay for.
            pub async fn patch_status<C: ::core::convert::Into<#private::kube::Client>>(
                &self,
                client: C,
            ) -> ::core::result::Result<Self, #private::kube::Error> {
                ::kubeforge::scheme::patch_status(&self.api_for(client.into()), self).await
            }
        }
    });

    Ok(quote! {
        #item
        #extra

        impl #root {
            #api_helpers
            #status_helpers
        }

        const _: () = {
            fn __assert_api_object<K: ::kubeforge::scheme::ApiObject>() {}
            fn __check() {
                __assert_api_object::<#root>();
            }
            #private::inventory::submit! {
                ::kubeforge::scheme::ApiType::new::<#root>(
                    #group,
                    #version,
                    #kind,
                    ::core::concat!(::core::module_path!(), "::", #root_name),
                )
            }
        };
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_the_root_type_and_adds_helpers() {
        let input: DeriveInput = syn::parse_quote! {
            #[derive(CustomResource, Clone)]
            #[kube(group = "g.io", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
            struct WidgetSpec { #[kubeforge(minimum = 1)] size: i32 }
        };
        let out = expand(TokenStream::new(), input).unwrap().to_string();
        assert!(out.contains("ApiType :: new :: < Widget >"), "{out}");
        assert!(out.contains("\"g.io\" , \"v1\" , \"Widget\""), "{out}");
        assert!(out.contains("pub fn api (client"), "{out}");
        assert!(out.contains("pub async fn patch_status"), "{out}");
        assert!(out.contains("SchemaPatch"), "{out}");
        assert!(
            out.contains("doc = \"Widget is the Schema for the widgets API.\""),
            "{out}"
        );
    }

    #[test]
    fn requires_custom_resource_and_no_arguments() {
        let input: DeriveInput = syn::parse_quote! {
            #[kube(group = "g.io", version = "v1", kind = "Widget")]
            struct WidgetSpec {}
        };
        let e = expand(TokenStream::new(), input.clone()).unwrap_err();
        assert!(e.to_string().contains("derive(CustomResource"), "{e}");
        let e = expand(quote!(kind = "X"), input).unwrap_err();
        assert!(e.to_string().contains("takes no arguments"), "{e}");
    }
}
