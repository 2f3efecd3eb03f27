//! `Table` output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), which is what
//! `kubectl get` asks for: printer columns of CRDs, the usual columns of common built-ins.

use serde_json::{Value, json};

use super::{Query, Reply};
use crate::jsonpath;
use crate::registry::ResourceDef;

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
    }
}

fn columns(def: &ResourceDef) -> Vec<Column> {
    let mut cols = vec![Column {
        description: "Name must be unique within a namespace.".into(),
        ..col("Name", "string", Some(".metadata.name"))
    }];
    let age_col = || col("Age", "date", Some(".metadata.creationTimestamp"));
    if let Some(custom) = &def.custom {
        if custom.printer_columns.is_empty() {
            cols.push(age_col());
        }
        for pc in &custom.printer_columns {
            cols.push(Column {
                name: pc["name"].as_str().unwrap_or_default().into(),
                type_: pc["type"].as_str().unwrap_or("string").into(),
                format: pc["format"].as_str().unwrap_or_default().into(),
                description: pc["description"].as_str().unwrap_or_default().into(),
                priority: pc["priority"].as_i64().unwrap_or(0),
                path: pc["jsonPath"].as_str().map(str::to_string),
            });
        }
        return cols;
    }
    match (def.group.as_str(), def.plural.as_str()) {
        ("", "namespaces") => cols.push(col("Status", "string", Some(".status.phase"))),
        ("", "secrets") => {
            cols.push(col("Type", "string", Some(".type")));
            cols.push(col("Data", "string", None));
        }
        ("", "configmaps") => cols.push(col("Data", "string", None)),
        ("", "services") => {
            cols.push(col("Type", "string", Some(".spec.type")));
            cols.push(col("Cluster-IP", "string", Some(".spec.clusterIP")));
        }
        ("", "pods") => cols.push(col("Status", "string", Some(".status.phase"))),
        ("apps", "deployments" | "statefulsets" | "replicasets") => {
            cols.push(col("Desired", "integer", Some(".spec.replicas")));
            cols.push(col("Ready", "integer", Some(".status.readyReplicas")));
        }
        _ => {}
    }
    cols.push(age_col());
    cols
}

fn cell(column: &Column, object: &Value) -> Value {
    if column.name == "Data" && column.path.is_none() {
        let n = object["data"].as_object().map_or(0, |m| m.len())
            + object["binaryData"].as_object().map_or(0, |m| m.len());
        return json!(n);
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
