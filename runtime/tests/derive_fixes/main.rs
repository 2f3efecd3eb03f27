//! The fixes the derive macros' compile errors suggest, compiled as written and run: each
//! module's `check()` asserts what its fix promises (the CRD is structural, the object
//! round-trips through the API server's JSON). The errors themselves are trybuild cases of the
//! derive crate (`derive/tests/ui/`), and the two that need this crate's traits are
//! `compile_fail` doctests on `kubeforge::__private::SchemaFields`.
//!
//! A binary of its own: every fix registers an API type named `Thing` in the scheme.

mod flatten_scalar;
mod map_tuple_key;
mod tagged_field_named_like_tag;
mod tagged_newtype_content;
mod tagged_newtype_struct_variant;

#[test]
fn the_fix_for_flatten_scalar_compiles_and_behaves() {
    flatten_scalar::check();
}

#[test]
fn the_fix_for_map_tuple_key_compiles_and_behaves() {
    map_tuple_key::check();
}

#[test]
fn the_fix_for_tagged_field_named_like_tag_compiles_and_behaves() {
    tagged_field_named_like_tag::check();
}

#[test]
fn the_fix_for_tagged_newtype_content_compiles_and_behaves() {
    tagged_newtype_content::check();
}

#[test]
fn the_fix_for_tagged_newtype_struct_variant_compiles_and_behaves() {
    tagged_newtype_struct_variant::check();
}
