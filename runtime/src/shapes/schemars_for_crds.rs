//! schemars as kube-derive should use it for kubeforge's API types: everything re-exported
//! unchanged, except that [`generate::SchemaSettings::openapi3`] ends with the [`Structural`]
//! rewrite.
//!
//! kube-derive builds `Kind::crd()`'s schema with `<schemars>::generate::SchemaSettings::
//! openapi3()`, then adds its own transforms; the path of `<schemars>` is
//! `#[kube(crates(schemars = ".."))]`, which `#[kubeforge::api]` points here. The rewrite thus
//! runs after schemars' OpenAPI 3 transforms and before kube's, which find nothing left to do
//! (no `oneOf`/`anyOf` to hoist, so no panic on variants that disagree).

pub use schemars::*;

use super::Structural;

/// schemars' `generate` module, with [`SchemaSettings`] adding the structural rewrite.
pub mod generate {
    pub use schemars::generate::*;

    /// Stands in for `schemars::generate::SchemaSettings` in kube-derive's generated `crd()`.
    pub struct SchemaSettings;

    impl SchemaSettings {
        /// schemars' OpenAPI 3 settings followed by the structural rewrite.
        pub fn openapi3() -> schemars::generate::SchemaSettings {
            schemars::generate::SchemaSettings::openapi3().with_transform(super::Structural)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn openapi3_settings_end_with_the_rewrite() {
        let settings = super::generate::SchemaSettings::openapi3();
        let last: &dyn std::any::Any = &**settings.transforms.last().expect("transforms");
        assert!(last.is::<super::Structural>());
    }
}
