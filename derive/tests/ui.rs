//! Compile-fail tests: misused kubeforge attributes, and Rust shapes with no JSON form, are
//! compile errors pointing at the attribute or the field, one trybuild case per message
//! (`tests/ui/*.rs`, expected output beside each).
//!
//! Every case fails inside the macro, which then emits the error alone, so the cases need no
//! crate but this one (`use kubeforge_derive as kubeforge` stands for the runtime's re-export)
//! and trybuild checks them without building kube. The two errors that come from the
//! runtime's traits, not from the macro, are `compile_fail` doctests in the runtime
//! (`kubeforge::__private::SchemaFields`); the fixes the messages suggest are compiled and run
//! in `runtime/tests/derive_fixes/`.

#[test]
fn misuse_is_a_compile_error() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
