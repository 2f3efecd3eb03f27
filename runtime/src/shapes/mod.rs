//! Structural schemas for every common Rust shape, as controller-gen gives every Go shape one.
//!
//! schemars describes Rust types in JSON Schema; the Kubernetes API server accepts only
//! structural schemas (one type per node, no `$ref`, no `anyOf` of types) and prunes any data
//! its schema does not describe. [`rewrite`] turns schemars' schema of a custom resource into a
//! structural one that keeps every value a Rust client sends:
//!
//! | Rust shape | schema |
//! |---|---|
//! | internally / adjacently tagged enum | one object: the tag an `enum`, the variants' fields merged, CEL rules requiring each variant's fields and refusing the others' |
//! | externally tagged enum of data variants | one object, a rule that exactly one variant is set |
//! | unit enum, `Option<enum>` | a string `enum`; `None` is dropped by the server, reads back as `None` |
//! | enum mixing unit and data variants, untagged enum of unrelated types | free-form (`x-kubernetes-preserve-unknown-fields`), with a note |
//! | untagged `i32 \| String` | `x-kubernetes-int-or-string` |
//! | `serde_json::Value`, maps and lists of it | `x-kubernetes-preserve-unknown-fields`, `nullable`: nothing pruned |
//! | recursive type | cut at the recursion: an object with `x-kubernetes-preserve-unknown-fields`, with a note |
//! | `Vec<Option<T>>`, `BTreeMap<_, Option<T>>` | `nullable` items and values (the server refuses or drops `null` otherwise) |
//! | `u8`..`u32`, `u64` | bounds the server enforces (`u64`: `minimum: 0`; see [`walk`]) |
//! | `HashSet`, `BTreeSet` of scalars | `x-kubernetes-list-type: set` |
//! | tuples | one `items` schema |
//!
//! `#[kubeforge::api]` has kube-derive build the CRD through [`schemars_for_crds`], so
//! `Kind::crd()` and `manifests` both give the rewritten schema; `manifests` reruns the rewrite
//! ([`rewrite`]) to print its notes.

mod cel;
mod kinds;
pub mod schemars_for_crds;
mod union;
mod walk;

pub use kinds::{EXPLICIT_NULLABLE, Note};

use schemars::transform::Transform;
use serde_json::Value;

/// Rewrites a root schema (schemars' output with its OpenAPI 3 transforms applied) into a
/// structural schema, returning what the user should know about it.
pub fn rewrite(schema: &mut Value) -> Vec<Note> {
    let mut walk = walk::Walk::new(schema);
    walk.node(schema, "", walk::Position::Field);
    walk.notes
}

/// [`rewrite`] as a schemars transform (its notes are dropped; `manifests` recomputes them).
#[derive(Debug, Clone, Copy, Default)]
pub struct Structural;

impl Transform for Structural {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        let mut value = std::mem::take(schema).to_value();
        rewrite(&mut value);
        *schema = schemars::Schema::try_from(value).unwrap_or_default();
    }
}
