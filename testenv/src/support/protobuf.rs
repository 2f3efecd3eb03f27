//! Decoding of the protobuf request bodies kubectl's typed commands send (`kubectl create
//! namespace|configmap|secret|serviceaccount`, `kubectl auth can-i`), into JSON.
//!
//! Only the kinds and fields those commands set are described; a body with any other kind
//! or field is refused (the caller answers 415 so the client can send JSON instead), never
//! decoded partially. Responses are always JSON, which kubectl accepts.

use serde_json::{Map, Value, json};

/// The field types used by the described messages.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Bool,
    Int,
    MapStr,
    MapBytes,
    RepeatedStr,
    Msg(&'static [Field]),
}

type Field = (u64, &'static str, Ty);

/// `metav1.Time`: Go always emits it (empty when unset).
const TIME: &[Field] = &[(1, "seconds", Ty::Int), (2, "nanos", Ty::Int)];
/// Go emits every non-pointer field, empty or not; empty values are dropped after decoding.
const OBJECT_META: &[Field] = &[
    (1, "name", Ty::Str),
    (2, "generateName", Ty::Str),
    (3, "namespace", Ty::Str),
    (4, "selfLink", Ty::Str),
    (5, "uid", Ty::Str),
    (6, "resourceVersion", Ty::Str),
    (7, "generation", Ty::Int),
    (8, "creationTimestamp", Ty::Msg(TIME)),
    (11, "labels", Ty::MapStr),
    (12, "annotations", Ty::MapStr),
    (14, "finalizers", Ty::RepeatedStr),
];
const NAMESPACE: &[Field] = &[
    (1, "metadata", Ty::Msg(OBJECT_META)),
    (2, "spec", Ty::Msg(&[(1, "finalizers", Ty::RepeatedStr)])),
    (3, "status", Ty::Msg(&[(1, "phase", Ty::Str)])),
];
const CONFIG_MAP: &[Field] = &[
    (1, "metadata", Ty::Msg(OBJECT_META)),
    (2, "data", Ty::MapStr),
    (3, "binaryData", Ty::MapBytes),
    (4, "immutable", Ty::Bool),
];
const SECRET: &[Field] = &[
    (1, "metadata", Ty::Msg(OBJECT_META)),
    (2, "data", Ty::MapBytes),
    (3, "type", Ty::Str),
    (4, "stringData", Ty::MapStr),
    (5, "immutable", Ty::Bool),
];
const SERVICE_ACCOUNT: &[Field] = &[
    (1, "metadata", Ty::Msg(OBJECT_META)),
    (4, "automountServiceAccountToken", Ty::Bool),
];
const RESOURCE_ATTRIBUTES: &[Field] = &[
    (1, "namespace", Ty::Str),
    (2, "verb", Ty::Str),
    (3, "group", Ty::Str),
    (4, "version", Ty::Str),
    (5, "resource", Ty::Str),
    (6, "subresource", Ty::Str),
    (7, "name", Ty::Str),
];
const SELF_SUBJECT_ACCESS_REVIEW: &[Field] = &[
    (1, "metadata", Ty::Msg(OBJECT_META)),
    (
        2,
        "spec",
        Ty::Msg(&[
            (1, "resourceAttributes", Ty::Msg(RESOURCE_ATTRIBUTES)),
            (
                2,
                "nonResourceAttributes",
                Ty::Msg(&[(1, "path", Ty::Str), (2, "verb", Ty::Str)]),
            ),
        ]),
    ),
    (
        3,
        "status",
        Ty::Msg(&[
            (1, "allowed", Ty::Bool),
            (2, "reason", Ty::Str),
            (3, "evaluationError", Ty::Str),
            (4, "denied", Ty::Bool),
        ]),
    ),
];

fn schema_of(api_version: &str, kind: &str) -> Option<&'static [Field]> {
    Some(match (api_version, kind) {
        ("v1", "Namespace") => NAMESPACE,
        ("v1", "ConfigMap") => CONFIG_MAP,
        ("v1", "Secret") => SECRET,
        ("v1", "ServiceAccount") => SERVICE_ACCOUNT,
        ("authorization.k8s.io/v1", "SelfSubjectAccessReview") => SELF_SUBJECT_ACCESS_REVIEW,
        _ => return None,
    })
}

struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.buf.split_first().ok_or("truncated varint")?;
            self.buf = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint too long".into())
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let len = usize::try_from(self.varint()?).map_err(|e| e.to_string())?;
        if len > self.buf.len() {
            return Err("truncated field".into());
        }
        let (b, rest) = self.buf.split_at(len);
        self.buf = rest;
        Ok(b)
    }

    /// The next (field number, wire type).
    fn key(&mut self) -> Result<(u64, u64), String> {
        let k = self.varint()?;
        Ok((k >> 3, k & 7))
    }
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn utf8(b: &[u8]) -> Result<String, String> {
    String::from_utf8(b.to_vec()).map_err(|e| e.to_string())
}

fn map_entry(b: &[u8], bytes_value: bool) -> Result<(String, Value), String> {
    let mut r = Reader { buf: b };
    let (mut key, mut value) = (String::new(), Value::String(String::new()));
    while !r.buf.is_empty() {
        match r.key()? {
            (1, 2) => key = utf8(r.bytes()?)?,
            (2, 2) => {
                let raw = r.bytes()?;
                value = Value::String(if bytes_value { base64(raw) } else { utf8(raw)? });
            }
            (f, _) => return Err(format!("unexpected map entry field {f}")),
        }
    }
    Ok((key, value))
}

fn message(b: &[u8], fields: &[Field]) -> Result<Map<String, Value>, String> {
    let mut r = Reader { buf: b };
    let mut out = Map::new();
    while !r.buf.is_empty() {
        let (number, wire) = r.key()?;
        let Some((_, name, ty)) = fields.iter().find(|f| f.0 == number) else {
            return Err(format!("field {number} is not understood"));
        };
        let name = name.to_string();
        match (ty, wire) {
            (Ty::Str, 2) => {
                out.insert(name, Value::String(utf8(r.bytes()?)?));
            }
            (Ty::Bool, 0) => {
                out.insert(name, Value::Bool(r.varint()? != 0));
            }
            (Ty::Int, 0) => {
                out.insert(name, json!(r.varint()? as i64));
            }
            (Ty::MapStr | Ty::MapBytes, 2) => {
                let (k, v) = map_entry(r.bytes()?, matches!(ty, Ty::MapBytes))?;
                out.entry(name).or_insert_with(|| json!({}))[k] = v;
            }
            (Ty::RepeatedStr, 2) => {
                let s = utf8(r.bytes()?)?;
                if let Value::Array(a) = out.entry(name).or_insert_with(|| json!([])) {
                    a.push(Value::String(s));
                }
            }
            (Ty::Msg(inner), 2) => {
                out.insert(name, Value::Object(message(r.bytes()?, inner)?));
            }
            _ => return Err(format!("field {name} has an unexpected wire type {wire}")),
        }
    }
    Ok(out)
}

/// Removes the zero values Go's encoder writes for unset fields ("", 0, false, {}, []).
fn drop_empty(map: &mut Map<String, Value>) {
    for v in map.values_mut() {
        if let Value::Object(inner) = v {
            drop_empty(inner);
        }
    }
    map.retain(|_, v| match v {
        Value::String(s) => !s.is_empty(),
        Value::Number(n) => n.as_i64() != Some(0),
        Value::Bool(b) => *b,
        Value::Object(o) => !o.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Null => false,
    });
}

/// Decodes a `application/vnd.kubernetes.protobuf` body (the `k8s\0` envelope around a
/// `runtime.Unknown`) into the JSON object, or explains why it cannot.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    let rest = body
        .strip_prefix(b"k8s\0")
        .ok_or("missing the k8s protobuf envelope")?;
    let mut r = Reader { buf: rest };
    let (mut api_version, mut kind, mut raw) = (String::new(), String::new(), &[][..]);
    while !r.buf.is_empty() {
        match r.key()? {
            (1, 2) => {
                let tm = message(
                    r.bytes()?,
                    &[(1, "apiVersion", Ty::Str), (2, "kind", Ty::Str)],
                )?;
                api_version = tm
                    .get("apiVersion")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                kind = tm
                    .get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
            }
            (2, 2) => raw = r.bytes()?,
            (3 | 4, 2) => {
                r.bytes()?;
            }
            (f, _) => return Err(format!("unexpected envelope field {f}")),
        }
    }
    let fields = schema_of(&api_version, &kind)
        .ok_or_else(|| format!("protobuf bodies of {api_version} {kind} are not supported"))?;
    let mut object = message(raw, fields)?;
    drop_empty(&mut object);
    object.remove("status");
    object.insert("apiVersion".into(), Value::String(api_version));
    object.insert("kind".into(), Value::String(kind));
    Ok(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(n: u64, payload: &[u8]) -> Vec<u8> {
        let mut v = vec![((n << 3) | 2) as u8, payload.len() as u8];
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn decodes_a_config_map() {
        let meta = field(1, b"settings");
        let entry = [field(1, b"a"), field(2, b"1")].concat();
        let raw = [field(1, &meta), field(2, &entry)].concat();
        let type_meta = [field(1, b"v1"), field(2, b"ConfigMap")].concat();
        let body = [b"k8s\0".to_vec(), field(1, &type_meta), field(2, &raw)].concat();
        let v = decode(&body).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}})
        );
        assert!(decode(b"{}").is_err());
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        let unknown = [
            b"k8s\0".to_vec(),
            field(1, &type_meta),
            field(2, &field(9, b"x")),
        ]
        .concat();
        assert!(
            decode(&unknown).is_err(),
            "unknown fields are refused, not dropped"
        );
    }
}
