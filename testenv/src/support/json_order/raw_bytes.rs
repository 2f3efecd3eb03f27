//! The bytes of raw values (`runtime.RawExtension`) a write in flight leaves, as
//! kube-apiserver's immutability checks compare them (a ControllerRevision's `data`, a
//! ResourceClaim's `spec` and `status.allocation`).

use serde_json::Value;

use crate::support::json_order::raw::{
    Kept, Rewrite, identity, in_flight, in_scope, json_patched, lock, object_kind, patched_text,
};
use crate::support::json_order::raw_patch;
use crate::support::json_order::raw_path::{go_path, raw_fields, tokens};
use crate::support::{go_encode, go_json};

/// Whether the raw fields at or under `under` (`data`, `spec`; every one for `""`) of `new`,
/// the object being written over the stored `old`, keep the bytes they had, as
/// kube-apiserver's immutability checks, its strategies' generation and its store's no-op
/// check compare them: a JSON body's as sent (white space, member order, numbers, escapes),
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
        let inside = under.is_empty()
            || path == under
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
            Rewrite::Unchanged => before.clone(),
            Rewrite::Body => write
                .sent
                .texts
                .iter()
                .find(same)
                .map_or_else(|| go_encode::encode(found.value), |k| k.bytes.clone()),
            Rewrite::Keep => json_patched(write, &path, found.value)
                .or_else(|| {
                    let body = write.sent.patch.as_ref()?;
                    patched_text(body, &old_text, &found.steps, found.value)
                })
                .unwrap_or_else(|| match unchanged {
                    true => go_json::compact(before.as_bytes()),
                    false => go_encode::encode(found.value),
                }),
            Rewrite::Strategic | Rewrite::Maps => raw_patch::as_go_map(
                Some(&old_text),
                found.value,
                write.sent.patch.as_ref(),
                &tokens(&found.steps),
            ),
        };
        Some(Written {
            text: go_json::compact(after.as_bytes()),
            before,
            after,
        })
    });
    Some(fields.collect())
}
