//! How the table printers write values: ages, label maps and selectors, container lists,
//! quantities, and Go's zero values for absent fields.

use serde_json::{Value, json};

use crate::support::selector::text::label_selector_text;

/// Go's `duration.HumanDuration`, which kubectl prints in AGE columns.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    let s = seconds.max(0);
    let (m, h, d) = (s / 60, s / 3600, s / 86400);
    if s < 120 {
        format!("{s}s")
    } else if m < 10 {
        with_rest(m, "m", s % 60, "s")
    } else if m < 180 {
        format!("{m}m")
    } else if h < 8 {
        with_rest(h, "h", m % 60, "m")
    } else if h < 48 {
        format!("{h}h")
    } else if h < 24 * 8 {
        with_rest(d, "d", h % 24, "h")
    } else if d < 365 * 2 {
        format!("{d}d")
    } else if d < 365 * 8 {
        with_rest(d / 365, "y", d % 365, "d")
    } else {
        format!("{}y", d / 365)
    }
}

fn with_rest(n: i64, unit: &str, rest: i64, rest_unit: &str) -> String {
    if rest == 0 {
        format!("{n}{unit}")
    } else {
        format!("{n}{unit}{rest}{rest_unit}")
    }
}

fn seconds_of(timestamp: &str) -> Option<i64> {
    timestamp
        .parse::<jiff::Timestamp>()
        .ok()
        .map(jiff::Timestamp::as_second)
}

/// The time since `timestamp` as kubectl prints it, `<unknown>` when there is none.
pub(super) fn since(timestamp: Option<&str>) -> String {
    match timestamp.and_then(seconds_of) {
        Some(t) => human_duration(jiff::Timestamp::now().as_second() - t),
        None => "<unknown>".into(),
    }
}

/// The time between two timestamps (a Job's duration), `None` when one is missing.
pub(super) fn between(start: &Value, end: &Value) -> Option<String> {
    let (s, e) = (seconds_of(start.as_str()?)?, seconds_of(end.as_str()?)?);
    Some(human_duration(e - s))
}

/// The Age cell of an object.
pub(super) fn age(o: &Value) -> Value {
    json!(since(o["metadata"]["creationTimestamp"].as_str()))
}

/// The object's name.
pub(super) fn name(o: &Value) -> Value {
    json!(o["metadata"]["name"].as_str().unwrap_or_default())
}

/// A string field, `""` when absent (Go's zero value).
pub(super) fn string(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// A string field, `default` when absent or empty.
pub(super) fn or(v: &Value, default: &str) -> String {
    match v.as_str() {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => default.to_string(),
    }
}

/// An integer field, 0 when absent.
pub(super) fn number(v: &Value) -> Value {
    json!(v.as_i64().unwrap_or(0))
}

/// The length of a list or map field, 0 when absent.
pub(super) fn count(v: &Value) -> usize {
    match v {
        Value::Array(a) => a.len(),
        Value::Object(m) => m.len(),
        _ => 0,
    }
}

/// Go's `resource.Quantity.String()` of a field, `0` when absent.
pub(super) fn quantity(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => "0".into(),
    }
}

/// An IntOrString as text.
pub(super) fn int_or_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `labels.FormatLabels`: `k=v` in key order, `<none>` for none.
pub(super) fn labels(map: &Value) -> String {
    let Some(m) = map.as_object().filter(|m| !m.is_empty()) else {
        return "<none>".into();
    };
    let mut pairs: Vec<String> = m
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    pairs.join(",")
}

/// `metav1.FormatLabelSelector`: `<none>` for an empty selector, `<error>` for an invalid one.
pub(super) fn label_selector(sel: &Value) -> String {
    match label_selector_text(sel) {
        None => "<error>".into(),
        Some(s) if s.is_empty() => "<none>".into(),
        Some(s) => s,
    }
}

/// A `LabelSelector` as its generated Go `String()` method writes the struct
/// (`&LabelSelector{MatchLabels:map[string]string{app: x,},MatchExpressions:[]...{},}`): labels
/// sorted by key, expressions in order with their values as `%v` prints a slice.
pub(super) fn label_selector_struct(sel: &Value) -> String {
    let mut labels: Vec<(&String, &Value)> = sel["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .collect();
    labels.sort_by(|a, b| a.0.cmp(b.0));
    let labels: String = labels
        .into_iter()
        .map(|(k, v)| format!("{k}: {},", string(v)))
        .collect();
    let expressions: String = sel["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let values: Vec<String> = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .map(string)
                .collect();
            format!(
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                string(&e["key"]),
                string(&e["operator"]),
                values.join(" ")
            )
        })
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"
    )
}

/// The names and images of a pod spec's containers, comma-separated.
pub(super) fn containers(pod_spec: &Value) -> (Value, Value) {
    let list = pod_spec["containers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let join = |field: &str| {
        list.iter()
            .map(|c| c[field].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(",")
    };
    (json!(join("name")), json!(join("image")))
}

/// Access modes as kubectl abbreviates them (`RWO,ROX,RWX,RWOP`, in that order).
pub(super) fn access_modes(modes: &Value) -> String {
    let has = |m: &str| {
        modes
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(m)))
    };
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(m, _)| has(m))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// Up to `max` items joined by commas, `+ N more...` for the rest, `<unset>` for none.
pub(super) fn list_with_more(items: &[String], max: usize) -> String {
    let shown = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(",");
    if items.len() > max {
        format!("{shown} + {} more...", items.len() - max)
    } else if shown.is_empty() {
        "<unset>".into()
    } else {
        shown
    }
}

/// Go's `fmt.Sprint` of a bool pointer as the printers write it.
pub(super) fn bool_ptr(v: &Value) -> String {
    match v.as_bool() {
        Some(true) => "True".into(),
        Some(false) => "False".into(),
        None => "<unset>".into(),
    }
}

/// Whether a condition of `type_` in `conditions` has status True (the first of that type).
pub(super) fn condition_true(conditions: &Value, type_: &str) -> bool {
    conditions
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == type_)
        .is_some_and(|c| c["status"] == "True")
}
