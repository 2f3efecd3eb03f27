//! The ranges the cost estimator computes with, and what it knows of a call's operands:
//! cel-go's `SizeEstimate`/`CostEstimate` (saturating) and its cost constants.

use cel::common::ast::IdedExpr;

use super::types::Type;

pub(super) const STRING_TRAVERSAL: f64 = 0.1;
pub(super) const REGEX_LENGTH: f64 = 0.25;
pub(super) const LIST_CREATE: u64 = 10;
pub(super) const MAP_CREATE: u64 = 30;
pub(super) const STRUCT_CREATE: u64 = 40;
pub(super) const MAX_NAME_FORMAT_REGEX: f64 = 128.0;
pub(super) const MAX_FORMAT_SIZE: u64 = 64;

/// A range of sizes or costs, saturating at `u64::MAX`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Est {
    /// Lower bound.
    pub min: u64,
    /// Upper bound.
    pub max: u64,
}

pub(super) const UNKNOWN: Est = Est {
    min: 0,
    max: u64::MAX,
};

pub(super) fn fixed(n: u64) -> Est {
    Est { min: n, max: n }
}

fn factor(x: u64, f: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && f > 0.0 && xf > u64::MAX as f64 / f {
        return u64::MAX;
    }
    let c = (xf * f).ceil();
    if c >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        c as u64
    }
}

impl Est {
    pub(super) fn add(self, o: Est) -> Est {
        Est {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }
    pub(super) fn mul(self, o: Est) -> Est {
        Est {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }
    pub(super) fn by(self, f: f64) -> Est {
        Est {
            min: factor(self.min, f),
            max: factor(self.max, f),
        }
    }
    pub(super) fn union(self, o: Est) -> Est {
        Est {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

/// What the estimator knows of a node when costing a call.
pub(super) struct Node<'e> {
    pub(super) path: Vec<String>,
    pub(super) ty: Type,
    pub(super) expr: Option<&'e IdedExpr>,
    pub(super) computed: Option<Est>,
}

/// The sizes the estimator knows: from a node's computed size, else from the schema.
pub(super) trait Sizes {
    /// The size of a value at `path` from the schema (`self...`).
    fn schema_size(&self, path: &[String]) -> Option<Est>;
    /// The size of an operand: computed, else from the schema, else unknown.
    fn size_of_node(&self, n: &Node<'_>) -> Est;
}
