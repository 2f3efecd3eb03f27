//! The JSONPath subset of `additionalPrinterColumns` and scale paths: `.a.b`, `.a[0]`,
//! `.a[*].b` and `.a[?(@.type=="Ready")].status`.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(usize),
    All,
    Filter(String, String),
}

fn parse(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let path = path.trim().trim_start_matches('{').trim_end_matches('}');
    let mut rest = path.trim_start_matches('$');
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end > 0 {
                steps.push(Step::Field(r[..end].to_string()));
            }
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let inner = &r[..end];
            if inner == "*" {
                steps.push(Step::All);
            } else if let Some(f) = inner.strip_prefix("?(@.").and_then(|f| f.strip_suffix(')')) {
                let (k, v) = f.split_once("==")?;
                steps.push(Step::Filter(
                    k.trim().to_string(),
                    v.trim().trim_matches(['"', '\'']).to_string(),
                ));
            } else if let Some(quoted) = inner.strip_prefix('\'').and_then(|q| q.strip_suffix('\''))
            {
                steps.push(Step::Field(quoted.to_string()));
            } else {
                steps.push(Step::Index(inner.parse().ok()?));
            }
            rest = &r[end + 1..];
        } else {
            return None;
        }
    }
    Some(steps)
}

/// Every value the path selects in `object` (empty when nothing matches or the path is
/// outside the supported subset).
pub fn select<'a>(object: &'a Value, path: &str) -> Vec<&'a Value> {
    let Some(steps) = parse(path) else {
        return Vec::new();
    };
    let mut current = vec![object];
    for step in &steps {
        let mut next = Vec::new();
        for v in current {
            match step {
                Step::Field(f) => next.extend(v.get(f.as_str())),
                Step::Index(i) => next.extend(v.get(*i)),
                Step::All => next.extend(v.as_array().into_iter().flatten()),
                Step::Filter(k, want) => {
                    next.extend(v.as_array().into_iter().flatten().filter(|item| {
                        match item.get(k.as_str()) {
                            Some(Value::String(s)) => s == want,
                            Some(other) => serde_json::to_string(other).is_ok_and(|s| s == *want),
                            None => false,
                        }
                    }));
                }
            }
        }
        current = next;
    }
    current
}

/// The first selected value.
pub fn first<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    select(object, path).into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subset() {
        let o = json!({"spec": {"replicas": 3, "list": [{"n": "a"}, {"n": "b"}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert_eq!(first(&o, ".spec.replicas"), Some(&json!(3)));
        assert_eq!(first(&o, ".spec.list[1].n"), Some(&json!("b")));
        assert_eq!(select(&o, ".spec.list[*].n").len(), 2);
        assert_eq!(
            first(&o, ".status.conditions[?(@.type==\"Ready\")].status"),
            Some(&json!("True"))
        );
        assert_eq!(first(&o, ".nope"), None);
    }
}
