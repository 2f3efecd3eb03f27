//! The sweep: a scenario generated from valid objects of everyday kinds (`sweep/bases.yaml`),
//! each created with `dryRun=All` and then once per change of one of its fields: a string set
//! to `Bad_Value!` or emptied (base64 data also to `Bad_Value!` encoded), a number set to -1, 0
//! or 2^40, a boolean removed. The real server must accept each object as written (else its
//! changes would test nothing but that refusal). It finds the field rules the hand-written corpus does not send; what it still finds is listed in the
//! testenv README ("Not implemented (yet)"), so it runs only on request
//! (`KUBEFORGE_DIFF_SWEEP=1`) and is not part of the corpus's pass or fail.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::corpus::{Scenario, Step};

/// The name the sweep's scenario is run and reported under.
pub const NAME: &str = "sweep";

#[derive(Deserialize)]
struct Bases {
    bases: Vec<Base>,
}

/// A valid object and the collection it is created in.
#[derive(Deserialize)]
struct Base {
    path: String,
    body: Value,
}

/// What one field is changed to, by its JSON type; `None` removes it.
fn changes(value: &Value) -> Vec<Option<Value>> {
    match value {
        Value::Bool(_) => vec![None],
        Value::Number(_) => [-1i64, 0, 1 << 40]
            .into_iter()
            .map(|n| Some(Value::from(n)))
            .collect(),
        Value::String(_) => vec![Some(Value::from("Bad_Value!")), Some(Value::from(""))],
        _ => Vec::new(),
    }
}

/// `Bad_Value!` in standard base64: what a base64-encoded field is also changed to, so that
/// its decoded contents are checked and not only its encoding.
const BASE64_BAD_VALUE: &str = "QmFkX1ZhbHVlIQ==";

/// Whether the leaf at `pointer` of a `kind` holds base64-encoded bytes (a Secret's `data`, a
/// ConfigMap's `binaryData`).
fn encoded(kind: &str, pointer: &str) -> bool {
    matches!(
        (kind, pointer.split('/').nth(1)),
        ("Secret", Some("data")) | ("ConfigMap", Some("binaryData"))
    )
}

/// The JSON pointers of `value`'s scalar leaves, in document order.
fn leaves(value: &Value, at: String, out: &mut Vec<String>) {
    let escape = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                leaves(v, format!("{at}/{}", escape(k)), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                leaves(v, format!("{at}/{i}"), out);
            }
        }
        _ => out.push(at),
    }
}

/// `body` with the leaf at `pointer` set to `to` (or removed).
fn changed(body: &Value, pointer: &str, to: Option<Value>) -> Value {
    let mut out = body.clone();
    match to {
        Some(v) => {
            if let Some(slot) = out.pointer_mut(pointer) {
                *slot = v;
            }
        }
        None => {
            let (parent, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
            let last = last.replace("~1", "/").replace("~0", "~");
            match out.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.remove(&last);
                }
                Some(Value::Array(items)) => {
                    if let Ok(i) = last.parse::<usize>()
                        && i < items.len()
                    {
                        items.remove(i);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The sweep's scenario, from the bases file in `dir`.
pub fn scenario(dir: &Path) -> Result<Scenario, String> {
    let path = dir.join("bases.yaml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bases: Bases =
        serde_saphyr::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut steps = Vec::new();
    for base in bases.bases {
        let kind = base.body["kind"].as_str().unwrap_or_default().to_string();
        let create = |body: Value, note: String| Step {
            method: "POST".into(),
            path: format!("{}?dryRun=All", base.path),
            body: Some(body),
            note: Some(note),
            ..Step::default()
        };
        steps.push(Step {
            must_succeed: true,
            ..create(base.body.clone(), format!("{kind} as written"))
        });
        let mut pointers = Vec::new();
        leaves(&base.body, String::new(), &mut pointers);
        for pointer in pointers {
            if matches!(pointer.as_str(), "/apiVersion" | "/kind" | "/metadata/name") {
                continue;
            }
            let Some(value) = base.body.pointer(&pointer) else {
                continue;
            };
            let mut tos = changes(value);
            if encoded(&kind, &pointer) {
                tos.push(Some(Value::from(BASE64_BAD_VALUE)));
            }
            for to in tos {
                let note = match &to {
                    Some(v) => format!("{kind} {pointer} = {v}"),
                    None => format!("{kind} {pointer} removed"),
                };
                steps.push(create(changed(&base.body, &pointer, to), note));
            }
        }
    }
    Ok(Scenario {
        name: "one field of a valid everyday object changed".into(),
        steps,
    })
}
