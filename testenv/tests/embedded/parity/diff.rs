//! A readable difference of two JSON documents: one line per difference, naming where it is.
//!
//! Lists whose items name themselves (discovery's resources, groups, versions, subresources)
//! are compared by those names, so one missing resource is one line, and a different order of
//! the same items is one line too.

use serde_json::Value;

/// The name an item of a discovery list goes by, if it has one.
fn identity(item: &Value) -> Option<String> {
    for key in ["name", "resource", "subresource", "groupVersion", "version"] {
        if let Some(s) = item.get(key).and_then(Value::as_str) {
            return Some(s.to_string());
        }
    }
    item.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 200 {
        format!("{}...", &s[..200])
    } else {
        s
    }
}

/// Appends to `out` every difference between `real` (expected) and `ours` under `path`.
pub fn diff(path: &str, real: &Value, ours: &Value, out: &mut Vec<String>) {
    match (real, ours) {
        (Value::Object(r), Value::Object(o)) => {
            for (k, rv) in r {
                match o.get(k) {
                    Some(ov) => diff(&format!("{path}.{k}"), rv, ov, out),
                    None => out.push(format!("{path}.{k}: missing (real: {})", short(rv))),
                }
            }
            for (k, ov) in o {
                if !r.contains_key(k) {
                    out.push(format!(
                        "{path}.{k}: not served by the real server ({})",
                        short(ov)
                    ));
                }
            }
        }
        (Value::Array(r), Value::Array(o)) => {
            let rid: Option<Vec<String>> = r.iter().map(identity).collect();
            let oid: Option<Vec<String>> = o.iter().map(identity).collect();
            match (rid, oid) {
                (Some(rid), Some(oid)) if !rid.is_empty() && !oid.is_empty() => {
                    for (i, name) in rid.iter().enumerate() {
                        match oid.iter().position(|x| x == name) {
                            Some(j) => diff(&format!("{path}[{name}]"), &r[i], &o[j], out),
                            None => out.push(format!("{path}[{name}]: missing")),
                        }
                    }
                    for name in &oid {
                        if !rid.contains(name) {
                            out.push(format!("{path}[{name}]: not served by the real server"));
                        }
                    }
                    let common = |a: &[String], b: &[String]| -> Vec<String> {
                        a.iter().filter(|x| b.contains(x)).cloned().collect()
                    };
                    let (rc, oc) = (common(&rid, &oid), common(&oid, &rid));
                    if rc != oc {
                        out.push(format!("{path}: order differs: real {rc:?}, ours {oc:?}"));
                    }
                }
                _ if r != o => out.push(format!(
                    "{path}: real {}, ours {}",
                    short(real),
                    short(ours)
                )),
                _ => {}
            }
        }
        _ if real != ours => out.push(format!(
            "{path}: real {}, ours {}",
            short(real),
            short(ours)
        )),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn named_items_are_compared_by_name() {
        let real = json!({"resources": [{"name": "a", "verbs": ["get"]}, {"name": "b"}]});
        let ours =
            json!({"resources": [{"name": "b"}, {"name": "a", "verbs": ["list"]}, {"name": "c"}]});
        let mut out = Vec::new();
        diff("", &real, &ours, &mut out);
        assert_eq!(out.len(), 3, "{out:#?}");
        assert!(out[0].starts_with(".resources[a].verbs:"), "{out:#?}");
        assert!(out[1].contains("[c]: not served"), "{out:#?}");
        assert!(out[2].contains("order differs"), "{out:#?}");
    }
}
