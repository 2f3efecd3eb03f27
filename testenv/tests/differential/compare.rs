//! Field-by-field comparison of two normalized answers; a YAML answer is also compared as text, line by line.

use serde_json::Value;

use crate::corpus::Step;
use crate::normalize::{sort_entries, sort_managed_fields};
use crate::send::Answer;

/// One difference: where, and what each server had there.
#[derive(Debug)]
pub struct Difference {
    /// `code`, `warnings` or a JSON pointer into the body.
    pub at: String,
    /// The embedded server's value.
    pub embedded: Value,
    /// The real server's value.
    pub real: Value,
}

/// The part of a body a step compares (with `whole`, all of it, as if the step had no `pick`).
fn scope(step: &Step, body: &Value, whole: bool) -> Value {
    // Whole managedFields lists (in a whole body, under a picked object, or picked
    // themselves) are compared without their seconds' order; entries picked by index keep it.
    let picked = |p: &String| {
        let mut value = body.pointer(p).cloned().unwrap_or(Value::Null);
        if p.ends_with("/managedFields")
            && let Value::Array(entries) = &mut value
        {
            sort_entries(entries);
        } else if !p.contains("/managedFields/") {
            sort_managed_fields(&mut value);
        }
        (p.clone(), value)
    };
    let mut body = if step.pick.is_empty() || whole {
        let mut whole = body.clone();
        sort_managed_fields(&mut whole);
        whole
    } else {
        Value::Object(step.pick.iter().map(picked).collect())
    };
    for pointer in &step.ignore {
        remove(&mut body, pointer);
    }
    body
}

fn remove(v: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match v.pointer_mut(parent) {
        Some(Value::Object(m)) => {
            m.remove(&last);
        }
        Some(Value::Array(items)) if last == "*" => {
            items.clear();
        }
        _ => {}
    }
}

/// Every difference between the answers of the two servers to `step`.
pub fn compare(step: &Step, embedded: &Answer, real: &Answer) -> Vec<Difference> {
    differences(step, embedded, real, false)
}

/// Every difference between the whole answers to `step`, its `pick` left aside (its `ignore`
/// still applies): what the pick hides, for `KUBEFORGE_DIFF_NOPICK=1`.
pub fn compare_whole(step: &Step, embedded: &Answer, real: &Answer) -> Vec<Difference> {
    differences(step, embedded, real, true)
}

fn differences(step: &Step, embedded: &Answer, real: &Answer, whole: bool) -> Vec<Difference> {
    let mut out = Vec::new();
    if embedded.code != real.code {
        out.push(Difference {
            at: "code".into(),
            embedded: embedded.code.into(),
            real: real.code.into(),
        });
    }
    if embedded.warnings != real.warnings {
        out.push(Difference {
            at: "warnings".into(),
            embedded: embedded.warnings.clone().into(),
            real: real.warnings.clone().into(),
        });
    }
    for name in &step.compare_headers {
        let (e, r) = (embedded.headers.get(name), real.headers.get(name));
        if e != r {
            out.push(Difference {
                at: format!("header {name}"),
                embedded: e.cloned().unwrap_or_default().into(),
                real: r.cloned().unwrap_or_default().into(),
            });
        }
    }
    // A step that picks parts compares only them.
    if (step.pick.is_empty() || whole) && embedded.yaml != real.yaml {
        out.push(yaml_difference(
            embedded.yaml.as_deref(),
            real.yaml.as_deref(),
        ));
    }
    diff(
        "",
        &scope(step, &embedded.body, whole),
        &scope(step, &real.body, whole),
        &mut out,
    );
    out
}

fn diff(at: &str, a: &Value, b: &Value, out: &mut Vec<Difference>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let path = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                diff(
                    &path,
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(&format!("{at}/{i}"), p, q, out);
            }
        }
        _ if a != b => out.push(Difference {
            at: if at.is_empty() { "/".into() } else { at.into() },
            embedded: a.clone(),
            real: b.clone(),
        }),
        _ => {}
    }
}

/// The first line where two YAML texts differ (or the absence of one).
fn yaml_difference(embedded: Option<&str>, real: Option<&str>) -> Difference {
    let (Some(e), Some(r)) = (embedded, real) else {
        return Difference {
            at: "yaml text".into(),
            embedded: embedded.map_or(Value::Null, |_| Value::from("YAML")),
            real: real.map_or(Value::Null, |_| Value::from("YAML")),
        };
    };
    let (el, rl): (Vec<&str>, Vec<&str>) = (e.split('\n').collect(), r.split('\n').collect());
    let line = (0..el.len().max(rl.len()))
        .find(|i| el.get(*i) != rl.get(*i))
        .unwrap_or_default();
    Difference {
        at: format!("yaml text, line {}", line + 1),
        embedded: el.get(line).map_or(Value::Null, |l| Value::from(*l)),
        real: rl.get(line).map_or(Value::Null, |l| Value::from(*l)),
    }
}
