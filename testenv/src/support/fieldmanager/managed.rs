//! `metadata.managedFields`: one entry per manager, operation (and, for updates, API
//! version) and subresource, each with the set of fields it owns.

use std::cmp::Ordering;

use serde_json::{Map, Value, json};

use super::set::FieldSet;

/// What kind of request made a manager own its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operation {
    /// A server-side apply patch.
    Apply,
    /// A create, an update (PUT) or a non-apply patch.
    Update,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// Who makes a change: the identity of a managedFields entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// The field manager name (`fieldManager`, or the User-Agent prefix).
    pub manager: String,
    /// Apply or Update.
    pub operation: Operation,
    /// The API version of the request (`group/version`).
    pub api_version: String,
    /// `status` for the status subresource, empty for the object itself.
    pub subresource: String,
}

impl Owner {
    /// How the real server names a manager in conflict messages: `"m"`, with
    /// `with subresource "s"` and, for updates, `using <apiVersion>`.
    pub fn describe(&self) -> String {
        let mut s = format!("{:?}", self.manager);
        if !self.subresource.is_empty() {
            s = format!("{s} with subresource {:?}", self.subresource);
        }
        if self.operation == Operation::Update {
            s = format!("{s} using {}", self.api_version);
        }
        s
    }
}

impl Owner {
    /// The entry's identity as the real field manager writes it to tell managers apart (and
    /// sorts entries of the same second by): the entry's JSON without time and fields.
    fn identity(&self) -> String {
        let text = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let mut out = format!(
            "{{\"manager\":{},\"operation\":{},\"apiVersion\":{}",
            text(&self.manager),
            text(self.operation.as_str()),
            text(&self.api_version)
        );
        if !self.subresource.is_empty() {
            out.push_str(&format!(",\"subresource\":{}", text(&self.subresource)));
        }
        out.push('}');
        out
    }
}

/// One managedFields entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Whose fields these are.
    pub owner: Owner,
    /// When the entry last changed (RFC 3339, seconds).
    pub time: Option<String>,
    /// The owned fields.
    pub fields: FieldSet,
}

impl Entry {
    /// Whether this entry is the one `owner` writes to: apply entries are shared across API
    /// versions, update entries are per API version.
    pub fn belongs_to(&self, owner: &Owner) -> bool {
        self.owner.manager == owner.manager
            && self.owner.operation == owner.operation
            && self.owner.subresource == owner.subresource
            && (owner.operation == Operation::Apply || self.owner.api_version == owner.api_version)
    }
}

/// The most Update entries an object keeps, as kube-apiserver's field manager (its
/// `DefaultMaxUpdateManagers`); Apply entries are never merged.
pub const MAX_UPDATE_MANAGERS: usize = 10;

/// The manager of the entries the oldest Update entries beyond [`MAX_UPDATE_MANAGERS`] are
/// merged into, one per API version.
pub const ANCIENT_CHANGES: &str = "ancient-changes";

/// All managedFields entries of an object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManagedFields {
    /// The entries (in no particular order; [`ManagedFields::encode`] sorts them).
    pub entries: Vec<Entry>,
}

/// A managedFields value that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("invalid managedFields: {0}")]
pub struct DecodeError(String);

impl ManagedFields {
    /// Reads `metadata.managedFields` of an object; a missing list is empty.
    pub fn of_object(object: &Value) -> Result<Self, DecodeError> {
        match object.get("metadata").and_then(|m| m.get("managedFields")) {
            None | Some(Value::Null) => Ok(Self::default()),
            Some(v) => Self::decode(v),
        }
    }

    /// Reads a managedFields list.
    pub fn decode(v: &Value) -> Result<Self, DecodeError> {
        let Value::Array(items) = v else {
            return Err(DecodeError("managedFields must be a list".into()));
        };
        let mut entries = Vec::new();
        for item in items {
            let s = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or_default();
            let operation = match s("operation") {
                "Apply" => Operation::Apply,
                "Update" => Operation::Update,
                other => {
                    return Err(DecodeError(format!(
                        "operation must be Apply or Update, not {other:?}"
                    )));
                }
            };
            if s("fieldsType") != "FieldsV1" {
                return Err(DecodeError(format!(
                    "fieldsType must be FieldsV1, not {:?}",
                    s("fieldsType")
                )));
            }
            let fields = match item.get("fieldsV1") {
                None | Some(Value::Null) => FieldSet::new(),
                Some(f) => FieldSet::from_fields_v1(f).map_err(DecodeError)?,
            };
            entries.push(Entry {
                owner: Owner {
                    manager: s("manager").to_string(),
                    operation,
                    api_version: s("apiVersion").to_string(),
                    subresource: s("subresource").to_string(),
                },
                time: item.get("time").and_then(Value::as_str).map(str::to_string),
                fields,
            });
        }
        Ok(ManagedFields { entries })
    }

    /// The base of an update whose body carries `sent` (the real server's rule): an empty
    /// list `[]` or `[{}]` clears the entries, another non-empty readable list replaces the
    /// stored one, anything else (absent, unreadable) keeps the stored entries.
    pub fn for_update(sent: Option<&Value>, stored: &Value) -> Self {
        let stored = || Self::of_object(stored).unwrap_or_default();
        match sent {
            Some(Value::Array(items))
                if items.is_empty() || (items.len() == 1 && items[0] == json!({})) =>
            {
                Self::default()
            }
            Some(v @ Value::Array(items)) if !items.is_empty() => match Self::decode(v) {
                Ok(m) if !m.entries.is_empty() => m,
                _ => stored(),
            },
            _ => stored(),
        }
    }

    /// The entry `owner` writes to.
    pub fn find(&self, owner: &Owner) -> Option<&Entry> {
        self.entries.iter().find(|e| e.belongs_to(owner))
    }

    /// Sets the fields of `owner`'s entry. Its time becomes `now` when the operation changed
    /// the object (`touched`) or the entry is new, as the real server stamps it; entries of
    /// the `scale` subresource have no time (the real server rebuilds them from the Scale's
    /// own managedFields without one).
    pub fn set(&mut self, owner: &Owner, fields: FieldSet, now: &str, touched: bool) {
        let now = (owner.subresource != "scale").then(|| now.to_string());
        match self.entries.iter_mut().find(|e| e.belongs_to(owner)) {
            Some(e) => {
                if touched {
                    e.time = now;
                }
                e.owner.api_version = owner.api_version.clone();
                e.fields = fields;
            }
            // A new entry is stamped only when its operation changed the object (an apply
            // that shares values another manager set gets no time).
            None => self.entries.push(Entry {
                owner: owner.clone(),
                time: now.filter(|_| touched),
                fields,
            }),
        }
    }

    /// Merges the oldest Update entries until at most [`MAX_UPDATE_MANAGERS`] are left, as
    /// the real field manager does after every write: oldest first (by time in whole
    /// seconds, an entry without time the oldest, then by the entry's identity), the second
    /// entry seen of an API version and each later one of that version go into the
    /// [`ANCIENT_CHANGES`] entry of the version (the first one seen becomes that entry when
    /// it does not exist yet), which takes the time of the last entry merged into it.
    pub fn cap_updates(&mut self) {
        let mut updates: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].owner.operation == Operation::Update)
            .collect();
        if updates.len() <= MAX_UPDATE_MANAGERS {
            return;
        }
        updates.sort_by_cached_key(|&i| {
            let e = &self.entries[i];
            (e.time.clone().unwrap_or_default(), e.owner.identity())
        });
        let mut first_of_version: Vec<(String, usize)> = Vec::new();
        let mut merged_away = vec![false; self.entries.len()];
        let mut left = updates.len();
        for i in updates {
            if left <= MAX_UPDATE_MANAGERS {
                break;
            }
            let version = self.entries[i].owner.api_version.clone();
            let Some(&(_, first)) = first_of_version.iter().find(|(v, _)| *v == version) else {
                first_of_version.push((version, i));
                continue;
            };
            let bucket = Owner {
                manager: ANCIENT_CHANGES.to_string(),
                operation: Operation::Update,
                api_version: version,
                subresource: String::new(),
            };
            let existing = (0..self.entries.len())
                .find(|&b| !merged_away[b] && self.entries[b].owner == bucket);
            let b = existing.unwrap_or_else(|| {
                self.entries[first].owner = bucket;
                first
            });
            self.entries[b].fields = self.entries[b].fields.union(&self.entries[i].fields);
            self.entries[b].time = self.entries[i].time.clone();
            // The entry merged is dropped (even when it is the bucket itself, as the real
            // server's loop drops it).
            merged_away[i] = true;
            left -= 1;
        }
        let mut index = 0;
        self.entries.retain(|_| {
            let keep = !merged_away[index];
            index += 1;
            keep
        });
    }

    /// Drops the entries that own nothing.
    pub fn drop_empty(&mut self) {
        self.entries.retain(|e| !e.fields.is_empty());
    }

    /// The managedFields list, sorted as the real server sorts it: apply entries first,
    /// then by time, manager, API version and subresource.
    pub fn encode(&self) -> Value {
        let mut entries: Vec<&Entry> = self.entries.iter().collect();
        entries.sort_by(|a, b| {
            a.owner
                .operation
                .cmp(&b.owner.operation)
                .then_with(|| a.time.cmp(&b.time))
                .then_with(|| a.owner.manager.cmp(&b.owner.manager))
                .then_with(|| a.owner.api_version.cmp(&b.owner.api_version))
                .then_with(|| a.owner.subresource.cmp(&b.owner.subresource))
                .then(Ordering::Equal)
        });
        Value::Array(
            entries
                .into_iter()
                .map(|e| {
                    let mut m = Map::new();
                    if !e.owner.manager.is_empty() {
                        m.insert("manager".into(), json!(e.owner.manager));
                    }
                    m.insert("operation".into(), json!(e.owner.operation.as_str()));
                    m.insert("apiVersion".into(), json!(e.owner.api_version));
                    if let Some(t) = &e.time {
                        m.insert("time".into(), json!(t));
                    }
                    m.insert("fieldsType".into(), json!("FieldsV1"));
                    m.insert("fieldsV1".into(), e.fields.to_fields_v1());
                    if !e.owner.subresource.is_empty() {
                        m.insert("subresource".into(), json!(e.owner.subresource));
                    }
                    Value::Object(m)
                })
                .collect(),
        )
    }

    /// Writes the entries into `object`'s metadata (removing the field when there are none).
    pub fn write_to(&self, object: &mut Value) {
        let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
            return;
        };
        if self.entries.is_empty() {
            meta.remove("managedFields");
        } else {
            meta.insert("managedFields".into(), self.encode());
        }
    }
}
