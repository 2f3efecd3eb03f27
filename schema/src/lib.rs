//! The rules kube-apiserver holds a CustomResourceDefinition's `openAPIV3Schema` to, in one
//! place for the two parts of kubeforge that need them:
//!
//! - the runtime's `manifests` refuses to write a CRD the API server would refuse, and says
//!   how to fix the Rust type ([`Violation::hint`]);
//! - the embedded API server (`kubeforge-testenv`) refuses such a CRD with the real server's
//!   field errors, word for word.
//!
//! [`check`] runs the structural-schema rules (`structuralschema.ValidateStructural`: types
//! everywhere, value validations without structure, completeness) and the keyword rules
//! (`ValidateCustomResourceDefinitionOpenAPISchema`: unsupported keywords, list types, the
//! syntax of `x-kubernetes-validations`). What needs more than the schema's text is left to
//! the embedded server: compiling CEL rules and estimating their cost, and validating
//! `default`s against the schema.
//!
//! The crate depends on `serde_json` and `regex` only (no `k8s-openapi` version feature), so
//! both the runtime and testenv can use it without choosing a Kubernetes version for anyone.

mod hints;
mod keywords;
mod node;
mod pattern;
mod structural;
mod violation;

use serde_json::Value;

pub use violation::{Kind, Violation};

/// The violations of one CRD version's schema, in the two groups the real server keeps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checked {
    /// The schema uses a keyword the structural form cannot hold (`$ref`, `id`, `$schema`,
    /// ...; `structuralschema.NewStructural` fails): then the structural rules are not
    /// checked, and this one error is reported only when no keyword rule is broken.
    pub unconvertible: Option<Violation>,
    /// The structural-schema rules, sorted by their text as the real server sorts them.
    pub structural: Vec<Violation>,
    /// The keyword rules, in the order the real server walks the schema.
    pub keywords: Vec<Violation>,
}

impl Checked {
    /// Every violation, in the real server's order: the structural ones, the keyword ones,
    /// and the conversion error when there is no keyword one.
    pub fn all(self) -> Vec<Violation> {
        let mut all = self.structural;
        let keywords_ok = self.keywords.is_empty();
        all.extend(self.keywords);
        if keywords_ok {
            all.extend(self.unconvertible);
        }
        all
    }

    /// Whether the schema is structural: only then does the real server go on to its CEL
    /// rules.
    pub fn is_structural(&self) -> bool {
        self.unconvertible.is_none() && self.structural.is_empty()
    }

    /// Whether the schema breaks no rule.
    pub fn is_empty(&self) -> bool {
        self.is_structural() && self.keywords.is_empty()
    }
}

/// Checks `schema`, a CRD version's `openAPIV3Schema` found at `path` in the CRD
/// (`spec.versions[0].schema.openAPIV3Schema`, or `spec.validation.openAPIV3Schema` when
/// every version has the same schema).
pub fn check(schema: &Value, path: &str) -> Checked {
    let Some(s) = schema.as_object() else {
        return Checked {
            structural: vec![Violation::required(path, "schemas are required")],
            ..Checked::default()
        };
    };
    let mut keywords = Vec::new();
    keywords::keywords(s, path, None, &mut keywords);
    if let Some(why) = structural::unconvertible(s) {
        return Checked {
            unconvertible: Some(Violation::invalid(path, &Value::from(""), &why)),
            structural: Vec::new(),
            keywords,
        };
    }
    let mut structural = Vec::new();
    structural::invariants(s, structural::Level::Root, path, &mut structural);
    structural::completeness(s, path, &mut structural);
    structural.sort_by_key(ToString::to_string);
    Checked {
        unconvertible: None,
        structural,
        keywords,
    }
}
