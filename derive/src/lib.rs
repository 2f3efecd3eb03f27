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
mod rules;
mod schema;
mod serde_names;
mod shapes;
mod types;
mod validation;
mod values;

use proc_macro::TokenStream;

/// Marks a kube `CustomResource` spec struct as an API type of this operator.
///
/// Write it above the derive. Group, version, kind and every CRD-level setting stay in kube's
/// `#[kube(...)]` (controller-gen marker → kube attribute):
///
/// | controller-gen | `#[kube(...)]` |
/// |---|---|
/// | `groupName`, version, kind | `group = "..", version = "..", kind = ".."` |
/// | `resource:scope=Namespaced` | `namespaced` (cluster scope otherwise) |
/// | `resource:path`, `singular` | `plural = ".."`, `singular = ".."` |
/// | `resource:shortName`, `categories` | `shortname = ".."`, `category = ".."` (repeatable) |
/// | `subresource:status` | `status = "KindStatus"` |
/// | `subresource:scale` | `scale(spec_replicas_path = "..", status_replicas_path = "..", label_selector_path = "..")` |
/// | `printcolumn` | `printcolumn(name, type_, json_path, description, format, priority)` |
/// | `storageversion` / `unservedversion` | `storage = true/false`, `served = false` |
/// | `deprecatedversion:warning` | `deprecated = "warning"` |
/// | `selectablefield` | `selectable = ".spec.x"` |
/// | `metadata:labels/annotations` | `label("k", "v")`, `annotation("k", "v")` |
///
/// The attribute then:
/// - applies `#[kubeforge(...)]` schema attributes on the struct and its fields (see
///   [`macro@schema`] for the list; misuse is a compile error pointing at the attribute);
/// - registers the root type in `kubeforge::scheme` (keyed by group/version/kind), so
///   `manifests` writes its CRD, merged with the other versions of the kind, without a list;
/// - checks at compile time that the root type is a `kubeforge::scheme::ApiObject` (Clone,
///   serde, schema, kube `Resource`), the counterpart of Go's `runtime.Object`;
/// - adds typed helpers to the root type: `api(client, ns)` / `api(client)` (cluster scope),
///   `api_all(client)`, `api_for(&self, client)` and, with a status, `patch_status(&self, client)`;
/// - sets the root description to "Kind is the Schema for the plurals API." unless
///   `#[kube(doc = "..")]` is given.
///
/// Several versions of a kind are several types (one module per version); exactly one may keep
/// kube's default `storage = true` (a second one fails `manifests` naming both types).
///
/// ```ignore
/// #[kubeforge::api]
/// #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// #[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced,
///        status = "MemcachedStatus")]
/// #[serde(rename_all = "camelCase")]
/// pub struct MemcachedSpec {
///     /// How many instances.
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
///
/// Nested types need it only for their own attributes and for `list_map_keys` naming their
/// fields: every shape (tagged enums, `serde_json::Value`, recursive types, ...) gets a
/// structural schema without it (see `kubeforge::shapes`). On an enum, it also checks at compile
/// time that serde can write every variant (an internally tagged newtype variant must hold an
/// object, no field may take the tag's name).
///
/// Attributes (controller-gen's markers; on a field unless noted, several per attribute):
///
/// | attribute | renders | applies to |
/// |---|---|---|
/// | `minimum = n`, `maximum = n`, `multiple_of = n` | `minimum`, `maximum`, `multipleOf` | numbers |
/// | `exclusive_minimum`, `exclusive_maximum` | `exclusiveMinimum: true` ... | numbers |
/// | `min_length = n`, `max_length = n`, `pattern = "re"` | `minLength`, `maxLength`, `pattern` | strings |
/// | `format = "date-time"` | `format` | strings, numbers |
/// | `min_items = n`, `max_items = n` | `minItems`, `maxItems` | lists |
/// | `unique_items` | `x-kubernetes-list-type: set` (the server rejects `uniqueItems`) | lists of scalars |
/// | `list_type = "atomic"/"set"/"map"`, `list_map_keys = ["name"]` | `x-kubernetes-list-type`, `-list-map-keys` (keys checked against the item type) | lists |
/// | `min_properties = n`, `max_properties = n` | `minProperties`, `maxProperties` | maps, structs |
/// | `map_type = "granular"/"atomic"` | `x-kubernetes-map-type` | maps |
/// | `struct_type = "granular"/"atomic"` | `x-kubernetes-map-type` | structs |
/// | `enum_values = ["a", "b"]` | `enum` | scalars |
/// | `default = lit`, `default_json = "{..}"` | `default` (any JSON) | any |
/// | `example = lit`, `example_json = ".."`, `title = ".."` | `example`, `title` | any |
/// | `nullable` | `nullable: true` | any |
/// | `required`, `optional` | presence in the parent's `required` (`optional` adds `#[serde(default)]`) | fields; on a struct, the default for its fields |
/// | `preserve_unknown_fields` | `x-kubernetes-preserve-unknown-fields: true` | any |
/// | `embedded_resource` | `x-kubernetes-embedded-resource: true` | objects |
/// | `int_or_string` | `x-kubernetes-int-or-string: true` | strings, integers |
/// | `schemaless` | drops the field's schema: its data is kept as free-form JSON, unvalidated | fields |
/// | `type_ = "string"` | overrides `type` | any |
/// | `rule = "cel"` or `rule(rule, message, message_expression, reason, field_path, optional_old_self)` | `x-kubernetes-validations` | any; structs and enums too |
/// | `immutable` / `immutable = "msg"` | rule `self == oldSelf` | any |
/// | `exactly_one_of(a, b)`, `at_most_one_of(..)`, `at_least_one_of(..)` | controller-gen's CEL rules over the named fields | structs (type level) |
/// | `items(...)`, `values(...)` | the attributes above on list items / map values | lists, maps |
///
/// ```ignore
/// #[kubeforge::schema]
/// #[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
/// #[serde(rename_all = "camelCase")]
/// #[kubeforge(at_most_one_of(config_map, secret))]
/// pub struct Source {
///     #[kubeforge(min_length = 1, immutable)]
///     pub config_map: Option<String>,
///     pub secret: Option<String>,
///     #[kubeforge(list_map_keys = ["name"], max_items = 16, items(min_properties = 1))]
///     pub ports: Vec<Port>,
/// }
/// ```
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
/// derive the rules a controller needs for those kinds. Written on the function that builds a
/// controller, it also reads the kinds from the builder calls in its body
/// (`Controller::<K>::new`, `.owns::<C>()`, `.owns_with::<C>(..)`, `.watches::<O>(..)`), so
/// `#[kubeforge::rbac]` alone there grants everything the controller watches and owns.
#[proc_macro_attribute]
pub fn rbac(args: TokenStream, input: TokenStream) -> TokenStream {
    rbac::expand(args.into(), input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
