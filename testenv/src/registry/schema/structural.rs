//! The checks of one version's `openAPIV3Schema`, as the apiextensions server runs them on
//! CRD create and update: the structural-schema and keyword rules (from `kubeforge-schema`,
//! shared with the runtime's manifest generator), then the CEL rules (only on a structural
//! schema, see [`super::cel_types::crd`]) and the `default`s (only on a schema that is
//! otherwise valid).
//!
//! Paths use the real server's form, `spec.validation.openAPIV3Schema.properties[spec].type`
//! (or `spec.versions[i].schema...` when versions differ),
//! and the structural errors are sorted by their text as the real server sorts them.

use super::default_validity::defaults;
use super::errors::FieldError;
use serde_json::Value;

/// Every check for one version's schema at `path`, in the real server's order: the
/// structural errors (sorted by text), the `default`s' errors (checked on a structural
/// schema), the keyword errors (or the conversion error when there is none), then the CEL
/// errors (checked only on a structural schema whose defaults are valid).
pub(crate) fn check_version_schema(schema: &Value, path: &str) -> Vec<FieldError> {
    let checked = kubeforge_schema::check(schema, path);
    let structural = checked.is_structural();
    let mut errs: Vec<FieldError> = checked.structural.iter().map(FieldError::from).collect();
    let mut defaults_ok = false;
    if structural && let Some(s) = schema.as_object() {
        let before = errs.len();
        defaults(s, path, true, &mut errs);
        defaults_ok = errs.len() == before;
    }
    if checked.keywords.is_empty() {
        errs.extend(checked.unconvertible.iter().map(FieldError::from));
    } else {
        errs.extend(checked.keywords.iter().map(FieldError::from));
    }
    if defaults_ok {
        let cel = super::cel_types::crd::cel_errors(schema, path, &errs);
        errs.extend(cel);
    }
    errs
}
