//! Table printers of the core group (`/api/v1`): pods, nodes, services, endpoints and the
//! small kinds (events and volumes have files of their own).

use serde_json::{Value, json};

use super::columns::{AGE, Col, NAME, Printer, int, text, wide};
use super::format::{age, containers, count, labels, name, number, or, quantity, since, string};

/// The printer of a core resource.
pub(super) fn printer(group: &str, plural: &str) -> Option<Printer> {
    Some(match (group, plural) {
        ("", "pods") => Printer {
            conditions: pod_conditions,
            ..Printer::new(POD, pod)
        },
        ("", "podtemplates") => Printer::new(
            &[NAME, text("Containers"), text("Images"), text("Pod Labels")],
            |o| {
                let (names, images) = containers(&o["template"]["spec"]);
                vec![
                    name(o),
                    names,
                    images,
                    json!(labels(&o["template"]["metadata"]["labels"])),
                ]
            },
        ),
        ("", "replicationcontrollers") => Printer::new(REPLICATION_CONTROLLER, |o| {
            let (names, images) = containers(&o["spec"]["template"]["spec"]);
            vec![
                name(o),
                number(&o["spec"]["replicas"]),
                number(&o["status"]["replicas"]),
                number(&o["status"]["readyReplicas"]),
                age(o),
                names,
                images,
                json!(labels(&o["spec"]["selector"])),
            ]
        }),
        ("", "services") => Printer::new(SERVICE, service),
        ("", "endpoints") => Printer::new(&[NAME, text("Endpoints"), AGE], |o| {
            vec![name(o), json!(endpoints(o)), age(o)]
        }),
        ("", "nodes") => Printer::new(NODE, node),
        ("", "namespaces") => Printer::new(&[NAME, text("Status"), AGE], |o| {
            vec![name(o), json!(string(&o["status"]["phase"])), age(o)]
        }),
        ("", "secrets") => Printer::new(&[NAME, text("Type"), text("Data"), AGE], |o| {
            vec![
                name(o),
                json!(string(&o["type"])),
                json!(count(&o["data"])),
                age(o),
            ]
        }),
        ("", "serviceaccounts") => Printer::new(&[NAME, text("Secrets"), AGE], |o| {
            vec![name(o), json!(count(&o["secrets"])), age(o)]
        }),
        ("", "configmaps") => Printer::new(&[NAME, text("Data"), AGE], |o| {
            let n = count(&o["data"]) + count(&o["binaryData"]);
            vec![name(o), json!(n), age(o)]
        }),
        ("", "resourcequotas") => {
            Printer::new(&[NAME, text("Request"), text("Limit"), AGE], resource_quota)
        }
        ("", "componentstatuses") => Printer::new(
            &[NAME, text("Status"), text("Message"), text("Error")],
            component_status,
        ),
        _ => return None,
    })
}

const POD: &[Col] = &[
    NAME,
    text("Ready"),
    text("Status"),
    text("Restarts"),
    AGE,
    wide("IP"),
    wide("Node"),
    wide("Nominated Node"),
    wide("Readiness Gates"),
];

const REPLICATION_CONTROLLER: &[Col] = &[
    NAME,
    int("Desired"),
    int("Current"),
    int("Ready"),
    AGE,
    wide("Containers"),
    wide("Images"),
    wide("Selector"),
];

const SERVICE: &[Col] = &[
    NAME,
    text("Type"),
    text("Cluster-IP"),
    text("External-IP"),
    text("Port(s)"),
    AGE,
    wide("Selector"),
];

const NODE: &[Col] = &[
    NAME,
    text("Status"),
    text("Roles"),
    AGE,
    text("Version"),
    wide("Internal-IP"),
    wide("External-IP"),
    wide("OS-Image"),
    wide("Kernel-Version"),
    wide("Container-Runtime"),
];

fn seconds(ts: &Value) -> Option<i64> {
    ts.as_str()
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .map(jiff::Timestamp::as_second)
}

/// The later of a last-restart time and a container's last termination.
fn later(current: Option<(i64, String)>, status: &Value) -> Option<(i64, String)> {
    let finished = &status["lastState"]["terminated"]["finishedAt"];
    match (seconds(finished), current) {
        (Some(s), Some(c)) if s > c.0 => Some((s, string(finished))),
        (Some(s), None) => Some((s, string(finished))),
        (_, c) => c,
    }
}

fn terminated_reason(t: &Value, prefix: &str) -> String {
    match t["reason"].as_str().filter(|r| !r.is_empty()) {
        Some(r) => format!("{prefix}{r}"),
        None => match t["signal"].as_i64().filter(|s| *s != 0) {
            Some(sig) => format!("{prefix}Signal:{sig}"),
            None => format!("{prefix}ExitCode:{}", t["exitCode"].as_i64().unwrap_or(0)),
        },
    }
}

/// The READY, STATUS and RESTARTS of a pod as kubectl computes them.
fn pod(o: &Value) -> Vec<Value> {
    let (spec, status) = (&o["spec"], &o["status"]);
    let init_specs = spec["initContainers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let restartable = |name: &Value| {
        init_specs
            .iter()
            .any(|c| c["name"] == *name && c["restartPolicy"] == "Always")
    };
    let mut total = count(&spec["containers"]);
    total += init_specs
        .iter()
        .filter(|c| c["restartPolicy"] == "Always")
        .count();
    let mut ready = 0;
    let mut restarts = 0;
    let mut restartable_restarts = 0;
    let mut last_restart = None;
    let mut last_restartable_restart = None;
    let phase = string(&status["phase"]);
    let mut reason = or(&status["reason"], &phase);
    let conditions = status["conditions"].as_array().cloned().unwrap_or_default();
    if conditions
        .iter()
        .any(|c| c["type"] == "PodScheduled" && c["reason"] == "SchedulingGated")
    {
        reason = "SchedulingGated".into();
    }
    let mut initializing = false;
    let init_statuses = status["initContainerStatuses"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (i, c) in init_statuses.iter().enumerate() {
        let n = c["restartCount"].as_i64().unwrap_or(0);
        restarts += n;
        last_restart = later(last_restart, c);
        let is_restartable = restartable(&c["name"]);
        if is_restartable {
            restartable_restarts += n;
            last_restartable_restart = later(last_restartable_restart, c);
        }
        let (state_t, state_w) = (&c["state"]["terminated"], &c["state"]["waiting"]);
        if state_t.is_object() && state_t["exitCode"].as_i64().unwrap_or(0) == 0 {
            continue;
        }
        if is_restartable && c["started"] == true {
            if c["ready"] == true {
                ready += 1;
            }
            continue;
        }
        if state_t.is_object() {
            reason = terminated_reason(state_t, "Init:");
        } else if let Some(w) = state_w["reason"]
            .as_str()
            .filter(|r| !r.is_empty() && *r != "PodInitializing")
        {
            reason = format!("Init:{w}");
        } else {
            reason = format!("Init:{i}/{}", init_specs.len());
        }
        initializing = true;
        break;
    }
    let initialized = conditions
        .iter()
        .find(|c| c["type"] == "Initialized")
        .is_some_and(|c| c["status"] == "True");
    if !initializing || initialized {
        restarts = restartable_restarts;
        last_restart = last_restartable_restart;
        let mut has_running = false;
        let statuses = status["containerStatuses"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for c in statuses.iter().rev() {
            restarts += c["restartCount"].as_i64().unwrap_or(0);
            last_restart = later(last_restart, c);
            let (t, w) = (&c["state"]["terminated"], &c["state"]["waiting"]);
            if let Some(r) = w["reason"].as_str().filter(|r| !r.is_empty()) {
                reason = r.to_string();
            } else if t.is_object() {
                reason = terminated_reason(t, "");
            } else if c["ready"] == true && c["state"]["running"].is_object() {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && has_running {
            let pod_ready = conditions
                .iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True");
            reason = if pod_ready { "Running" } else { "NotReady" }.into();
        }
    }
    let deleting = o["metadata"]["deletionTimestamp"].is_string();
    if deleting && status["reason"] == "NodeLost" {
        reason = "Unknown".into();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".into();
    }
    let restarts_text = match last_restart {
        Some((_, at)) if restarts != 0 => format!("{restarts} ({} ago)", since(Some(&at))),
        _ => restarts.to_string(),
    };
    let gates = spec["readinessGates"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let readiness_gates = if gates.is_empty() {
        "<none>".to_string()
    } else {
        let true_conditions = gates
            .iter()
            .filter(|g| {
                conditions
                    .iter()
                    .find(|c| c["type"] == g["conditionType"])
                    .is_some_and(|c| c["status"] == "True")
            })
            .count();
        format!("{true_conditions}/{}", gates.len())
    };
    vec![
        name(o),
        json!(format!("{ready}/{total}")),
        json!(reason),
        json!(restarts_text),
        age(o),
        json!(or(&status["podIPs"][0]["ip"], "<none>")),
        json!(or(&spec["nodeName"], "<none>")),
        json!(or(&status["nominatedNodeName"], "<none>")),
        json!(readiness_gates),
    ]
}

/// A finished pod's row condition.
fn pod_conditions(o: &Value) -> Option<Value> {
    let (reason, message) = match o["status"]["phase"].as_str()? {
        "Succeeded" => ("Succeeded", "The pod has completed successfully."),
        "Failed" => ("Failed", "The pod failed."),
        _ => return None,
    };
    Some(json!([{"type": "Completed", "status": "True", "reason": reason, "message": message}]))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

fn service(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let external_ips = strings(&spec["externalIPs"]);
    let external = match spec["type"].as_str().unwrap_or_default() {
        "ClusterIP" | "NodePort" if external_ips.is_empty() => "<none>".to_string(),
        "ClusterIP" | "NodePort" => external_ips.join(","),
        "LoadBalancer" => {
            let mut lb: Vec<String> = o["status"]["loadBalancer"]["ingress"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|i| {
                    i["ip"]
                        .as_str()
                        .filter(|s| !s.is_empty())
                        .or(i["hostname"].as_str().filter(|s| !s.is_empty()))
                        .map(str::to_string)
                })
                .collect();
            lb.sort();
            lb.dedup();
            lb.extend(external_ips);
            if lb.is_empty() {
                "<pending>".to_string()
            } else {
                lb.join(",")
            }
        }
        "ExternalName" => string(&spec["externalName"]),
        _ => "<unknown>".to_string(),
    };
    let ports: Vec<String> = spec["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let (port, proto) = (p["port"].as_i64().unwrap_or(0), string(&p["protocol"]));
            match p["nodePort"].as_i64().filter(|n| *n > 0) {
                Some(np) => format!("{port}:{np}/{proto}"),
                None => format!("{port}/{proto}"),
            }
        })
        .collect();
    vec![
        name(o),
        json!(string(&spec["type"])),
        json!(or(&spec["clusterIPs"][0], "<none>")),
        json!(external),
        json!(if ports.is_empty() {
            "<none>".to_string()
        } else {
            ports.join(",")
        }),
        age(o),
        json!(labels(&spec["selector"])),
    ]
}

/// `formatEndpoints`: up to three `ip:port`, then `+ N more...`.
fn endpoints(o: &Value) -> String {
    let subsets = o["subsets"].as_array().cloned().unwrap_or_default();
    if subsets.is_empty() {
        return "<none>".into();
    }
    let (max, mut list, mut more, mut total) = (3, Vec::new(), false, 0);
    for ss in &subsets {
        let addresses = ss["addresses"].as_array().cloned().unwrap_or_default();
        let ports = ss["ports"].as_array().cloned().unwrap_or_default();
        let port_numbers: Vec<Option<i64>> = if ports.is_empty() {
            vec![None]
        } else {
            ports
                .iter()
                .map(|p| Some(p["port"].as_i64().unwrap_or(0)))
                .collect()
        };
        for port in port_numbers {
            total += addresses.len();
            for a in &addresses {
                if list.len() == max {
                    more = true;
                    break;
                }
                let ip = string(&a["ip"]);
                list.push(match port {
                    None => ip,
                    Some(p) if ip.contains(':') => format!("[{ip}]:{p}"),
                    Some(p) => format!("{ip}:{p}"),
                });
            }
        }
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", total - max)
    } else {
        joined
    }
}

fn node(o: &Value) -> Vec<Value> {
    let status = &o["status"];
    let ready = status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .rfind(|c| c["type"] == "Ready");
    let mut states = vec![match ready {
        Some(c) if c["status"] == "True" => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    }];
    if o["spec"]["unschedulable"] == true {
        states.push("SchedulingDisabled".into());
    }
    let mut roles: Vec<String> = o["metadata"]["labels"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
            Some(role) if !role.is_empty() => Some(role.to_string()),
            Some(_) => None,
            None if k == "kubernetes.io/role" => {
                v.as_str().filter(|v| !v.is_empty()).map(str::to_string)
            }
            None => None,
        })
        .collect();
    roles.sort();
    roles.dedup();
    let address = |type_: &str| {
        status["addresses"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|a| a["type"] == type_)
            .map_or_else(|| "<none>".to_string(), |a| string(&a["address"]))
    };
    let info = &status["nodeInfo"];
    vec![
        name(o),
        json!(states.join(",")),
        json!(if roles.is_empty() {
            "<none>".to_string()
        } else {
            roles.join(",")
        }),
        age(o),
        json!(string(&info["kubeletVersion"])),
        json!(address("InternalIP")),
        json!(address("ExternalIP")),
        json!(or(&info["osImage"], "<unknown>")),
        json!(or(&info["kernelVersion"], "<unknown>")),
        json!(or(&info["containerRuntimeVersion"], "<unknown>")),
    ]
}

fn resource_quota(o: &Value) -> Vec<Value> {
    let hard = o["status"]["hard"].as_object().cloned().unwrap_or_default();
    let mut names: Vec<&String> = hard.keys().collect();
    names.sort();
    let (mut requests, mut limits) = (Vec::new(), Vec::new());
    for r in names {
        let entry = format!(
            "{r}: {}/{}",
            quantity(&o["status"]["used"][r.as_str()]),
            quantity(&hard[r.as_str()])
        );
        let pieces: Vec<&str> = r.split('.').collect();
        if pieces.len() > 1 && pieces[0] == "limits" {
            limits.push(entry);
        } else {
            requests.push(entry);
        }
    }
    vec![
        name(o),
        json!(requests.join(", ")),
        json!(limits.join(", ")),
        age(o),
    ]
}

fn component_status(o: &Value) -> Vec<Value> {
    let healthy = o["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Healthy");
    let (status, message, error) = match healthy {
        Some(c) => (
            if c["status"] == "True" {
                "Healthy"
            } else {
                "Unhealthy"
            },
            string(&c["message"]),
            string(&c["error"]),
        ),
        None => ("Unknown", String::new(), String::new()),
    };
    vec![name(o), json!(status), json!(message), json!(error)]
}
