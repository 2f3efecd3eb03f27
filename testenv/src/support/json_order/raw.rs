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

use crate::support::go_encode;
use crate::support::go_types;
use crate::support::json_order::raw_json_patch;
use crate::support::json_order::raw_patch::{self, PatchBody};
pub use crate::support::json_order::raw_path::holds_raw;
use crate::support::json_order::raw_path::{Step, go_path, raw_fields, tokens};
pub(crate) use crate::support::json_order::raw_path::{holds_raw_field, is_raw_field, is_raw_kind};
use crate::support::json_order::raw_sent::texts_of;
pub use crate::support::json_order::raw_sent::{Kept, Sent};

/// The most objects whose texts are kept, and the most resourceVersions per object.
const MAX_OBJECTS: usize = 4096;
const MAX_VERSIONS: usize = 16;

/// The text the patch `body` leaves in the raw field at `steps`, whose text before was `old`,
/// if it writes there and its text reads as `value` (the value the write stored).
pub(crate) fn patched_text(
    body: &PatchBody,
    old: &str,
    steps: &[Step],
    value: &Value,
) -> Option<String> {
    raw_patch::text_after(body, old, &tokens(steps), value)
}

/// The text a write in flight leaves in the raw field at `path` holding `value`, when it
/// is a JSON patch: as the patched document has it.
pub(crate) fn json_patched(write: &InFlight, path: &str, value: &Value) -> Option<String> {
    let patched = write.json_patched.as_ref()?;
    let kept = patched
        .iter()
        .find(|k| k.path == path && k.value == *value)?;
    Some(kept.text.clone())
}

/// Learns what the JSON patch in flight to `old` (the object it patches, as stored) does to
/// its raw fields: the patch applied to `doc` (the object's JSON as the server writes it)
/// as kube-apiserver applies it. Called before the patch is applied.
pub fn json_patch_base(old: &Value, doc: &[u8]) {
    let Some(index) = old.as_object().and_then(object_kind) else {
        return;
    };
    let body = {
        let table = lock();
        match in_flight(&table, old).and_then(|w| w.sent.patch.clone()) {
            Some(PatchBody::Json(body)) => body,
            _ => return,
        }
    };
    let patched = std::str::from_utf8(doc)
        .ok()
        .and_then(|doc| raw_json_patch::patched_document(doc, &body));
    let texts = patched.and_then(|text| {
        let value: Value = serde_json::from_str(&text).ok()?;
        Some(texts_of(text.as_bytes(), &value, index))
    });
    let mut table = lock();
    let (namespace, name) = (meta_text(old, "namespace"), meta_text(old, "name"));
    if let Some((_, write)) = table
        .writes
        .iter_mut()
        .rev()
        .find(|(_, w)| w.namespace == namespace && w.name == name)
    {
        write.json_patched = texts.map(Arc::new);
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
    /// An apply that changes no field (only its managers): the object keeps its bytes.
    Unchanged,
}

/// Which fields a write writes: the main resource leaves `status` as stored, the status
/// subresource everything else.
pub(crate) fn in_scope(path: &str, status: bool) -> bool {
    let under_status = path == "status" || path.starts_with("status.");
    under_status == status
}

struct Version {
    rv: String,
    kept: Arc<Vec<Kept>>,
}

#[derive(Default)]
pub(crate) struct Table {
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

pub(crate) fn lock() -> std::sync::MutexGuard<'static, Table> {
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
    pub(crate) fn at(&self, uid: &str, rv: &str) -> Option<(bool, Arc<Vec<Kept>>)> {
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
    /// The texts a JSON patch leaves in the raw fields ([`json_patch_base`]).
    pub json_patched: Option<Arc<Vec<Kept>>>,
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

/// Marks the apply in flight to `object` as one that changes no field but the managers:
/// kube-apiserver then keeps the live object, raw bytes and all.
pub fn apply_unchanged(object: &Value) {
    let mut table = lock();
    let (namespace, name) = (meta_text(object, "namespace"), meta_text(object, "name"));
    if let Some((_, write)) = table
        .writes
        .iter_mut()
        .rev()
        .find(|(_, w)| w.namespace == namespace && w.name == name)
    {
        write.rewrite = Rewrite::Unchanged;
    }
}

/// The write in flight to `object` (by group, namespace and name), if any.
pub(crate) fn in_flight<'t>(table: &'t Table, object: &Value) -> Option<&'t InFlight> {
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

pub(crate) fn meta_text<'a>(object: &'a Value, field: &str) -> &'a str {
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
    let (exact, before) = match table.at(uid, rv) {
        Some((exact, kept)) => (exact, Some(kept)),
        None => (false, None),
    };
    // An apply that changes nothing writes nothing: the object keeps its bytes.
    let rewrite = in_flight(&table, object).map_or(rewrite, |w| w.rewrite);
    if exact && matches!(rewrite, Rewrite::Maps | Rewrite::Unchanged) {
        return;
    }
    let json_patched = in_flight(&table, object).and_then(|w| w.json_patched.clone());
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
                    let text = raw_patch::as_go_map(
                        old.map(|k| k.text.as_str()),
                        found.value,
                        sent.patch.as_ref(),
                        &tokens(&found.steps),
                    );
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
                    let from_json = json_patched.as_ref().and_then(|texts| {
                        let kept = texts.iter().find(same)?;
                        Some(kept.text.clone())
                    });
                    let patched = from_json.or_else(|| {
                        let body = sent.patch.as_ref()?;
                        patched_text(body, &old_text, &found.steps, found.value)
                    });
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

pub(crate) fn identity(map: &Map<String, Value>) -> (Option<&str>, &str) {
    let meta = map.get("metadata");
    let field = |name| meta.and_then(|m| m.get(name)).and_then(Value::as_str);
    (field("uid"), field("resourceVersion").unwrap_or(""))
}

/// The struct index of a document of a kind with raw fields.
pub(crate) fn object_kind(map: &Map<String, Value>) -> Option<usize> {
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
                Rewrite::Keep => match json_patched(write, &path, found.value) {
                    Some(text) => text,
                    None => {
                        let old = kept
                            .and_then(|kept| kept.iter().find(|k| k.path == path))
                            .map_or_else(|| go_encode::encode(found.value), |k| k.text.clone());
                        let body = write.sent.patch.as_ref()?;
                        patched_text(body, &old, &found.steps, found.value)?
                    }
                },
                Rewrite::Strategic | Rewrite::Maps => {
                    let old = kept.and_then(|kept| kept.iter().find(|k| k.path == path));
                    raw_patch::as_go_map(
                        old.map(|k| k.text.as_str()),
                        found.value,
                        write.sent.patch.as_ref(),
                        &tokens(&found.steps),
                    )
                }
                Rewrite::Body | Rewrite::Unchanged => return None,
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

/// The text to write in JSON for the raw `value` of the object being written: its kept
/// text, or the value as Go writes a map.
pub(crate) fn text(value: &Value) -> String {
    kept(value, |k| &k.text)
}

/// The bytes to write in protobuf for the raw `value` of the object being written, where
/// kube-apiserver writes the bytes it keeps as they are (a JSON body's white space
/// included): the kept bytes, or the value as Go writes a map.
pub(crate) fn bytes(value: &Value) -> String {
    kept(value, |k| &k.bytes)
}

/// What `part` of the kept text of the raw `value` of the object being written says, or the
/// value as Go writes a map.
fn kept(value: &Value, part: fn(&Kept) -> &String) -> String {
    let kept = CURRENT.with(|c| {
        let c = c.borrow();
        let current = c.last()?;
        let recorded = || {
            current
                .kept
                .as_ref()
                .and_then(|kept| kept.iter().find(|k| k.value == *value))
                .map(|k| part(k).clone())
        };
        if current.exact {
            return recorded();
        }
        let in_flight = lock()
            .pending
            .iter()
            .find(|(_, k)| k.value == *value)
            .map(|(_, k)| part(k).clone());
        let patched = || {
            let found = current.patched.iter().find(|k| k.value == *value);
            found.map(|k| part(k).clone())
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
            json_patched: None,
        };
        let expected = expect(&write.sent.clone(), Some(write));
        stored["metadata"]["resourceVersion"] = json!("8");
        stored["data"]["z"] = json!(2.5);
        let _w = writing(stored.as_object().unwrap());
        assert_eq!(text(&stored["data"]), r#"{"b":{"y":1e3,"a":1},"z":2.50}"#);
        drop(expected);
    }
}
