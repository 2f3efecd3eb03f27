//! Field management for server-side apply, as the real API server's field manager does it:
//! field sets in the `fieldsV1` format, `metadata.managedFields` bookkeeping for apply and
//! update operations, apply conflicts, and the schema-aware apply merge (list types
//! `atomic` / `set` / `map`, map types `atomic` / `granular`).
//!
//! - [`update`] attributes what a create, PUT or non-apply patch changed to its manager
//!   (and takes it from the other managers);
//! - [`apply`] merges an applied configuration into the live object, removes what the
//!   manager stopped applying and nobody else owns, and refuses changes to fields other
//!   managers own unless forced;
//! - both keep at most [`managed::MAX_UPDATE_MANAGERS`] Update entries, merging the oldest
//!   into `ancient-changes` entries;
//! - for a kind served in versions that name fields differently, [`apply_in_versions`] and
//!   [`update_across_versions`] compare each entry in the version it was recorded in, the
//!   objects converted through [`Versions`] (a built-in conversion, or a CRD's webhook whose
//!   answers the caller gathers outside any lock, see [`Converted`]);
//! - first of all, [`reconcile`] drops the entries of versions the kind has not and fails on
//!   versions its conversion refuses (see [`Reach`]).

pub mod managed;
pub mod path;
mod prune;
pub mod schema;
pub mod set;
pub mod typed;
pub mod versions;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::support::status_metadata::StatusMetadata;

pub use managed::{ManagedFields, Operation, Owner};
pub use path::PathElement;
pub use schema::Types;
pub use set::FieldSet;
pub use typed::TypedError;
pub use versions::{Converted, KindVersions, OneVersion, Pending, Reach, Versions};

/// One field an apply would change although another manager owns it.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// The other manager.
    pub owner: Owner,
    /// The field.
    pub path: Vec<PathElement>,
}

impl Conflict {
    /// The field as the real server prints it: `.spec.x`.
    pub fn field(&self) -> String {
        path::display(&self.path)
    }
}

/// Why an apply was refused.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// Fields owned by other managers would change; retry with `force=true` to take them.
    #[error("{}", conflict_message(.0))]
    Conflicts(Vec<Conflict>),
    /// The configuration does not fit the schema (missing or duplicate list keys).
    #[error(transparent)]
    Typed(#[from] TypedError),
    /// The apply needs an object converted to another version first (see
    /// [`versions::Converted`]).
    #[error(transparent)]
    Pending(#[from] Pending),
    /// A manager's version cannot be converted to (see [`reconcile`]).
    #[error(transparent)]
    Unconvertible(#[from] Unconvertible),
}

/// A write whose managers include one recorded in a version the conversion refuses: the
/// real server fails an apply with the converter's message (a 500) and stores an update
/// without any managedFields.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unconvertible(pub String);

/// The managers a write starts from, as kube-apiserver's field manager reconciles them
/// before every update and apply: entries of a version the kind is not served in are
/// dropped ([`Reach::Missing`]); an entry of a version the conversion refuses fails the
/// write ([`Reach::Refused`]).
pub fn reconcile(
    mut managed: ManagedFields,
    versions: &dyn Versions,
) -> Result<ManagedFields, Unconvertible> {
    let mut kept = Vec::with_capacity(managed.entries.len());
    for e in managed.entries {
        match versions.reach(&e.owner.api_version) {
            Reach::Known => kept.push(e),
            Reach::Missing => {}
            Reach::Refused(why) => return Err(Unconvertible(why)),
        }
    }
    managed.entries = kept;
    Ok(managed)
}

impl From<prune::PruneError> for ApplyError {
    fn from(e: prune::PruneError) -> Self {
        match e {
            prune::PruneError::Typed(t) => ApplyError::Typed(t),
            prune::PruneError::Pending(p) => ApplyError::Pending(p),
        }
    }
}

/// The real server's conflict message: `Apply failed with 1 conflict: conflict with "m"
/// using v1: .spec.x`, or one block per manager for several conflicts.
pub fn conflict_message(conflicts: &[Conflict]) -> String {
    if let [one] = conflicts {
        return format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            one.owner.describe(),
            one.field()
        );
    }
    let mut managers: Vec<String> = conflicts.iter().map(|c| c.owner.describe()).collect();
    managers.sort();
    managers.dedup();
    let mut lines = Vec::new();
    for m in managers {
        lines.push(format!("conflicts with {m}:"));
        for c in conflicts.iter().filter(|c| c.owner.describe() == m) {
            lines.push(format!("- {}", c.field()));
        }
    }
    format!(
        "Apply failed with {} conflicts: {}",
        conflicts.len(),
        lines.join("\n")
    )
}

/// Which part of the object a request may change (the reset fields of its endpoint); fields
/// outside it are never owned by the request's manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everything.
    Whole,
    /// Everything but `status` (the object of a kind with a status subresource).
    WithoutStatus,
    /// Only `status` (the status subresource).
    OnlyStatus,
    /// Everything but these fields (each a path of field names), which the endpoint's
    /// strategy resets: they are never owned, and their changes neither conflict with nor
    /// leave other managers, as the real field manager ignores a strategy's reset fields.
    Except(&'static [&'static [&'static str]]),
}

impl Scope {
    /// The scope of a write to `endpoint` of a kind with (or without) a status subresource.
    pub fn of(status_subresource: bool, status_endpoint: bool) -> Self {
        match (status_subresource, status_endpoint) {
            (_, true) => Scope::OnlyStatus,
            (true, false) => Scope::WithoutStatus,
            (false, false) => Scope::Whole,
        }
    }

    /// `set` without what the scope ignores: the fields of [`Scope::Except`] (the other
    /// scopes take the fields outside them back from the live object instead, see
    /// [`Scope::restrict`]).
    pub fn ignore(self, set: FieldSet) -> FieldSet {
        match self {
            Scope::Except(paths) => without_paths(paths, set),
            _ => set,
        }
    }

    /// The part of a field set of the kind `types` this scope covers: a status write also
    /// covers the metadata the field manager credits it with (outside its strategy's reset
    /// fields), a custom resource's the top-level fields besides its spec (its status
    /// strategy's only reset field) and a ServiceCIDR's its spec (none is reset), although
    /// the strategy keeps none of them.
    pub fn restrict(self, types: Types<'_>, set: FieldSet) -> FieldSet {
        let status = PathElement::Field("status".into());
        let metadata = PathElement::Field("metadata".into());
        match self {
            Scope::Whole => set,
            Scope::Except(paths) => without_paths(paths, set),
            Scope::WithoutStatus => set.without_subtree(&status),
            Scope::OnlyStatus => {
                let spec = PathElement::Field("spec".into());
                let only = if types.is_custom() {
                    set.without_subtree(&spec).without_subtree(&metadata)
                } else if types.credits_status_spec() {
                    set.only_subtree(&status).union(&set.only_subtree(&spec))
                } else {
                    set.only_subtree(&status)
                };
                let credited = types.credited_status_metadata();
                if credited == StatusMetadata::Stored {
                    return only;
                }
                let mut meta = set.only_subtree(&metadata);
                if let Some(field) = credited.stored_field() {
                    meta = meta.without_subtree_at(&[metadata, PathElement::Field(field.into())]);
                }
                only.union(&meta)
            }
        }
    }

    /// `merged` with the parts outside the scope (for the kind `types`) taken back from
    /// `live`: the object the endpoint's strategy writes.
    fn reset(self, types: Types<'_>, live: Option<&Value>, merged: Value) -> Value {
        self.reset_keeping(types.status_metadata(), Kept::Status, live, merged)
    }

    /// `merged` as the field manager compares it: a status write's with the metadata it is
    /// credited with (see [`Scope::restrict`]) rather than the metadata its strategy keeps,
    /// and a custom resource's with its top-level fields besides the spec.
    fn credited(self, types: Types<'_>, live: Option<&Value>, merged: Value) -> Value {
        let parts = if types.is_custom() {
            Kept::AllButSpec
        } else if types.credits_status_spec() {
            Kept::StatusAndSpec
        } else {
            Kept::Status
        };
        self.reset_keeping(types.credited_status_metadata(), parts, live, merged)
    }

    /// `merged` with the parts outside the scope taken back from `live`, a status write
    /// keeping the metadata `kept` says and the top-level fields `parts` says.
    fn reset_keeping(
        self,
        kept: StatusMetadata,
        parts: Kept,
        live: Option<&Value>,
        merged: Value,
    ) -> Value {
        let live_status = live.and_then(|l| l.get("status")).cloned();
        match self {
            // The endpoint's strategy resets those fields in the object it writes.
            Scope::Whole | Scope::Except(_) => merged,
            Scope::WithoutStatus => with_status(merged, live_status),
            Scope::OnlyStatus => match live {
                Some(l) => {
                    let sent = merged.get("metadata").cloned().unwrap_or(Value::Null);
                    let mut out = match parts {
                        Kept::AllButSpec => with_spec(merged, l.get("spec").cloned()),
                        Kept::StatusAndSpec => {
                            let spec = merged.get("spec").cloned();
                            let out = with_status(l.clone(), merged.get("status").cloned());
                            with_spec(out, spec)
                        }
                        Kept::Status => with_status(l.clone(), merged.get("status").cloned()),
                    };
                    if let Some(m) = out.as_object_mut() {
                        m.insert("metadata".into(), kept.metadata(&l["metadata"], sent));
                    }
                    out
                }
                None => merged,
            },
        }
    }
}

/// The top-level fields a status write keeps of the object it was sent (the rest taken back
/// from the live object).
#[derive(Debug, Clone, Copy)]
enum Kept {
    /// Its status.
    Status,
    /// Its status and spec.
    StatusAndSpec,
    /// All but its spec.
    AllButSpec,
}

/// `object` with `spec` (none: without one).
fn with_spec(mut object: Value, spec: Option<Value>) -> Value {
    if let Some(m) = object.as_object_mut() {
        match spec {
            Some(s) => m.insert("spec".into(), s),
            None => m.remove("spec"),
        };
    }
    object
}

/// `set` without each of `paths` (paths of field names) and what lies below them.
fn without_paths(paths: &[&[&str]], set: FieldSet) -> FieldSet {
    paths.iter().fold(set, |set, path| {
        let path: Vec<PathElement> = path
            .iter()
            .map(|f| PathElement::Field((*f).into()))
            .collect();
        set.without_subtree_at(&path)
    })
}

fn with_status(mut object: Value, status: Option<Value>) -> Value {
    if let Some(m) = object.as_object_mut() {
        match status {
            Some(s) => {
                m.insert("status".into(), s);
            }
            None => {
                m.remove("status");
            }
        }
    }
    object
}

/// An apply request: who applies, whether it takes fields from others, what it may change.
#[derive(Debug, Clone)]
pub struct ApplyRequest {
    /// The applier (operation [`Operation::Apply`]).
    pub owner: Owner,
    /// `force=true`: take conflicting fields instead of failing.
    pub force: bool,
    /// The part of the object the endpoint changes.
    pub scope: Scope,
}

/// Applies `config` to `live` (absent when the apply creates the object) with the managers
/// of `managed`, every entry compared in the request's version. Returns the new object
/// (without managedFields bookkeeping written) and the new managers.
pub fn apply(
    types: Types<'_>,
    live: Option<&Value>,
    managed: ManagedFields,
    config: &Value,
    request: &ApplyRequest,
    now: &str,
) -> Result<(Value, ManagedFields), ApplyError> {
    apply_in_versions(types, live, managed, config, request, now, &OneVersion)
}

/// [`apply`] for a kind served in several versions, as kube-apiserver's field manager does
/// it: what the applier stopped applying is pruned in the version of its last apply, and
/// each other manager's fields are compared (for conflicts and removals) with the live and
/// the merged object converted to the version its entry was recorded in. `live` and
/// `config` are in the request's version (`request.owner.api_version`); `versions` converts.
pub fn apply_in_versions(
    types: Types<'_>,
    live: Option<&Value>,
    mut managed: ManagedFields,
    config: &Value,
    request: &ApplyRequest,
    now: &str,
    versions: &dyn Versions,
) -> Result<(Value, ManagedFields), ApplyError> {
    let root = types.root();
    if let Some(live) = live
        && managed.entries.is_empty()
    {
        managed = before_first_apply(types, live, request, now);
    }
    managed = reconcile(managed, versions)?;
    let applied = request
        .scope
        .restrict(types, typed::to_field_set(config, &root)?);
    let merged =
        typed::merge(live, config, &root)?.unwrap_or_else(|| Value::Object(Default::default()));
    // The field manager compares the object before the strategy resets it (a status write's
    // metadata and a custom resource's other top-level fields, see [`Scope::credited`]): the
    // object written differs from it only outside what the apply is credited with, so what
    // it prunes is pruned from both.
    let written = request.scope.reset(types, live, merged.clone());
    let mut merged = request.scope.credited(types, live, merged);
    let mut written = (written != merged).then_some(written);
    let owner = &request.owner;
    let here = owner.api_version.as_str();
    let elsewhere: BTreeSet<String> = managed
        .entries
        .iter()
        .map(|e| e.owner.api_version.clone())
        .filter(|v| v != here && versions.def(v).is_some())
        .collect();
    if let Some(last) = managed.find(owner).cloned() {
        if elsewhere.is_empty() {
            let keep = managed
                .entries
                .iter()
                .filter(|e| !e.belongs_to(owner))
                .fold(applied.clone(), |acc, e| acc.union(&e.fields));
            typed::prune(&mut merged, &last.fields, Some(&keep), &root);
            if let Some(w) = written.as_mut() {
                typed::prune(w, &last.fields, Some(&keep), &root);
            }
        } else {
            let pruning = prune::Pruning {
                types,
                versions,
                here,
            };
            if let Some(w) = written.take() {
                written = Some(pruning.prune(&managed, owner, &applied, &last, w)?);
            }
            merged = pruning.prune(&managed, owner, &applied, &last, merged)?;
        }
    }
    let mut cmp = typed::compare_applied(live, &merged, &root);
    let changed = request.scope.ignore(cmp.changed());
    cmp.removed = request.scope.ignore(cmp.removed);
    // What the apply changes and removes as each other version sees it.
    let mut seen: BTreeMap<String, (FieldSet, FieldSet)> = BTreeMap::new();
    for version in &elsewhere {
        let Some(def) = versions.def(version) else {
            continue;
        };
        let there = Types::of(&def).root();
        let live_there = live.map(|l| versions.convert(l, version)).transpose()?;
        let merged_there = versions.convert(&merged, version)?;
        let c = typed::compare_applied(live_there.as_ref(), &merged_there, &there);
        seen.insert(version.clone(), (c.changed(), c.removed));
    }
    let seen_by = |e: &managed::Entry| {
        seen.get(&e.owner.api_version)
            .map_or((&changed, &cmp.removed), |(c, r)| (c, r))
    };
    let mut conflicts = Vec::new();
    for e in managed.entries.iter_mut().filter(|e| !e.belongs_to(owner)) {
        let taken = e.fields.intersection(seen_by(e).0);
        if taken.is_empty() {
            continue;
        }
        conflicts.extend(taken.paths().into_iter().map(|path| Conflict {
            owner: e.owner.clone(),
            path,
        }));
        e.fields = e.fields.difference(&taken);
    }
    if !conflicts.is_empty() && !request.force {
        conflicts.sort_by(|a, b| (a.owner.describe(), &a.path).cmp(&(b.owner.describe(), &b.path)));
        return Err(ApplyError::Conflicts(conflicts));
    }
    for e in &mut managed.entries {
        e.fields = e.fields.difference(seen_by(e).1);
    }
    let touched = !changed.is_empty() || !cmp.removed.is_empty();
    managed.set(owner, applied, now, touched);
    managed.drop_empty();
    managed.cap_updates();
    let mut written = written.unwrap_or(merged);
    typed::settle_nulls(&mut written, config, &root);
    Ok((written, managed))
}

/// The manager the real server credits with every field of an object applied to for the
/// first time while it has no managedFields (an object written before managers were
/// tracked, or whose managedFields were reset): the apply then conflicts with those fields
/// like with any other manager's.
pub const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// The managers of `live` when it has none: [`BEFORE_FIRST_APPLY`] owns all its fields, an
/// Update entry in the applier's version and subresource (the real server records it
/// through the request's own field manager, which leaves out the fields it ignores).
fn before_first_apply(
    types: Types<'_>,
    live: &Value,
    request: &ApplyRequest,
    now: &str,
) -> ManagedFields {
    let applier = &request.owner;
    let scope = match request.scope {
        Scope::Except(_) => request.scope,
        _ => Scope::Whole,
    };
    let owner = Owner {
        manager: BEFORE_FIRST_APPLY.to_string(),
        operation: Operation::Update,
        api_version: applier.api_version.clone(),
        subresource: applier.subresource.clone(),
    };
    update(
        types,
        Some(&serde_json::json!({"metadata": {}})),
        live,
        ManagedFields::default(),
        &owner,
        scope,
        now,
    )
}

/// What one write changed, seen in one version of the kind: the field manager compares each
/// manager's fields in that manager's own version (see [`update_across_versions`]).
#[derive(Debug, Clone, Default)]
pub struct Changes {
    /// Added and modified fields.
    changed: FieldSet,
    /// Fields present only before the write.
    removed: FieldSet,
    /// Whether either version cannot be typed (see [`typed::Comparison::untyped`]).
    untyped: bool,
}

impl Changes {
    /// The changes from `old` (absent on create) to `new`, under the schema `types`.
    pub fn between(types: Types<'_>, old: Option<&Value>, new: &Value) -> Self {
        let cmp = typed::compare(old, Some(new), &types.root());
        Changes {
            changed: cmp.changed(),
            removed: cmp.removed,
            untyped: cmp.untyped,
        }
    }
}

/// Records an update (create, PUT, non-apply patch) from `old` to `new` by `owner`: the
/// changed fields within `scope` become `owner`'s, changed fields leave every other entry,
/// removed fields leave all.
pub fn update(
    types: Types<'_>,
    old: Option<&Value>,
    new: &Value,
    managed: ManagedFields,
    owner: &Owner,
    scope: Scope,
    now: &str,
) -> ManagedFields {
    update_across_versions(
        types,
        old,
        new,
        managed,
        owner,
        scope,
        now,
        &BTreeMap::new(),
    )
}

/// [`update`] for a kind served in several versions whose field paths differ (a CRD
/// converted by a webhook): an entry recorded in another apiVersion loses the fields the
/// write changed as seen in that version (`elsewhere`, keyed by apiVersion: the objects
/// converted to it and compared there), as kube-apiserver's field manager converts the old
/// and new object to each manager's version. An entry whose version `elsewhere` lacks is
/// compared in the request's version.
#[allow(clippy::too_many_arguments)]
pub fn update_across_versions(
    types: Types<'_>,
    old: Option<&Value>,
    new: &Value,
    mut managed: ManagedFields,
    owner: &Owner,
    scope: Scope,
    now: &str,
    elsewhere: &BTreeMap<String, Changes>,
) -> ManagedFields {
    let mut here = Changes::between(types, old, new);
    // The real field manager cannot type the object (a keyed list's item without its key):
    // it logs the failure and writes the object without any managed fields.
    if here.untyped {
        return ManagedFields::default();
    }
    here.changed = scope.ignore(here.changed);
    here.removed = scope.ignore(here.removed);
    let mut own = managed
        .find(owner)
        .map(|e| e.fields.clone())
        .unwrap_or_default();
    for e in managed.entries.iter_mut().filter(|e| !e.belongs_to(owner)) {
        let seen = if e.owner.api_version == owner.api_version {
            &here
        } else {
            elsewhere.get(&e.owner.api_version).unwrap_or(&here)
        };
        e.fields = e.fields.difference(&seen.changed).difference(&seen.removed);
    }
    // What was removed leaves the writer before what it changed is added, as
    // structured-merge-diff does: a repeated item that stops being repeated is removed as a
    // whole and added again with its fields (see [`typed::compare`]).
    let taken = scope.restrict(types, here.changed);
    own = own.difference(&here.removed).union(&taken);
    if !own.is_empty() || managed.find(owner).is_some() {
        managed.set(owner, own, now, !taken.is_empty());
    }
    managed.drop_empty();
    managed.cap_updates();
    managed
}

/// The manager of a request: `fieldManager`, or else the User-Agent up to its first `/`
/// (printable characters only, at most 128), or `unknown` without either, as the real
/// server names it.
pub fn default_manager(field_manager: Option<&str>, user_agent: &str) -> String {
    if let Some(m) = field_manager.filter(|m| !m.is_empty()) {
        return m.to_string();
    }
    let prefix: String = user_agent
        .split('/')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(128)
        .collect();
    if prefix.is_empty() {
        "unknown".to_string()
    } else {
        prefix
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_builtin;
#[cfg(test)]
mod tests_versions;
