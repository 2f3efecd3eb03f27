//! Encoding of JSON objects into `application/vnd.kubernetes.protobuf`, byte for byte as
//! kube-apiserver's gogo-generated `Marshal` writes them, from the same tables the decoder reads:
//! fields in field-number order; a non-pointer field always (its zero value when the JSON object
//! leaves it out: `""`, `0`, `false`, an empty message, which is itself written with its zero
//! fields); a pointer field only when set; a repeated field item by item (never packed, as
//! proto2's default); a map entry by entry in key order, key and value both written; a byte
//! field only when present (a nil Go slice is left out). `Time` is its seconds and a zero
//! nanosecond field (the zero time an empty message), `MicroTime` its seconds and nanoseconds,
//! `Quantity` its canonical string, `IntOrString` its type, integer and string, `RawExtension` the
//! bytes kept for it (as its client sent them), `FieldsV1` its JSON bytes.

use base64::Engine;
use chrono::DateTime;
use serde_json::{Map, Value};

use super::schema::{Field, Message, Shape, Ty};
use super::wire::{FIXED64, LEN, VARINT};
use crate::support::json_order::raw;

/// Appends `v` as a varint.
pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends the key of field `number` with wire type `wire`.
pub(super) fn put_key(out: &mut Vec<u8>, number: u64, wire: u64) {
    put_varint(out, (number << 3) | wire);
}

/// Appends field `number` as a length-delimited payload.
pub(super) fn put_bytes(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
    put_key(out, number, LEN);
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// Appends field `number` as a varint.
pub(super) fn put_int(out: &mut Vec<u8>, number: u64, v: u64) {
    put_key(out, number, VARINT);
    put_varint(out, v);
}

/// What is missing to encode an object: a JSON value of the wrong type for its field.
#[derive(Debug)]
pub(super) struct EncodeError(pub String);

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A JSON integer as Go's varint: negative numbers sign-extended to 64 bits.
fn int(v: &Value, field: &str) -> Result<u64, EncodeError> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(|n| n as u64)
            .or_else(|| n.as_u64())
            .or_else(|| n.as_f64().map(|f| f as i64 as u64))
            .ok_or_else(|| EncodeError(format!("{field}: {v} is not an integer"))),
        Value::Bool(b) => Ok(u64::from(*b)),
        Value::Null => Ok(0),
        _ => Err(EncodeError(format!("{field}: {v} is not a number"))),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A time's seconds and nanoseconds, `None` for the zero time (`null` or empty).
fn timestamp(v: &Value, field: &str) -> Result<Option<(i64, u32)>, EncodeError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::String(s) => DateTime::parse_from_rfc3339(s)
            .map(|t| Some((t.timestamp(), t.timestamp_subsec_nanos())))
            .map_err(|e| EncodeError(format!("{field}: {s}: {e}"))),
        _ => Err(EncodeError(format!("{field}: {v} is not a time"))),
    }
}

/// The JSON bytes of a `FieldsV1`.
fn json_bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// The inverse of a [`Ty::Shaped`] value's JSON form: the object of its message's fields.
fn unshape(message: &'static Message, v: &Value) -> Value {
    let mut m = Map::new();
    match (message.name, v) {
        ("JSONSchemaPropsOrArray", Value::Array(_)) => {
            m.insert("jSONSchemas".into(), v.clone());
        }
        ("JSONSchemaPropsOrBool", Value::Bool(b)) => {
            m.insert("allows".into(), Value::Bool(*b));
        }
        ("JSONSchemaPropsOrBool", _) => {
            m.insert("allows".into(), Value::Bool(true));
            m.insert("schema".into(), v.clone());
        }
        ("JSONSchemaPropsOrStringArray", Value::Array(_)) => {
            m.insert("property".into(), v.clone());
        }
        _ => {
            m.insert("schema".into(), v.clone());
        }
    }
    Value::Object(m)
}

/// The payload of a length-delimited value of type `ty` (`v` may be `null`: the zero value).
fn payload(ty: Ty, v: &Value, field: &str) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    match ty {
        Ty::Str => out.extend_from_slice(text(v).as_bytes()),
        Ty::Bytes => {
            let s = text(v);
            out = base64::engine::general_purpose::STANDARD
                .decode(s.as_bytes())
                .map_err(|e| EncodeError(format!("{field}: {e}")))?;
        }
        Ty::IntOrString => match v {
            Value::String(s) => {
                put_int(&mut out, 1, 1);
                put_int(&mut out, 2, 0);
                put_bytes(&mut out, 3, s.as_bytes());
            }
            other => {
                put_int(&mut out, 1, 0);
                put_int(&mut out, 2, int(other, field)?);
                put_bytes(&mut out, 3, b"");
            }
        },
        Ty::Quantity => {
            let q = match v {
                Value::Null => "0".to_string(),
                other => text(other),
            };
            put_bytes(&mut out, 1, q.as_bytes());
        }
        Ty::Time => {
            if let Some((seconds, _)) = timestamp(v, field)? {
                put_int(&mut out, 1, seconds as u64);
                put_int(&mut out, 2, 0);
            }
        }
        Ty::MicroTime => {
            if let Some((seconds, nanos)) = timestamp(v, field)? {
                put_int(&mut out, 1, seconds as u64);
                put_int(&mut out, 2, u64::from(nanos));
            }
        }
        // A raw value as the object's client sent it (see [`raw::bytes`]).
        Ty::Raw => {
            if !v.is_null() {
                put_bytes(&mut out, 1, raw::bytes(v).as_bytes());
            }
        }
        Ty::FieldsV1 => {
            if !v.is_null() {
                put_bytes(&mut out, 1, &json_bytes(v));
            }
        }
        Ty::Strings => {
            for item in v.as_array().into_iter().flatten() {
                put_bytes(&mut out, 1, text(item).as_bytes());
            }
        }
        Ty::Msg(inner) => {
            let empty = Map::new();
            let object = v.as_object().unwrap_or(&empty);
            encode_message(object, inner, &mut out)?;
        }
        Ty::Shaped(inner, _) => {
            if let Value::Object(object) = unshape(inner, v) {
                encode_message(&object, inner, &mut out)?;
            }
        }
        Ty::Bool | Ty::Int | Ty::Double => {
            unreachable!("scalars are not length-delimited")
        }
    }
    Ok(out)
}

/// Appends field `number` holding `v` of type `ty` (`null`: its zero value).
fn put_value(
    out: &mut Vec<u8>,
    number: u64,
    ty: Ty,
    v: &Value,
    field: &str,
) -> Result<(), EncodeError> {
    match ty {
        Ty::Bool => put_int(out, number, u64::from(v.as_bool().unwrap_or(false))),
        Ty::Int => put_int(out, number, int(v, field)?),
        Ty::Double => {
            put_key(out, number, FIXED64);
            let f = v.as_f64().unwrap_or(0.0);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        _ => put_bytes(out, number, &payload(ty, v, field)?),
    }
    Ok(())
}

/// Appends one field of `object`.
fn encode_field(
    object: &Map<String, Value>,
    field: &'static Field,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let v = object.get(field.name).unwrap_or(&Value::Null);
    match field.shape {
        // A nil byte slice is left out; any other non-pointer field is always written.
        Shape::Value if matches!(field.ty, Ty::Bytes) && v.is_null() => {}
        Shape::Value => put_value(out, field.number, field.ty, v, field.name)?,
        Shape::Pointer if v.is_null() => {}
        Shape::Pointer => put_value(out, field.number, field.ty, v, field.name)?,
        Shape::List => {
            for item in v.as_array().into_iter().flatten() {
                put_value(out, field.number, field.ty, item, field.name)?;
            }
        }
        Shape::Map => {
            let Some(entries) = v.as_object() else {
                return Ok(());
            };
            let mut keys: Vec<&String> = entries.keys().collect();
            keys.sort();
            for key in keys {
                let mut entry = Vec::new();
                put_bytes(&mut entry, 1, key.as_bytes());
                let value = &entries[key.as_str()];
                if !(matches!(field.ty, Ty::Bytes) && value.is_null()) {
                    put_value(&mut entry, 2, field.ty, value, field.name)?;
                }
                put_bytes(out, field.number, &entry);
            }
        }
        Shape::Inline => {
            let Ty::Msg(inner) = field.ty else {
                unreachable!("an inlined field is a message")
            };
            let mut inlined = Vec::new();
            encode_message(object, inner, &mut inlined)?;
            put_bytes(out, field.number, &inlined);
        }
    }
    Ok(())
}

/// Appends the fields of `object` described by `message`, in field-number order.
pub(super) fn encode_message(
    object: &Map<String, Value>,
    message: &'static Message,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let mut fields: Vec<&'static Field> = message.fields.iter().collect();
    fields.sort_by_key(|f| f.number);
    for field in fields {
        encode_field(object, field, out)?;
    }
    Ok(())
}

/// The `k8s\0` envelope: a `runtime.Unknown` with the type meta and the encoded message (its
/// content encoding and type empty, as Go writes them).
pub(super) fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut type_meta = Vec::new();
    put_bytes(&mut type_meta, 1, api_version.as_bytes());
    put_bytes(&mut type_meta, 2, kind.as_bytes());
    let mut out = b"k8s\0".to_vec();
    put_bytes(&mut out, 1, &type_meta);
    put_bytes(&mut out, 2, raw);
    put_bytes(&mut out, 3, b"");
    put_bytes(&mut out, 4, b"");
    out
}
