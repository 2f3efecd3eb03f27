//! The ResourceQuota admission plugin and the usage it counts: what an object uses of each
//! resource a quota can name (object counts, a Pod's compute requests and limits, a claim's
//! storage), the usage of a namespace (which the quota controller writes into
//! `status.used`), and the refusal of a create that a quota does not allow, with the real
//! messages (`failed quota: ...: must specify ...`, `exceeded quota: ...`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::storage::Store;
use crate::support::quantity::Quantity;
use crate::support::status::ApiError;

/// Storage key of ResourceQuotas.
pub const QUOTAS: &str = "/resourcequotas";
const PODS: &str = "/pods";

/// Resource names with their usage.
pub type Usage = BTreeMap<String, Quantity>;

/// The compute resources a Pod's containers must each name when a quota limits them.
const CONSTRAINED: &[&str] = &[
    "cpu",
    "limits.cpu",
    "limits.memory",
    "memory",
    "requests.cpu",
    "requests.memory",
];

/// The core kinds counted under their plain plural (`configmaps: 10`).
const LEGACY_COUNTS: &[&str] = &[
    "configmaps",
    "persistentvolumeclaims",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "services",
];

fn one() -> Quantity {
    Quantity::parse("1").expect("1 parses")
}

/// `count/<plural>[.<group>]` of storage key `group/plural`.
fn count_name(storage_key: &str) -> String {
    match storage_key.split_once('/') {
        Some(("", plural)) => format!("count/{plural}"),
        Some((group, plural)) => format!("count/{plural}.{group}"),
        None => format!("count/{storage_key}"),
    }
}

/// The storage key a quota resource name counts objects of, if it is an object count.
fn counted_key(resource: &str) -> Option<String> {
    if LEGACY_COUNTS.contains(&resource) {
        return Some(format!("/{resource}"));
    }
    let counted = resource.strip_prefix("count/")?;
    Some(match counted.split_once('.') {
        Some((plural, group)) => format!("{group}/{plural}"),
        None => format!("/{counted}"),
    })
}

fn add(usage: &mut Usage, name: &str, q: Quantity) {
    let sum = usage.get(name).copied().unwrap_or_default().add(q);
    usage.insert(name.to_string(), sum);
}

/// What one container's resources count for (`podComputeUsageHelper`).
fn container_usage(resources: &Value) -> Usage {
    let mut usage = Usage::new();
    for (list, prefix) in [("requests", "requests."), ("limits", "limits.")] {
        let Some(values) = resources[list].as_object() else {
            continue;
        };
        for (resource, value) in values {
            let Some(q) = Quantity::from_json(value) else {
                continue;
            };
            add(&mut usage, &format!("{prefix}{resource}"), q);
            if list == "requests" && matches!(resource.as_str(), "cpu" | "memory") {
                add(&mut usage, resource, q);
            }
        }
    }
    usage
}

fn is_terminal(pod: &Value) -> bool {
    matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    )
}

/// What a Pod uses: one pod, and the larger of its containers' sum and its largest init
/// container, per resource. Finished pods use nothing.
fn pod_usage(pod: &Value) -> Usage {
    let mut usage = Usage::new();
    if is_terminal(pod) {
        return usage;
    }
    add(&mut usage, "pods", one());
    add(&mut usage, "count/pods", one());
    let mut sum = Usage::new();
    for c in pod["spec"]["containers"].as_array().into_iter().flatten() {
        for (k, q) in container_usage(&c["resources"]) {
            add(&mut sum, &k, q);
        }
    }
    for c in pod["spec"]["initContainers"]
        .as_array()
        .into_iter()
        .flatten()
    {
        for (k, q) in container_usage(&c["resources"]) {
            if sum.get(&k).is_none_or(|s| s.nanos < q.nanos) {
                sum.insert(k, q);
            }
        }
    }
    usage.extend(sum);
    usage
}

/// What one object stored under `storage_key` uses.
pub fn object_usage(storage_key: &str, object: &Value) -> Usage {
    if storage_key == PODS {
        return pod_usage(object);
    }
    let mut usage = Usage::new();
    add(&mut usage, &count_name(storage_key), one());
    if let Some(plural) = storage_key.strip_prefix('/')
        && LEGACY_COUNTS.contains(&plural)
    {
        add(&mut usage, plural, one());
    }
    if storage_key == "/persistentvolumeclaims"
        && let Some(q) = Quantity::from_json(&object["spec"]["resources"]["requests"]["storage"])
    {
        add(&mut usage, "requests.storage", q);
    }
    if storage_key == SERVICES {
        add_service_usage(&mut usage, object);
    }
    usage
}

/// Where Services are stored.
const SERVICES: &str = "/services";

/// What a Service uses besides its count: node ports for each port of a NodePort or
/// LoadBalancer Service (of a LoadBalancer that allocates none, only the ports that name
/// one), and one load balancer; zero of both otherwise, as the real evaluator counts them.
fn add_service_usage(usage: &mut Usage, service: &Value) {
    let ports = service["spec"]["ports"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let count = |n: usize| Quantity::parse(&n.to_string()).unwrap_or_default();
    let (node_ports, balancers) = match service["spec"]["type"].as_str() {
        Some("NodePort") => (ports.len(), 0),
        Some("LoadBalancer") => {
            let allocates = service["spec"]["allocateLoadBalancerNodePorts"] != json!(false);
            let named = ports
                .iter()
                .filter(|p| p["nodePort"].as_i64().is_some_and(|n| n != 0))
                .count();
            (if allocates { ports.len() } else { named }, 1)
        }
        _ => (0, 0),
    };
    add(usage, "services.nodeports", count(node_ports));
    add(usage, "services.loadbalancers", count(balancers));
}

/// Whether `quota`'s scopes select `object` (stored under `storage_key`): scoped quotas
/// count Pods only.
pub fn matches(quota: &Value, storage_key: &str, object: &Value) -> bool {
    let scopes: Vec<&str> = quota["spec"]["scopes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let selector = quota["spec"]["scopeSelector"]["matchExpressions"].as_array();
    if scopes.is_empty() && selector.is_none_or(std::vec::Vec::is_empty) {
        return true;
    }
    if storage_key != PODS {
        return false;
    }
    let best_effort = super::defaults::pod_status::qos_class(object) == "BestEffort";
    let terminating = object["spec"]["activeDeadlineSeconds"].is_i64();
    let class = object["spec"]["priorityClassName"].as_str().unwrap_or("");
    let scope = |name: &str, operator: &str, values: &[&str]| match name {
        "BestEffort" => best_effort,
        "NotBestEffort" => !best_effort,
        "Terminating" => terminating,
        "NotTerminating" => !terminating,
        "PriorityClass" => match operator {
            "In" => values.contains(&class),
            "NotIn" => !values.contains(&class),
            "Exists" => !class.is_empty(),
            "DoesNotExist" => class.is_empty(),
            _ => false,
        },
        _ => false,
    };
    scopes.iter().all(|s| scope(s, "Exists", &[]))
        && selector.into_iter().flatten().all(|e| {
            let values: Vec<&str> = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            scope(
                e["scopeName"].as_str().unwrap_or(""),
                e["operator"].as_str().unwrap_or(""),
                &values,
            )
        })
}

/// The resource names `quota` limits.
fn hard(quota: &Value) -> BTreeMap<String, Quantity> {
    quota["spec"]["hard"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), Quantity::from_json(v)?)))
        .collect()
}

/// The usage in namespace `ns` of every resource `quota` limits (zero where nothing uses
/// it), as the quota controller computes it.
pub fn used(store: &Store, ns: &str, quota: &Value) -> Usage {
    let hard = hard(quota);
    let mut keys: BTreeSet<String> = hard.keys().filter_map(|k| counted_key(k)).collect();
    if hard.keys().any(|k| counted_key(k).is_none()) {
        keys.insert(PODS.into());
        keys.insert("/persistentvolumeclaims".into());
        keys.insert(SERVICES.into());
    }
    let mut usage: Usage = hard
        .keys()
        .map(|k| (k.clone(), Quantity::default()))
        .collect();
    for key in keys {
        for ((n, _), object) in store.bucket(&key).into_iter().flatten() {
            if n != ns || !matches(quota, &key, object) {
                continue;
            }
            for (k, q) in object_usage(&key, object) {
                if hard.contains_key(&k) {
                    add(&mut usage, &k, q);
                }
            }
        }
    }
    usage
}

/// The status the quota controller writes: `hard` as the spec says, `used` counted.
pub fn status(store: &Store, ns: &str, quota: &Value) -> Value {
    let hard: serde_json::Map<String, Value> = hard(quota)
        .into_iter()
        .map(|(k, q)| (k, json!(q.to_string())))
        .collect();
    let used: serde_json::Map<String, Value> = used(store, ns, quota)
        .into_iter()
        .map(|(k, q)| (k, json!(q.to_string())))
        .collect();
    json!({"hard": hard, "used": used})
}

fn forbidden(plural: &str, name: &str, why: String) -> ApiError {
    let mut e = ApiError::new(
        403,
        "Forbidden",
        format!("{plural} \"{name}\" is forbidden: {why}"),
    );
    e.details = json!({"name": name, "kind": plural});
    e
}

fn pretty(usage: &Usage, keys: &[String]) -> String {
    keys.iter()
        .filter_map(|k| usage.get(k).map(|q| format!("{k}={q}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// The containers of `pod` that do not name each constrained resource of `hard`
/// (`must specify limits.memory for: c,d; requests.cpu for: c`).
fn missing(pod: &Value, hard: &BTreeMap<String, Quantity>) -> Option<String> {
    let required: Vec<&str> = CONSTRAINED
        .iter()
        .copied()
        .filter(|r| hard.contains_key(*r))
        .collect();
    let mut missing: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for key in ["containers", "initContainers"] {
        for c in pod["spec"][key].as_array().into_iter().flatten() {
            let usage = container_usage(&c["resources"]);
            for r in &required {
                if !usage.contains_key(*r) {
                    let name = c["name"].as_str().unwrap_or_default().to_string();
                    missing.entry(r).or_default().insert(name);
                }
            }
        }
    }
    if missing.is_empty() {
        return None;
    }
    let parts: Vec<String> = missing
        .iter()
        .map(|(r, names)| {
            format!(
                "{r} for: {}",
                names.iter().cloned().collect::<Vec<_>>().join(",")
            )
        })
        .collect();
    Some(format!("must specify {}", parts.join("; ")))
}

/// Refuses (403) the create of `object` (`plural`, stored under `storage_key`) in `ns`
/// when a quota of the namespace does not allow it.
pub fn admit_create(
    store: &Store,
    plural: &str,
    storage_key: &str,
    ns: &str,
    name: &str,
    object: &Value,
) -> Result<(), ApiError> {
    let delta = object_usage(storage_key, object);
    admit(store, plural, storage_key, ns, name, object, &delta, true)
}

/// Refuses (403) the update of `old` to `object` when what it adds to the namespace's usage
/// (a claim asking for more storage, for instance) exceeds a quota; what it releases is not
/// credited, as the real plugin charges only the non-negative difference.
pub fn admit_update(
    store: &Store,
    plural: &str,
    storage_key: &str,
    ns: &str,
    name: &str,
    object: &Value,
    old: &Value,
) -> Result<(), ApiError> {
    let before = object_usage(storage_key, old);
    let delta: Usage = object_usage(storage_key, object)
        .into_iter()
        .filter_map(|(k, q)| {
            let grown = q.nanos - before.get(&k).map_or(0, |b| b.nanos);
            (grown > 0).then_some((
                k,
                Quantity {
                    nanos: grown,
                    binary: q.binary,
                },
            ))
        })
        .collect();
    if delta.is_empty() {
        return Ok(());
    }
    admit(store, plural, storage_key, ns, name, object, &delta, false)
}

/// The quota check of a write that adds `delta` to the namespace's usage; a create of a Pod
/// must also name every resource a quota constrains.
#[allow(clippy::too_many_arguments)]
fn admit(
    store: &Store,
    plural: &str,
    storage_key: &str,
    ns: &str,
    name: &str,
    object: &Value,
    delta: &Usage,
    create: bool,
) -> Result<(), ApiError> {
    let quotas: Vec<&Value> = store
        .bucket(QUOTAS)
        .into_iter()
        .flatten()
        .filter(|((n, _), _)| n == ns)
        .map(|(_, q)| q.as_ref())
        .filter(|q| matches(q, storage_key, object))
        .collect();
    if quotas.is_empty() {
        return Ok(());
    }
    let mut interesting = Vec::new();
    for quota in quotas {
        let hard = hard(quota);
        if !delta.keys().any(|k| hard.contains_key(k)) {
            continue;
        }
        let quota_name = quota["metadata"]["name"].as_str().unwrap_or_default();
        if create
            && storage_key == PODS
            && let Some(why) = missing(object, &hard)
        {
            return Err(forbidden(
                plural,
                name,
                format!("failed quota: {quota_name}: {why}"),
            ));
        }
        interesting.push((quota, quota_name, hard));
    }
    for (quota, quota_name, hard) in interesting {
        let used = used(store, ns, quota);
        let exceeded: Vec<String> = delta
            .iter()
            .filter(|(k, q)| {
                hard.get(*k).is_some_and(|h| {
                    used.get(*k).copied().unwrap_or_default().nanos + q.nanos > h.nanos
                })
            })
            .map(|(k, _)| k.clone())
            .collect();
        if !exceeded.is_empty() {
            return Err(forbidden(
                plural,
                name,
                format!(
                    "exceeded quota: {quota_name}, requested: {}, used: {}, limited: {}",
                    pretty(delta, &exceeded),
                    pretty(&used, &exceeded),
                    pretty(&hard, &exceeded)
                ),
            ));
        }
    }
    Ok(())
}
