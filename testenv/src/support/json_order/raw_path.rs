//! Paths to raw values in a document: as Go's decoder names them, as JSON pointer tokens,
//! and as the span of the value's bytes in a request body.

use crate::support::go_json;

/// One step of a path into a document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// A path as Go's decoder names it (`spec.devices.config[0].opaque.parameters`).
pub(crate) fn go_path(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The path as JSON pointer tokens (member names, list indices).
pub(crate) fn tokens(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .map(|step| match step {
            Step::Key(key) => key.clone(),
            Step::Index(i) => i.to_string(),
        })
        .collect()
}

/// The span of the value at `steps` in `doc`: the last of repeated members, as Go's
/// decoder keeps the last.
pub(crate) fn span(doc: &[u8], steps: &[Step]) -> Option<(usize, usize)> {
    let mut start = go_json::skip_space(doc, 0);
    for step in steps {
        start = match (step, doc.get(start)?) {
            (Step::Key(want), b'{') => member(doc, start + 1, want)?,
            (Step::Index(want), b'[') => element(doc, start + 1, *want)?,
            _ => return None,
        };
    }
    Some((start, go_json::value_end(doc, start)?))
}

/// The start of the value of the last member called `want` of the object whose members
/// start at `i`.
fn member(doc: &[u8], mut i: usize, want: &str) -> Option<usize> {
    let mut found = None;
    loop {
        i = go_json::skip_space(doc, i);
        if doc.get(i)? == &b'}' {
            return found;
        }
        let key_end = go_json::string_end(doc, i + 1).ok()?;
        let key: String = serde_json::from_slice(&doc[i..key_end]).ok()?;
        i = go_json::skip_space(doc, key_end);
        (doc.get(i)? == &b':').then_some(())?;
        let value = go_json::skip_space(doc, i + 1);
        if key == want {
            found = Some(value);
        }
        i = go_json::skip_space(doc, go_json::value_end(doc, value)?);
        if doc.get(i)? == &b',' {
            i += 1;
        }
    }
}

/// The start of element `want` of the array whose elements start at `i`.
fn element(doc: &[u8], mut i: usize, want: usize) -> Option<usize> {
    for _ in 0..want {
        i = go_json::skip_space(doc, go_json::value_end(doc, i)?);
        (doc.get(i)? == &b',').then_some(())?;
        i += 1;
    }
    let i = go_json::skip_space(doc, i);
    (doc.get(i)? != &b']').then_some(i)
}
