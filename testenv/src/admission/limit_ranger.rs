//! The LimitRanger admission plugin: the `Container` limits of a namespace's LimitRanges
//! fill in the requests and limits a Pod's containers leave out (recorded in the
//! `kubernetes.io/limit-ranger` annotation), then bound what they ask for (`min`, `max`,
//! `maxLimitRequestRatio`), refusing the Pod with the real messages.

use serde_json::{Map, Value, json};

use crate::storage::Store;
use crate::support::meta;
use crate::support::quantity::Quantity;
use crate::support::status::ApiError;

const LIMIT_RANGES: &str = "/limitranges";
const ANNOTATION: &str = "kubernetes.io/limit-ranger";

/// The `Container` items of the LimitRanges of namespace `ns`, in name order.
fn container_items(store: &Store, ns: &str) -> Vec<Map<String, Value>> {
    store
        .bucket(LIMIT_RANGES)
        .into_iter()
        .flatten()
        .filter(|((n, _), _)| n == ns)
        .flat_map(|(_, range)| {
            range["spec"]["limits"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|item| item["type"] == "Container")
        .filter_map(|item| item.as_object().cloned())
        .collect()
}

fn list(item: &Map<String, Value>, key: &str) -> Map<String, Value> {
    item.get(key)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The containers of a pod spec with the word the annotation uses for them.
fn containers(pod: &mut Value) -> Vec<(&'static str, &mut Map<String, Value>)> {
    let mut out = Vec::new();
    let Some(spec) = pod["spec"].as_object_mut() else {
        return out;
    };
    for (key, list) in spec.iter_mut() {
        let word = match key.as_str() {
            "containers" => "container",
            "initContainers" => "init container",
            _ => continue,
        };
        if let Some(list) = list.as_array_mut() {
            out.extend(
                list.iter_mut()
                    .filter_map(Value::as_object_mut)
                    .map(|c| (word, c)),
            );
        }
    }
    // Containers first, then init containers, as the real plugin walks them.
    out.sort_by_key(|(word, _)| *word != "container");
    out
}

/// Fills in the default requests and limits of a Pod being created in `ns`.
pub fn default_pod(store: &Store, pod: &mut Value, ns: &str) {
    let items = container_items(store, ns);
    if items.is_empty() {
        return;
    }
    let (mut requests, mut limits) = (Map::new(), Map::new());
    for item in &items {
        requests.extend(list(item, "defaultRequest"));
        limits.extend(list(item, "default"));
    }
    let mut notes = Vec::new();
    for (word, container) in containers(pod) {
        let name = container
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let resources = container
            .entry("resources")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .expect("resources is an object");
        let mut fill = |key: &str, defaults: &Map<String, Value>| {
            let target = resources.entry(key).or_insert_with(|| json!({}));
            let mut set: Vec<String> = Vec::new();
            if let Some(target) = target.as_object_mut() {
                for (k, v) in defaults {
                    if !target.contains_key(k) {
                        target.insert(k.clone(), v.clone());
                        set.push(k.clone());
                    }
                }
            }
            set.sort();
            set
        };
        let set_requests = fill("requests", &requests);
        let set_limits = fill("limits", &limits);
        resources.retain(|_, v| v.as_object().is_none_or(|o| !o.is_empty()));
        if !set_requests.is_empty() {
            notes.push(format!(
                "{} request for {word} {name}",
                set_requests.join(", ")
            ));
        }
        if !set_limits.is_empty() {
            notes.push(format!("{} limit for {word} {name}", set_limits.join(", ")));
        }
    }
    if !notes.is_empty() {
        let metadata = &mut pod["metadata"];
        if !metadata["annotations"].is_object() {
            metadata["annotations"] = json!({});
        }
        metadata["annotations"][ANNOTATION] =
            json!(format!("LimitRanger plugin set: {}", notes.join("; ")));
    }
}

fn canonical(v: &Value) -> String {
    Quantity::from_json(v).map_or_else(|| v.to_string(), |q| q.to_string())
}

fn nanos(v: Option<&Value>) -> Option<i128> {
    v.and_then(Quantity::from_json).map(|q| q.nanos)
}

/// The violations of one container against one `Container` item, in the real order (min,
/// max, ratio; resources by name within each).
fn violations(item: &Map<String, Value>, resources: &Value, out: &mut Vec<String>) {
    let requests = &resources["requests"];
    let limits = &resources["limits"];
    for (k, enforced) in list(item, "min") {
        let bound = canonical(&enforced);
        let min = nanos(Some(&enforced)).unwrap_or(0);
        match (nanos(requests.get(&k)), nanos(limits.get(&k))) {
            (None, _) => out.push(format!(
                "minimum {k} usage per Container is {bound}.  No request is specified"
            )),
            (Some(r), _) if r < min => out.push(format!(
                "minimum {k} usage per Container is {bound}, but request is {}",
                canonical(&requests[&k])
            )),
            (_, Some(l)) if l < min => out.push(format!(
                "minimum {k} usage per Container is {bound}, but limit is {}",
                canonical(&limits[&k])
            )),
            _ => {}
        }
    }
    for (k, enforced) in list(item, "max") {
        let bound = canonical(&enforced);
        let max = nanos(Some(&enforced)).unwrap_or(0);
        match (nanos(requests.get(&k)), nanos(limits.get(&k))) {
            (_, None) => out.push(format!(
                "maximum {k} usage per Container is {bound}.  No limit is specified"
            )),
            (_, Some(l)) if l > max => out.push(format!(
                "maximum {k} usage per Container is {bound}, but limit is {}",
                canonical(&limits[&k])
            )),
            (Some(r), _) if r > max => out.push(format!(
                "maximum {k} usage per Container is {bound}, but request is {}",
                canonical(&requests[&k])
            )),
            _ => {}
        }
    }
    for (k, enforced) in list(item, "maxLimitRequestRatio") {
        let bound = canonical(&enforced);
        let ratio = nanos(Some(&enforced)).unwrap_or(0);
        match (nanos(requests.get(&k)), nanos(limits.get(&k))) {
            (None | Some(0), _) => out.push(format!(
                "{k} max limit to request ratio per Container is {bound}, but no request is specified or request is 0"
            )),
            (_, None | Some(0)) => out.push(format!(
                "{k} max limit to request ratio per Container is {bound}, but no limit is specified or limit is 0"
            )),
            (Some(r), Some(l)) if l * 1_000_000_000 > ratio * r => out.push(format!(
                "{k} max limit to request ratio per Container is {bound}, but provided ratio is {:.6}",
                l as f64 / r as f64
            )),
            _ => {}
        }
    }
}

/// Refuses (403) a Pod of namespace `ns` whose containers ask for less or more than its
/// LimitRanges allow.
pub fn validate_pod(store: &Store, pod: &mut Value, ns: &str) -> Result<(), ApiError> {
    let items = container_items(store, ns);
    if items.is_empty() {
        return Ok(());
    }
    let mut errors = Vec::new();
    for item in &items {
        for (_, container) in containers(pod) {
            let resources = container.get("resources").cloned().unwrap_or(Value::Null);
            violations(item, &resources, &mut errors);
        }
    }
    if errors.is_empty() {
        return Ok(());
    }
    let name = meta::meta_str(pod, "name").unwrap_or_default();
    let why = match errors.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    let mut e = ApiError::new(
        403,
        "Forbidden",
        format!("pods \"{name}\" is forbidden: {why}"),
    );
    e.details = json!({"name": name, "kind": "pods"});
    Err(e)
}
