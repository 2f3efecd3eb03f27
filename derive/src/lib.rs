//! Procedural macros of kubeforge, re-exported by the `kubeforge` crate:
//!
//! - `#[kubeforge::api]` on a `#[derive(CustomResource)]` spec struct: applies the
//!   `#[kubeforge(...)]` schema attributes, registers the kind in `kubeforge::scheme` (so
//!   `manifests` finds it without a hand-kept list) and adds typed client helpers to the root type.
//! - `#[kubeforge::schema]` on nested structs and enums: applies their `#[kubeforge(...)]`
//!   attributes.
//! - `#[kubeforge::rbac(...)]` on a controller: declares RBAC rules for `config/rbac/role.yaml`.
//!
//! The macros build on kube-derive and schemars: they rewrite attributes into
//! `#[schemars(transform = ...)]` patches and leave the derives to those crates.

mod api;
mod kube_attrs;
mod rbac;
mod schema;
mod serde_names;
mod types;
mod validation;

use proc_macro::TokenStream;

/// Marks a kube `CustomResource` spec struct as an API type of this operator.
///
/// Write it above the derive; group, version, kind and every CRD-level setting (scope, names,
/// subresources, printer columns, storage/served, deprecation, selectable fields, labels and
/// annotations) stay in kube's `#[kube(...)]`. Fields and the struct take `#[kubeforge(...)]`
/// schema attributes (see the `kubeforge` crate docs).
///
/// ```ignore
/// #[kubeforge::api]
/// #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// #[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced,
///        status = "MemcachedStatus")]
/// pub struct MemcachedSpec {
///     #[kubeforge(minimum = 1, maximum = 5)]
///     pub size: i32,
/// }
/// ```
#[proc_macro_attribute]
pub fn api(args: TokenStream, input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    api::expand(args.into(), input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Applies `#[kubeforge(...)]` schema attributes on a nested struct or enum used by an API type.
#[proc_macro_attribute]
pub fn schema(args: TokenStream, input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    schema::expand(args.into(), input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Declares RBAC rules the operator needs, gathered into `config/rbac/role.yaml` by `manifests`.
///
/// `#[kubeforge::rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch")]`
/// mirrors `+kubebuilder:rbac`; `reconciles = Kind`, `owns = [Kind, ..]` and `watches = [..]`
/// derive the rules a controller needs for those kinds.
#[proc_macro_attribute]
pub fn rbac(args: TokenStream, input: TokenStream) -> TokenStream {
    rbac::expand(args.into(), input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
