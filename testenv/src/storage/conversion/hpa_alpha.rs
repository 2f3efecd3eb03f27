//! autoscaling/v1's alpha metric types (`MetricSpec`, `MetricStatus` and their sources), which
//! carry in annotations what an autoscaling/v1 HorizontalPodAutoscaler cannot hold of the
//! stored v2 metrics. Converted as kube-apiserver's autoscaling/v1 conversion converts them, and
//! written as Go's `encoding/json` writes those types: fields in declaration order, pointers and
//! `omitempty` fields left out when unset, every other field written (a Quantity as `"0"`, a
//! string as `""`).

use serde_json::{Map, Value, json};

use crate::support::go_encode;

/// A JSON object written in the order its members are put, as Go writes a struct.
struct Ordered(Vec<(&'static str, String)>);

impl Ordered {
    fn new() -> Ordered {
        Ordered(Vec::new())
    }

    /// A field Go always writes.
    fn put(mut self, key: &'static str, json: String) -> Ordered {
        self.0.push((key, json));
        self
    }

    /// A pointer or `omitempty` field, written only when set.
    fn put_some(mut self, key: &'static str, json: Option<String>) -> Ordered {
        if let Some(json) = json {
            self.0.push((key, json));
        }
        self
    }

    fn text(self) -> String {
        let mut out = String::from("{");
        for (i, (key, json)) in self.0.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            go_encode::string(key, &mut out);
            out.push(':');
            out.push_str(&json);
        }
        out.push('}');
        out
    }
}

/// A string field: its value, or `""`.
fn string(v: &Value) -> String {
    go_encode::encode(&json!(v.as_str().unwrap_or_default()))
}

/// A Quantity field Go always writes: its value, or `"0"`.
fn quantity(v: &Value) -> String {
    go_encode::encode(&json!(v.as_str().unwrap_or("0")))
}

/// A pointer field: its value when set.
fn some(v: &Value) -> Option<String> {
    (!v.is_null()).then(|| go_encode::encode(v))
}

/// A `*metav1.LabelSelector`: `matchLabels` (a map, keys sorted), then `matchExpressions`
/// (`key`, `operator`, `values`), each left out when empty.
fn selector(v: &Value) -> Option<String> {
    let v = v.as_object()?;
    let labels = v
        .get("matchLabels")
        .filter(|m| m.as_object().is_some_and(|m| !m.is_empty()))
        .map(go_encode::encode);
    let expressions = v
        .get("matchExpressions")
        .and_then(Value::as_array)
        .filter(|e| !e.is_empty())
        .map(|items| {
            let items: Vec<String> = items
                .iter()
                .map(|e| {
                    Ordered::new()
                        .put("key", string(&e["key"]))
                        .put("operator", string(&e["operator"]))
                        .put_some(
                            "values",
                            e.get("values")
                                .filter(|v| v.as_array().is_some_and(|a| !a.is_empty()))
                                .map(go_encode::encode),
                        )
                        .text()
                })
                .collect();
            format!("[{}]", items.join(","))
        });
    Some(
        Ordered::new()
            .put_some("matchLabels", labels)
            .put_some("matchExpressions", expressions)
            .text(),
    )
}

/// A `CrossVersionObjectReference` (v2's `describedObject`, v1's `target`).
fn reference(r: &Value) -> String {
    Ordered::new()
        .put("kind", string(&r["kind"]))
        .put("name", string(&r["name"]))
        .put_some(
            "apiVersion",
            r["apiVersion"]
                .as_str()
                .filter(|s| !s.is_empty())
                .map(|s| go_encode::encode(&json!(s))),
        )
        .text()
}

/// The sources in `MetricSpec`'s and `MetricStatus`'s field order.
const SOURCES: [&str; 5] = [
    "object",
    "pods",
    "resource",
    "containerResource",
    "external",
];

/// A stored (v2) metric, its `type` and the one source it has, as the alpha type writes it,
/// each source's fields by `fields`.
fn to_alpha(m: &Value, fields: fn(&str, &Value) -> Ordered) -> String {
    let mut out = Ordered::new().put("type", string(&m["type"]));
    for source in SOURCES {
        if m[source].is_object() {
            out = out.put(source, fields(source, &m[source]).text());
        }
    }
    out.text()
}

/// A stored (v2) metric of `spec.metrics` as autoscaling/v1's `MetricSpec`, written.
pub fn spec_to_alpha(m: &Value) -> String {
    to_alpha(m, spec_source)
}

/// A source of a `MetricSpec`.
fn spec_source(source: &str, s: &Value) -> Ordered {
    let (metric, target) = (&s["metric"], &s["target"]);
    match source {
        "object" => Ordered::new()
            .put("target", reference(&s["describedObject"]))
            .put("metricName", string(&metric["name"]))
            .put("targetValue", quantity(&target["value"]))
            .put_some("selector", selector(&metric["selector"]))
            .put_some("averageValue", some(&target["averageValue"])),
        "pods" => Ordered::new()
            .put("metricName", string(&metric["name"]))
            .put("targetAverageValue", quantity(&target["averageValue"]))
            .put_some("selector", selector(&metric["selector"])),
        "external" => Ordered::new()
            .put("metricName", string(&metric["name"]))
            .put_some("metricSelector", selector(&metric["selector"]))
            .put_some("targetValue", some(&target["value"]))
            .put_some("targetAverageValue", some(&target["averageValue"])),
        _ => {
            let written = Ordered::new()
                .put("name", string(&s["name"]))
                .put_some(
                    "targetAverageUtilization",
                    some(&target["averageUtilization"]),
                )
                .put_some("targetAverageValue", some(&target["averageValue"]));
            if source == "containerResource" {
                written.put("container", string(&s["container"]))
            } else {
                written
            }
        }
    }
}

/// A stored (v2) metric of `status.currentMetrics` as autoscaling/v1's `MetricStatus`,
/// written.
pub fn status_to_alpha(m: &Value) -> String {
    to_alpha(m, status_source)
}

/// A source of a `MetricStatus`.
fn status_source(source: &str, s: &Value) -> Ordered {
    let (metric, current) = (&s["metric"], &s["current"]);
    match source {
        "object" => Ordered::new()
            .put("target", reference(&s["describedObject"]))
            .put("metricName", string(&metric["name"]))
            .put("currentValue", quantity(&current["value"]))
            .put_some("selector", selector(&metric["selector"]))
            .put_some("averageValue", some(&current["averageValue"])),
        "pods" => Ordered::new()
            .put("metricName", string(&metric["name"]))
            .put("currentAverageValue", quantity(&current["averageValue"]))
            .put_some("selector", selector(&metric["selector"])),
        "external" => Ordered::new()
            .put("metricName", string(&metric["name"]))
            .put_some("metricSelector", selector(&metric["selector"]))
            .put("currentValue", quantity(&current["value"]))
            .put_some("currentAverageValue", some(&current["averageValue"])),
        _ => {
            let written = Ordered::new()
                .put("name", string(&s["name"]))
                .put_some(
                    "currentAverageUtilization",
                    some(&current["averageUtilization"]),
                )
                .put("currentAverageValue", quantity(&current["averageValue"]));
            if source == "containerResource" {
                written.put("container", string(&s["container"]))
            } else {
                written
            }
        }
    }
}

/// Sets `key` of `object` to `value` when it is not null.
fn set(object: &mut Map<String, Value>, key: &str, value: &Value) {
    if !value.is_null() {
        object.insert(key.to_string(), value.clone());
    }
}

/// v2's `MetricIdentifier` of a v1 source's metric name and selector.
fn identifier(name: &Value, selector: &Value) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(name.as_str().unwrap_or_default()));
    set(&mut out, "selector", selector);
    Value::Object(out)
}

/// v2's `CrossVersionObjectReference` of a v1 `target`.
fn described(r: &Value) -> Value {
    let mut out = Map::new();
    out.insert("kind".into(), json!(r["kind"].as_str().unwrap_or_default()));
    out.insert("name".into(), json!(r["name"].as_str().unwrap_or_default()));
    if let Some(v) = r["apiVersion"].as_str().filter(|s| !s.is_empty()) {
        out.insert("apiVersion".into(), json!(v));
    }
    Value::Object(out)
}

/// A v1 quantity Go reads into a value field: the value, or `"0"`.
fn or_zero(v: &Value) -> Value {
    json!(v.as_str().unwrap_or("0"))
}

/// autoscaling/v1's `MetricSpec` (from the annotation) as the v2 metric it converts to, each
/// source getting the target type the conversion gives it.
pub fn spec_from_alpha(a: &Value) -> Value {
    let mut out = Map::new();
    set(&mut out, "type", &a["type"]);
    for source in SOURCES {
        let s = &a[source];
        if !s.is_object() {
            continue;
        }
        let mut target = Map::new();
        let mut converted = Map::new();
        match source {
            "object" => {
                let kind = if s["averageValue"].is_null() {
                    "Value"
                } else {
                    "AverageValue"
                };
                target.insert("type".into(), json!(kind));
                target.insert("value".into(), or_zero(&s["targetValue"]));
                set(&mut target, "averageValue", &s["averageValue"]);
                converted.insert("describedObject".into(), described(&s["target"]));
                converted.insert(
                    "metric".into(),
                    identifier(&s["metricName"], &s["selector"]),
                );
            }
            "pods" => {
                target.insert("type".into(), json!("AverageValue"));
                target.insert("averageValue".into(), or_zero(&s["targetAverageValue"]));
                converted.insert(
                    "metric".into(),
                    identifier(&s["metricName"], &s["selector"]),
                );
            }
            "external" => {
                let kind = if s["targetValue"].is_null() {
                    "AverageValue"
                } else {
                    "Value"
                };
                target.insert("type".into(), json!(kind));
                set(&mut target, "value", &s["targetValue"]);
                set(&mut target, "averageValue", &s["targetAverageValue"]);
                converted.insert(
                    "metric".into(),
                    identifier(&s["metricName"], &s["metricSelector"]),
                );
            }
            _ => {
                let kind = if s["targetAverageUtilization"].is_null() {
                    "AverageValue"
                } else {
                    "Utilization"
                };
                target.insert("type".into(), json!(kind));
                set(&mut target, "averageValue", &s["targetAverageValue"]);
                set(
                    &mut target,
                    "averageUtilization",
                    &s["targetAverageUtilization"],
                );
                set(&mut converted, "name", &s["name"]);
                if source == "containerResource" {
                    converted.insert(
                        "container".into(),
                        json!(s["container"].as_str().unwrap_or_default()),
                    );
                }
            }
        }
        converted.insert("target".into(), Value::Object(target));
        out.insert(source.into(), Value::Object(converted));
    }
    Value::Object(out)
}

/// autoscaling/v1's `MetricStatus` (from the annotation) as the v2 current metric it converts
/// to.
pub fn status_from_alpha(a: &Value) -> Value {
    let mut out = Map::new();
    set(&mut out, "type", &a["type"]);
    for source in SOURCES {
        let s = &a[source];
        if !s.is_object() {
            continue;
        }
        let mut current = Map::new();
        let mut converted = Map::new();
        match source {
            "object" => {
                current.insert("value".into(), or_zero(&s["currentValue"]));
                set(&mut current, "averageValue", &s["averageValue"]);
                converted.insert("describedObject".into(), described(&s["target"]));
                converted.insert(
                    "metric".into(),
                    identifier(&s["metricName"], &s["selector"]),
                );
            }
            "pods" => {
                current.insert("averageValue".into(), or_zero(&s["currentAverageValue"]));
                converted.insert(
                    "metric".into(),
                    identifier(&s["metricName"], &s["selector"]),
                );
            }
            "external" => {
                current.insert("value".into(), or_zero(&s["currentValue"]));
                set(&mut current, "averageValue", &s["currentAverageValue"]);
                converted.insert(
                    "metric".into(),
                    identifier(&s["metricName"], &s["metricSelector"]),
                );
            }
            _ => {
                current.insert("averageValue".into(), or_zero(&s["currentAverageValue"]));
                set(
                    &mut current,
                    "averageUtilization",
                    &s["currentAverageUtilization"],
                );
                set(&mut converted, "name", &s["name"]);
                if source == "containerResource" {
                    converted.insert(
                        "container".into(),
                        json!(s["container"].as_str().unwrap_or_default()),
                    );
                }
            }
        }
        converted.insert("current".into(), Value::Object(current));
        out.insert(source.into(), Value::Object(converted));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_metric_is_written_as_v1s_alpha_type() {
        let m = json!({"type": "Object", "object": {
            "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "s"},
            "metric": {"name": "rps", "selector": {"matchLabels": {"b": "1", "a": "2"}}},
            "target": {"type": "AverageValue", "averageValue": "10"}}});
        assert_eq!(
            spec_to_alpha(&m),
            r#"{"type":"Object","object":{"target":{"kind":"Service","name":"s","apiVersion":"v1"},"metricName":"rps","targetValue":"0","selector":{"matchLabels":{"a":"2","b":"1"}},"averageValue":"10"}}"#
        );
        let back = spec_from_alpha(&serde_json::from_str(&spec_to_alpha(&m)).unwrap());
        assert_eq!(
            back["object"]["target"],
            json!({"type": "AverageValue", "value": "0", "averageValue": "10"})
        );
        assert_eq!(
            back["object"]["describedObject"],
            m["object"]["describedObject"]
        );
    }

    #[test]
    fn statuses_write_their_zero_values() {
        let m = json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 5}}});
        assert_eq!(
            status_to_alpha(&m),
            r#"{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":5,"currentAverageValue":"0"}}"#
        );
        let back = status_from_alpha(&serde_json::from_str(&status_to_alpha(&m)).unwrap());
        assert_eq!(
            back,
            json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 5, "averageValue": "0"}}})
        );
    }
}
