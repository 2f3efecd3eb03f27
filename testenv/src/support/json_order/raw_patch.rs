//! The text a merge patch or a JSON patch leaves in a raw value (`runtime.RawExtension`).
//!
//! kube-apiserver applies both patch types with evanphx/json-patch (v4), which holds the
//! object as lazy nodes: a value stays the bytes it was read from until the patch looks
//! inside it, then becomes a Go map (its keys sorted when written again, repeated keys
//! gone) or a list of such nodes. So a patch that writes into a raw value keeps the numbers,
//! escapes and member order of everything it does not open, and sorts the objects it opens.
//! A merge patch also opens every object it adds where nothing (or no object) was, dropping
//! their `null` members ("pruning"); a JSON patch adds its values as written.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::support::{go_encode, go_json};

/// The body of a patch that keeps what it does not open.
#[derive(Debug, Clone)]
pub enum PatchBody {
    /// A JSON merge patch.
    Merge(Arc<[u8]>),
    /// A JSON patch.
    Json(Arc<[u8]>),
}

/// The text the patch `body` leaves in the raw value at `tokens`, whose text before was
/// `old`, if the patch writes there and the text reads as `value` (the value the write
/// stored); `None` otherwise (the value keeps its text, or is written as Go writes a map).
pub fn text_after(body: &PatchBody, old: &str, tokens: &[String], value: &Value) -> Option<String> {
    let text = match body {
        PatchBody::Merge(patch) => after_merge_patch(Some(old), patch, tokens)?,
        PatchBody::Json(patch) => match after_json_patch(Some(old), patch, tokens) {
            Patched::Text(text) => text?,
            Patched::Untouched | Patched::Unknown => return None,
        },
    };
    let read: Value = serde_json::from_str(&text).ok()?;
    same_value(&read, value).then_some(text)
}

/// `value` as Go writes it from a map it read from JSON (a strategic merge patch, an apply):
/// keys sorted, and each number as read from its text in `old` (the value's text before)
/// where it was there with the same value: an integer literal in `int64`'s range as that
/// integer (`-0` is `0`), any other as a float64 (`1.0` is `1`, `-0.0` is `-0`).
pub fn as_go_map(old: Option<&str>, value: &Value) -> String {
    let mut out = String::new();
    write_go(old.map(|t| Node::Raw(t.to_string())), value, &mut out);
    out
}

fn write_go(old: Option<Node>, value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut members = old.and_then(|n| n.into_doc().ok()).unwrap_or_default();
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_encode::string(key, out);
                out.push(':');
                write_go(members.remove(key.as_str()), &map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            let mut elements = match old.and_then(Node::into_container) {
                Some(Node::Ary(elements)) => elements.into_iter().map(Some).collect(),
                _ => Vec::new(),
            };
            elements.resize(items.len(), None);
            out.push('[');
            for (i, (item, old)) in items.iter().zip(elements).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go(old, item, out);
            }
            out.push(']');
        }
        Value::Number(n) => {
            let literal = match old {
                Some(Node::Raw(text)) => Some(text.trim().to_string()),
                _ => None,
            };
            let read = literal
                .filter(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| same_value(&v, value)));
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

/// A value as evanphx/json-patch holds it.
#[derive(Debug, Clone)]
enum Node {
    /// Not looked into: the bytes read.
    Raw(String),
    /// A JSON `null` inside an opened object or list (a nil node).
    Null,
    /// An opened object: a Go map.
    Doc(BTreeMap<String, Node>),
    /// An opened list.
    Ary(Vec<Node>),
}

/// The members of the object `text` (raw values; a repeated key keeps its last value).
fn members(text: &str) -> Option<BTreeMap<String, Node>> {
    let doc = text.as_bytes();
    let mut i = go_json::skip_space(doc, 0);
    (doc.get(i)? == &b'{').then_some(())?;
    let mut out = BTreeMap::new();
    i = go_json::skip_space(doc, i + 1);
    if doc.get(i)? == &b'}' {
        return Some(out);
    }
    loop {
        i = go_json::skip_space(doc, i);
        let key_end = go_json::string_end(doc, i + 1).ok()?;
        let key: String = serde_json::from_slice(&doc[i..key_end]).ok()?;
        i = go_json::skip_space(doc, key_end);
        (doc.get(i)? == &b':').then_some(())?;
        let start = go_json::skip_space(doc, i + 1);
        let end = go_json::value_end(doc, start)?;
        out.insert(key, node(&text[start..end]));
        i = go_json::skip_space(doc, end);
        match doc.get(i)? {
            b',' => i += 1,
            b'}' => return Some(out),
            _ => return None,
        }
    }
}

/// The elements of the list `text` (raw values).
fn elements(text: &str) -> Option<Vec<Node>> {
    let doc = text.as_bytes();
    let mut i = go_json::skip_space(doc, 0);
    (doc.get(i)? == &b'[').then_some(())?;
    let mut out = Vec::new();
    i = go_json::skip_space(doc, i + 1);
    if doc.get(i)? == &b']' {
        return Some(out);
    }
    loop {
        let start = go_json::skip_space(doc, i);
        let end = go_json::value_end(doc, start)?;
        out.push(node(&text[start..end]));
        i = go_json::skip_space(doc, end);
        match doc.get(i)? {
            b',' => i += 1,
            b']' => return Some(out),
            _ => return None,
        }
    }
}

/// A value read inside an object or list: `null` is a nil node.
fn node(text: &str) -> Node {
    if text.trim() == "null" {
        Node::Null
    } else {
        Node::Raw(text.to_string())
    }
}

fn first_byte(text: &str) -> Option<u8> {
    let doc = text.as_bytes();
    doc.get(go_json::skip_space(doc, 0)).copied()
}

impl Node {
    /// The node opened as an object, if it is one.
    fn into_doc(self) -> Result<BTreeMap<String, Node>, Node> {
        match self {
            Node::Doc(map) => Ok(map),
            Node::Raw(text) if first_byte(&text) == Some(b'{') => {
                members(&text).ok_or(Node::Raw(text))
            }
            other => Err(other),
        }
    }

    /// The node opened as a container (an object or a list), or itself when it is none.
    fn open(self) -> Result<Node, Node> {
        match self {
            Node::Raw(text) => {
                let opened = match first_byte(&text) {
                    Some(b'{') => members(&text).map(Node::Doc),
                    Some(b'[') => elements(&text).map(Node::Ary),
                    _ => None,
                };
                opened.ok_or(Node::Raw(text))
            }
            Node::Null => Err(Node::Null),
            container => Ok(container),
        }
    }

    /// The node opened as a container (an object or a list), if it is one.
    fn into_container(self) -> Option<Node> {
        self.open().ok()
    }

    /// The node as Go's encoder writes it: raw bytes compacted, maps with their keys sorted.
    fn write(&self, out: &mut String) {
        match self {
            Node::Raw(text) => out.push_str(&go_json::compact(text.as_bytes())),
            Node::Null => out.push_str("null"),
            Node::Doc(map) => {
                out.push('{');
                for (i, (key, value)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    go_encode::string(key, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
            Node::Ary(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
        }
    }

    fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// The node with every object and list under it opened, as comparing it does.
    fn opened(self) -> Node {
        match self.open() {
            Ok(Node::Doc(map)) => {
                Node::Doc(map.into_iter().map(|(k, v)| (k, v.opened())).collect())
            }
            Ok(Node::Ary(items)) => Node::Ary(items.into_iter().map(Node::opened).collect()),
            Ok(other) | Err(other) => other,
        }
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

/// The value at `token` of the container `text` (a member or an element).
fn child(text: &str, token: &str) -> Option<Node> {
    match first_byte(text)? {
        b'{' => members(text)?.remove(token),
        b'[' => {
            let index: usize = token.parse().ok()?;
            elements(text)?.into_iter().nth(index)
        }
        _ => None,
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

/// What a JSON patch leaves of a raw value.
#[derive(Debug, PartialEq)]
pub enum Patched {
    /// The patch does not write it: it keeps its text.
    Untouched,
    /// Its text after the patch, or `None` when the patch removes it.
    Text(Option<String>),
    /// A patch this model does not follow (it moves the value, or reaches it through a list
    /// whose indices it shifts).
    Unknown,
}

/// One operation of a JSON patch: its name, path, `from` and value text.
struct Operation {
    op: String,
    path: Vec<String>,
    from: Option<Vec<String>>,
    value: Option<String>,
}

/// The tokens of a JSON pointer (`~1` is `/`, `~0` is `~`).
fn pointer(text: &str) -> Option<Vec<String>> {
    let rest = text.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

fn operations(patch: &[u8]) -> Option<Vec<Operation>> {
    let text = std::str::from_utf8(patch).ok()?;
    let string = |map: &BTreeMap<String, Node>, key: &str| match map.get(key) {
        Some(Node::Raw(raw)) => serde_json::from_str::<String>(raw).ok(),
        _ => None,
    };
    elements(text)?
        .into_iter()
        .map(|op| {
            let map = op.into_doc().ok()?;
            Some(Operation {
                op: string(&map, "op")?,
                path: pointer(&string(&map, "path")?)?,
                from: string(&map, "from").and_then(|f| pointer(&f)),
                value: map.get("value").map(Node::text),
            })
        })
        .collect()
}

/// The container holding `rest` (the path below the raw value), opened on the way.
fn container<'a>(root: &'a mut Node, rest: &[String]) -> Option<&'a mut Node> {
    let mut at = root;
    for token in rest {
        let taken = std::mem::replace(at, Node::Null);
        *at = taken.into_container()?;
        at = match at {
            Node::Doc(map) => map.get_mut(token)?,
            Node::Ary(items) => items.get_mut(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    let taken = std::mem::replace(at, Node::Null);
    *at = taken.into_container()?;
    Some(at)
}

/// Applies `op` at `rest` (non-empty) inside the raw value `root`.
fn apply_inside(root: &mut Node, op: &str, rest: &[String], value: Option<Node>) -> Option<()> {
    let (last, parents) = rest.split_last()?;
    let at = container(root, parents)?;
    match (op, at) {
        ("add" | "replace", Node::Doc(map)) => {
            map.insert(last.clone(), value?);
        }
        ("remove", Node::Doc(map)) => {
            map.remove(last)?;
        }
        ("test", Node::Doc(map)) => {
            let found = map.remove(last)?;
            map.insert(last.clone(), found.opened());
        }
        ("add", Node::Ary(items)) if last == "-" => items.push(value?),
        ("add", Node::Ary(items)) => {
            let index: usize = last.parse().ok()?;
            (index <= items.len()).then_some(())?;
            items.insert(index, value?);
        }
        ("replace", Node::Ary(items)) => {
            *items.get_mut(last.parse::<usize>().ok()?)? = value?;
        }
        ("remove", Node::Ary(items)) => {
            let index: usize = last.parse().ok()?;
            (index < items.len()).then_some(())?;
            items.remove(index);
        }
        ("test", Node::Ary(items)) => {
            let item = items.get_mut(last.parse::<usize>().ok()?)?;
            let taken = std::mem::replace(item, Node::Null);
            *item = taken.opened();
        }
        _ => return None,
    }
    Some(())
}

/// Removes and returns the node at `rest` (non-empty) inside `root`.
fn take_inside(root: &mut Node, rest: &[String]) -> Option<Node> {
    let (last, parents) = rest.split_last()?;
    match container(root, parents)? {
        Node::Doc(map) => map.remove(last),
        Node::Ary(items) => {
            let index: usize = last.parse().ok()?;
            (index < items.len()).then(|| items.remove(index))
        }
        _ => None,
    }
}

/// The node at `rest` inside the value `text`, not opened.
fn raw_at(text: &str, rest: &[String]) -> Option<Node> {
    let mut at = Node::Raw(text.to_string());
    for token in rest {
        at = match at {
            Node::Raw(text) => child(&text, token)?,
            _ => return None,
        };
    }
    Some(at)
}

/// The text a JSON patch (`patch`, the request body) leaves in the raw value at `tokens`,
/// whose text before was `old` (`None` when unset).
pub fn after_json_patch(old: Option<&str>, patch: &[u8], tokens: &[String]) -> Patched {
    let Some(ops) = operations(patch) else {
        return Patched::Unknown;
    };
    let mut field = old.map(|t| Node::Raw(t.to_string()));
    let mut touched = false;
    let inside = |path: &[String]| path.strip_prefix(tokens).map(<[String]>::to_vec);
    for op in ops {
        let value = op.value.as_deref().map(|t| Node::Raw(t.to_string()));
        let below = inside(&op.path);
        let from_below = op.from.as_deref().and_then(inside);
        let step = match (op.op.as_str(), below) {
            // Moved or copied from within the value to within it.
            ("move" | "copy", Some(rest)) => {
                let (Some(from), Some(root)) = (from_below, field.as_mut()) else {
                    return Patched::Unknown;
                };
                let moved = if op.op == "move" {
                    take_inside(root, &from)
                } else {
                    raw_at(&Node::text(root), &from).map(|n| Node::Raw(n.text()))
                };
                match moved {
                    Some(node) if rest.is_empty() => {
                        field = Some(node);
                        Some(())
                    }
                    Some(node) => apply_inside(root, "add", &rest, Some(node)),
                    None => None,
                }
            }
            (_, Some(rest)) if rest.is_empty() => match op.op.as_str() {
                "add" | "replace" => {
                    field = value;
                    Some(())
                }
                "remove" => {
                    field = None;
                    Some(())
                }
                "test" => {
                    field = field.take().map(Node::opened);
                    Some(())
                }
                _ => None,
            },
            (name, Some(rest)) => field
                .as_mut()
                .and_then(|root| apply_inside(root, name, &rest, value)),
            // A whole value written over an object holding the raw value.
            ("add" | "replace", None) if tokens.starts_with(&op.path) => {
                let rest = &tokens[op.path.len()..];
                field = op.value.as_deref().and_then(|t| raw_at(t, rest));
                Some(())
            }
            ("remove", None) if tokens.starts_with(&op.path) => {
                field = None;
                Some(())
            }
            (_, None) if from_below.is_some() || shifts(&op.path, tokens) => None,
            _ => continue,
        };
        if step.is_none() {
            return Patched::Unknown;
        }
        touched = true;
    }
    if touched {
        Patched::Text(field.map(|n| n.text()))
    } else {
        Patched::Untouched
    }
}

/// Whether an operation at `path` outside the raw value at `tokens` may move it: it adds or
/// removes an element of a list on its way, or tests or moves something holding it.
fn shifts(path: &[String], tokens: &[String]) -> bool {
    let Some((last, parent)) = path.split_last() else {
        return true;
    };
    let index = |t: &str| t == "-" || t.parse::<usize>().is_ok();
    let in_list = tokens.starts_with(parent) && tokens.get(parent.len()).is_some_and(|t| index(t));
    tokens.starts_with(path) || (in_list && index(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(path: &str) -> Vec<String> {
        pointer(path).unwrap()
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
    fn a_json_patch_opens_the_containers_on_its_paths() {
        let json = |patch: &str| after_json_patch(Some(OLD), patch.as_bytes(), &tokens("/data"));
        let text = |t: &str| Patched::Text(Some(t.to_string()));
        assert_eq!(
            json(r#"[{"op":"replace","path":"/revision","value":3}]"#),
            Patched::Untouched
        );
        assert_eq!(
            json(r#"[{"op":"add","path":"/data/b/m/1/n","value":1.0}]"#),
            text(
                r#"{"a":{"k":1.0,"j":2},"arr":[3,1.10],"b":{"a":-0,"m":[1.0,{"c":1,"n":1.0,"q":2},null],"y":1e3},"s":"\u003c\u0041\u003e","z":7}"#
            )
        );
        assert_eq!(
            json(r#"[{"op":"copy","from":"/data/b","path":"/data/c"}]"#),
            text(
                r#"{"a":{"k":1.0,"j":2},"arr":[3,1.10],"b":{"y":1e3,"a":-0,"m":[1.0,{"q":2,"c":1},null]},"c":{"y":1e3,"a":-0,"m":[1.0,{"q":2,"c":1},null]},"s":"\u003c\u0041\u003e","z":7}"#
            )
        );
        assert_eq!(
            json(r#"[{"op":"replace","path":"/data","value":{"b":1, "a":1.0}}]"#),
            text(r#"{"b":1,"a":1.0}"#)
        );
    }
}
