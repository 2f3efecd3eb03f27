//! Protobuf answers (`application/vnd.kubernetes.protobuf`) made comparable: the `k8s\0`
//! envelope's type meta, and the message inside as a tree of its fields by number (each field a
//! list of its occurrences; a length-delimited field a nested tree when it parses as a message,
//! else its text, else its bytes in hex), so that the two servers' bytes are compared field by
//! field. What varies between two correct servers is replaced: an object's (or each item's)
//! uid, resourceVersion, creation time and managed fields' times, a list's resourceVersion.
//! A watch (`;stream=watch`) is the list of its length-prefixed events, each its type and its
//! object's tree.

use serde_json::{Map, Value, json};

fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(v);
        }
    }
    None
}

/// The fields of a message, or `None` when `b` is not one.
fn fields(b: &[u8]) -> Option<Vec<(u64, Field<'_>)>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let key = varint(b, &mut at)?;
        let number = key >> 3;
        if number == 0 {
            return None;
        }
        let field = match key & 7 {
            0 => Field::Varint(varint(b, &mut at)?),
            1 => {
                let bytes = b.get(at..at + 8)?;
                at += 8;
                Field::Fixed(bytes)
            }
            2 => {
                let len = usize::try_from(varint(b, &mut at)?).ok()?;
                let bytes = b.get(at..at.checked_add(len)?)?;
                at += len;
                Field::Bytes(bytes)
            }
            _ => return None,
        };
        out.push((number, field));
    }
    Some(out)
}

enum Field<'a> {
    Varint(u64),
    Fixed(&'a [u8]),
    Bytes(&'a [u8]),
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A length-delimited payload: a nested message, a text or bytes.
fn payload(b: &[u8]) -> Value {
    if !b.is_empty()
        && let Some(f) = fields(b)
    {
        return tree(f);
    }
    match std::str::from_utf8(b) {
        Ok(s) => Value::String(s.to_string()),
        Err(_) => Value::String(format!("hex:{}", hex(b))),
    }
}

fn tree(fields: Vec<(u64, Field<'_>)>) -> Value {
    let mut out = Map::new();
    for (number, field) in fields {
        let v = match field {
            Field::Varint(n) => json!(n),
            Field::Fixed(b) => json!(format!("fixed64:{}", hex(b))),
            Field::Bytes(b) => payload(b),
        };
        if let Value::Array(items) = out
            .entry(number.to_string())
            .or_insert_with(|| Value::Array(Vec::new()))
        {
            items.push(v);
        }
    }
    Value::Object(out)
}

/// Sets `v[key][*]` to `placeholder` where present.
fn blank(v: &mut Value, key: &str, placeholder: &str) {
    if let Some(Value::Array(items)) = v.get_mut(key) {
        for item in items {
            *item = json!(placeholder);
        }
    }
}

/// The varying fields of an object's metadata (field 1): uid 5, resourceVersion 6, creation
/// time 8, each managed fields entry's (17) time 4.
fn blank_object(object: &mut Value) {
    let Some(Value::Array(metas)) = object.get_mut("1") else {
        return;
    };
    for meta in metas {
        blank(meta, "5", "<uid>");
        blank(meta, "6", "<resourceVersion>");
        blank(meta, "8", "<time>");
        if let Some(Value::Array(entries)) = meta.get_mut("17") {
            for entry in entries {
                blank(entry, "4", "<time>");
            }
        }
    }
}

/// An envelope's comparable form.
fn envelope(b: &[u8]) -> Value {
    let Some(rest) = b.strip_prefix(b"k8s\0") else {
        return json!({"notAnEnvelope": payload(b)});
    };
    let Some(unknown) = fields(rest) else {
        return json!({"malformed": hex(rest)});
    };
    let mut out = Map::new();
    for (number, field) in unknown {
        match (number, field) {
            (1, Field::Bytes(type_meta)) => {
                for (n, f) in fields(type_meta).unwrap_or_default() {
                    let name = if n == 1 { "apiVersion" } else { "kind" };
                    if let Field::Bytes(text) = f {
                        out.insert(name.into(), json!(String::from_utf8_lossy(text)));
                    }
                }
            }
            (2, Field::Bytes(raw)) => {
                out.insert("raw".into(), payload(raw));
            }
            (3, Field::Bytes(b)) => {
                out.insert("contentEncoding".into(), payload(b));
            }
            (4, Field::Bytes(b)) => {
                out.insert("contentType".into(), payload(b));
            }
            (n, _) => {
                out.insert(format!("field {n}"), json!("?"));
            }
        }
    }
    let list = out
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"));
    if let Some(raw) = out.get_mut("raw") {
        if list {
            if let Some(Value::Array(metas)) = raw.get_mut("1") {
                metas
                    .iter_mut()
                    .for_each(|m| blank(m, "2", "<resourceVersion>"));
            }
            if let Some(Value::Array(items)) = raw.get_mut("2") {
                items.iter_mut().for_each(blank_object);
            }
        } else {
            blank_object(raw);
        }
    }
    Value::Object(out)
}

/// A whole protobuf answer's comparable form.
pub fn answer(b: &[u8]) -> Value {
    envelope(b)
}

/// A `;stream=watch` answer's comparable form: its events, each `{"type", "object"}`.
pub fn watch(b: &[u8]) -> Value {
    let mut events = Vec::new();
    let mut at = 0;
    while let Some(prefix) = b.get(at..at + 4) {
        let len = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
        let Some(frame) = b.get(at + 4..at + 4 + len) else {
            events.push(json!({"truncated": hex(&b[at..])}));
            break;
        };
        at += 4 + len;
        let mut event = Map::new();
        for (number, field) in fields(frame).unwrap_or_default() {
            match (number, field) {
                (1, Field::Bytes(t)) => {
                    event.insert("type".into(), json!(String::from_utf8_lossy(t)));
                }
                (2, Field::Bytes(raw)) => {
                    // A RawExtension: its field 1 holds the object's envelope.
                    for (n, f) in fields(raw).unwrap_or_default() {
                        if let (1, Field::Bytes(object)) = (n, f) {
                            event.insert("object".into(), envelope(object));
                        }
                    }
                }
                _ => {}
            }
        }
        events.push(Value::Object(event));
    }
    Value::Array(events)
}
