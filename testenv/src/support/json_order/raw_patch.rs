//! The text a merge patch, a strategic merge patch or an apply leaves in a raw value
//! (`runtime.RawExtension`); a JSON patch's is in `raw_json_patch`.
//!
//! kube-apiserver applies a merge patch with evanphx/json-patch (v4), which holds the object
//! as lazy nodes (`raw_node`): a value stays the bytes it was read from until the patch
//! looks inside it, then becomes a Go map (its keys sorted when written again, repeated keys
//! gone) or a list of such nodes. So a patch that writes into a raw value keeps the numbers,
//! escapes and member order of everything it does not open, and sorts the objects it opens.
//! A merge patch also opens every object it adds where nothing (or no object) was, dropping
//! their `null` members ("pruning"). A strategic merge patch and an apply go through Go maps.

use std::sync::Arc;

use serde_json::Value;

use crate::support::json_order::raw_node::{Node, child, first_byte};
use crate::support::json_order::raw_path::{holds_raw, raw_fields, tokens};
use crate::support::{go_encode, go_types};

/// The body of a patch, for the texts it leaves in raw values.
#[derive(Debug, Clone)]
pub enum PatchBody {
    /// A JSON merge patch.
    Merge(Arc<[u8]>),
    /// A JSON patch.
    Json(Arc<[u8]>),
    /// A strategic merge patch.
    Strategic(Arc<[u8]>),
    /// An apply's configuration, as read.
    Apply(Arc<Value>),
}

/// The text the merge patch `body` leaves in the raw value at `tokens`, whose text before
/// was `old`, if the patch writes there and the text reads as `value` (the value the write
/// stored); `None` otherwise (the value keeps its text, or is written as Go writes a map).
pub fn text_after(body: &PatchBody, old: &str, tokens: &[String], value: &Value) -> Option<String> {
    let PatchBody::Merge(patch) = body else {
        return None;
    };
    let text = after_merge_patch(Some(old), patch, tokens)?;
    let read: Value = serde_json::from_str(&text).ok()?;
    same_value(&read, value).then_some(text)
}

/// `value` as Go writes it from a map (a strategic merge patch, an apply): keys sorted, each
/// number as read by the patch or the text it came from.
///
/// An apply (`body` an [`PatchBody::Apply`] holding the value at `tokens`) replaces the raw
/// value whole with its configuration's, whose numbers are read as YAML: an integer in
/// `int64`'s range, or a whole float in that range, is that integer (`-0.0` and `1e0` are
/// `0` and `1`), any other a float64. Otherwise each number is read from its literal in the
/// strategic merge patch's value at `tokens` (`body`) or in `old` (the value's text before),
/// where it is there with the same value: an integer literal in `int64`'s range as that
/// integer (`-0` is `0`), any other as a float64 (`1.0` is `1`, `-0.0` is `-0`).
pub fn as_go_map(
    old: Option<&str>,
    value: &Value,
    body: Option<&PatchBody>,
    tokens: &[String],
) -> String {
    let mut out = String::new();
    let applied = match body {
        Some(PatchBody::Apply(config)) => tokens
            .iter()
            .try_fold(config.as_ref(), |at, token| match at {
                Value::Object(map) => map.get(token),
                Value::Array(items) => items.get(token.parse::<usize>().ok()?),
                _ => None,
            })
            .is_some_and(|sent| same_value(sent, value)),
        _ => false,
    };
    if applied {
        write_yaml_read(value, &mut out);
        return out;
    }
    let sent = match body {
        Some(PatchBody::Strategic(patch)) => std::str::from_utf8(patch)
            .ok()
            .and_then(|text| raw_at(text, tokens)),
        _ => None,
    };
    let old = old.map(|t| Node::Raw(t.to_string()));
    write_go(&[sent, old], value, &mut out);
    out
}

/// The node at `tokens` inside the value `text`, not opened.
fn raw_at(text: &str, tokens: &[String]) -> Option<Node> {
    let mut at = Node::Raw(text.to_string());
    for token in tokens {
        at = match at {
            Node::Raw(text) => child(&text, token)?,
            _ => return None,
        };
    }
    Some(at)
}

/// `value` as Go writes an apply's value read from YAML.
fn write_yaml_read(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => {
            const LIMIT: f64 = 9_223_372_036_854_775_808.0;
            let f = n.as_f64().unwrap_or_default();
            match n.as_i64() {
                Some(i) => out.push_str(&i.to_string()),
                #[allow(clippy::cast_possible_truncation)]
                None if f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f) => {
                    out.push_str(&(f as i64).to_string());
                }
                None => out.push_str(&go_encode::float(f)),
            }
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_encode::string(key, out);
                out.push(':');
                write_yaml_read(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_yaml_read(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&go_encode::encode(other)),
    }
}

/// Writes `value`, its numbers read from the first of the `texts` (the value's texts, in
/// order of precedence) that holds them with the same value.
fn write_go(texts: &[Option<Node>], value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut members: Vec<_> = texts
                .iter()
                .map(|t| {
                    t.clone()
                        .and_then(|n| n.into_doc().ok())
                        .unwrap_or_default()
                })
                .collect();
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_encode::string(key, out);
                out.push(':');
                let inner: Vec<Option<Node>> =
                    members.iter_mut().map(|m| m.remove(key.as_str())).collect();
                write_go(&inner, &map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            let mut lists: Vec<Vec<Option<Node>>> = texts
                .iter()
                .map(|t| {
                    let mut elements = match t.clone().and_then(Node::into_container) {
                        Some(Node::Ary(elements)) => elements.into_iter().map(Some).collect(),
                        _ => Vec::new(),
                    };
                    elements.resize(items.len(), None);
                    elements
                })
                .collect();
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let inner: Vec<Option<Node>> = lists.iter_mut().map(|l| l[i].take()).collect();
                write_go(&inner, item, out);
            }
            out.push(']');
        }
        Value::Number(n) => {
            let read = texts.iter().find_map(|t| match t {
                Some(Node::Raw(text)) => {
                    let literal = text.trim();
                    serde_json::from_str::<Value>(literal)
                        .is_ok_and(|v| same_value(&v, value))
                        .then(|| literal.to_string())
                }
                _ => None,
            });
            let integer = |l: &str| {
                let plain = !l.contains(['.', 'e', 'E']);
                plain.then(|| l.parse::<i64>().ok()).flatten()
            };
            match read {
                Some(l) => match integer(&l) {
                    Some(i) => out.push_str(&i.to_string()),
                    None => out.push_str(&go_encode::float(n.as_f64().unwrap_or_default())),
                },
                None if n.is_i64() => out.push_str(&n.to_string()),
                None => out.push_str(&go_encode::float(n.as_f64().unwrap_or_default())),
            }
        }
        other => out.push_str(&go_encode::encode(other)),
    }
}

/// Gives the raw fields of `object` (an apply's configuration or result over `live`, of a
/// kind with raw fields) whose numbers read the same as the live object's the live values:
/// an apply compares numbers by what they are (`-0.0` is `0`, `1.0` is `1`), so such a
/// field neither conflicts with its owners nor changes.
pub fn raw_as_live(live: &Value, object: &mut Value) {
    let Some(index) = object.as_object().and_then(|map| {
        let api_version = map.get("apiVersion")?.as_str()?;
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let kind = map.get("kind")?.as_str()?;
        holds_raw(group, version, kind)
            .then(|| go_types::index_of_kind(group, version, kind))
            .flatten()
    }) else {
        return;
    };
    let live_fields = raw_fields(live, index);
    let same: Vec<(String, Value)> = raw_fields(object, index)
        .into_iter()
        .filter_map(|found| {
            let path = tokens(&found.steps);
            let old = live_fields.iter().find(|f| tokens(&f.steps) == path)?;
            (same_value(old.value, found.value) && old.value != found.value)
                .then(|| (pointer(&path), old.value.clone()))
        })
        .collect();
    for (at, value) in same {
        if let Some(field) = object.pointer_mut(&at) {
            *field = value;
        }
    }
}

/// Whether an apply's result `object` is the `live` object but for its managers (numbers
/// compared by what they are): kube-apiserver then keeps the live object, raw bytes and all.
pub fn same_but_managers(live: &Value, object: &Value) -> bool {
    let without_managers = |v: &Value| {
        let mut v = v.clone();
        if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("managedFields");
            meta.remove("resourceVersion");
        }
        v
    };
    same_value(&without_managers(live), &without_managers(object))
}

fn pointer(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// Whether two values are equal, numbers compared by what they are (`1E2` is `100`).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// A merge patch's value where it adds one: objects opened, their `null` members dropped.
fn pruned(patch: Node) -> Node {
    match patch.open() {
        Ok(Node::Doc(map)) => Node::Doc(
            map.into_iter()
                .filter(|(_, v)| !matches!(v, Node::Null))
                .map(|(k, v)| (k, pruned(v)))
                .collect(),
        ),
        Ok(Node::Ary(items)) => Node::Ary(
            items
                .into_iter()
                .map(|v| match v {
                    Node::Null => Node::Null,
                    v => pruned(v),
                })
                .collect(),
        ),
        Ok(other) | Err(other) => other,
    }
}

/// `cur` merged with `patch` (not null).
fn merged(cur: Node, patch: Node) -> Node {
    match cur.into_doc() {
        Ok(mut doc) => match patch.into_doc() {
            Ok(fields) => {
                for (key, value) in fields {
                    match (value, doc.remove(&key)) {
                        (Node::Null, _) => {}
                        (value, None | Some(Node::Null)) => {
                            doc.insert(key, pruned(value));
                        }
                        (value, Some(cur)) => {
                            doc.insert(key, merged(cur, value));
                        }
                    }
                }
                Node::Doc(doc)
            }
            Err(patch) => patch,
        },
        Err(_) => pruned(patch),
    }
}

/// The text a JSON merge patch (`patch`, the request body) leaves in the raw value at
/// `tokens` (its path in the object: member names and list indices), whose text before was
/// `old` (`None` when it was unset); `None` when the patch does not write it (it keeps its
/// text) or removes it.
pub fn after_merge_patch(old: Option<&str>, patch: &[u8], tokens: &[String]) -> Option<String> {
    let mut at = std::str::from_utf8(patch).ok()?.to_string();
    // Below a list the patch replaced, its value is added as a whole.
    let mut added = false;
    for token in tokens {
        added |= first_byte(&at) == Some(b'[');
        match child(&at, token)? {
            Node::Raw(text) => at = text,
            _ => return None,
        }
    }
    let patch = Node::Raw(at);
    let result = match old {
        Some(old) if !added && first_byte(old) == Some(b'{') => {
            merged(Node::Raw(old.to_string()), patch)
        }
        _ => pruned(patch),
    };
    Some(result.text())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(path: &str) -> Vec<String> {
        path.split('/').skip(1).map(str::to_string).collect()
    }

    const OLD: &str = r#"{"z":1.50,"b":{"y":1e3,"a":-0,"m":[1.0,{"q":2,"c":1},null]},"a":{"k":1.0,"j":2},"arr":[3,1.10],"s":"\u003c\u0041\u003e","z":7}"#;

    #[test]
    fn a_merge_patch_opens_what_it_touches() {
        let merge = |patch: &str| after_merge_patch(Some(OLD), patch.as_bytes(), &tokens("/data"));
        assert_eq!(merge(r#"{"revision":1}"#), None);
        assert_eq!(
            merge(
                r#"{"data":{"b":{"a":null,"n":{"y":1,"b":[1,null,{"z":1,"a":null}]}},"arr":{"x":1,"c":null},"a":[null,2],"z":null,"new":null}}"#
            )
            .unwrap(),
            r#"{"a":[null,2],"arr":{"x":1},"b":{"m":[1.0,{"q":2,"c":1},null],"n":{"b":[1,null,{"z":1}],"y":1},"y":1e3},"s":"\u003c\u0041\u003e"}"#
        );
        assert_eq!(
            merge(r#"{"data":[1,null,{"b":1,"a":null}]}"#).unwrap(),
            r#"[1,null,{"b":1,"a":null}]"#
        );
        let params = tokens("/spec/config/0/opaque/parameters");
        let patch = br#"{"spec":{"config":[{"opaque":{"parameters":{"z":2.50,"b":{"y":null,"q":1E2,"c":[1,null,{"y":1,"b":2,"n":null}]}}}}]}}"#;
        assert_eq!(
            after_merge_patch(Some(OLD), patch, &params).unwrap(),
            r#"{"b":{"c":[1,null,{"b":2,"y":1}],"q":1E2},"z":2.50}"#
        );
    }

    #[test]
    fn numbers_are_read_as_the_patch_or_the_text_before_wrote_them() {
        let value: Value =
            serde_json::from_str(r#"{"n":[-0,-0.0,1e0,1E+2,0.10],"o":-0.0,"p":-0}"#).unwrap();
        let data = tokens("/data");
        // Sent by a strategic merge patch: read by Go's JSON decoder, integers first.
        let patch: Arc<[u8]> = br#"{"data":{"n":[-0,-0.0,1e0,1E+2,0.10]}}"#.as_slice().into();
        let body = PatchBody::Strategic(patch);
        assert_eq!(
            as_go_map(Some(r#"{"o":-0.0,"p":-0}"#), &value, Some(&body), &data),
            r#"{"n":[0,-0,1,100,0.1],"o":-0,"p":0}"#
        );
        // The patch's literal wins over the text before.
        let patch: Arc<[u8]> = br#"{"data":{"o":-0,"p":-0.0}}"#.as_slice().into();
        let swapped: Value = serde_json::from_str(r#"{"o":-0,"p":-0.0}"#).unwrap();
        assert_eq!(
            as_go_map(
                Some(r#"{"o":-0.0,"p":-0}"#),
                &swapped,
                Some(&PatchBody::Strategic(patch)),
                &data
            ),
            r#"{"o":0,"p":-0}"#
        );
        // Sent by an apply: read as YAML, whole floats in int64's range are integers.
        let applied = PatchBody::Apply(Arc::new(serde_json::json!({"data": value.clone()})));
        assert_eq!(
            as_go_map(Some(r#"{"o":-0.0}"#), &value, Some(&applied), &data),
            r#"{"n":[0,0,1,100,0.1],"o":0,"p":0}"#
        );
        let big: Value =
            serde_json::from_str("[12345678901234567890,1e21,-1e-7,9223372036854775807]").unwrap();
        let applied = PatchBody::Apply(Arc::new(serde_json::json!({"data": big.clone()})));
        assert_eq!(
            as_go_map(None, &big, Some(&applied), &data),
            "[12345678901234567000,1e+21,-1e-7,9223372036854775807]"
        );
        // Not sent: read from the text before.
        assert_eq!(
            as_go_map(Some(r#"{"o":-0.0,"p":-0}"#), &value, None, &data),
            r#"{"n":[-0,-0,1,100,0.1],"o":-0,"p":0}"#
        );
    }
}
