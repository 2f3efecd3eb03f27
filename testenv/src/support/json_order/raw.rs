//! Raw values (`runtime.RawExtension`: a ControllerRevision's `data`, a device
//! configuration's opaque `parameters`, a claim's device status `data`) written back as
//! they were sent.
//!
//! kube-apiserver keeps such a value as the bytes of the request body and writes them back
//! compacted ([`go_json::compact`]): members in the order sent, repeated keys, numbers and
//! escapes as written. A strategic merge patch or an apply goes through maps and writes the
//! value again as Go writes a map (keys sorted, each number as read from its text:
//! [`raw_patch::as_go_map`]); a merge or JSON patch writes again only the objects it opens
//! ([`raw_patch`]); a status write keeps the rest of the object as stored, and a main write
//! keeps the status.
//!
//! The embedded server stores parsed values, which lose that text, so the text is kept here,
//! beside the stored object: per object (its uid) and resourceVersion, the text of each raw
//! field ([`record`]). The writer (`json_order::to_vec`) emits the kept text of a raw field when
//! the value it writes still equals the text's value, and the value as Go writes a map
//! otherwise. Everything else (validation, CEL, selectors, apply) sees the parsed value.
//! While a write is in flight its texts are also known by value ([`expect`]), and a patch's
//! from the object it wrote, so a watch event written before the write is recorded finds them. Only kinds with raw fields pay.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value};

use crate::support::go_types;
use crate::support::json_order::raw_patch::{self, PatchBody};
pub use crate::support::json_order::raw_path::holds_raw;
use crate::support::json_order::raw_path::{Step, go_path, raw_fields, span, tokens};
pub(crate) use crate::support::json_order::raw_path::{holds_raw_field, is_raw_field, is_raw_kind};
use crate::support::{go_encode, go_json};

/// The most objects whose texts are kept, and the most resourceVersions per object.
const MAX_OBJECTS: usize = 4096;
const MAX_VERSIONS: usize = 16;

/// The text of one raw field: where it is, its value, and the text Go writes for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// Its path, as Go's decoder names it.
    pub path: String,
    /// Its value.
    pub value: Value,
    /// The text written for it.
    pub text: String,
    /// The bytes kept for it, which immutability checks compare: as sent in a JSON body
    /// (white space included), else as written.
    pub bytes: String,
}

/// The texts of the raw fields of a JSON request body `doc` of the kind at struct `index`,
/// as the real server keeps them (`sent` is the body parsed).
fn texts_of(doc: &[u8], sent: &Value, index: usize) -> Vec<Kept> {
    raw_fields(sent, index)
        .into_iter()
        .filter_map(|found| {
            let (start, end) = span(doc, &found.steps)?;
            Some(Kept {
                path: go_path(&found.steps),
                value: found.value.clone(),
                text: go_json::compact(&doc[start..end]),
                bytes: String::from_utf8_lossy(&doc[start..end]).into_owned(),
            })
        })
        .collect()
}

/// What a write of an object of a kind with raw fields keeps of their texts.
#[derive(Debug, Clone, Default)]
pub struct Sent {
    /// The texts the request body carries (a JSON create or replace).
    pub texts: Vec<Kept>,
    /// The body of a merge or JSON patch, which writes into the texts it reaches.
    pub patch: Option<PatchBody>,
}

/// The text the patch `body` leaves in the raw field at `steps`, whose text before was `old`,
/// if it writes there and its text reads as `value` (the value the write stored).
fn patched_text(body: &PatchBody, old: &str, steps: &[Step], value: &Value) -> Option<String> {
    raw_patch::text_after(body, old, &tokens(steps), value)
}

impl Sent {
    /// The raw field texts of a JSON body `doc` written to a kind; empty for other kinds,
    /// other bodies, or a body that is not a JSON object.
    pub fn of_body(group: &str, version: &str, kind: &str, doc: &[u8]) -> Sent {
        let Some(index) = holds_raw(group, version, kind)
            .then(|| go_types::index_of_kind(group, version, kind))
            .flatten()
        else {
            return Sent::default();
        };
        let Ok(sent) = serde_json::from_slice::<Value>(doc) else {
            return Sent::default();
        };
        Sent {
            texts: texts_of(doc, &sent, index),
            patch: None,
        }
    }

    /// Whether a repeated member Go's decoder reports at `path` lies inside a raw value,
    /// where the real decoder does not look.
    pub fn inside_raw(&self, path: &str) -> bool {
        self.texts.iter().any(|kept| {
            path.strip_prefix(&kept.path)
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        })
    }
}

/// What a write does to the texts of the fields it writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rewrite {
    /// A create or replace: the body's texts (none for a body that is not JSON).
    Body,
    /// A merge or JSON patch: an unchanged value keeps its text.
    Keep,
    /// A strategic merge patch: values written as Go writes maps, each number as read from
    /// its text ([`raw_patch::as_go_map`]).
    Strategic,
    /// An apply: written as a strategic merge patch writes them.
    Maps,
}

/// Which fields a write writes: the main resource leaves `status` as stored, the status
/// subresource everything else.
fn in_scope(path: &str, status: bool) -> bool {
    let under_status = path == "status" || path.starts_with("status.");
    under_status == status
}

struct Version {
    rv: String,
    kept: Arc<Vec<Kept>>,
}

#[derive(Default)]
struct Table {
    objects: HashMap<String, Vec<Version>>,
    order: VecDeque<String>,
    /// Texts of writes in flight, with the id of their write.
    pending: Vec<(u64, Kept)>,
    /// The writes in flight to existing objects, with their ids.
    writes: Vec<(u64, InFlight)>,
    next_id: u64,
}

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(Mutex::default)
}

fn lock() -> std::sync::MutexGuard<'static, Table> {
    table()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn rv_number(rv: &str) -> u64 {
    rv.parse().unwrap_or(0)
}

impl Table {
    /// The texts kept for `uid` at `rv`: those recorded at it, else those of the latest
    /// earlier version (a write that did not go through [`record`] keeps them).
    fn at(&self, uid: &str, rv: &str) -> Option<(bool, Arc<Vec<Kept>>)> {
        let versions = self.objects.get(uid)?;
        if let Some(v) = versions.iter().rev().find(|v| v.rv == rv) {
            return Some((true, v.kept.clone()));
        }
        let n = rv_number(rv);
        versions
            .iter()
            .rev()
            .find(|v| rv_number(&v.rv) < n)
            .map(|v| (false, v.kept.clone()))
    }
}

/// Texts of a write in flight, known by value until the guard is dropped.
pub struct Expected {
    id: u64,
}

impl Drop for Expected {
    fn drop(&mut self) {
        let mut table = lock();
        table.pending.retain(|(id, _)| *id != self.id);
        table.writes.retain(|(id, _)| *id != self.id);
    }
}

/// A write in flight to an existing object of a kind with raw fields: which object, and
/// what it does to the raw fields' bytes.
#[derive(Debug, Clone)]
pub struct InFlight {
    /// The object's API group, namespace (empty for cluster-scoped kinds) and name.
    pub group: String,
    pub namespace: String,
    pub name: String,
    /// Whether it writes the status (else everything but the status).
    pub status: bool,
    /// What it does to the raw fields it writes.
    pub rewrite: Rewrite,
    /// The texts its body carries.
    pub sent: Sent,
}

/// Makes the texts of `sent` known by value while the write is in flight, and the write
/// `to` an existing object known to [`same_bytes`].
pub fn expect(sent: &Sent, to: Option<InFlight>) -> Expected {
    let mut table = lock();
    table.next_id += 1;
    let id = table.next_id;
    table
        .pending
        .extend(sent.texts.iter().map(|kept| (id, kept.clone())));
    table.writes.extend(to.map(|write| (id, write)));
    Expected { id }
}

/// Whether the raw fields at or under `under` (`data`, `spec`) of `new`, the object being
/// written over the stored `old`, keep the bytes they had, as kube-apiserver's immutability
/// checks compare them: a JSON body's as sent (white space, member order, numbers, escapes),
/// a merge or JSON patch's compacted, a strategic merge patch's or an apply's as Go writes a
/// map. The values at `under` are equal (the caller compared them); a write not known here
/// keeps them.
pub fn same_bytes(old: &Value, new: &Value, under: &str) -> bool {
    changed_text(old, new, under).is_none()
}

/// The text (compacted) of the first raw field at or under `under` whose bytes a write
/// changes (see [`same_bytes`]), as the real server prints it in an error.
pub fn changed_text(old: &Value, new: &Value, under: &str) -> Option<String> {
    bytes_written(old, new, under)?
        .into_iter()
        .find(|w| w.before != w.after)
        .map(|w| w.text)
}

/// The texts (compacted) the raw fields at or under `under` of `new` are written with, in
/// document order: the real server prints them so in an error.
pub fn written_texts(old: &Value, new: &Value, under: &str) -> Vec<String> {
    bytes_written(old, new, under)
        .unwrap_or_default()
        .into_iter()
        .map(|w| w.text)
        .collect()
}

/// The bytes of one raw field before and after a write in flight.
struct Written {
    before: String,
    after: String,
    /// `after`, compacted.
    text: String,
}

/// The bytes of the raw fields at or under `under` of `new` before and after the write in
/// flight over `old`; `None` when no such write is known.
fn bytes_written(old: &Value, new: &Value, under: &str) -> Option<Vec<Written>> {
    let map = new.as_object()?;
    let index = object_kind(map)?;
    let table = lock();
    let write = in_flight(&table, new)?;
    let (Some(uid), rv) = identity(old.as_object()?) else {
        return None;
    };
    let stored = table.at(uid, rv).map(|(_, kept)| kept);
    let old_fields = raw_fields(old, index);
    let fields = raw_fields(new, index).into_iter().filter_map(|found| {
        let path = go_path(&found.steps);
        let inside = path == under
            || path
                .strip_prefix(under)
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['));
        if !inside {
            return None;
        }
        let same = |k: &&Kept| k.path == path && k.value == *found.value;
        // The bytes the field had, and their text.
        let old_value = old_fields
            .iter()
            .find(|f| go_path(&f.steps) == path)
            .map(|f| f.value);
        let unchanged = old_value == Some(found.value);
        let old_kept = stored.as_ref().and_then(|kept| {
            kept.iter()
                .find(|k| k.path == path && Some(&k.value) == old_value)
        });
        let before = old_kept.map_or_else(
            || go_encode::encode(old_value.unwrap_or(found.value)),
            |k| k.bytes.clone(),
        );
        let old_text =
            old_kept.map_or_else(|| go_json::compact(before.as_bytes()), |k| k.text.clone());
        let after = match write.rewrite {
            // What the write does not write keeps its bytes.
            _ if !in_scope(&path, write.status) => before.clone(),
            Rewrite::Body => write
                .sent
                .texts
                .iter()
                .find(same)
                .map_or_else(|| go_encode::encode(found.value), |k| k.bytes.clone()),
            Rewrite::Keep => write
                .sent
                .patch
                .as_ref()
                .and_then(|body| patched_text(body, &old_text, &found.steps, found.value))
                .unwrap_or_else(|| match unchanged {
                    true => go_json::compact(before.as_bytes()),
                    false => go_encode::encode(found.value),
                }),
            Rewrite::Strategic | Rewrite::Maps => {
                raw_patch::as_go_map(Some(&old_text), found.value)
            }
        };
        Some(Written {
            text: go_json::compact(after.as_bytes()),
            before,
            after,
        })
    });
    Some(fields.collect())
}

/// The write in flight to `object` (by group, namespace and name), if any.
fn in_flight<'t>(table: &'t Table, object: &Value) -> Option<&'t InFlight> {
    let (namespace, name) = (meta_text(object, "namespace"), meta_text(object, "name"));
    let group = object["apiVersion"]
        .as_str()
        .and_then(|v| v.rsplit_once('/'))
        .map_or("", |(g, _)| g);
    table
        .writes
        .iter()
        .rev()
        .map(|(_, w)| w)
        .find(|w| w.group == group && w.namespace == namespace && w.name == name)
}

fn meta_text<'a>(object: &'a Value, field: &str) -> &'a str {
    object["metadata"][field].as_str().unwrap_or_default()
}

/// Records the texts of the raw fields of `object` (as stored by a write of the kind) after
/// a write: fields the write wrote per `rewrite`, the others as they were.
pub fn record(object: &Value, sent: &Sent, status: bool, rewrite: Rewrite) {
    let Some(map) = object.as_object() else {
        return;
    };
    let Some(index) = object_kind(map) else {
        return;
    };
    let (Some(uid), rv) = identity(map) else {
        return;
    };
    let mut table = lock();
    let before = table.at(uid, rv).map(|(_, kept)| kept);
    let kept: Vec<Kept> = raw_fields(object, index)
        .into_iter()
        .filter_map(|found| {
            let path = go_path(&found.steps);
            let same = |k: &&Kept| k.path == path && k.value == *found.value;
            let written = in_scope(&path, status);
            let kept_before = || before.as_ref().and_then(|b| b.iter().find(same)).cloned();
            match rewrite {
                Rewrite::Body if written => sent.texts.iter().find(same).cloned(),
                // Written as Go writes a map, the numbers as read from the text before.
                Rewrite::Strategic | Rewrite::Maps if written => {
                    let old = before
                        .as_ref()
                        .and_then(|b| b.iter().find(|k| k.path == path));
                    let text = raw_patch::as_go_map(old.map(|k| k.text.as_str()), found.value);
                    Some(Kept {
                        path: path.clone(),
                        value: found.value.clone(),
                        bytes: text.clone(),
                        text,
                    })
                }
                // A merge or JSON patch goes through the object's JSON: compacted, and
                // what it opens written again.
                Rewrite::Keep if written => {
                    let old_text = before
                        .as_ref()
                        .and_then(|b| b.iter().find(|k| k.path == path))
                        .map_or_else(|| go_encode::encode(found.value), |k| k.text.clone());
                    let patched = sent
                        .patch
                        .as_ref()
                        .and_then(|body| patched_text(body, &old_text, &found.steps, found.value));
                    match patched {
                        Some(text) => Some(Kept {
                            path: path.clone(),
                            value: found.value.clone(),
                            bytes: text.clone(),
                            text,
                        }),
                        None => kept_before().map(|k| Kept {
                            bytes: k.text.clone(),
                            ..k
                        }),
                    }
                }
                _ => kept_before(),
            }
        })
        .collect();
    if !table.objects.contains_key(uid) {
        table.order.push_back(uid.to_string());
        if table.order.len() > MAX_OBJECTS
            && let Some(old) = table.order.pop_front()
        {
            table.objects.remove(&old);
        }
    }
    let versions = table.objects.entry(uid.to_string()).or_default();
    versions.retain(|v| v.rv != rv);
    versions.push(Version {
        rv: rv.to_string(),
        kept: Arc::new(kept),
    });
    if versions.len() > MAX_VERSIONS {
        versions.remove(0);
    }
}

fn identity(map: &Map<String, Value>) -> (Option<&str>, &str) {
    let meta = map.get("metadata");
    let field = |name| meta.and_then(|m| m.get(name)).and_then(Value::as_str);
    (field("uid"), field("resourceVersion").unwrap_or(""))
}

/// The struct index of a document of a kind with raw fields.
fn object_kind(map: &Map<String, Value>) -> Option<usize> {
    let kind = map.get("kind")?.as_str()?;
    let api_version = map.get("apiVersion")?.as_str()?;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    holds_raw(group, version, kind)
        .then(|| go_types::index_of_kind(group, version, kind))
        .flatten()
}

/// The texts the object being written has, if any.
struct Current {
    kept: Option<Arc<Vec<Kept>>>,
    /// Whether they were recorded at the object's resourceVersion (otherwise a write in
    /// flight may know better).
    exact: bool,
    /// The texts a patch in flight to the object gives the raw fields it writes.
    patched: Vec<Kept>,
}

thread_local! {
    static CURRENT: RefCell<Vec<Current>> = const { RefCell::new(Vec::new()) };
}

/// While alive, the writer writes the raw fields of one object with its kept texts.
pub(crate) struct Writing(());

impl Drop for Writing {
    fn drop(&mut self) {
        CURRENT.with(|c| c.borrow_mut().pop());
    }
}

/// Starts writing `map`, an object of a kind with raw fields.
pub(crate) fn writing(map: &Map<String, Value>) -> Writing {
    let (uid, rv) = identity(map);
    let table = lock();
    let (kept, exact) = match uid.and_then(|uid| table.at(uid, rv)) {
        Some((exact, kept)) => (Some(kept), exact),
        None => (None, false),
    };
    let patched = match exact {
        true => Vec::new(),
        false => patched_in_flight(&table, map, kept.as_deref()),
    };
    drop(table);
    let current = Current {
        kept,
        exact,
        patched,
    };
    CURRENT.with(|c| c.borrow_mut().push(current));
    Writing(())
}

/// The texts a patch in flight to the object `map` gives the raw fields it writes (the object
/// is written before the write records them, as in a watch event): a merge or JSON patch's
/// ([`patched_text`]) over the texts the object had (`kept`), a strategic merge patch's.
fn patched_in_flight(
    table: &Table,
    map: &Map<String, Value>,
    kept: Option<&Vec<Kept>>,
) -> Vec<Kept> {
    let object = Value::Object(map.clone());
    let (Some(write), Some(index)) = (in_flight(table, &object), object_kind(map)) else {
        return Vec::new();
    };
    raw_fields(&object, index)
        .into_iter()
        .filter_map(|found| {
            let path = go_path(&found.steps);
            let text = match write.rewrite {
                _ if !in_scope(&path, write.status) => return None,
                Rewrite::Keep => {
                    let old = kept
                        .and_then(|kept| kept.iter().find(|k| k.path == path))
                        .map_or_else(|| go_encode::encode(found.value), |k| k.text.clone());
                    let body = write.sent.patch.as_ref()?;
                    patched_text(body, &old, &found.steps, found.value)?
                }
                Rewrite::Strategic | Rewrite::Maps => {
                    let old = kept.and_then(|kept| kept.iter().find(|k| k.path == path));
                    raw_patch::as_go_map(old.map(|k| k.text.as_str()), found.value)
                }
                Rewrite::Body => return None,
            };
            Some(Kept {
                path,
                value: found.value.clone(),
                bytes: text.clone(),
                text,
            })
        })
        .collect()
}

/// The text to write for the raw `value` of the object being written: its kept text, or
/// the value as Go writes a map.
pub(crate) fn text(value: &Value) -> String {
    let kept = CURRENT.with(|c| {
        let c = c.borrow();
        let current = c.last()?;
        let recorded = || {
            current
                .kept
                .as_ref()
                .and_then(|kept| kept.iter().find(|k| k.value == *value))
                .map(|k| k.text.clone())
        };
        if current.exact {
            return recorded();
        }
        let in_flight = lock()
            .pending
            .iter()
            .find(|(_, k)| k.value == *value)
            .map(|(_, k)| k.text.clone());
        let patched = || {
            let found = current.patched.iter().find(|k| k.value == *value);
            found.map(|k| k.text.clone())
        };
        in_flight.or_else(patched).or_else(recorded)
    });
    kept.unwrap_or_else(|| go_encode::encode(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CLAIM: &str = r#"{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "c"}, "spec": {"devices": {"config": [
            {"opaque": {"driver": "d", "parameters": {"b": 1}}},
            {"opaque": {"driver": "d", "parameters": { "z" : [1.0, "<"], "a": {}, "z": 2 }}}]}}}"#;

    #[test]
    fn finds_the_texts_of_raw_fields_as_sent() {
        let sent = Sent::of_body("resource.k8s.io", "v1", "ResourceClaim", CLAIM.as_bytes());
        let paths: Vec<(&str, &str)> = sent
            .texts
            .iter()
            .map(|k| (k.path.as_str(), k.text.as_str()))
            .collect();
        assert_eq!(
            paths,
            [
                ("spec.devices.config[0].opaque.parameters", r#"{"b":1}"#),
                (
                    "spec.devices.config[1].opaque.parameters",
                    r#"{"z":[1.0,"\u003c"],"a":{},"z":2}"#
                ),
            ]
        );
        assert_eq!(sent.texts[1].value, json!({"a": {}, "z": 2}));
        assert!(sent.inside_raw("spec.devices.config[1].opaque.parameters.z"));
        assert!(!sent.inside_raw("spec.devices.config[1].opaque.driver"));
        let other = Sent::of_body("", "v1", "ConfigMap", br#"{"data": {"b": "1"}}"#);
        assert!(other.texts.is_empty());
    }

    #[test]
    fn writes_kept_texts_while_the_value_is_unchanged() {
        let doc = br#"{"kind": "ControllerRevision", "apiVersion": "apps/v1", "revision": 1,
            "metadata": {"name": "r"}, "data": {"z": 1, "a": 1e3}}"#;
        let sent = Sent::of_body("apps", "v1", "ControllerRevision", doc);
        let mut stored: Value = serde_json::from_slice(doc).unwrap();
        stored["metadata"]["uid"] = json!("raw-test-uid-1");
        stored["metadata"]["resourceVersion"] = json!("7");
        let write = |object: &Value| {
            let _w = writing(object.as_object().unwrap());
            text(&object["data"])
        };
        // In flight: known by value; recorded: by object and resourceVersion.
        let expected = expect(&sent, None);
        assert_eq!(write(&stored), r#"{"z":1,"a":1e3}"#);
        record(&stored, &sent, false, Rewrite::Body);
        drop(expected);
        assert_eq!(write(&stored), r#"{"z":1,"a":1e3}"#);
        // A later version nobody recorded keeps the text of the value it still has.
        stored["metadata"]["resourceVersion"] = json!("8");
        assert_eq!(write(&stored), r#"{"z":1,"a":1e3}"#);
        // A strategic merge patch writes the value as Go writes a map.
        stored["metadata"]["resourceVersion"] = json!("9");
        record(&stored, &Sent::default(), false, Rewrite::Maps);
        assert_eq!(write(&stored), r#"{"a":1000,"z":1}"#);
        stored["metadata"]["resourceVersion"] = json!("7");
        assert_eq!(write(&stored), r#"{"z":1,"a":1e3}"#);
        // A changed value is written as Go writes it.
        stored["data"] = json!({"z": 2});
        assert_eq!(write(&stored), r#"{"z":2}"#);
    }

    #[test]
    fn a_patch_in_flight_gives_the_texts_it_writes() {
        let doc = br#"{"kind": "ControllerRevision", "apiVersion": "apps/v1", "revision": 1,
            "metadata": {"name": "p", "namespace": "n"}, "data": {"z": 1.50, "b": {"y": 1e3, "a": 1}}}"#;
        let sent = Sent::of_body("apps", "v1", "ControllerRevision", doc);
        let mut stored: Value = serde_json::from_slice(doc).unwrap();
        stored["metadata"]["uid"] = json!("raw-test-uid-2");
        stored["metadata"]["resourceVersion"] = json!("7");
        record(&stored, &sent, false, Rewrite::Body);
        // A merge patch in flight: the object it wrote is written before it is recorded.
        let patch: &[u8] = br#"{"data":{"z":2.50}}"#;
        let write = InFlight {
            group: "apps".into(),
            namespace: "n".into(),
            name: "p".into(),
            status: false,
            rewrite: Rewrite::Keep,
            sent: Sent {
                texts: Vec::new(),
                patch: Some(PatchBody::Merge(patch.into())),
            },
        };
        let expected = expect(&write.sent.clone(), Some(write));
        stored["metadata"]["resourceVersion"] = json!("8");
        stored["data"]["z"] = json!(2.5);
        let _w = writing(stored.as_object().unwrap());
        assert_eq!(text(&stored["data"]), r#"{"b":{"y":1e3,"a":1},"z":2.50}"#);
        drop(expected);
    }
}
