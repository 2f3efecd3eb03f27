//! Rust types from a CustomResourceDefinition: what `kubeforge create api --external` writes
//! for kinds the project uses but does not own (cert-manager's Certificate, Gateway API's
//! HTTPRoute, ...), kopium's job done inside the scaffolder.
//!
//! A pure function of the CRD's text: [`parse_crds`] reads the documents, [`generate`] turns one
//! version's schema into Rust source. The types round-trip every object the CRD accepts:
//!
//! * each field is `Option<T>` unless required, so absent stays absent; a `nullable` field is
//!   `Option<Option<T>>` (or `Option<T>` when required), so `null` stays `null`;
//! * `x-kubernetes-int-or-string` is k8s-openapi's `IntOrString`;
//! * `x-kubernetes-preserve-unknown-fields` keeps what the schema does not name: an object
//!   with properties gets a flattened map of the others, one without is a map or a
//!   `serde_json::Value`;
//! * string enums have a variant per listed value and `Other(String)` for any other, so a value
//!   a newer server writes still reads (and writes back unchanged);
//! * field names become snake_case identifiers (keywords as `r#type`; names that differ only in
//!   case, or that collide once mangled, get `_2`, `_3`), each renamed back for serde;
//! * objects are visited through a queue, so a very deep schema needs no deep stack.
//!
//! The schema derived from the generated types (`K::crd()`) is structural and keeps what
//! changes how objects are stored: types, required fields, enums, defaults, list and map types,
//! embedded resources and preserved unknown fields. Validations (patterns, bounds, CEL rules)
//! stay with the real CRD.

mod analyze;
mod crd;
mod emit;
mod emit_enums;
mod error;
mod example;
mod model;
mod names;
mod schema;
mod text;

#[cfg(test)]
mod tests;

pub use crd::{Crd, CrdVersion, PrinterColumn, Scale, parse_crds};
pub use error::TypegenError;
pub use example::example_object;
pub use model::{Module, RootShape};

/// The Rust source of one CRD version.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    /// The source text (no license header).
    pub source: String,
    /// The struct `#[derive(CustomResource)]` is on (`CertificateSpec`, `ApplicationFields`).
    pub input: String,
    /// What the file's readers should know (also in its module documentation).
    pub notes: Vec<String>,
    /// How many structs it defines.
    pub structs: usize,
    /// How many enums it defines.
    pub enums: usize,
    /// The `#![recursion_limit]` every crate using the types needs, when they nest deeper than
    /// rustc's default (128) handles.
    pub recursion_limit: Option<usize>,
}

/// The Rust types of version `version` of `crd`.
pub fn generate(crd: &Crd, version: &str) -> Result<Generated, TypegenError> {
    let crd_version = crd
        .version(version)
        .ok_or_else(|| TypegenError::NoSuchVersion {
            crd: crd.name.clone(),
            version: version.to_owned(),
            available: crd
                .versions
                .iter()
                .map(|v| v.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    if !crd_version.schema.is_object() {
        return Err(TypegenError::NoSchema {
            crd: crd.name.clone(),
            version: version.to_owned(),
        });
    }
    let module = analyze::analyze(&crd.kind, crd_version);
    Ok(Generated {
        source: emit::emit(crd, crd_version, &module),
        input: module.input.clone(),
        notes: module.notes.clone(),
        structs: module.structs.len(),
        enums: module.enums.len(),
        recursion_limit: module.recursion_limit,
    })
}
