//! A `LabelSelector` object (`matchLabels`, `matchExpressions`) written as a selector string,
//! as `metav1.LabelSelectorAsSelector(...).String()` writes it: the Scale subresource's
//! `status.selector` and the tables' SELECTOR cells both show it.

use serde_json::Value;

/// One requirement per label (`k=v`) and per expression (`k in (a,b)`, `k notin (a)`, `k`,
/// `!k`; values sorted and deduplicated), sorted by key and joined by commas; `""` when it
/// selects everything (or is absent), `None` when an expression has an unknown operator.
pub fn label_selector_text(selector: &Value) -> Option<String> {
    let mut requirements: Vec<(&str, String)> = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            (
                k.as_str(),
                format!("{k}={}", v.as_str().unwrap_or_default()),
            )
        })
        .collect();
    for expr in selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let key = expr["key"].as_str().unwrap_or_default();
        let mut values: Vec<&str> = expr["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        values.dedup();
        let text = match expr["operator"].as_str()? {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => return None,
        };
        requirements.push((key, text));
    }
    requirements.sort_by(|a, b| a.0.cmp(b.0));
    Some(
        requirements
            .into_iter()
            .map(|(_, text)| text)
            .collect::<Vec<_>>()
            .join(","),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_and_expressions_sorted_by_key() {
        let selector = json!({
            "matchLabels": {"tier": "web", "app": "x"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["b", "a", "b"]},
                {"key": "zone", "operator": "NotIn", "values": ["z"]},
                {"key": "canary", "operator": "DoesNotExist"},
                {"key": "owner", "operator": "Exists"},
            ],
        });
        assert_eq!(
            label_selector_text(&selector).as_deref(),
            Some("app=x,!canary,env in (a,b),owner,tier=web,zone notin (z)")
        );
    }

    #[test]
    fn empty_selects_everything_and_unknown_operator_is_invalid() {
        assert_eq!(label_selector_text(&json!({})).as_deref(), Some(""));
        assert_eq!(label_selector_text(&Value::Null).as_deref(), Some(""));
        let bad = json!({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]});
        assert_eq!(label_selector_text(&bad), None);
    }
}
