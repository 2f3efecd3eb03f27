//! The other versions of a kind, as the field manager sees them: kube-apiserver's field
//! manager converts the old and the new object to the version each managedFields entry was
//! recorded in before it compares them with that entry's fields, and prunes what an applier
//! stopped applying in the version of its last apply. The conversions are the caller's (a
//! built-in conversion, or a CRD's conversion webhook) and handed over through [`Versions`].
//!
//! A version the converter cannot reach ([`Reach`]) is not compared at all: a version the
//! kind is not served in (a built-in kind's removed beta, the other group of Events) drops
//! its entries, and one a CRD no longer lists fails the write, as kube-apiserver's field
//! manager reconciles its entries before every update and apply.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;

use crate::support::resource::ResourceDef;

/// A conversion the field manager needs and [`Versions`] does not have yet: the caller
/// makes it (a webhook call, outside any lock) and runs the field manager again.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the field manager needs the object in {api_version}")]
pub struct Pending {
    /// The object to convert (with its own `apiVersion`).
    pub object: Value,
    /// The version wanted (`group/version`).
    pub api_version: String,
}

/// Whether the field manager can convert an object to the version an entry was recorded in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// A version of the kind: the entry is compared there.
    Known,
    /// A version the kind is not served in (the converter's missing version): the entry is
    /// dropped.
    Missing,
    /// A version the conversion refuses (a custom resource's version its CRD no longer
    /// lists): the write fails with this message.
    Refused(String),
}

/// The versions of one kind the field manager may compare in.
pub trait Versions {
    /// Whether entries recorded in `api_version` can be compared (every version, unless
    /// the implementation knows the kind's versions).
    fn reach(&self, _api_version: &str) -> Reach {
        Reach::Known
    }

    /// The kind in `api_version` (`group/version`); `None` when the kind has no such
    /// version (an entry of that version is then compared in the request's version).
    fn def(&self, api_version: &str) -> Option<Arc<ResourceDef>>;

    /// `object` (which says its `apiVersion`) in `api_version`, or the conversion still
    /// to be made.
    fn convert(&self, object: &Value, api_version: &str) -> Result<Value, Pending>;
}

/// A kind served in one version only, or one whose versions have the same fields: every
/// entry is compared in the request's version.
#[derive(Debug, Clone, Copy, Default)]
pub struct OneVersion;

impl Versions for OneVersion {
    fn def(&self, _api_version: &str) -> Option<Arc<ResourceDef>> {
        None
    }

    fn convert(&self, object: &Value, _api_version: &str) -> Result<Value, Pending> {
        Ok(object.clone())
    }
}

/// A kind whose versions have the same fields, knowing which versions it has: entries of
/// those are compared in the request's version, others cannot be reached.
#[derive(Debug, Clone, Default)]
pub struct KindVersions {
    known: BTreeSet<String>,
    custom: bool,
}

impl KindVersions {
    /// A built-in kind served in `versions` (`group/version`): an entry of another version
    /// (one the kind is no longer served in, or another group's) is dropped.
    pub fn builtin(versions: impl IntoIterator<Item = String>) -> Self {
        KindVersions {
            known: versions.into_iter().collect(),
            custom: false,
        }
    }

    /// A custom kind whose CRD lists `versions` (`group/version`, served or not): an entry
    /// of another version fails the write, as the CRD's converter refuses it.
    pub fn custom(versions: impl IntoIterator<Item = String>) -> Self {
        KindVersions {
            known: versions.into_iter().collect(),
            custom: true,
        }
    }
}

/// The message of a custom resource's converter asked for a version its CRD does not list.
pub fn invalid_version(api_version: &str) -> String {
    format!("request to convert CR to an invalid group/version: {api_version}")
}

impl Versions for KindVersions {
    fn reach(&self, api_version: &str) -> Reach {
        if self.known.contains(api_version) {
            Reach::Known
        } else if self.custom {
            Reach::Refused(invalid_version(api_version))
        } else {
            Reach::Missing
        }
    }

    fn def(&self, _api_version: &str) -> Option<Arc<ResourceDef>> {
        None
    }

    fn convert(&self, object: &Value, _api_version: &str) -> Result<Value, Pending> {
        Ok(object.clone())
    }
}

/// Conversions made beforehand (by webhook, asynchronously), looked up by object and
/// version: a conversion missing is [`Pending`]. The caller runs the field manager, makes the
/// conversion it asked for, [`Converted::insert`]s it and runs it again, until it is done.
#[derive(Debug, Clone, Default)]
pub struct Converted {
    defs: BTreeMap<String, Arc<ResourceDef>>,
    done: BTreeMap<(String, String), Value>,
}

impl Converted {
    /// No conversion made yet, for a kind with the versions `defs` (by `group/version`:
    /// every version its CRD lists, served or not; others are refused).
    pub fn new(defs: impl IntoIterator<Item = Arc<ResourceDef>>) -> Self {
        Converted {
            defs: defs.into_iter().map(|d| (d.api_version(), d)).collect(),
            done: BTreeMap::new(),
        }
    }

    /// Records `converted`, `object` in `api_version`.
    pub fn insert(&mut self, object: &Value, api_version: &str, converted: Value) {
        self.done
            .insert((key(object), api_version.to_string()), converted);
    }
}

fn key(object: &Value) -> String {
    serde_json::to_string(object).unwrap_or_default()
}

impl Versions for Converted {
    fn reach(&self, api_version: &str) -> Reach {
        if self.defs.contains_key(api_version) {
            Reach::Known
        } else {
            Reach::Refused(invalid_version(api_version))
        }
    }

    fn def(&self, api_version: &str) -> Option<Arc<ResourceDef>> {
        self.defs.get(api_version).cloned()
    }

    fn convert(&self, object: &Value, api_version: &str) -> Result<Value, Pending> {
        if object["apiVersion"].as_str() == Some(api_version) {
            return Ok(object.clone());
        }
        self.done
            .get(&(key(object), api_version.to_string()))
            .cloned()
            .ok_or_else(|| Pending {
                object: object.clone(),
                api_version: api_version.to_string(),
            })
    }
}
