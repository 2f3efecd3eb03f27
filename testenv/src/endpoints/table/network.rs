//! Table printers of networking (`networking.k8s.io`, `discovery.k8s.io`) and of RBAC
//! bindings.

use serde_json::{Value, json};

use super::columns::{AGE, NAME, Printer, text, wide};
use super::format::{age, label_selector, list_with_more, name, string};

/// The printer of a networking or RBAC resource.
pub(super) fn printer(group: &str, plural: &str) -> Option<Printer> {
    Some(match (group, plural) {
        ("networking.k8s.io", "ingresses") => Printer::new(
            &[
                NAME,
                text("Class"),
                text("Hosts"),
                text("Address"),
                text("Ports"),
                AGE,
            ],
            ingress,
        ),
        ("networking.k8s.io", "ingressclasses") => {
            Printer::new(&[NAME, text("Controller"), text("Parameters"), AGE], |o| {
                let p = &o["spec"]["parameters"];
                let parameters = if p.is_object() {
                    let group = p["apiGroup"]
                        .as_str()
                        .map_or_else(String::new, |g| format!(".{g}"));
                    format!("{}{group}/{}", string(&p["kind"]), string(&p["name"]))
                } else {
                    "<none>".into()
                };
                vec![
                    name(o),
                    json!(string(&o["spec"]["controller"])),
                    json!(parameters),
                    age(o),
                ]
            })
        }
        ("networking.k8s.io", "networkpolicies") => {
            Printer::new(&[NAME, text("Pod-Selector"), AGE], |o| {
                vec![
                    name(o),
                    json!(label_selector(&o["spec"]["podSelector"])),
                    age(o),
                ]
            })
        }
        ("networking.k8s.io", "servicecidrs") => Printer::new(&[NAME, text("CIDRs"), AGE], |o| {
            vec![
                name(o),
                json!(strings(&o["spec"]["cidrs"]).join(",")),
                age(o),
            ]
        }),
        // The real printer writes an age cell without an Age column.
        ("networking.k8s.io", "ipaddresses") => Printer::new(&[NAME, text("ParentRef")], |o| {
            let p = &o["spec"]["parentRef"];
            let parent = if p.is_object() {
                let resource = string(&p["resource"]);
                let group = string(&p["group"]);
                let mut s = if group.is_empty() {
                    resource
                } else {
                    format!("{resource}.{group}")
                }
                .to_lowercase();
                if let Some(ns) = p["namespace"].as_str().filter(|n| !n.is_empty()) {
                    s = format!("{s}/{ns}");
                }
                format!("{s}/{}", string(&p["name"]))
            } else {
                "<none>".into()
            };
            vec![name(o), json!(parent), age(o)]
        }),
        ("discovery.k8s.io", "endpointslices") => Printer::new(
            &[
                NAME,
                text("AddressType"),
                text("Ports"),
                text("Endpoints"),
                AGE,
            ],
            endpoint_slice,
        ),
        ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => Printer::new(
            &[
                NAME,
                text("Role"),
                AGE,
                wide("Users"),
                wide("Groups"),
                wide("ServiceAccounts"),
            ],
            binding,
        ),
        _ => return None,
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

/// `formatHosts`: up to three hosts, `*` when no rule names one.
fn hosts(rules: &[Value]) -> String {
    let max = 3;
    let mut list = Vec::new();
    let mut more = false;
    for rule in rules {
        if list.len() == max {
            more = true;
        }
        match rule["host"].as_str().filter(|h| !h.is_empty()) {
            Some(h) if !more => list.push(h.to_string()),
            _ => {}
        }
    }
    if list.is_empty() {
        return "*".into();
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", rules.len() - max)
    } else {
        joined
    }
}

fn ingress(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let rules = spec["rules"].as_array().cloned().unwrap_or_default();
    let mut addresses: Vec<String> = o["status"]["loadBalancer"]["ingress"]
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
    addresses.sort();
    addresses.dedup();
    let tls = spec["tls"].as_array().is_some_and(|t| !t.is_empty());
    vec![
        name(o),
        json!(spec["ingressClassName"].as_str().unwrap_or("<none>")),
        json!(hosts(&rules)),
        json!(addresses.join(",")),
        json!(if tls { "80, 443" } else { "80" }),
        age(o),
    ]
}

fn endpoint_slice(o: &Value) -> Vec<Value> {
    let ports: Vec<String> = o["ports"]
        .as_array()
        .into_iter()
        .flatten()
        // `v1` defaults a port's name to "", so a port without number prints its name
        // (never the printer's `*`).
        .map(|p| match p["port"].as_i64() {
            Some(n) => n.to_string(),
            None => string(&p["name"]),
        })
        .collect();
    let addresses: Vec<String> = o["endpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|e| strings(&e["addresses"]))
        .collect();
    vec![
        name(o),
        json!(string(&o["addressType"])),
        json!(list_with_more(&ports, 3)),
        json!(list_with_more(&addresses, 3)),
        age(o),
    ]
}

fn binding(o: &Value) -> Vec<Value> {
    let (mut users, mut groups, mut sas) = (Vec::new(), Vec::new(), Vec::new());
    for s in o["subjects"].as_array().into_iter().flatten() {
        let subject_name = string(&s["name"]);
        match s["kind"].as_str().unwrap_or_default() {
            "ServiceAccount" => sas.push(format!("{}/{subject_name}", string(&s["namespace"]))),
            "User" => users.push(subject_name),
            "Group" => groups.push(subject_name),
            _ => {}
        }
    }
    let role = format!(
        "{}/{}",
        string(&o["roleRef"]["kind"]),
        string(&o["roleRef"]["name"])
    );
    vec![
        name(o),
        json!(role),
        age(o),
        json!(users.join(", ")),
        json!(groups.join(", ")),
        json!(sas.join(", ")),
    ]
}
