//! A JSON patch applied to a whole object as kube-apiserver applies it (evanphx/json-patch
//! v4), for the bytes it leaves in raw values (`runtime.RawExtension`).
//!
//! The patch works on lazy nodes ([`Node`]): each container on an operation's path is
//! opened (a list into a list of nodes, an object into a Go map), and the rest keeps the
//! bytes it was read from. So a list item added, removed, moved or replaced on the way to a
//! raw value leaves the raw value's bytes alone (only compacted), while an object opened
//! inside it is written again with its keys sorted; `copy` writes its source again (raw
//! bytes compacted, opened objects sorted) and `test` opens all it compares. The patched
//! document is then written as Go writes the root map.

use std::collections::BTreeMap;

use crate::support::json_order::raw_node::{Node, elements};

/// One operation of a JSON patch: its name, path, `from` and value.
struct Operation {
    op: String,
    path: Option<String>,
    from: Option<String>,
    value: Option<Node>,
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
                path: string(&map, "path"),
                from: string(&map, "from"),
                value: map.get("value").cloned(),
            })
        })
        .collect()
}

/// A pointer split as evanphx splits it: the containers on the way and the last key
/// (`~1` is `/`, `~0` is `~`); `None` for a pointer without a `/`.
fn split(pointer: &str) -> Option<(Vec<String>, String)> {
    let decode = |t: &str| t.replace("~1", "/").replace("~0", "~");
    let mut tokens: Vec<String> = pointer.split('/').skip(1).map(decode).collect();
    let key = tokens.pop()?;
    Some((tokens, key))
}

/// Go's `strconv.Atoi` of a list index.
fn atoi(key: &str) -> Option<i64> {
    key.parse().ok()
}

/// The index `key` of a list of `len` items, negative indices counting from the end.
fn index(key: &str, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let i = atoi(key)?;
    let i = if i < 0 { i + len } else { i };
    (0..len).contains(&i).then(|| usize::try_from(i).ok())?
}

/// The container holding the last key of a pointer, each container on the way opened.
fn find_object<'a>(root: &'a mut Node, parts: &[String]) -> Option<&'a mut Node> {
    let mut at = root;
    for part in parts {
        let next = match at {
            Node::Doc(map) => map.get_mut(part)?,
            Node::Ary(items) => {
                let i = index(part, items.len())?;
                &mut items[i]
            }
            _ => return None,
        };
        if matches!(next, Node::Raw(_)) {
            let taken = std::mem::replace(next, Node::Null);
            *next = taken.open().ok()?;
        }
        if !matches!(next, Node::Doc(_) | Node::Ary(_)) {
            return None;
        }
        at = next;
    }
    Some(at)
}

/// `get`: a map's member (a missing one is nil), a list's item.
fn get<'a>(con: &'a mut Node, key: &str) -> Option<Option<&'a mut Node>> {
    match con {
        Node::Doc(map) => Some(map.get_mut(key)),
        Node::Ary(items) => {
            let i = index(key, items.len())?;
            Some(Some(&mut items[i]))
        }
        _ => None,
    }
}

fn add(con: &mut Node, key: &str, value: Node) -> Option<()> {
    match con {
        Node::Doc(map) => {
            map.insert(key.to_string(), value);
        }
        Node::Ary(items) if key == "-" => items.push(value),
        Node::Ary(items) => {
            let size = i64::try_from(items.len()).ok()? + 1;
            let i = atoi(key)?;
            let i = if i < 0 { i + size } else { i };
            (0..size).contains(&i).then_some(())?;
            items.insert(usize::try_from(i).ok()?, value);
        }
        _ => return None,
    }
    Some(())
}

fn remove(con: &mut Node, key: &str) -> Option<Node> {
    match con {
        Node::Doc(map) => map.remove(key),
        Node::Ary(items) => {
            let i = index(key, items.len())?;
            Some(items.remove(i))
        }
        _ => None,
    }
}

/// Applies one operation to the document `root`; `None` when it fails.
fn apply(root: &mut Node, op: Operation) -> Option<()> {
    let (parts, key) = split(op.path.as_deref()?)?;
    let value = || op.value.clone().unwrap_or(Node::Null);
    match op.op.as_str() {
        "add" => add(find_object(root, &parts)?, &key, value()),
        "remove" => remove(find_object(root, &parts)?, &key).map(drop),
        "replace" => {
            let con = find_object(root, &parts)?;
            match get(con, &key)? {
                Some(at) => *at = value(),
                None => add(con, &key, value())?,
            }
            Some(())
        }
        "move" | "copy" => {
            let (from_parts, from_key) = split(op.from.as_deref()?)?;
            let con = find_object(root, &from_parts)?;
            let moved = if op.op == "move" {
                get(con, &from_key)?;
                remove(con, &from_key)?
            } else {
                // A deep copy: the source written again, read back as raw bytes.
                match get(con, &from_key)? {
                    Some(Node::Null) | None => Node::Null,
                    Some(node) => Node::Raw(node.text()),
                }
            };
            add(find_object(root, &parts)?, &key, moved)
        }
        "test" => {
            // Comparing opens every container of the value tested.
            let con = find_object(root, &parts)?;
            if let Some(at) = get(con, &key)? {
                let taken = std::mem::replace(at, Node::Null);
                *at = taken.opened();
            }
            Some(())
        }
        _ => None,
    }
}

/// The document `doc` (an object's JSON as the real server writes it) after the JSON patch
/// `patch`, as kube-apiserver's patcher writes it; `None` when the patch does not apply
/// (the request fails) or is not one this model follows.
pub fn patched_document(doc: &str, patch: &[u8]) -> Option<String> {
    let mut root = Node::Raw(doc.to_string()).open().ok()?;
    for op in operations(patch)? {
        apply(&mut root, op)?;
    }
    Some(root.text())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{"kind":"DeviceClass","spec":{"config":[{"opaque":{"driver":"d","parameters":{"z":1.50,"b":[1.0,{"q":2,"c":1}],"s":"<"}}},{"opaque":{"driver":"d","parameters":{"y":-0,"a":1E2}}}]}}"#;

    fn patched(patch: &str) -> String {
        patched_document(DOC, patch.as_bytes()).expect("applies")
    }

    #[test]
    fn list_items_added_removed_or_moved_on_the_way_keep_the_raw_bytes() {
        let first = r#"{"opaque":{"driver":"d","parameters":{"z":1.50,"b":[1.0,{"q":2,"c":1}],"s":"\u003c"}}}"#;
        let second = r#"{"opaque":{"driver":"d","parameters":{"y":-0,"a":1E2}}}"#;
        assert_eq!(
            patched(
                r#"[{"op":"add","path":"/spec/config/0","value":{"opaque":{"parameters":{"n": 1.0, "b":2}}}}]"#
            ),
            format!(
                r#"{{"kind":"DeviceClass","spec":{{"config":[{{"opaque":{{"parameters":{{"n":1.0,"b":2}}}}}},{first},{second}]}}}}"#
            )
        );
        assert_eq!(
            patched(r#"[{"op":"remove","path":"/spec/config/0"}]"#),
            format!(r#"{{"kind":"DeviceClass","spec":{{"config":[{second}]}}}}"#)
        );
        assert_eq!(
            patched(r#"[{"op":"move","from":"/spec/config/0","path":"/spec/config/-"}]"#),
            format!(r#"{{"kind":"DeviceClass","spec":{{"config":[{second},{first}]}}}}"#)
        );
        // A negative index counts from the end; copying writes the source again.
        assert_eq!(
            patched(
                r#"[{"op":"add","path":"/spec/config/1/opaque/parameters/x","value":1},{"op":"copy","from":"/spec/config/-1","path":"/spec/config/0"}]"#
            ),
            concat!(
                r#"{"kind":"DeviceClass","spec":{"config":["#,
                r#"{"opaque":{"driver":"d","parameters":{"a":1E2,"x":1,"y":-0}}},"#,
                r#"{"opaque":{"driver":"d","parameters":{"z":1.50,"b":[1.0,{"q":2,"c":1}],"s":"\u003c"}}},"#,
                r#"{"opaque":{"driver":"d","parameters":{"a":1E2,"x":1,"y":-0}}}]}}"#
            )
        );
    }

    #[test]
    fn lists_inside_a_raw_value_are_opened_and_tests_open_all_they_compare() {
        let params = |text: &str| {
            let doc = patched(text);
            let start = doc.find("parameters").unwrap() + 12;
            doc[start..doc.find("}}},{").unwrap()].to_string()
        };
        assert_eq!(
            params(r#"[{"op":"add","path":"/spec/config/0/opaque/parameters/b/1","value":2.0}]"#),
            r#"{"b":[1.0,2.0,{"q":2,"c":1}],"s":"\u003c","z":1.50"#
        );
        assert_eq!(
            params(r#"[{"op":"remove","path":"/spec/config/0/opaque/parameters/b/-2"}]"#),
            r#"{"b":[{"q":2,"c":1}],"s":"\u003c","z":1.50"#
        );
        assert_eq!(
            params(
                r#"[{"op":"test","path":"/spec/config/0/opaque/parameters/b","value":[1,{"c":1,"q":2}]}]"#
            ),
            r#"{"b":[1.0,{"c":1,"q":2}],"s":"\u003c","z":1.50"#
        );
        // An index past the end, a missing member or a scalar on the way fails the patch.
        for bad in [
            r#"[{"op":"add","path":"/spec/config/3","value":1}]"#,
            r#"[{"op":"remove","path":"/spec/nothing"}]"#,
            r#"[{"op":"add","path":"/kind/x","value":1}]"#,
            r#"[{"op":"replace","path":"/spec/config/2","value":1}]"#,
        ] {
            assert_eq!(patched_document(DOC, bad.as_bytes()), None, "{bad}");
        }
    }
}
