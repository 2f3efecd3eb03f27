//! What apimachinery's `diff.Diff` prints for two Go values: both marshalled as indented
//! JSON (one space a level, struct fields in declaration order, map keys sorted), then a
//! unified diff of their lines with three lines of context, computed as `go-difflib` (a
//! port of Python's `difflib`) computes it. The real server puts it in the message of an
//! immutable spec that changed.

use std::collections::HashMap;

use serde_json::Value;

/// A Go value as `encoding/json` writes it.
pub enum GoValue {
    /// A value written as JSON writes it (maps with their keys sorted, as Go's).
    Json(Value),
    /// A struct: its fields in declaration order.
    Struct(Vec<(&'static str, GoValue)>),
    /// A list of structs.
    List(Vec<Vec<(&'static str, GoValue)>>),
}

fn escape(s: &str) -> String {
    // Go escapes the HTML characters too.
    Value::String(s.into())
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn write_json(value: &Value, depth: usize, out: &mut String) {
    let pad = |d: usize| " ".repeat(d);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                out.push_str(&format!("{}{}: ", pad(depth + 1), escape(k)));
                write_json(v, depth + 1, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            out.push_str(&format!("{}}}", pad(depth)));
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                write_json(v, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&format!("{}]", pad(depth)));
        }
        Value::String(s) => out.push_str(&escape(s)),
        other => out.push_str(&other.to_string()),
    }
}

fn write_struct(fields: &[(&'static str, GoValue)], depth: usize, out: &mut String) {
    if fields.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    for (i, (name, v)) in fields.iter().enumerate() {
        out.push_str(&format!("{}\"{name}\": ", " ".repeat(depth + 1)));
        write(v, depth + 1, out);
        out.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
    }
    out.push_str(&format!("{}}}", " ".repeat(depth)));
}

fn write(value: &GoValue, depth: usize, out: &mut String) {
    match value {
        GoValue::Json(v) => write_json(v, depth, out),
        GoValue::Struct(fields) => write_struct(fields, depth, out),
        GoValue::List(items) if items.is_empty() => out.push_str("[]"),
        GoValue::List(items) => {
            out.push_str("[\n");
            for (i, fields) in items.iter().enumerate() {
                out.push_str(&" ".repeat(depth + 1));
                write_struct(fields, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&format!("{}]", " ".repeat(depth)));
        }
    }
}

fn write_compact_json(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&escape(k));
                out.push(':');
                write_compact_json(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact_json(v, out);
            }
            out.push(']');
        }
        Value::String(s) => out.push_str(&escape(s)),
        other => out.push_str(&other.to_string()),
    }
}

fn write_compact_struct(fields: &[(&'static str, GoValue)], out: &mut String) {
    out.push('{');
    for (i, (name, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("\"{name}\":"));
        write_compact(v, out);
    }
    out.push('}');
}

fn write_compact(value: &GoValue, out: &mut String) {
    match value {
        GoValue::Json(v) => write_compact_json(v, out),
        GoValue::Struct(fields) => write_compact_struct(fields, out),
        GoValue::List(items) => {
            out.push('[');
            for (i, fields) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact_struct(fields, out);
            }
            out.push(']');
        }
    }
}

/// `json.Marshal(value)`: how a field error prints a Go struct value.
pub fn marshal(value: &GoValue) -> String {
    let mut out = String::new();
    write_compact(value, &mut out);
    out
}

/// `json.MarshalIndent(value, "", " ")`.
pub fn marshal_indent(value: &GoValue) -> String {
    let mut out = String::new();
    write(value, 0, &mut out);
    out
}

/// `difflib.SplitLines`: the lines with their newline, the last one given one.
fn split_lines(s: &str) -> Vec<String> {
    let mut lines: Vec<String> = s.split_inclusive('\n').map(str::to_string).collect();
    if s.is_empty() || s.ends_with('\n') {
        lines.push(String::new());
    }
    if let Some(last) = lines.last_mut() {
        last.push('\n');
    }
    lines
}

type Block = (usize, usize, usize);

/// `SequenceMatcher.find_longest_match` (no junk: the lists are short).
fn longest_match(
    a: &[String],
    b2j: &HashMap<&str, Vec<usize>>,
    (alo, ahi, blo, bhi): (usize, usize, usize, usize),
) -> Block {
    let (mut besti, mut bestj, mut best) = (alo, blo, 0);
    let mut j2len: HashMap<usize, usize> = HashMap::new();
    for (i, line) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next = HashMap::new();
        for &j in b2j.get(line.as_str()).into_iter().flatten() {
            if j < blo {
                continue;
            }
            if j >= bhi {
                break;
            }
            let k = j.checked_sub(1).and_then(|p| j2len.get(&p)).unwrap_or(&0) + 1;
            next.insert(j, k);
            if k > best {
                (besti, bestj, best) = (i + 1 - k, j + 1 - k, k);
            }
        }
        j2len = next;
    }
    (besti, bestj, best)
}

/// `SequenceMatcher.get_matching_blocks`, ending with the `(len a, len b, 0)` sentinel.
fn matching_blocks(a: &[String], b: &[String]) -> Vec<Block> {
    let mut b2j: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, line) in b.iter().enumerate() {
        b2j.entry(line.as_str()).or_default().push(j);
    }
    let mut queue = vec![(0, a.len(), 0, b.len())];
    let mut blocks = Vec::new();
    while let Some(range) = queue.pop() {
        let (alo, ahi, blo, bhi) = range;
        let (i, j, k) = longest_match(a, &b2j, range);
        if k > 0 {
            blocks.push((i, j, k));
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    blocks.sort_unstable();
    let mut merged: Vec<Block> = Vec::new();
    for (i, j, k) in blocks {
        match merged.last_mut() {
            Some((pi, pj, pk)) if *pi + *pk == i && *pj + *pk == j => *pk += k,
            _ => merged.push((i, j, k)),
        }
    }
    merged.push((a.len(), b.len(), 0));
    merged
}

#[derive(Clone, Copy, PartialEq)]
enum Tag {
    Equal,
    Replace,
    Delete,
    Insert,
}

type OpCode = (Tag, usize, usize, usize, usize);

/// `SequenceMatcher.get_opcodes`.
fn opcodes(a: &[String], b: &[String]) -> Vec<OpCode> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    for (ai, bj, size) in matching_blocks(a, b) {
        let tag = match (i < ai, j < bj) {
            (true, true) => Some(Tag::Replace),
            (true, false) => Some(Tag::Delete),
            (false, true) => Some(Tag::Insert),
            (false, false) => None,
        };
        if let Some(tag) = tag {
            out.push((tag, i, ai, j, bj));
        }
        (i, j) = (ai + size, bj + size);
        if size > 0 {
            out.push((Tag::Equal, ai, i, bj, j));
        }
    }
    out
}

/// `SequenceMatcher.get_grouped_opcodes(n)`.
fn grouped(a: &[String], b: &[String], n: usize) -> Vec<Vec<OpCode>> {
    let mut codes = opcodes(a, b);
    if codes.is_empty() {
        codes.push((Tag::Equal, 0, 1, 0, 1));
    }
    if let Some(first) = codes.first_mut().filter(|c| c.0 == Tag::Equal) {
        let (t, i1, i2, j1, j2) = *first;
        *first = (
            t,
            i1.max(i2.saturating_sub(n)),
            i2,
            j1.max(j2.saturating_sub(n)),
            j2,
        );
    }
    if let Some(last) = codes.last_mut().filter(|c| c.0 == Tag::Equal) {
        let (t, i1, i2, j1, j2) = *last;
        *last = (t, i1, i2.min(i1 + n), j1, j2.min(j1 + n));
    }
    let mut groups = Vec::new();
    let mut group = Vec::new();
    for (tag, mut i1, i2, mut j1, j2) in codes {
        if tag == Tag::Equal && i2 - i1 > 2 * n {
            group.push((tag, i1, i2.min(i1 + n), j1, j2.min(j1 + n)));
            groups.push(std::mem::take(&mut group));
            (i1, j1) = (i1.max(i2.saturating_sub(n)), j1.max(j2.saturating_sub(n)));
        }
        group.push((tag, i1, i2, j1, j2));
    }
    let only_equal = group.len() == 1 && group[0].0 == Tag::Equal;
    if !group.is_empty() && !only_equal {
        groups.push(group);
    }
    groups
}

fn range(start: usize, stop: usize) -> String {
    match stop - start {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        length => format!("{},{length}", start + 1),
    }
}

/// `diff.Diff(a, b)`: the unified diff of the two values as indented JSON.
pub fn diff(a: &GoValue, b: &GoValue) -> String {
    let a = split_lines(&marshal_indent(a));
    let b = split_lines(&marshal_indent(b));
    let mut out = String::new();
    for group in grouped(&a, &b, 3) {
        let (first, last) = (group[0], group[group.len() - 1]);
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(first.1, last.2),
            range(first.3, last.4)
        ));
        for (tag, i1, i2, j1, j2) in group {
            if tag == Tag::Equal {
                a[i1..i2]
                    .iter()
                    .for_each(|l| out.push_str(&format!(" {l}")));
                continue;
            }
            if matches!(tag, Tag::Replace | Tag::Delete) {
                a[i1..i2]
                    .iter()
                    .for_each(|l| out.push_str(&format!("-{l}")));
            }
            if matches!(tag, Tag::Replace | Tag::Insert) {
                b[j1..j2]
                    .iter()
                    .for_each(|l| out.push_str(&format!("+{l}")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(mode: &str) -> GoValue {
        GoValue::Struct(vec![
            ("AccessModes", GoValue::Json(json!([mode]))),
            ("Selector", GoValue::Json(Value::Null)),
            (
                "Resources",
                GoValue::Struct(vec![
                    ("Limits", GoValue::Json(Value::Null)),
                    ("Requests", GoValue::Json(json!({"storage": "1Gi"}))),
                ]),
            ),
            ("VolumeName", GoValue::Json(json!(""))),
        ])
    }

    #[test]
    fn a_changed_line_with_three_lines_of_context() {
        assert_eq!(
            diff(&spec("ReadWriteOnce"), &spec("ReadWriteMany")),
            "@@ -1,6 +1,6 @@\n {\n  \"AccessModes\": [\n-  \"ReadWriteOnce\"\n+  \"ReadWriteMany\"\n  ],\n  \"Selector\": null,\n  \"Resources\": {\n"
        );
        assert_eq!(diff(&spec("a"), &spec("a")), "");
    }

    #[test]
    fn compact_as_json_marshal() {
        assert_eq!(
            marshal(&spec("<a>")),
            "{\"AccessModes\":[\"\\u003ca\\u003e\"],\"Selector\":null,\"Resources\":{\"Limits\":null,\"Requests\":{\"storage\":\"1Gi\"}},\"VolumeName\":\"\"}"
        );
        assert_eq!(marshal(&GoValue::List(vec![vec![], vec![]])), "[{},{}]");
    }

    #[test]
    fn lines_are_split_as_difflib_does() {
        assert_eq!(split_lines("a\nb"), ["a\n", "b\n"]);
        assert_eq!(split_lines("a\n"), ["a\n", "\n"]);
    }
}
