//! The pruning of an apply when managers are recorded in several versions of a kind, as
//! structured-merge-diff prunes: what the applier stopped applying is removed in the version
//! of its last apply, and kept where a manager of any version still owns it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::managed::{Entry, ManagedFields, Owner};
use super::schema::Types;
use super::set::FieldSet;
use super::typed::{self, TypedError};
use super::versions::{Pending, Versions};

/// Why pruning stopped.
#[derive(Debug, thiserror::Error)]
pub enum PruneError {
    /// An object does not fit the schema.
    #[error(transparent)]
    Typed(#[from] TypedError),
    /// A conversion is still to be made.
    #[error(transparent)]
    Pending(#[from] Pending),
}

/// The pruning of an apply when managers are recorded in several versions, as
/// structured-merge-diff prunes: in the version of the applier's last apply, its last
/// fields are removed, then every version's owners (the applier's new configuration
/// included) take back what they own there, and of what is still gone only what the last
/// apply owned stays removed.
pub struct Pruning<'a, 't> {
    /// The kind's types in the request's version.
    pub types: Types<'t>,
    /// How to reach the other versions.
    pub versions: &'a dyn Versions,
    /// The request's version.
    pub here: &'a str,
}

impl Pruning<'_, '_> {
    /// Runs `f` with the schema of `version` (the request's own when the kind lacks it).
    fn with_types<R>(&self, version: &str, f: impl FnOnce(Types<'_>) -> R) -> R {
        match (version != self.here)
            .then(|| self.versions.def(version))
            .flatten()
        {
            Some(def) => f(Types::of(&def)),
            None => f(self.types),
        }
    }

    fn fields(&self, version: &str, object: &Value) -> Result<FieldSet, TypedError> {
        self.with_types(version, |t| typed::to_field_set(object, &t.root()))
    }

    fn remove(&self, version: &str, object: &mut Value, set: &FieldSet) {
        self.with_types(version, |t| typed::prune(object, set, None, &t.root()));
    }

    /// `merged` with what the applier (`owner`, its last entry `last`) stopped applying
    /// removed, unless a manager of some version (`managed`, or the new configuration
    /// `applied`) still owns it.
    pub fn prune(
        &self,
        managed: &ManagedFields,
        owner: &Owner,
        applied: &FieldSet,
        last: &Entry,
        merged: Value,
    ) -> Result<Value, PruneError> {
        let v = self.versions;
        let known = |version: &str| version == self.here || v.def(version).is_some();
        let last_version = if known(&last.owner.api_version) {
            last.owner.api_version.as_str()
        } else {
            self.here
        };
        let mut owned: BTreeMap<&str, FieldSet> = BTreeMap::new();
        owned.insert(self.here, applied.clone());
        for e in managed.entries.iter().filter(|e| !e.belongs_to(owner)) {
            let set = owned.entry(e.owner.api_version.as_str()).or_default();
            *set = set.union(&e.fields);
        }
        let merged_last = v.convert(&merged, last_version)?;
        let mut pruned = merged_last.clone();
        self.remove(last_version, &mut pruned, &last.fields);
        // The version of the last apply first, then the others.
        let mut order: Vec<(&str, &FieldSet)> = owned
            .iter()
            .filter(|(version, _)| known(version))
            .map(|(version, set)| (*version, set))
            .collect();
        order.sort_by_key(|(version, _)| *version != last_version);
        let mut current = merged_last.clone();
        for (version, set) in order {
            let merged_there = v.convert(&current, version)?;
            let pruned_there = v.convert(&pruned, version)?;
            let gone = self
                .fields(version, &merged_there)?
                .difference(&self.fields(version, &pruned_there)?.union(set));
            let mut kept = merged_there.clone();
            self.remove(version, &mut kept, &gone);
            current = merged_there;
            pruned = kept;
        }
        let pruned_last = v.convert(&pruned, last_version)?;
        let dangling = self
            .fields(last_version, &merged_last)?
            .difference(&self.fields(last_version, &pruned_last)?)
            .intersection(&last.fields);
        let mut out = merged_last;
        self.remove(last_version, &mut out, &dangling);
        Ok(v.convert(&out, self.here)?)
    }
}
