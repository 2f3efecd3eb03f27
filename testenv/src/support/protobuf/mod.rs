//! Decoding of `application/vnd.kubernetes.protobuf` request bodies into JSON.
//!
//! kubectl's `create <kind>` commands, `create token`, `autoscale`, `auth can-i|whoami|reconcile`,
//! `certificate approve|deny` and `debug --copy-to` send protobuf bodies, and so does any client-go
//! program configured for protobuf, for every built-in kind. Each kind is described here as a
//! table of fields per message (one module per API group, the pod spec split by topic), read from
//! the Kubernetes `generated.proto` field numbers and the Go types' JSON names: by hand for the
//! kinds of kubectl's typed commands (`kinds_typed::KINDS`), by `scripts/record_protobuf_tables.py` from the Go
//! types for every kind of the core, apps, batch, autoscaling, policy, networking, discovery,
//! events and coordination groups (`kinds_core::KINDS`, with their status). The tables describe every field of k8s.io/api v1.34's
//! types (a unit test compares each message with its type's properties in the recorded OpenAPI
//! schemas). A body whose kind is not described is refused (the caller answers 415). A field no
//! table describes (a newer client's field) is skipped, as Go's generated `Unmarshal` skips it
//! (any wire type, groups included); what Go's `Unmarshal` refuses (a described field with the
//! wrong wire type, named by its Go name (`go_names.rs`), an illegal tag, a wire type that does
//! not exist, a truncated body, a negative length) is the real server's 400 with Go's error.
//! Map entries are read as Go reads them, without checking their fields' wire types.
//! Responses are encoded from the same tables (`encode*.rs`) when the client asks for protobuf
//! (`endpoints::media_type` decides).
//!
//! Go's marshaller writes every non-pointer field, set or not, and pointer fields only when set;
//! the tables say which is which, so a non-pointer zero value is left out of the JSON object
//! (as unset) while a pointer's zero value (`replicas: 0`, `emptyDir: {}`) is kept. A status is
//! decoded as any field: the strategy drops it on a create, as for JSON, and a review's status
//! (TokenRequest, SelfSubjectReview, the access reviews) is replaced by the server's.

mod admissionregistration;
mod apiextensions;
mod apiregistration;
mod apps;
mod apps_kinds;
mod authentication;
mod authentication_review;
mod authorization;
mod authorization_review;
mod autoscaling;
mod autoscaling_kinds;
mod autoscaling_v2;
mod batch;
mod batch_kinds;
mod certificates;
mod coordination;
mod core;
mod core_kinds;
mod core_node;
mod discovery;
mod encode;
mod encode_kinds;
mod encode_status;
mod error;
mod events;
mod flowcontrol;
mod go_name_exceptions;
mod go_names;
mod kinds_core;
mod kinds_more;
mod kinds_typed;
mod meta;
mod meta_more;
mod networking;
mod networking_kinds;
mod node;
mod persistent_volume;
mod pod;
mod pod_affinity;
mod pod_container;
mod pod_probes;
mod pod_security;
mod pod_status;
mod pod_volumes;
mod pod_volumes_legacy;
mod policy;
mod policy_kinds;
mod rbac;
mod resource;
mod scheduling;
mod schema;
mod storage;
mod wire;

use base64::Engine;
use chrono::{SecondsFormat, TimeZone, Utc};
use serde_json::{Map, Value};

use crate::support::quantity;

pub use encode_kinds::{encodable, encode, watch_frame};
pub use error::DecodeError;
use kinds_typed::message_of;
use schema::{Field, Message, Shape, Ty};
use wire::{FIXED64, LEN, Reader, VARINT};

/// A string field: Go's generated code does not check UTF-8, and its JSON encoder writes each
/// invalid byte as U+FFFD.
fn utf8(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The fields of the small wrapper messages (IntOrString, Quantity, Timestamp, RawExtension,
/// FieldsV1), by number from 1: each with its Go name and the wire type it must have (varint
/// or length-delimited); any other field is skipped.
fn wrapper(
    b: &[u8],
    name: &'static str,
    fields: &[(&'static str, u64)],
) -> Result<[Option<Scalar>; 4], DecodeError> {
    let mut out = [None, None, None, None];
    let mut r = Reader::new(b);
    while !r.is_empty() {
        let (number, wire) = field_key(&mut r, name)?;
        let Some((slot, &(go_name, expected))) = usize::try_from(number)
            .ok()
            .and_then(|n| Some((out.get_mut(n)?, fields.get(n - 1)?)))
        else {
            r.skip(wire)?;
            continue;
        };
        if wire != expected {
            return Err(DecodeError::UnexpectedWireType {
                field: go_name.into(),
                wire,
            });
        }
        *slot = Some(if wire == VARINT {
            Scalar::Int(r.varint()?)
        } else {
            Scalar::Bytes(r.bytes()?.to_vec())
        });
    }
    Ok(out)
}

/// Reads the next key of a message as Go's generated `Unmarshal` does, its field number and
/// wire type: an end of group is refused, and so is a field number that is not positive as
/// Go's `int32`.
fn field_key(r: &mut Reader<'_>, message: &'static str) -> Result<(u64, u64), DecodeError> {
    let key = r.key()?;
    if key.wire == wire::END_GROUP {
        return Err(DecodeError::EndGroup(message));
    }
    let number = key.field().ok_or(DecodeError::IllegalTag {
        message,
        number: key.number,
        key: key.raw,
    })?;
    Ok((number, key.wire))
}

/// IntOrString's fields: `type`, `intVal` and `strVal`.
const INT_OR_STRING: &[(&str, u64)] = &[("Type", VARINT), ("IntVal", VARINT), ("StrVal", LEN)];
/// Quantity's field (its own `Unmarshal` names it `String_`).
const QUANTITY: &[(&str, u64)] = &[("String_", LEN)];
/// The fields of Timestamp, which Time and MicroTime are read as.
const TIMESTAMP: &[(&str, u64)] = &[("Seconds", VARINT), ("Nanos", VARINT)];
/// The field of RawExtension and FieldsV1.
const RAW: &[(&str, u64)] = &[("Raw", LEN)];

/// A raw field of a wrapper message.
enum Scalar {
    Int(u64),
    Bytes(Vec<u8>),
}

impl Scalar {
    fn int(v: &Option<Scalar>) -> i64 {
        match v {
            Some(Scalar::Int(n)) => *n as i64,
            _ => 0,
        }
    }

    fn string(v: &Option<Scalar>) -> String {
        match v {
            Some(Scalar::Bytes(b)) => utf8(b),
            _ => String::new(),
        }
    }
}

/// Decodes one value of type `ty` sent with wire type `wire`.
fn value(
    r: &mut Reader<'_>,
    ty: Ty,
    wire: u64,
    message: &'static Message,
    field: &'static Field,
) -> Result<Value, DecodeError> {
    let wrong = || DecodeError::UnexpectedWireType {
        field: go_names::go_name(message, field),
        wire,
    };
    match (ty, wire) {
        (Ty::Bool, VARINT) => Ok(Value::Bool(r.varint()? != 0)),
        // Negative int32 and int64 are both sign-extended to 64 bits.
        (Ty::Int, VARINT) => Ok(Value::from(r.varint()? as i64)),
        (Ty::Str, LEN) => Ok(Value::String(utf8(r.bytes()?))),
        (Ty::Bytes, LEN) => Ok(Value::String(
            base64::engine::general_purpose::STANDARD.encode(r.bytes()?),
        )),
        (Ty::IntOrString, LEN) => {
            let [_, kind, int, string] = wrapper(r.bytes()?, "IntOrString", INT_OR_STRING)?;
            Ok(if Scalar::int(&kind) == 1 {
                Value::String(Scalar::string(&string))
            } else {
                Value::from(Scalar::int(&int) as i32)
            })
        }
        (Ty::Quantity, LEN) => {
            let [_, string, ..] = wrapper(r.bytes()?, "Quantity", QUANTITY)?;
            let text = Scalar::string(&string);
            // Go's Quantity parses its string as it reads it (untrimmed, an empty one too).
            if string.is_some()
                && let Some(why) = quantity::go_parse_error(&text)
            {
                return Err(DecodeError::Quantity(why));
            }
            Ok(Value::String(text))
        }
        (Ty::Time, LEN) => {
            let raw = r.bytes()?;
            if raw.is_empty() {
                return Ok(Value::Null);
            }
            // Like metav1.Time, only the seconds are kept.
            let [_, seconds, ..] = wrapper(raw, "Timestamp", TIMESTAMP)?;
            let time = Utc
                .timestamp_opt(Scalar::int(&seconds), 0)
                .single()
                .ok_or(wrong())?;
            Ok(Value::String(
                time.to_rfc3339_opts(SecondsFormat::Secs, true),
            ))
        }
        (Ty::MicroTime, LEN) => {
            let raw = r.bytes()?;
            if raw.is_empty() {
                return Ok(Value::Null);
            }
            // Like metav1.MicroTime, the nanoseconds are cut to microseconds.
            let [_, seconds, nanos, _] = wrapper(raw, "Timestamp", TIMESTAMP)?;
            let nanos = u32::try_from(Scalar::int(&nanos)).unwrap_or(0) / 1000 * 1000;
            let time = Utc
                .timestamp_opt(Scalar::int(&seconds), nanos)
                .single()
                .ok_or(wrong())?;
            Ok(Value::String(
                time.to_rfc3339_opts(SecondsFormat::Micros, true),
            ))
        }
        (Ty::Raw, LEN) => {
            let [_, raw, ..] = wrapper(r.bytes()?, "RawExtension", RAW)?;
            match raw {
                Some(Scalar::Bytes(raw)) if !raw.is_empty() => {
                    RAW_SEEN.with(|seen| {
                        if let Some(seen) = seen.borrow_mut().as_mut() {
                            seen.push(raw.clone());
                        }
                    });
                    serde_json::from_slice(&raw).map_err(|_| DecodeError::Json(field.name))
                }
                _ => Ok(Value::Null),
            }
        }
        (Ty::FieldsV1, LEN) => {
            let [_, raw, ..] = wrapper(r.bytes()?, "FieldsV1", RAW)?;
            match raw {
                Some(Scalar::Bytes(raw)) => {
                    serde_json::from_slice(&raw).map_err(|_| DecodeError::Json(field.name))
                }
                _ => Ok(Value::Null),
            }
        }
        (Ty::Strings, LEN) => Ok(decode_message(r.bytes()?, &STRINGS)?
            .remove("items")
            .unwrap_or_else(|| Value::Array(Vec::new()))),
        (Ty::Msg(inner), LEN) => Ok(Value::Object(decode_message(r.bytes()?, inner)?)),
        (Ty::Shaped(inner, shape), LEN) => Ok(shape(decode_message(r.bytes()?, inner)?)),
        (Ty::Double, FIXED64) => Ok(double(f64::from_bits(r.fixed64()?))),
        _ => Err(wrong()),
    }
}

/// A `double` as Go's JSON encoder writes a float64: an integer when it has no fraction.
fn double(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        Value::from(v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// Whether `v` is the zero value Go writes for an unset non-pointer field.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_i64() == Some(0),
        Value::Bool(b) => !b,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
    }
}

/// One `map<string, T>` entry (key 1, value 2, the zero value when absent), read as Go's
/// generated code reads it: within the enclosing message's bytes (`r`, at the entry's length),
/// neither field's wire type checked (the key is read as a string, the value as its type
/// reads it, all of them length-delimited), any other field skipped but not past the entry;
/// whatever a field reads past the entry's end is then read again as the enclosing message's.
fn map_entry(
    r: &mut Reader<'_>,
    ty: Ty,
    message: &'static Message,
    field: &'static Field,
) -> Result<(String, Value), DecodeError> {
    let end = r.length()?;
    let (mut key, mut entry) = (String::new(), None);
    while r.pos() < end {
        let start = r.pos();
        let k = r.key()?;
        match k.number {
            1 => key = utf8(r.bytes()?),
            2 => entry = Some(value(r, ty, LEN, message, field)?),
            _ => {
                r.seek(start);
                let wire = r.key()?.wire;
                r.skip(wire)?;
                if r.pos() > end {
                    return Err(DecodeError::Truncated);
                }
            }
        }
    }
    r.seek(end);
    let entry = entry.unwrap_or_else(|| match ty {
        Ty::Bool => Value::Bool(false),
        Ty::Int | Ty::Double => Value::from(0),
        Ty::Shaped(_, shape) => shape(Map::new()),
        Ty::Msg(_) => Value::Object(Map::new()),
        Ty::Strings => Value::Array(Vec::new()),
        Ty::Quantity => Value::String("0".into()),
        Ty::Time | Ty::MicroTime | Ty::Raw | Ty::FieldsV1 => Value::Null,
        Ty::Str | Ty::Bytes | Ty::IntOrString => Value::String(String::new()),
    });
    Ok((key, entry))
}

/// Decodes a message described by `message` into a JSON object.
fn decode_message(b: &[u8], message: &'static Message) -> Result<Map<String, Value>, DecodeError> {
    let mut r = Reader::new(b);
    let mut out = Map::new();
    while !r.is_empty() {
        let (number, wire) = field_key(&mut r, message.name)?;
        // A field k8s.io/api v1.34 does not have (a newer client's) is skipped, as Go's
        // generated `Unmarshal` skips it.
        let Some(field) = message.field(number) else {
            r.skip(wire)?;
            continue;
        };
        let name = field.name;
        match field.shape {
            Shape::Value => {
                let v = value(&mut r, field.ty, wire, message, field)?;
                if is_zero(&v) {
                    out.remove(name);
                } else {
                    out.insert(name.into(), v);
                }
            }
            Shape::Pointer => {
                let v = value(&mut r, field.ty, wire, message, field)?;
                if !v.is_null() {
                    out.insert(name.into(), v);
                }
            }
            Shape::List => {
                let items = out.entry(name).or_insert_with(|| Value::Array(Vec::new()));
                let Value::Array(items) = items else {
                    unreachable!("a list field is only ever an array")
                };
                if matches!(field.ty, Ty::Int) && wire == LEN {
                    // A packed list of varints.
                    let mut packed = Reader::new(r.bytes()?);
                    while !packed.is_empty() {
                        items.push(Value::from(packed.varint()? as i64));
                    }
                } else {
                    items.push(value(&mut r, field.ty, wire, message, field)?);
                }
            }
            Shape::Map => {
                if wire != LEN {
                    return Err(DecodeError::UnexpectedWireType {
                        field: go_names::go_name(message, field),
                        wire,
                    });
                }
                let (key, v) = map_entry(&mut r, field.ty, message, field)?;
                let entries = out.entry(name).or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(entries) = entries {
                    entries.insert(key, v);
                }
            }
            Shape::Inline => match value(&mut r, field.ty, wire, message, field)? {
                Value::Object(inner) => out.extend(inner),
                _ => unreachable!("an inlined field is a message"),
            },
        }
    }
    Ok(out)
}

/// The message behind [`Ty::Strings`] (`ExtraValue`): its items.
static STRINGS: Message = Message::new("ExtraValue", &[schema::list(1, "items", Ty::Str)]);

/// The `TypeMeta` of the envelope.
static TYPE_META: Message = Message::new(
    "TypeMeta",
    &[
        schema::val(1, "apiVersion", Ty::Str),
        schema::val(2, "kind", Ty::Str),
    ],
);

/// Decodes a `application/vnd.kubernetes.protobuf` body (the `k8s\0` envelope around a
/// `runtime.Unknown`) into the JSON object, or explains why it cannot.
pub fn decode(body: &[u8]) -> Result<Value, DecodeError> {
    let rest = body
        .strip_prefix(b"k8s\0")
        .ok_or(DecodeError::MissingEnvelope)?;
    let mut r = Reader::new(rest);
    let (mut type_meta, mut raw) = (Map::new(), &[][..]);
    while !r.is_empty() {
        match field_key(&mut r, "Unknown")? {
            (1, LEN) => type_meta = decode_message(r.bytes()?, &TYPE_META)?,
            (2, LEN) => raw = r.bytes()?,
            // contentEncoding and contentType (always empty from clients), and any other field.
            (_, wire) => r.skip(wire)?,
        }
    }
    let text = |key: &str| {
        type_meta
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let Some(message) = message_of(&api_version, &kind) else {
        return Err(DecodeError::UnsupportedKind { api_version, kind });
    };
    let version = api_version
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let mut object = decode_message(raw, message).map_err(|reason| DecodeError::Malformed {
        kind: kind.clone(),
        version,
        reason: Box::new(reason),
    })?;
    object.insert("apiVersion".into(), Value::String(api_version));
    object.insert("kind".into(), Value::String(kind));
    Ok(Value::Object(object))
}

std::thread_local! {
    /// The bytes of the raw values decoded while [`decode_keeping_raw`] runs.
    static RAW_SEEN: std::cell::RefCell<Option<Vec<Vec<u8>>>> = const { std::cell::RefCell::new(None) };
}

/// [`decode`], with the bytes of each `RawExtension` the body holds, in the order they were
/// read (kube-apiserver keeps them as sent).
pub fn decode_keeping_raw(body: &[u8]) -> Result<(Value, Vec<Vec<u8>>), DecodeError> {
    RAW_SEEN.with(|seen| *seen.borrow_mut() = Some(Vec::new()));
    let decoded = decode(body);
    let seen = RAW_SEEN.with(|seen| seen.borrow_mut().take().unwrap_or_default());
    Ok((decoded?, seen))
}

#[cfg(test)]
mod coverage_tests;
#[cfg(test)]
mod encode_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_go;
#[cfg(test)]
mod tests_recorded;
