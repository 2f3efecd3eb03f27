//! Table printers of workloads: `apps`, `batch`, `autoscaling` and `policy`.

use serde_json::{Value, json};

use crate::support::selector::text::label_selector_text;

use super::columns::{AGE, Col, NAME, Printer, boolean, int, text, wide};
use super::format::{
    age, between, bool_ptr, condition_true, containers, count, int_or_string, label_selector,
    labels, name, number, quantity, since, string,
};

/// The printer of a workload resource.
pub(super) fn printer(group: &str, plural: &str) -> Option<Printer> {
    Some(match (group, plural) {
        ("apps", "deployments") => Printer::new(DEPLOYMENT, deployment),
        ("apps", "replicasets") => Printer::new(REPLICA_SET, |o| {
            let (names, images) = containers(&o["spec"]["template"]["spec"]);
            vec![
                name(o),
                number(&o["spec"]["replicas"]),
                number(&o["status"]["replicas"]),
                number(&o["status"]["readyReplicas"]),
                age(o),
                names,
                images,
                json!(label_selector(&o["spec"]["selector"])),
            ]
        }),
        ("apps", "statefulsets") => Printer::new(STATEFUL_SET, |o| {
            let (names, images) = containers(&o["spec"]["template"]["spec"]);
            let ready = o["status"]["readyReplicas"].as_i64().unwrap_or(0);
            let desired = o["spec"]["replicas"].as_i64().unwrap_or(0);
            vec![
                name(o),
                json!(format!("{ready}/{desired}")),
                age(o),
                names,
                images,
            ]
        }),
        ("apps", "daemonsets") => Printer::new(DAEMON_SET, daemon_set),
        ("apps", "controllerrevisions") => Printer::new(
            &[NAME, text("Controller"), text("Revision"), AGE],
            controller_revision,
        ),
        ("batch", "jobs") => Printer::new(JOB, job),
        ("batch", "cronjobs") => Printer::new(CRON_JOB, cron_job),
        // The real server prints the internal object, whose metrics keep the stored
        // (`autoscaling/v2`) order that `autoscaling/v1` loses.
        ("autoscaling", "horizontalpodautoscalers") => Printer {
            metadata: autoscaler_metadata,
            prints_stored: true,
            ..Printer::new(HPA, autoscaler)
        },
        ("policy", "poddisruptionbudgets") => Printer::new(
            &[
                NAME,
                text("Min Available"),
                text("Max Unavailable"),
                int("Allowed Disruptions"),
                AGE,
            ],
            |o| {
                let bound = |v: &Value| {
                    if v.is_null() {
                        "N/A".to_string()
                    } else {
                        int_or_string(v)
                    }
                };
                vec![
                    name(o),
                    json!(bound(&o["spec"]["minAvailable"])),
                    json!(bound(&o["spec"]["maxUnavailable"])),
                    number(&o["status"]["disruptionsAllowed"]),
                    age(o),
                ]
            },
        ),
        _ => return None,
    })
}

const DEPLOYMENT: &[Col] = &[
    NAME,
    text("Ready"),
    text("Up-to-date"),
    text("Available"),
    AGE,
    wide("Containers"),
    wide("Images"),
    wide("Selector"),
];

const REPLICA_SET: &[Col] = &[
    NAME,
    int("Desired"),
    int("Current"),
    int("Ready"),
    AGE,
    wide("Containers"),
    wide("Images"),
    wide("Selector"),
];

const STATEFUL_SET: &[Col] = &[NAME, text("Ready"), AGE, wide("Containers"), wide("Images")];

const DAEMON_SET: &[Col] = &[
    NAME,
    int("Desired"),
    int("Current"),
    int("Ready"),
    int("Up-to-date"),
    int("Available"),
    text("Node Selector"),
    AGE,
    wide("Containers"),
    wide("Images"),
    wide("Selector"),
];

const JOB: &[Col] = &[
    NAME,
    text("Status"),
    text("Completions"),
    text("Duration"),
    AGE,
    wide("Containers"),
    wide("Images"),
    wide("Selector"),
];

const CRON_JOB: &[Col] = &[
    NAME,
    text("Schedule"),
    text("Timezone"),
    boolean("Suspend"),
    int("Active"),
    text("Last Schedule"),
    AGE,
    wide("Containers"),
    wide("Images"),
    wide("Selector"),
];

const HPA: &[Col] = &[
    NAME,
    text("Reference"),
    text("Targets"),
    text("MinPods"),
    text("MaxPods"),
    text("Replicas"),
    AGE,
];

fn deployment(o: &Value) -> Vec<Value> {
    let (names, images) = containers(&o["spec"]["template"]["spec"]);
    let ready = o["status"]["readyReplicas"].as_i64().unwrap_or(0);
    let desired = o["spec"]["replicas"].as_i64().unwrap_or(0);
    let selector =
        label_selector_text(&o["spec"]["selector"]).unwrap_or_else(|| "<invalid>".into());
    vec![
        name(o),
        json!(format!("{ready}/{desired}")),
        number(&o["status"]["updatedReplicas"]),
        number(&o["status"]["availableReplicas"]),
        age(o),
        names,
        images,
        json!(selector),
    ]
}

fn daemon_set(o: &Value) -> Vec<Value> {
    let status = &o["status"];
    let (names, images) = containers(&o["spec"]["template"]["spec"]);
    vec![
        name(o),
        number(&status["desiredNumberScheduled"]),
        number(&status["currentNumberScheduled"]),
        number(&status["numberReady"]),
        number(&status["updatedNumberScheduled"]),
        number(&status["numberAvailable"]),
        json!(labels(&o["spec"]["template"]["spec"]["nodeSelector"])),
        age(o),
        names,
        images,
        json!(label_selector(&o["spec"]["selector"])),
    ]
}

/// `kind.group/name` (lower case) of the revision's controller.
fn controller_revision(o: &Value) -> Vec<Value> {
    let owner = o["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["controller"] == true);
    let controller = match owner {
        None => "<none>".to_string(),
        Some(r) => {
            let api_version = string(&r["apiVersion"]);
            let group = match api_version.split_once('/') {
                Some((g, _)) => g.to_string(),
                None => String::new(),
            };
            let kind = string(&r["kind"]);
            let group_kind = if group.is_empty() {
                kind
            } else {
                format!("{kind}.{group}")
            };
            if group_kind.is_empty() {
                string(&r["name"])
            } else {
                format!("{}/{}", group_kind.to_lowercase(), string(&r["name"]))
            }
        }
    };
    vec![name(o), json!(controller), number(&o["revision"]), age(o)]
}

fn job(o: &Value) -> Vec<Value> {
    let (spec, status) = (&o["spec"], &o["status"]);
    let succeeded = status["succeeded"].as_i64().unwrap_or(0);
    let completions = match spec["completions"].as_i64() {
        Some(c) => format!("{succeeded}/{c}"),
        None => match spec["parallelism"].as_i64().unwrap_or(0) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    let duration = if status["startTime"].is_null() {
        String::new()
    } else if status["completionTime"].is_null() {
        since(status["startTime"].as_str())
    } else {
        between(&status["startTime"], &status["completionTime"]).unwrap_or_default()
    };
    let conditions = &status["conditions"];
    let state = if condition_true(conditions, "Complete") {
        "Complete"
    } else if condition_true(conditions, "Failed") {
        "Failed"
    } else if o["metadata"]["deletionTimestamp"].is_string() {
        "Terminating"
    } else if condition_true(conditions, "Suspended") {
        "Suspended"
    } else if condition_true(conditions, "FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    let (names, images) = containers(&spec["template"]["spec"]);
    vec![
        name(o),
        json!(state),
        json!(completions),
        json!(duration),
        age(o),
        names,
        images,
        json!(label_selector(&spec["selector"])),
    ]
}

fn cron_job(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let last = match o["status"]["lastScheduleTime"].as_str() {
        Some(t) => since(Some(t)),
        None => "<none>".into(),
    };
    let job_spec = &spec["jobTemplate"]["spec"];
    let (names, images) = containers(&job_spec["template"]["spec"]);
    vec![
        name(o),
        json!(string(&spec["schedule"])),
        json!(spec["timeZone"].as_str().unwrap_or("<none>")),
        json!(bool_ptr(&spec["suspend"])),
        json!(count(&o["status"]["active"])),
        json!(last),
        age(o),
        names,
        images,
        json!(label_selector(&job_spec["selector"])),
    ]
}

/// The annotations `autoscaling/v1` keeps what it has no fields for in (metrics, conditions,
/// behavior); they are not part of the stored object.
const V1_ANNOTATIONS: [&str; 4] = [
    "autoscaling.alpha.kubernetes.io/metrics",
    "autoscaling.alpha.kubernetes.io/current-metrics",
    "autoscaling.alpha.kubernetes.io/conditions",
    "autoscaling.alpha.kubernetes.io/behavior",
];

/// An autoscaler's metadata without the `autoscaling/v1` annotations.
fn autoscaler_metadata(o: &Value) -> Value {
    let mut metadata = o["metadata"].clone();
    if let Some(annotations) = metadata["annotations"].as_object_mut() {
        for key in V1_ANNOTATIONS {
            annotations.remove(key);
        }
        if annotations.is_empty()
            && let Some(m) = metadata.as_object_mut()
        {
            m.remove("annotations");
        }
    }
    metadata
}

/// A metric target or current value of an `autoscaling/v1` annotation in `autoscaling/v2`
/// form (`targetAverageValue` → `target.averageValue`, ...; Object metrics write a bare
/// `averageValue`).
fn v2_values(v1: &Value, side: &str) -> Value {
    let mut out = json!({});
    for v2_key in ["averageValue", "value", "averageUtilization"] {
        let mut chars = v2_key.chars();
        let capitalised: String = chars
            .next()
            .map(|c| c.to_ascii_uppercase())
            .into_iter()
            .chain(chars)
            .collect();
        let found = v1
            .get(format!("{side}{capitalised}"))
            .or_else(|| (v2_key == "averageValue").then(|| v1.get(v2_key)).flatten());
        if let Some(x) = found {
            out[v2_key] = x.clone();
        }
    }
    out
}

/// The metrics of an `autoscaling/v1` annotation in `autoscaling/v2` form.
fn v1_metrics(annotation: &Value, side: &str) -> Vec<Value> {
    let parsed: Vec<Value> = annotation
        .as_str()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default();
    parsed
        .into_iter()
        .map(|m| {
            let type_ = string(&m["type"]);
            let key = match type_.as_str() {
                "Resource" => "resource",
                "ContainerResource" => "containerResource",
                "Pods" => "pods",
                "Object" => "object",
                _ => "external",
            };
            let source = &m[key];
            let mut v2 = json!({"type": type_, key: {"name": source["name"]}});
            v2[key][side] = v2_values(source, side);
            v2
        })
        .collect()
}

/// The metrics of an autoscaler in `autoscaling/v2` form. An `autoscaling/v1` object keeps its
/// CPU target in fields and the other metrics in annotations; the CPU metric is put first (a
/// table read from storage prints the stored `autoscaling/v2` object instead, in its order).
fn metrics(o: &Value) -> (Vec<Value>, Vec<Value>) {
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    if o["apiVersion"] != "autoscaling/v1" {
        return (
            list(&o["spec"]["metrics"]),
            list(&o["status"]["currentMetrics"]),
        );
    }
    let annotations = &o["metadata"]["annotations"];
    let (mut specs, mut statuses) = (Vec::new(), Vec::new());
    if let Some(target) = o["spec"]["targetCPUUtilizationPercentage"].as_i64() {
        specs.push(json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": target}}}));
    }
    if let Some(c) = o["status"]["currentCPUUtilizationPercentage"].as_i64() {
        statuses.push(json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": c}}}));
    }
    specs.extend(v1_metrics(&annotations[V1_ANNOTATIONS[0]], "target"));
    statuses.extend(v1_metrics(&annotations[V1_ANNOTATIONS[1]], "current"));
    (specs, statuses)
}

/// `formatHPAMetrics`: `current/target` of the first two metrics.
fn targets(specs: &[Value], statuses: &[Value]) -> String {
    if specs.is_empty() {
        return "<none>".into();
    }
    let unknown = || "<unknown>".to_string();
    let mut list = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let status = statuses.get(i);
        let text = match spec["type"].as_str().unwrap_or_default() {
            t @ ("External" | "Object") => {
                let key = if t == "External" {
                    "external"
                } else {
                    "object"
                };
                let target = &spec[key]["target"];
                let current = status.map(|s| &s[key]).filter(|c| c.is_object());
                if !target["averageValue"].is_null() {
                    let cur = current
                        .map(|c| &c["current"]["averageValue"])
                        .filter(|v| !v.is_null())
                        .map_or_else(unknown, quantity);
                    format!("{cur}/{} (avg)", quantity(&target["averageValue"]))
                } else {
                    let cur = current.map_or_else(unknown, |c| quantity(&c["current"]["value"]));
                    format!("{cur}/{}", quantity(&target["value"]))
                }
            }
            "Pods" => {
                let cur = status
                    .map(|s| &s["pods"])
                    .filter(|c| c.is_object())
                    .map_or_else(unknown, |c| quantity(&c["current"]["averageValue"]));
                format!(
                    "{cur}/{}",
                    quantity(&spec["pods"]["target"]["averageValue"])
                )
            }
            t @ ("Resource" | "ContainerResource") => {
                let key = if t == "Resource" {
                    "resource"
                } else {
                    "containerResource"
                };
                let (res, current) = (
                    &spec[key],
                    status.map(|s| &s[key]).filter(|c| c.is_object()),
                );
                let resource_name = string(&res["name"]);
                if !res["target"]["averageValue"].is_null() {
                    let cur =
                        current.map_or_else(unknown, |c| quantity(&c["current"]["averageValue"]));
                    format!(
                        "{resource_name}: {cur}/{}",
                        quantity(&res["target"]["averageValue"])
                    )
                } else {
                    let cur = current
                        .and_then(|c| c["current"]["averageUtilization"].as_i64())
                        .map_or_else(unknown, |u| format!("{u}%"));
                    let target = res["target"]["averageUtilization"]
                        .as_i64()
                        .map_or_else(|| "<auto>".to_string(), |u| format!("{u}%"));
                    format!("{resource_name}: {cur}/{target}")
                }
            }
            _ => "<unknown type>".to_string(),
        };
        list.push(text);
    }
    let max = 2;
    if list.len() > max {
        let more = list.len() - max;
        list.truncate(max);
        format!("{} + {more} more...", list.join(", "))
    } else {
        list.join(", ")
    }
}

fn autoscaler(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let reference = format!(
        "{}/{}",
        string(&spec["scaleTargetRef"]["kind"]),
        string(&spec["scaleTargetRef"]["name"])
    );
    let (specs, statuses) = metrics(o);
    let min = spec["minReplicas"]
        .as_i64()
        .map_or_else(|| "<unset>".to_string(), |m| m.to_string());
    vec![
        name(o),
        json!(reference),
        json!(targets(&specs, &statuses)),
        json!(min),
        number(&spec["maxReplicas"]),
        number(&o["status"]["currentReplicas"]),
        age(o),
    ]
}
