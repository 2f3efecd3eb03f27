//! The content hash of a document, for the `hash` query parameter of the `/openapi/v3` index.

use serde_json::Value;

/// A stable upper-case hex digest of a document (two FNV-1a 64 passes over its JSON text),
/// used as the `hash` query parameter of the index.
pub fn document_hash(doc: &Value) -> String {
    let text = doc.to_string();
    let fnv = |seed: u64| {
        text.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    format!(
        "{:016X}{:016X}",
        fnv(0xcbf2_9ce4_8422_2325),
        fnv(0x8422_2325_cbf2_9ce4)
    )
}
