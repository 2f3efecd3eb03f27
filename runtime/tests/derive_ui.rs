//! Compile-fail tests: misused kubeforge attributes are compile errors pointing at the attribute.

#[test]
fn misuse_is_a_compile_error() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
