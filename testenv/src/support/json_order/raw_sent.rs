//! The texts of raw values (`runtime.RawExtension`) a write carries: a JSON body's as sent,
//! and a patch's body, which writes into the texts it reaches.

use serde_json::Value;

use crate::support::go_json;
use crate::support::go_types;
use crate::support::json_order::raw_patch::PatchBody;
use crate::support::json_order::raw_path::{go_path, holds_raw, raw_fields, span};

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
pub(crate) fn texts_of(doc: &[u8], sent: &Value, index: usize) -> Vec<Kept> {
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

    /// The raw field texts of a protobuf body written to a kind, decoded as `sent`, whose
    /// raw values held `raws` (each the JSON bytes of one, in any order): each raw field of
    /// `sent` takes the first bytes not yet taken that read as its value.
    pub fn of_raw_bytes(
        group: &str,
        version: &str,
        kind: &str,
        sent: &Value,
        raws: &[Vec<u8>],
    ) -> Sent {
        let Some(index) = holds_raw(group, version, kind)
            .then(|| go_types::index_of_kind(group, version, kind))
            .flatten()
        else {
            return Sent::default();
        };
        let values: Vec<Option<Value>> = raws
            .iter()
            .map(|raw| serde_json::from_slice(raw).ok())
            .collect();
        let mut taken = vec![false; raws.len()];
        let texts = raw_fields(sent, index)
            .into_iter()
            .filter_map(|found| {
                let at = (0..raws.len())
                    .find(|&i| !taken[i] && values[i].as_ref() == Some(found.value))?;
                taken[at] = true;
                Some(Kept {
                    path: go_path(&found.steps),
                    value: found.value.clone(),
                    text: go_json::compact(&raws[at]),
                    bytes: String::from_utf8_lossy(&raws[at]).into_owned(),
                })
            })
            .collect();
        Sent { texts, patch: None }
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
