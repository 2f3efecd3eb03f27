//! A value as evanphx/json-patch (v4) holds it while it patches a document: raw bytes until
//! a patch looks inside, then a Go map (`partialDoc`: keys sorted when written again, a
//! repeated key keeping its last value) or a list of such nodes (`partialArray`).

use std::collections::BTreeMap;

use crate::support::{go_encode, go_json};

/// A value as evanphx/json-patch holds it.
#[derive(Debug, Clone)]
pub(crate) enum Node {
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
pub(crate) fn members(text: &str) -> Option<BTreeMap<String, Node>> {
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
pub(crate) fn elements(text: &str) -> Option<Vec<Node>> {
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

pub(crate) fn first_byte(text: &str) -> Option<u8> {
    let doc = text.as_bytes();
    doc.get(go_json::skip_space(doc, 0)).copied()
}

impl Node {
    /// The node opened as an object, if it is one.
    pub(crate) fn into_doc(self) -> Result<BTreeMap<String, Node>, Node> {
        match self {
            Node::Doc(map) => Ok(map),
            Node::Raw(text) if first_byte(&text) == Some(b'{') => {
                members(&text).ok_or(Node::Raw(text))
            }
            other => Err(other),
        }
    }

    /// The node opened as a container (an object or a list), or itself when it is none.
    pub(crate) fn open(self) -> Result<Node, Node> {
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
    pub(crate) fn into_container(self) -> Option<Node> {
        self.open().ok()
    }

    /// The node as Go's encoder writes it: raw bytes compacted, maps with their keys sorted.
    pub(crate) fn write(&self, out: &mut String) {
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

    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// The node with every object and list under it opened, as comparing it does.
    pub(crate) fn opened(self) -> Node {
        match self.open() {
            Ok(Node::Doc(map)) => {
                Node::Doc(map.into_iter().map(|(k, v)| (k, v.opened())).collect())
            }
            Ok(Node::Ary(items)) => Node::Ary(items.into_iter().map(Node::opened).collect()),
            Ok(other) | Err(other) => other,
        }
    }
}

/// The value at `token` of the container `text` (a member or an element).
pub(crate) fn child(text: &str, token: &str) -> Option<Node> {
    match first_byte(text)? {
        b'{' => members(text)?.remove(token),
        b'[' => {
            let index: usize = token.parse().ok()?;
            elements(text)?.into_iter().nth(index)
        }
        _ => None,
    }
}
