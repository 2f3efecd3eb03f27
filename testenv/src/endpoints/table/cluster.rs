//! Table printers of cluster configuration: storage, admission, scheduling, coordination,
//! node, resource (DRA), flow control, certificates and API services.

use std::cmp::Ordering;

use serde_json::{Value, json};

use super::columns::{AGE, Col, NAME, Printer, boolean, int, text};
use super::format::{age, count, human_duration, label_selector_struct, name, number, or, string};

/// The printer of a cluster configuration resource.
pub(super) fn printer(group: &str, plural: &str) -> Option<Printer> {
    Some(match (group, plural) {
        ("storage.k8s.io", "storageclasses") => Printer::new(STORAGE_CLASS, storage_class),
        ("storage.k8s.io", "csidrivers") => Printer::new(CSI_DRIVER, csi_driver),
        ("storage.k8s.io", "csinodes") => Printer::new(&[NAME, int("Drivers"), AGE], |o| {
            vec![name(o), json!(count(&o["spec"]["drivers"])), age(o)]
        }),
        ("storage.k8s.io", "volumeattachments") => Printer::new(VOLUME_ATTACHMENT, |o| {
            let spec = &o["spec"];
            vec![
                name(o),
                json!(string(&spec["attacher"])),
                json!(string(&spec["source"]["persistentVolumeName"])),
                json!(string(&spec["nodeName"])),
                json!(o["status"]["attached"].as_bool().unwrap_or(false)),
                age(o),
            ]
        }),
        ("storage.k8s.io", "volumeattributesclasses") => {
            Printer::new(&[NAME, text("DriverName"), AGE], |o| {
                let key = "volumeattributesclass.kubernetes.io/is-default-class";
                vec![
                    json!(default_marked(o, &[key])),
                    json!(string(&o["driverName"])),
                    age(o),
                ]
            })
        }
        (
            "admissionregistration.k8s.io",
            "mutatingwebhookconfigurations" | "validatingwebhookconfigurations",
        ) => Printer::new(&[NAME, int("Webhooks"), AGE], |o| {
            vec![name(o), json!(count(&o["webhooks"])), age(o)]
        }),
        ("admissionregistration.k8s.io", "validatingadmissionpolicies") => {
            Printer::new(&[NAME, int("Validations"), text("ParamKind"), AGE], |o| {
                let spec = &o["spec"];
                vec![
                    name(o),
                    json!(count(&spec["validations"])),
                    json!(param_kind(&spec["paramKind"])),
                    age(o),
                ]
            })
        }
        ("admissionregistration.k8s.io", "mutatingadmissionpolicies") => {
            Printer::new(&[NAME, int("Mutations"), text("ParamKind"), AGE], |o| {
                let spec = &o["spec"];
                vec![
                    name(o),
                    json!(count(&spec["mutations"])),
                    json!(param_kind(&spec["paramKind"])),
                    age(o),
                ]
            })
        }
        (
            "admissionregistration.k8s.io",
            "validatingadmissionpolicybindings" | "mutatingadmissionpolicybindings",
        ) => Printer::new(&[NAME, text("PolicyName"), text("ParamRef"), AGE], |o| {
            vec![
                name(o),
                json!(string(&o["spec"]["policyName"])),
                json!(param_ref(&o["spec"]["paramRef"])),
                age(o),
            ]
        }),
        ("scheduling.k8s.io", "priorityclasses") => Printer::new(
            &[
                NAME,
                int("Value"),
                boolean("Global-Default"),
                AGE,
                text("PreemptionPolicy"),
            ],
            |o| {
                vec![
                    name(o),
                    number(&o["value"]),
                    json!(o["globalDefault"].as_bool().unwrap_or(false)),
                    age(o),
                    json!(string(&o["preemptionPolicy"])),
                ]
            },
        ),
        ("coordination.k8s.io", "leases") => Printer::new(&[NAME, text("Holder"), AGE], |o| {
            vec![name(o), json!(string(&o["spec"]["holderIdentity"])), age(o)]
        }),
        ("node.k8s.io", "runtimeclasses") => Printer::new(&[NAME, text("Handler"), AGE], |o| {
            vec![name(o), json!(string(&o["handler"])), age(o)]
        }),
        ("resource.k8s.io", "deviceclasses" | "resourceclaimtemplates") => {
            Printer::new(&[NAME, AGE], |o| vec![name(o), age(o)])
        }
        ("resource.k8s.io", "resourceclaims") => Printer::new(&[NAME, text("State"), AGE], |o| {
            vec![name(o), json!(claim_state(o)), age(o)]
        }),
        ("resource.k8s.io", "resourceslices") => Printer::new(
            &[NAME, text("Node"), text("Driver"), text("Pool"), AGE],
            |o| {
                let spec = &o["spec"];
                vec![
                    name(o),
                    json!(string(&spec["nodeName"])),
                    json!(string(&spec["driver"])),
                    json!(string(&spec["pool"]["name"])),
                    age(o),
                ]
            },
        ),
        ("flowcontrol.apiserver.k8s.io", "flowschemas") => Printer {
            order: Some(by_precedence),
            ..Printer::new(FLOW_SCHEMA, flow_schema)
        },
        ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations") => {
            Printer::new(PRIORITY_LEVEL, priority_level)
        }
        ("certificates.k8s.io", "certificatesigningrequests") => Printer::new(CSR, csr),
        ("apiregistration.k8s.io", "apiservices") => Printer::new(
            &[NAME, text("Service"), text("Available"), AGE],
            api_service,
        ),
        _ => return None,
    })
}

const STORAGE_CLASS: &[Col] = &[
    NAME,
    text("Provisioner"),
    text("ReclaimPolicy"),
    text("VolumeBindingMode"),
    text("AllowVolumeExpansion"),
    AGE,
];

const CSI_DRIVER: &[Col] = &[
    NAME,
    boolean("AttachRequired"),
    boolean("PodInfoOnMount"),
    boolean("StorageCapacity"),
    text("TokenRequests"),
    boolean("RequiresRepublish"),
    text("Modes"),
    AGE,
];

const VOLUME_ATTACHMENT: &[Col] = &[
    NAME,
    Col {
        format: "name",
        ..text("Attacher")
    },
    text("PV"),
    text("Node"),
    boolean("Attached"),
    AGE,
];

const FLOW_SCHEMA: &[Col] = &[
    NAME,
    text("PriorityLevel"),
    text("MatchingPrecedence"),
    text("DistinguisherMethod"),
    AGE,
    text("MissingPL"),
];

const PRIORITY_LEVEL: &[Col] = &[
    NAME,
    text("Type"),
    text("NominalConcurrencyShares"),
    text("Queues"),
    text("HandSize"),
    text("QueueLengthLimit"),
    AGE,
];

const CSR: &[Col] = &[
    NAME,
    AGE,
    text("SignerName"),
    text("Requestor"),
    text("RequestedDuration"),
    text("Condition"),
];

/// The name, with ` (default)` when one of the default-class annotations says `true`.
fn default_marked(o: &Value, keys: &[&str]) -> String {
    let name = string(&o["metadata"]["name"]);
    let annotations = &o["metadata"]["annotations"];
    if keys.iter().any(|k| annotations[*k] == "true") {
        format!("{name} (default)")
    } else {
        name
    }
}

fn storage_class(o: &Value) -> Vec<Value> {
    let keys = [
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    ];
    vec![
        json!(default_marked(o, &keys)),
        json!(string(&o["provisioner"])),
        json!(o["reclaimPolicy"].as_str().unwrap_or("Delete")),
        json!(o["volumeBindingMode"].as_str().unwrap_or("Immediate")),
        json!(o["allowVolumeExpansion"].as_bool().unwrap_or(false)),
        age(o),
    ]
}

fn csi_driver(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let flag = |k: &str, default: bool| json!(spec[k].as_bool().unwrap_or(default));
    let modes: Vec<&str> = spec["volumeLifecycleModes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let tokens = match spec["tokenRequests"].as_array() {
        Some(t) => t
            .iter()
            .map(|r| string(&r["audience"]))
            .collect::<Vec<_>>()
            .join(","),
        None => "<unset>".into(),
    };
    vec![
        name(o),
        flag("attachRequired", true),
        flag("podInfoOnMount", false),
        flag("storageCapacity", false),
        json!(tokens),
        flag("requiresRepublish", false),
        json!(if modes.is_empty() {
            "<none>".to_string()
        } else {
            modes.join(",")
        }),
        age(o),
    ]
}

fn param_kind(kind: &Value) -> String {
    if kind.is_object() {
        format!("{}/{}", string(&kind["apiVersion"]), string(&kind["kind"]))
    } else {
        "<unset>".into()
    }
}

fn param_ref(r: &Value) -> String {
    if !r.is_object() {
        return "<unset>".into();
    }
    match (
        r["name"].as_str().filter(|n| !n.is_empty()),
        r["namespace"].as_str(),
    ) {
        (Some(n), Some(ns)) if !ns.is_empty() => format!("{ns}/{n}"),
        (Some(n), _) => format!("*/{n}"),
        (None, _) if r["selector"].is_object() => label_selector_struct(&r["selector"]),
        (None, _) => "<unset>".into(),
    }
}

fn claim_state(o: &Value) -> String {
    let deleted = o["metadata"]["deletionTimestamp"].is_string();
    let mut states = Vec::new();
    if deleted {
        states.push("deleted");
    }
    if o["status"]["allocation"].is_object() {
        states.push("allocated");
        if o["status"]["reservedFor"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
        {
            states.push("reserved");
        }
    } else if !deleted {
        states.push("pending");
    }
    states.join(",")
}

fn by_precedence(a: &Value, b: &Value) -> Ordering {
    let p = |o: &Value| o["spec"]["matchingPrecedence"].as_i64().unwrap_or(0);
    p(a).cmp(&p(b))
        .then_with(|| string(&a["metadata"]["name"]).cmp(&string(&b["metadata"]["name"])))
}

fn flow_schema(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let dangling = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Dangling")
        .map_or_else(|| "?".to_string(), |c| string(&c["status"]));
    vec![
        name(o),
        json!(string(&spec["priorityLevelConfiguration"]["name"])),
        number(&spec["matchingPrecedence"]),
        json!(or(&spec["distinguisherMethod"]["type"], "<none>")),
        age(o),
        json!(dangling),
    ]
}

fn priority_level(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let none = || json!("<none>");
    let (mut ncs, mut queues, mut hand, mut limit) = (none(), none(), none(), none());
    let limited = &spec["limited"];
    if limited.is_object() {
        ncs = number(&limited["nominalConcurrencyShares"]);
        let q = &limited["limitResponse"]["queuing"];
        if q.is_object() {
            queues = number(&q["queues"]);
            hand = number(&q["handSize"]);
            limit = number(&q["queueLengthLimit"]);
        }
    }
    vec![
        name(o),
        json!(string(&spec["type"])),
        ncs,
        queues,
        hand,
        limit,
        age(o),
    ]
}

fn csr(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let status = &o["status"];
    let has = |t: &str| {
        status["conditions"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["type"] == t))
    };
    let mut condition = if has("Denied") {
        "Denied"
    } else if has("Approved") {
        "Approved"
    } else {
        "Pending"
    }
    .to_string();
    if has("Failed") {
        condition.push_str(",Failed");
    }
    if status["certificate"]
        .as_str()
        .is_some_and(|c| !c.is_empty())
    {
        condition.push_str(",Issued");
    }
    let duration = spec["expirationSeconds"]
        .as_i64()
        .map_or_else(|| "<none>".to_string(), human_duration);
    vec![
        name(o),
        age(o),
        json!(or(&spec["signerName"], "<none>")),
        json!(string(&spec["username"])),
        json!(duration),
        json!(condition),
    ]
}

fn api_service(o: &Value) -> Vec<Value> {
    let svc = &o["spec"]["service"];
    let service = if svc.is_object() {
        format!("{}/{}", string(&svc["namespace"]), string(&svc["name"]))
    } else {
        "Local".into()
    };
    let available = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Available");
    let status = match available {
        None => "Unknown".to_string(),
        Some(c) if c["status"] == "True" => "True".to_string(),
        Some(c) => match c["reason"].as_str().filter(|r| !r.is_empty()) {
            Some(r) => format!("{} ({r})", string(&c["status"])),
            None => string(&c["status"]),
        },
    };
    vec![name(o), json!(service), json!(status), age(o)]
}
