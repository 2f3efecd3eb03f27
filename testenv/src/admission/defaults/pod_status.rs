//! The status the Pod strategy stores on create: `phase: Pending` and the QoS class computed
//! from the containers' resources (`qos.GetPodQOS`).

use serde_json::{Value, json};
use std::collections::BTreeMap;

/// `{"phase": "Pending", "qosClass": ...}` for a Pod being created (call it after
/// [`super::apply_builtin_defaults`], which copies limits into missing requests).
pub fn pod_status_on_create(pod: &Value) -> Value {
    json!({"phase": "Pending", "qosClass": qos_class(pod)})
}

/// `Guaranteed`, `Burstable` or `BestEffort`, as the kubelet and the API server classify a
/// Pod: only cpu and memory count; pod-level `spec.resources` win when set.
pub fn qos_class(pod: &Value) -> &'static str {
    let spec = &pod["spec"];
    let pod_level = spec
        .get("resources")
        .filter(|r| r.get("requests").is_some() || r.get("limits").is_some());
    let mut requests: BTreeMap<&str, f64> = BTreeMap::new();
    let mut limits: BTreeMap<&str, f64> = BTreeMap::new();
    let mut guaranteed = true;
    let mut account = |res: &Value| {
        for (map, target) in [
            (&res["requests"], &mut requests),
            (&res["limits"], &mut limits),
        ] {
            for name in ["cpu", "memory"] {
                if let Some(q) = map.get(name).and_then(quantity)
                    && q != 0.0
                {
                    *target.entry(name).or_default() += q;
                }
            }
        }
        let lim = res["limits"].as_object();
        let has = |n: &str| {
            lim.and_then(|l| l.get(n))
                .and_then(quantity)
                .is_some_and(|q| q != 0.0)
        };
        if !(has("cpu") && has("memory")) {
            guaranteed = false;
        }
    };
    match pod_level {
        Some(res) => account(res),
        None => {
            for key in ["containers", "initContainers"] {
                for c in spec[key].as_array().into_iter().flatten() {
                    account(&c["resources"]);
                }
            }
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return "BestEffort";
    }
    if guaranteed
        && requests.len() == limits.len()
        && requests
            .iter()
            .all(|(k, v)| limits.get(k).is_some_and(|l| (l - v).abs() < 1e-9))
    {
        return "Guaranteed";
    }
    "Burstable"
}

/// Parses a Kubernetes quantity (`500m`, `1.5`, `128Mi`, `1e3`, `2G`) to a number.
pub fn quantity(v: &Value) -> Option<f64> {
    let s = match v {
        Value::String(s) => s.trim(),
        Value::Number(n) => return n.as_f64(),
        _ => return None,
    };
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    let base: f64 = num.parse().ok()?;
    let factor = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        e if e.starts_with(['e', 'E']) => 10f64.powi(e[1..].parse().ok()?),
        _ => return None,
    };
    Some(base * factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(resources: &[Value]) -> Value {
        let containers: Vec<Value> = resources
            .iter()
            .enumerate()
            .map(|(i, r)| json!({"name": format!("c{i}"), "image": "x", "resources": r}))
            .collect();
        json!({"spec": {"containers": containers}})
    }

    #[test]
    fn qos_classes() {
        assert_eq!(qos_class(&pod(&[json!({})])), "BestEffort");
        assert_eq!(
            qos_class(&pod(&[json!({"requests": {"cpu": "100m"}})])),
            "Burstable"
        );
        assert_eq!(
            qos_class(&pod(&[json!({"limits": {"cpu": "0.5", "memory": "128Mi"},
                "requests": {"cpu": "500m", "memory": "134217728"}})])),
            "Guaranteed"
        );
        assert_eq!(
            qos_class(&pod(&[
                json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}),
                json!({})
            ])),
            "Burstable"
        );
        assert_eq!(
            pod_status_on_create(&pod(&[json!({})])),
            json!({"phase": "Pending", "qosClass": "BestEffort"})
        );
        assert_eq!(quantity(&json!("1e3")), Some(1000.0));
        assert_eq!(quantity(&json!("2Ki")), Some(2048.0));
        assert_eq!(quantity(&json!("lots")), None);
    }
}
