//! Label selectors (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`).

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A parsed label selector; all requirements must hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

/// Splits on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

fn parse_set(rest: &str, whole: &str) -> Result<Vec<String>, String> {
    let rest = rest.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| {
            format!("unable to parse requirement: found '{rest}', expected: '(' in \"{whole}\"")
        })?;
    Ok(inner
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect())
}

fn check_key(key: &str, whole: &str) -> Result<String, String> {
    let key = key.trim();
    let valid = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if valid {
        Ok(key.to_string())
    } else {
        Err(format!(
            "unable to parse requirement: invalid label key \"{key}\" in selector \"{whole}\""
        ))
    }
}

impl LabelSelector {
    /// Parses the `labelSelector` query parameter; errors name the bad requirement.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut requirements = Vec::new();
        if s.trim().is_empty() {
            return Ok(LabelSelector { requirements });
        }
        for part in split_top_level(s) {
            let part = part.trim();
            if part.is_empty() {
                return Err(format!("found empty requirement in label selector \"{s}\""));
            }
            let req = if let Some(key) = part.strip_prefix('!') {
                Requirement::DoesNotExist(check_key(key, s)?)
            } else if let Some((k, v)) = part.split_once("!=") {
                Requirement::NotEquals(check_key(k, s)?, v.trim().to_string())
            } else if let Some((k, v)) = part.split_once("==") {
                Requirement::Equals(check_key(k, s)?, v.trim().to_string())
            } else if let Some((k, v)) = part.split_once('=') {
                Requirement::Equals(check_key(k, s)?, v.trim().to_string())
            } else if let Some(idx) = part.find(" notin ").or_else(|| part.find(" notin(")) {
                Requirement::NotIn(check_key(&part[..idx], s)?, parse_set(&part[idx + 7..], s)?)
            } else if let Some(idx) = part.find(" in ").or_else(|| part.find(" in(")) {
                Requirement::In(check_key(&part[..idx], s)?, parse_set(&part[idx + 4..], s)?)
            } else {
                Requirement::Exists(check_key(part, s)?)
            };
            requirements.push(req);
        }
        Ok(LabelSelector { requirements })
    }

    /// A structured `metav1.LabelSelector` (`matchLabels`, `matchExpressions`), as webhook
    /// configurations carry it; absent parts select everything. A `matchLabels` value that
    /// is not a string selects objects without that label, and an unknown operator selects
    /// nothing (the server refuses both when the selector is stored).
    pub fn from_metav1(selector: &serde_json::Value) -> Self {
        use serde_json::Value;
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        };
        let mut requirements: Vec<Requirement> = selector["matchLabels"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| match v.as_str() {
                Some(v) => Requirement::Equals(k.clone(), v.to_string()),
                None => Requirement::DoesNotExist(k.clone()),
            })
            .collect();
        for e in selector["matchExpressions"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let key = e["key"].as_str().unwrap_or_default().to_string();
            requirements.push(match e["operator"].as_str().unwrap_or_default() {
                "In" => Requirement::In(key, strings(&e["values"])),
                "NotIn" => Requirement::NotIn(key, strings(&e["values"])),
                "Exists" => Requirement::Exists(key),
                "DoesNotExist" => Requirement::DoesNotExist(key),
                _ => Requirement::In(key, Vec::new()),
            });
        }
        LabelSelector { requirements }
    }

    /// Whether the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether an object's labels (its `metadata.labels` JSON) satisfy the selector.
    pub fn matches(&self, labels: &serde_json::Value) -> bool {
        let get = |k: &str| labels.get(k).and_then(|v| v.as_str());
        self.requirements.iter().all(|r| match r {
            Requirement::Equals(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Requirement::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Requirement::NotIn(k, vs) => get(k).is_none_or(|x| !vs.iter().any(|v| v == x)),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::DoesNotExist(k) => get(k).is_none(),
        })
    }
}

impl std::fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .requirements
            .iter()
            .map(|r| match r {
                Requirement::Equals(k, v) => format!("{k}={v}"),
                Requirement::NotEquals(k, v) => format!("{k}!={v}"),
                Requirement::In(k, vs) => format!("{k} in ({})", vs.join(",")),
                Requirement::NotIn(k, vs) => format!("{k} notin ({})", vs.join(",")),
                Requirement::Exists(k) => k.clone(),
                Requirement::DoesNotExist(k) => format!("!{k}"),
            })
            .collect();
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn all_operators() {
        let labels = json!({"app": "web", "tier": "front"});
        let m = |s: &str| LabelSelector::parse(s).unwrap().matches(&labels);
        assert!(m("app=web"));
        assert!(m("app==web"));
        assert!(!m("app!=web"));
        assert!(m("app in (web, db),tier"));
        assert!(!m("app notin (web)"));
        assert!(m("env notin (prod)"));
        assert!(m("!env"));
        assert!(!m("!app"));
        assert!(m(""));
        assert!(LabelSelector::parse("app in web").is_err());
    }
}
