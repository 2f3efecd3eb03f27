//! Checks a CRD schema against the rules kube-apiserver holds CustomResourceDefinition schemas
//! to (structural schemas, keywords, list types), so `manifests` fails with the API server's own
//! message and a kubeforge fix instead of writing a CRD the server refuses.
//!
//! The rules live in `kubeforge-schema`, shared with the embedded API server
//! (`kubeforge-testenv`), so both refuse the same schemas with the same words.

use serde_json::Value;

pub use kubeforge_schema::{Kind, Violation};

/// Every violation of a CRD version's `openAPIV3Schema` (paths start at `openAPIV3Schema`).
pub fn check(schema: &Value) -> Vec<Violation> {
    check_at(schema, "openAPIV3Schema")
}

/// Every violation of a CRD version's schema found at `path` in the CRD.
pub fn check_at(schema: &Value, path: &str) -> Vec<Violation> {
    kubeforge_schema::check(schema, path).all()
}

/// A violation as `manifests` prints it: the API server's message, then the fix in a kubeforge
/// type when one attribute does it.
pub fn describe(v: &Violation) -> String {
    match v.hint() {
        Some(hint) => format!("{v}\n      fix: {hint}"),
        None => v.to_string(),
    }
}
