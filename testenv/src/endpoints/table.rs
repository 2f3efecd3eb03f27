//! `Table` output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), which is what
//! `kubectl get` asks for: printer columns of CRDs, the usual columns of common built-ins.

use serde_json::{Value, json};

use crate::support::jsonpath;
use crate::support::query::Query;
use crate::support::request::Reply;
use crate::support::resource::ResourceDef;

/// Whether the Accept header asks for a Table.
pub fn wants_table(accept: &str) -> bool {
    accept.split(',').any(|part| {
        let part = part.replace(' ', "");
        part.contains("as=Table") && part.contains("g=meta.k8s.io")
    })
}

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
        let rem = s % 60;
        if rem == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{rem}s")
        }
    } else if m < 180 {
        format!("{m}m")
    } else if h < 8 {
        let rem = m % 60;
        if rem == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{rem}m")
        }
    } else if h < 48 {
        format!("{h}h")
    } else if h < 24 * 8 {
        let rem = h % 24;
        if rem == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{rem}h")
        }
    } else if d < 365 * 2 {
        format!("{d}d")
    } else if d < 365 * 8 {
        let rem = d % 365;
        if rem == 0 {
            format!("{}y", d / 365)
        } else {
            format!("{}y{rem}d", d / 365)
        }
    } else {
        format!("{}y", d / 365)
    }
}

fn age(timestamp: Option<&str>) -> Value {
    let Some(ts) = timestamp.and_then(|t| t.parse::<jiff::Timestamp>().ok()) else {
        return json!("<unknown>");
    };
    let secs = jiff::Timestamp::now().as_second() - ts.as_second();
    json!(human_duration(secs))
}

struct Column {
    name: String,
    type_: String,
    format: String,
    description: String,
    priority: i64,
    path: Option<String>,
    /// Cells computed from the whole object, as the built-in table printers do.
    compute: Option<fn(&Value) -> Value>,
}

fn col(name: &str, type_: &str, path: Option<&str>) -> Column {
    Column {
        name: name.into(),
        type_: type_.into(),
        format: if name == "Name" {
            "name".into()
        } else {
            String::new()
        },
        description: String::new(),
        priority: 0,
        path: path.map(str::to_string),
        compute: None,
    }
}

fn computed(name: &str, type_: &str, f: fn(&Value) -> Value) -> Column {
    Column {
        compute: Some(f),
        ..col(name, type_, None)
    }
}

fn int_at(path: &'static str) -> fn(&Value) -> Value {
    // Go prints unset integer status fields as 0.
    match path {
        "updated" => |o| json!(o["status"]["updatedReplicas"].as_i64().unwrap_or(0)),
        "available" => |o| json!(o["status"]["availableReplicas"].as_i64().unwrap_or(0)),
        "current" => |o| json!(o["status"]["replicas"].as_i64().unwrap_or(0)),
        "ready" => |o| json!(o["status"]["readyReplicas"].as_i64().unwrap_or(0)),
        "desired" => |o| json!(o["spec"]["replicas"].as_i64().unwrap_or(0)),
        _ => |_| Value::Null,
    }
}

fn ready_of_desired(o: &Value) -> Value {
    let ready = o["status"]["readyReplicas"].as_i64().unwrap_or(0);
    let desired = o["spec"]["replicas"].as_i64().unwrap_or(0);
    json!(format!("{ready}/{desired}"))
}

fn pod_ready(o: &Value) -> Value {
    let total = o["spec"]["containers"].as_array().map_or(0, Vec::len);
    let ready = o["status"]["containerStatuses"].as_array().map_or(0, |c| {
        c.iter().filter(|s| s["ready"] == json!(true)).count()
    });
    json!(format!("{ready}/{total}"))
}

fn pod_restarts(o: &Value) -> Value {
    let n: i64 = o["status"]["containerStatuses"].as_array().map_or(0, |c| {
        c.iter().filter_map(|s| s["restartCount"].as_i64()).sum()
    });
    json!(n)
}

fn service_external_ip(o: &Value) -> Value {
    let mut ips: Vec<String> = o["spec"]["externalIPs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    for ing in o["status"]["loadBalancer"]["ingress"]
        .as_array()
        .into_iter()
        .flatten()
    {
        ips.extend(
            ing["ip"]
                .as_str()
                .or(ing["hostname"].as_str())
                .map(str::to_string),
        );
    }
    match (ips.is_empty(), o["spec"]["type"].as_str()) {
        (false, _) => json!(ips.join(",")),
        (true, Some("LoadBalancer")) => json!("<pending>"),
        (true, Some("ExternalName")) => o["spec"]["externalName"].clone(),
        _ => json!("<none>"),
    }
}

fn service_ports(o: &Value) -> Value {
    let ports: Vec<String> = o["spec"]["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let proto = p["protocol"].as_str().unwrap_or("TCP");
            match p["nodePort"].as_i64() {
                Some(np) => format!("{}:{np}/{proto}", p["port"]),
                None => format!("{}/{proto}", p["port"]),
            }
        })
        .collect();
    if ports.is_empty() {
        json!("<none>")
    } else {
        json!(ports.join(","))
    }
}

fn data_count(o: &Value) -> Value {
    json!(
        o["data"].as_object().map_or(0, serde_json::Map::len)
            + o["binaryData"].as_object().map_or(0, serde_json::Map::len)
    )
}

/// The description of the Name column: ObjectMeta's documentation of `name`.
const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/// A custom resource's column description when the CRD gives none.
fn column_description(json_path: &str) -> String {
    format!("Custom resource definition column (in JSONPath format): {json_path}")
}

fn columns(def: &ResourceDef) -> Vec<Column> {
    let mut cols = vec![Column {
        description: NAME_DESCRIPTION.into(),
        ..col("Name", "string", Some(".metadata.name"))
    }];
    let age_col = || col("Age", "date", Some(".metadata.creationTimestamp"));
    if let Some(custom) = &def.custom {
        if custom.printer_columns.is_empty() {
            cols.push(Column {
                description: column_description(".metadata.creationTimestamp"),
                ..age_col()
            });
        }
        for pc in &custom.printer_columns {
            let json_path = pc["jsonPath"].as_str().unwrap_or_default();
            cols.push(Column {
                name: pc["name"].as_str().unwrap_or_default().into(),
                type_: pc["type"].as_str().unwrap_or("string").into(),
                format: pc["format"].as_str().unwrap_or_default().into(),
                description: pc["description"]
                    .as_str()
                    .map_or_else(|| column_description(json_path), str::to_string),
                priority: pc["priority"].as_i64().unwrap_or(0),
                path: pc["jsonPath"].as_str().map(str::to_string),
                compute: None,
            });
        }
        return cols;
    }
    let status_int = |name: &str, path: &'static str| {
        let mut c = col(name, "integer", None);
        c.compute = Some(match path {
            "desiredNumberScheduled" => {
                |o: &Value| json!(o["status"]["desiredNumberScheduled"].as_i64().unwrap_or(0))
            }
            "currentNumberScheduled" => {
                |o: &Value| json!(o["status"]["currentNumberScheduled"].as_i64().unwrap_or(0))
            }
            "numberReady" => |o: &Value| json!(o["status"]["numberReady"].as_i64().unwrap_or(0)),
            "updatedNumberScheduled" => {
                |o: &Value| json!(o["status"]["updatedNumberScheduled"].as_i64().unwrap_or(0))
            }
            _ => |o: &Value| json!(o["status"]["numberAvailable"].as_i64().unwrap_or(0)),
        });
        c
    };
    match (def.group.as_str(), def.plural.as_str()) {
        ("", "namespaces") => cols.push(col("Status", "string", Some(".status.phase"))),
        ("", "secrets") => {
            cols.push(col("Type", "string", Some(".type")));
            cols.push(computed("Data", "integer", data_count));
        }
        ("", "configmaps") => cols.push(computed("Data", "integer", data_count)),
        ("", "serviceaccounts") => cols.push(computed("Secrets", "integer", |o| {
            json!(o["secrets"].as_array().map_or(0, Vec::len))
        })),
        ("", "services") => {
            cols.push(col("Type", "string", Some(".spec.type")));
            cols.push(col("Cluster-IP", "string", Some(".spec.clusterIP")));
            cols.push(computed("External-IP", "string", service_external_ip));
            cols.push(computed("Port(s)", "string", service_ports));
        }
        ("", "pods") => {
            cols.push(computed("Ready", "string", pod_ready));
            cols.push(col("Status", "string", Some(".status.phase")));
            cols.push(computed("Restarts", "integer", pod_restarts));
        }
        ("apps", "deployments") => {
            cols.push(computed("Ready", "string", ready_of_desired));
            cols.push(computed("Up-to-date", "integer", int_at("updated")));
            cols.push(computed("Available", "integer", int_at("available")));
        }
        ("apps", "statefulsets") => cols.push(computed("Ready", "string", ready_of_desired)),
        ("apps", "replicasets") | ("", "replicationcontrollers") => {
            cols.push(computed("Desired", "integer", int_at("desired")));
            cols.push(computed("Current", "integer", int_at("current")));
            cols.push(computed("Ready", "integer", int_at("ready")));
        }
        ("apps", "daemonsets") => {
            cols.push(status_int("Desired", "desiredNumberScheduled"));
            cols.push(status_int("Current", "currentNumberScheduled"));
            cols.push(status_int("Ready", "numberReady"));
            cols.push(status_int("Up-to-date", "updatedNumberScheduled"));
            cols.push(status_int("Available", "numberAvailable"));
        }
        ("batch", "jobs") => cols.push(computed("Completions", "string", |o| {
            let done = o["status"]["succeeded"].as_i64().unwrap_or(0);
            match o["spec"]["completions"].as_i64() {
                Some(c) => json!(format!("{done}/{c}")),
                None => json!(format!("{done}/1 of 1")),
            }
        })),
        ("batch", "cronjobs") => {
            cols.push(col("Schedule", "string", Some(".spec.schedule")));
            cols.push(computed("Suspend", "boolean", |o| {
                json!(o["spec"]["suspend"].as_bool().unwrap_or(false))
            }));
            cols.push(computed("Active", "integer", |o| {
                json!(o["status"]["active"].as_array().map_or(0, Vec::len))
            }));
        }
        _ => {}
    }
    cols.push(age_col());
    cols
}

fn cell(column: &Column, object: &Value) -> Value {
    if let Some(f) = column.compute {
        return f(object);
    }
    let Some(path) = &column.path else {
        return Value::Null;
    };
    let values = jsonpath::select(object, path);
    if column.type_ == "date" {
        return match values.first().and_then(|v| v.as_str()) {
            Some(ts) => age(Some(ts)),
            None => Value::Null,
        };
    }
    match values.as_slice() {
        [] => Value::Null,
        [one] => match column.type_.as_str() {
            "string" => match one {
                Value::String(_) => (*one).clone(),
                other => json!(other.to_string()),
            },
            _ => (*one).clone(),
        },
        many => json!(
            many.iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

/// A Table reply for `objects` (already in the served version).
pub fn reply(def: &ResourceDef, objects: &[Value], metadata: Value, query: &Query) -> Reply {
    let cols = columns(def);
    let include = query.get("includeObject").unwrap_or("Metadata");
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let cells: Vec<Value> = cols.iter().map(|c| cell(c, o)).collect();
            let object = match include {
                "None" => Value::Null,
                "Object" => o.clone(),
                _ => json!({
                    "kind": "PartialObjectMetadata",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": o["metadata"],
                }),
            };
            let mut row = json!({"cells": cells});
            if !object.is_null() {
                row["object"] = object;
            }
            row
        })
        .collect();
    let defs: Vec<Value> = cols
        .iter()
        .map(|c| json!({"name": c.name, "type": c.type_, "format": c.format, "description": c.description, "priority": c.priority}))
        .collect();
    Reply::Json {
        code: 200,
        body: json!({
            "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata,
            "columnDefinitions": defs, "rows": rows,
        }),
        content_type: "application/json;as=Table;v=v1;g=meta.k8s.io".into(),
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_like_kubectl() {
        assert_eq!(human_duration(5), "5s");
        assert_eq!(human_duration(150), "2m30s");
        assert_eq!(human_duration(3600 * 5 + 60), "5h1m");
        assert_eq!(human_duration(86400 * 3), "3d");
        assert!(wants_table(
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
        ));
        assert!(!wants_table("application/json"));
    }
}
