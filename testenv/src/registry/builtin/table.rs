//! The vocabulary of the built-in tables: how a resource is described ([`Builtin`], built
//! with [`b`] and its modifiers), its subresources ([`Sub`]) and where it is kept
//! ([`Storage`]).

use crate::support::resource::{GET_PATCH_UPDATE, STANDARD_VERBS};

/// How objects of a built-in resource are kept.
#[derive(Clone, Copy)]
pub(super) enum Storage {
    /// Stored in their own group and version.
    Own,
    /// Stored as another group/version/kind: its storage version hash is that one's, and
    /// kinds of other groups share that group's storage (converted on the way, see
    /// `storage::conversion::builtin`); kinds of the same group are kept as served.
    As(&'static str, &'static str, &'static str),
    /// Not stored: answered by the server (reviews, bindings, component statuses).
    Virtual,
}

/// A subresource of a built-in kind: name, the kind it answers with (`""` for the
/// resource's own kind; group and version `""` for the resource's own), and its verbs.
#[derive(Clone, Copy)]
pub(super) struct Sub(
    pub(super) &'static str,
    pub(super) &'static str,
    pub(super) &'static str,
    pub(super) &'static str,
    pub(super) &'static [&'static str],
);

/// `/status`: the object itself, get, patch and update.
pub(super) const STATUS: Sub = Sub("status", "", "", "", GET_PATCH_UPDATE);
/// `/scale`: autoscaling/v1 Scale.
pub(super) const SCALE: Sub = Sub("scale", "autoscaling", "v1", "Scale", GET_PATCH_UPDATE);
/// Verbs of a create-only resource or subresource.
pub(super) const CREATE: &[&str] = &["create"];
/// Verbs of a proxy subresource.
pub(super) const PROXY_VERBS: &[&str] = &["create", "delete", "get", "patch", "update"];

/// A compact description of one built-in resource.
pub(super) struct Builtin {
    pub(super) group: &'static str,
    pub(super) version: &'static str,
    pub(super) kind: &'static str,
    pub(super) plural: &'static str,
    pub(super) short_names: &'static [&'static str],
    pub(super) namespaced: bool,
    pub(super) verbs: &'static [&'static str],
    pub(super) subresources: &'static [Sub],
    pub(super) categories: &'static [&'static str],
    pub(super) generation: bool,
    pub(super) returns_deleted: bool,
    pub(super) storage: Storage,
}

/// A stored resource with every standard verb and no subresource.
pub(super) const fn b(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    short_names: &'static [&'static str],
    namespaced: bool,
) -> Builtin {
    Builtin {
        group,
        version,
        kind,
        plural,
        short_names,
        namespaced,
        verbs: STANDARD_VERBS,
        subresources: &[],
        categories: &[],
        generation: false,
        returns_deleted: false,
        storage: Storage::Own,
    }
}

impl Builtin {
    /// Its subresources, in discovery order (by name).
    pub(super) const fn subs(mut self, subresources: &'static [Sub]) -> Self {
        self.subresources = subresources;
        self
    }
    /// `metadata.generation` is bumped on spec changes.
    pub(super) const fn generation(mut self) -> Self {
        self.generation = true;
        self
    }
    /// DELETE answers with the deleted object, not a `Status`.
    pub(super) const fn returns_deleted(mut self) -> Self {
        self.returns_deleted = true;
        self
    }
    /// Listed under these categories.
    pub(super) const fn categories(mut self, categories: &'static [&'static str]) -> Self {
        self.categories = categories;
        self
    }
    /// In the `all` category (`kubectl get all`).
    pub(super) const fn all(self) -> Self {
        self.categories(&["all"])
    }
    /// Other verbs than the standard eight.
    pub(super) const fn verbs(mut self, verbs: &'static [&'static str]) -> Self {
        self.verbs = verbs;
        self
    }
    /// Stored as another group/version/kind (see [`Storage::As`]).
    pub(super) const fn stored_as(
        mut self,
        group: &'static str,
        version: &'static str,
        kind: &'static str,
    ) -> Self {
        self.storage = Storage::As(group, version, kind);
        self
    }
    /// Answered by the server, never stored, with these verbs.
    pub(super) const fn virtual_with(mut self, verbs: &'static [&'static str]) -> Self {
        self.storage = Storage::Virtual;
        self.verbs = verbs;
        self
    }
    pub(super) fn has(&self, sub: &str) -> bool {
        self.subresources.iter().any(|s| s.0 == sub)
    }
}
