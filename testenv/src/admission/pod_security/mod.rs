//! The PodSecurity admission plugin, as kube-apiserver v1.34 runs it by default (no
//! exemptions, every mode `privileged:latest` unless a namespace's labels say otherwise):
//!
//! - a Pod created, or updated with a new image or a new ephemeral container, is refused
//!   (403) when it violates the namespace's enforced level, and earns a warning when it
//!   violates the warned one;
//! - a pod template (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs,
//!   ReplicationControllers, PodTemplates) only earns the warning;
//! - a Namespace's `pod-security.kubernetes.io/*` labels must parse (422), and a stricter
//!   enforced level warns of the existing pods that violate it.
//!
//! The levels and their versions are in [`level`], the checks in [`baseline`] and
//! [`restricted`], which of them a level runs in [`evaluate`]. Audit violations go to the
//! audit log only, which this server does not write.

mod baseline;
mod evaluate;
mod level;
mod restricted;
mod spec;

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use self::evaluate::{details, reasons, violations};
use self::level::{Level, LevelVersion, Policy};
use self::spec::Pod;
use crate::storage::Store;
use crate::support::go_quote::go_quote;
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};

/// At most this many existing pods are checked against a namespace's new enforced level.
const MAX_PODS_TO_CHECK: usize = 3000;

/// The pod subresources the plugin lets through unchecked.
const IGNORED_POD_SUBRESOURCES: &[&str] = &[
    "exec",
    "attach",
    "binding",
    "eviction",
    "log",
    "portforward",
    "proxy",
    "status",
];

/// A create (`old` is `None`) or an update of `object`, named `name` in namespace `ns`,
/// through `subresource` (empty for the object itself).
pub struct Write<'a> {
    /// The resource written.
    pub def: &'a ResourceDef,
    /// The subresource written, empty for the object itself.
    pub subresource: &'a str,
    /// The namespace of the object (empty for a Namespace).
    pub namespace: &'a str,
    /// The object's name.
    pub name: &'a str,
    /// The object as admitted.
    pub object: &'a Value,
    /// The stored object an update replaces.
    pub old: Option<&'a Value>,
}

/// The PodSecurity admission of `write`: the warnings it earns, or the refusal.
pub fn admit(store: &Store, write: &Write) -> Result<Vec<String>, ApiError> {
    match (write.def.group.as_str(), write.def.plural.as_str()) {
        ("", "namespaces") if write.subresource.is_empty() => namespace(store, write),
        ("", "pods") if !IGNORED_POD_SUBRESOURCES.contains(&write.subresource) => pod(store, write),
        ("", "replicationcontrollers" | "podtemplates")
        | ("apps", "replicasets" | "deployments" | "statefulsets" | "daemonsets")
        | ("batch", "jobs" | "cronjobs")
            if write.subresource.is_empty() =>
        {
            Ok(template(store, write).into_iter().collect())
        }
        _ => Ok(Vec::new()),
    }
}

/// The policy of namespace `ns` and the causes of its bad labels, when it exists.
fn namespace_policy(store: &Store, ns: &str) -> Option<(Policy, Vec<Cause>)> {
    let namespace = store.get("/namespaces", "", ns)?;
    Some(level::policy(&namespace["metadata"]["labels"]))
}

/// `would violate PodSecurity "baseline:latest": host namespaces (hostPID=true)`, when
/// `pod` violates `standard`.
fn warning(standard: LevelVersion, pod: Pod) -> Option<String> {
    let found = violations(standard, pod);
    (!found.is_empty()).then(|| {
        format!(
            "would violate PodSecurity \"{standard}\": {}",
            details(&found)
        )
    })
}

/// A Pod: refused when it violates the enforced level, warned of the warned level.
fn pod(store: &Store, write: &Write) -> Result<Vec<String>, ApiError> {
    let Some((policy, causes)) = namespace_policy(store, write.namespace) else {
        return Ok(Vec::new());
    };
    let privileged = |lv: LevelVersion| lv.level == Level::Privileged;
    let fully_privileged =
        privileged(policy.enforce) && privileged(policy.audit) && privileged(policy.warn);
    if causes.is_empty() && fully_privileged {
        return Ok(Vec::new());
    }
    if let Some(old) = write.old
        && !significant_update(write.object, old)
    {
        return Ok(Vec::new());
    }
    let pod = Pod {
        meta: &write.object["metadata"],
        spec: &write.object["spec"],
    };
    let refused = violations(policy.enforce, pod);
    if !refused.is_empty() {
        let why = format!(
            "violates PodSecurity \"{}\": {}",
            policy.enforce,
            details(&refused)
        );
        return Err(ApiError::forbidden(write.def, write.name, &why));
    }
    Ok(warning(policy.warn, pod).into_iter().collect())
}

/// Whether a pod update changes what the policy looks at: the number of containers or
/// init containers, an image, or a new (or changed) ephemeral container. Other updates
/// are let through, as the real server does.
fn significant_update(new: &Value, old: &Value) -> bool {
    let list = |pod: &Value, key: &str| -> Vec<Value> {
        pod["spec"][key].as_array().cloned().unwrap_or_default()
    };
    for key in ["containers", "initContainers"] {
        let (now, before) = (list(new, key), list(old, key));
        if now.len() != before.len()
            || now
                .iter()
                .zip(&before)
                .any(|(a, b)| a["image"] != b["image"])
        {
            return true;
        }
    }
    let before = list(old, "ephemeralContainers");
    list(new, "ephemeralContainers").iter().any(|c| {
        match before.iter().find(|o| o["name"] == c["name"]) {
            Some(o) => o["image"] != c["image"],
            None => true,
        }
    })
}

/// The pod template of a workload (nothing for a ReplicationController without one).
fn pod_template<'a>(write: &Write<'a>) -> Option<&'a Value> {
    let object = write.object;
    let template = match write.def.plural.as_str() {
        "podtemplates" => &object["template"],
        "cronjobs" => &object["spec"]["jobTemplate"]["spec"]["template"],
        "replicationcontrollers" if object["spec"]["template"].is_null() => return None,
        _ => &object["spec"]["template"],
    };
    Some(template)
}

/// A workload's pod template: only warned of (the pods it makes are checked when created).
fn template(store: &Store, write: &Write) -> Option<String> {
    let (policy, causes) = namespace_policy(store, write.namespace)?;
    let privileged = |lv: LevelVersion| lv.level == Level::Privileged;
    if causes.is_empty() && privileged(policy.audit) && privileged(policy.warn) {
        return None;
    }
    let template = pod_template(write)?;
    let pod = Pod {
        meta: &template["metadata"],
        spec: &template["spec"],
    };
    warning(policy.warn, pod)
}

/// A Namespace: its labels must parse (an update may keep the same bad labels); a
/// stricter enforced level warns of the existing pods that violate it.
fn namespace(store: &Store, write: &Write) -> Result<Vec<String>, ApiError> {
    let (policy, causes) = level::policy(&write.object["metadata"]["labels"]);
    let invalid = || ApiError::invalid(write.def, write.name, causes.clone());
    let Some(old) = write.old else {
        return if causes.is_empty() {
            Ok(Vec::new())
        } else {
            Err(invalid())
        };
    };
    let (old_policy, old_causes) = level::policy(&old["metadata"]["labels"]);
    if !causes.is_empty() && (old_causes.is_empty() || causes != old_causes) {
        return Err(invalid());
    }
    let (new, before) = (policy.enforce, old_policy.enforce);
    let looser = new.version == before.version && new.level <= before.level;
    if new == before || new.level == Level::Privileged || looser {
        return Ok(Vec::new());
    }
    Ok(existing_pods(store, write.name, new))
}

/// The warnings of a namespace's new enforced level: the existing pods violating it, one
/// line per distinct list of reasons naming the first pod (by name) and how many others.
fn existing_pods(store: &Store, ns: &str, enforce: LevelVersion) -> Vec<String> {
    let pods: Vec<&Value> = store
        .bucket("/pods")
        .into_iter()
        .flatten()
        .filter(|((n, _), _)| n == ns)
        .map(|(_, pod)| pod.as_ref())
        .collect();
    let total = pods.len();
    let mut checked = prioritized(pods);
    checked.truncate(MAX_PODS_TO_CHECK);
    // Each distinct list of reasons, in the order first found: its first pod and count.
    let mut found: Vec<String> = Vec::new();
    let mut pods_of: BTreeMap<String, (String, usize)> = BTreeMap::new();
    for pod in &checked {
        let view = Pod {
            meta: &pod["metadata"],
            spec: &pod["spec"],
        };
        let violated = violations(enforce, view);
        if violated.is_empty() {
            continue;
        }
        let line = reasons(&violated);
        let name = pod["metadata"]["name"].as_str().unwrap_or_default();
        let entry = pods_of.entry(line.clone()).or_insert_with(|| {
            found.push(line);
            (name.to_string(), 0)
        });
        if name < entry.0.as_str() {
            entry.0 = name.to_string();
        }
        entry.1 += 1;
    }
    let mut warnings = Vec::new();
    if checked.len() < total {
        warnings.push(format!(
            "new PodSecurity enforce level only checked against the first {} of {total} existing pods",
            checked.len()
        ));
    }
    if !found.is_empty() {
        warnings.push(format!(
            "existing pods in namespace {} violate the new PodSecurity enforce level \"{enforce}\"",
            go_quote(ns)
        ));
    }
    let mut lines: Vec<String> = found
        .into_iter()
        .map(|line| {
            let (first, count) = &pods_of[&line];
            match count {
                1 => format!("{first}: {line}"),
                2 => format!("{first} (and 1 other pod): {line}"),
                n => format!("{first} (and {} other pods): {line}", n - 1),
            }
        })
        .collect();
    lines.sort();
    warnings.extend(lines);
    warnings
}

/// The pods to check first: those without a controller and the first pod of each
/// controller, then the other pods of the same controllers.
fn prioritized(pods: Vec<&Value>) -> Vec<&Value> {
    let mut seen = HashSet::new();
    let (mut first, mut again) = (Vec::new(), Vec::new());
    for pod in pods {
        let controller = pod["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["controller"].as_bool() == Some(true))
            .map(|r| r["uid"].as_str().unwrap_or_default().to_string());
        let repeated = controller.is_some_and(|uid| !seen.insert(uid));
        if repeated {
            again.push(pod);
        } else {
            first.push(pod);
        }
    }
    first.extend(again);
    first
}
