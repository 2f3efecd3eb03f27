//! `Table` output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), which is what
//! `kubectl get` asks for. Custom resources print their CRD's printer columns; built-in kinds
//! print the columns and cells of kube-apiserver's table printers (one file per API group
//! family below); a kind without a printer gets the default table (Name, Created At).
//!
//! The server always prints the wide (`-o wide`) cells: columns with priority > 0 are sent and
//! kubectl hides them unless asked. Column descriptions of built-in kinds are left empty (the
//! real server writes Kubernetes' documentation there, which this project does not copy).

mod apps;
mod cluster;
mod columns;
mod core;
mod events;
mod format;
mod network;
mod volumes;

use serde_json::{Value, json};

use columns::Printer;
pub use format::human_duration;

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

/// The printer of a built-in resource, `None` when the real server has none for it.
fn builtin_printer(group: &str, plural: &str) -> Option<Printer> {
    core::printer(group, plural)
        .or_else(|| events::printer(group, plural))
        .or_else(|| volumes::printer(group, plural))
        .or_else(|| apps::printer(group, plural))
        .or_else(|| network::printer(group, plural))
        .or_else(|| cluster::printer(group, plural))
}

/// The description of the Name column: ObjectMeta's documentation of `name`.
const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/// A custom resource's column description when the CRD gives none.
fn column_description(json_path: &str) -> String {
    format!("Custom resource definition column (in JSONPath format): {json_path}")
}

fn definition(name: &str, type_: &str, format: &str, description: &str, priority: i64) -> Value {
    json!({"name": name, "type": type_, "format": format, "description": description, "priority": priority})
}

/// A row's cells, conditions, source object and its metadata as stored.
type Row = (Vec<Value>, Option<Value>, Value, Value);

/// The columns and rows of a Table, before the row objects are attached.
struct Printed {
    definitions: Vec<Value>,
    /// `(cells, conditions, source object, its metadata as stored)` of each row.
    rows: Vec<Row>,
    /// Whether an empty table writes `"rows": null` (the default table convertor).
    null_when_empty: bool,
}

/// A custom resource's table: its CRD's printer columns, or Name and Age without them.
fn print_custom(printer_columns: &[Value], objects: &[Value]) -> Printed {
    let mut definitions = vec![definition("Name", "string", "name", NAME_DESCRIPTION, 0)];
    let mut paths: Vec<(String, String)> = Vec::new();
    if printer_columns.is_empty() {
        let path = ".metadata.creationTimestamp";
        definitions.push(definition("Age", "date", "", &column_description(path), 0));
        paths.push((path.into(), "date".into()));
    }
    for pc in printer_columns {
        let json_path = pc["jsonPath"].as_str().unwrap_or_default();
        let type_ = pc["type"].as_str().unwrap_or("string");
        definitions.push(definition(
            pc["name"].as_str().unwrap_or_default(),
            type_,
            pc["format"].as_str().unwrap_or_default(),
            &pc["description"]
                .as_str()
                .map_or_else(|| column_description(json_path), str::to_string),
            pc["priority"].as_i64().unwrap_or(0),
        ));
        paths.push((json_path.into(), type_.into()));
    }
    let rows = objects
        .iter()
        .map(|o| {
            let mut cells = vec![o["metadata"]["name"].clone()];
            cells.extend(paths.iter().map(|(p, t)| custom_cell(o, p, t)));
            (cells, None, o.clone(), o["metadata"].clone())
        })
        .collect();
    Printed {
        definitions,
        rows,
        null_when_empty: false,
    }
}

fn custom_cell(object: &Value, path: &str, type_: &str) -> Value {
    let values = jsonpath::select(object, path);
    if type_ == "date" {
        return match values.first().and_then(|v| v.as_str()) {
            Some(ts) => json!(match ts.parse::<jiff::Timestamp>() {
                Ok(t) => human_duration(jiff::Timestamp::now().as_second() - t.as_second()),
                Err(_) => "<unknown>".to_string(),
            }),
            None => Value::Null,
        };
    }
    match values.as_slice() {
        [] => Value::Null,
        [one] => match (type_, one) {
            ("string", Value::String(_)) => (*one).clone(),
            ("string", other) => json!(other.to_string()),
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

/// A built-in kind's table from its printer. A printer that prints the stored object (as the
/// real server prints its internal one) gets `stored[i]` for `objects[i]` when given.
fn print_builtin(printer: &Printer, objects: &[Value], stored: Option<&[Value]>) -> Printed {
    let definitions = printer
        .columns
        .iter()
        .map(|c| definition(c.name, c.type_, c.format, "", c.priority))
        .collect();
    let stored = stored
        .filter(|s| printer.prints_stored && s.len() == objects.len())
        .unwrap_or(objects);
    let mut ordered: Vec<(&Value, &Value)> = objects.iter().zip(stored).collect();
    if let Some(order) = printer.order {
        ordered.sort_by(|a, b| order(a.0, b.0));
    }
    let rows = ordered
        .into_iter()
        .map(|(o, printed)| {
            let cells = (printer.cells)(printed);
            (
                cells,
                (printer.conditions)(o),
                o.clone(),
                (printer.metadata)(o),
            )
        })
        .collect();
    Printed {
        definitions,
        rows,
        null_when_empty: false,
    }
}

/// The default table of a kind without printer: its name and creation time (RFC 3339).
fn print_default(objects: &[Value]) -> Printed {
    let definitions = vec![
        definition("Name", "string", "name", "", 0),
        definition("Created At", "date", "", "", 0),
    ];
    let rows = objects
        .iter()
        .map(|o| {
            let created = o["metadata"]["creationTimestamp"]
                .as_str()
                .unwrap_or("0001-01-01T00:00:00Z");
            (
                vec![o["metadata"]["name"].clone(), json!(created)],
                None,
                o.clone(),
                o["metadata"].clone(),
            )
        })
        .collect();
    Printed {
        definitions,
        rows,
        null_when_empty: true,
    }
}

/// The row's `object` as `includeObject` asks: the object, nothing, or (by default) its
/// metadata as a PartialObjectMetadata.
fn row_object(object: Value, metadata: Value, include: &str) -> Value {
    match include {
        "None" => Value::Null,
        "Object" => object,
        _ => json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": metadata,
        }),
    }
}

/// A Table reply for `objects` (already in the served version). `metadata` is the list's
/// (resourceVersion, continue, remainingItemCount) or the object's resourceVersion.
pub fn reply(def: &ResourceDef, objects: &[Value], metadata: Value, query: &Query) -> Reply {
    reply_of_stored(def, objects, None, metadata, query)
}

/// [`reply`] for `objects` read from storage, `stored` holding each as stored: the cells of
/// a built-in kind whose served version loses what its table shows (an `autoscaling/v1`
/// HorizontalPodAutoscaler's metric order) are printed from the stored object.
pub fn reply_of_stored(
    def: &ResourceDef,
    objects: &[Value],
    stored: Option<&[Value]>,
    metadata: Value,
    query: &Query,
) -> Reply {
    let printed = match &def.custom {
        Some(custom) => print_custom(&custom.printer_columns, objects),
        None => match builtin_printer(&def.group, &def.plural) {
            Some(printer) => print_builtin(&printer, objects, stored),
            None => print_default(objects),
        },
    };
    let include = query.get("includeObject").unwrap_or("Metadata");
    let rows: Vec<Value> = printed
        .rows
        .into_iter()
        .map(|(cells, conditions, object, metadata)| {
            let mut row = json!({"cells": cells});
            if let Some(c) = conditions {
                row["conditions"] = c;
            }
            row["object"] = row_object(object, metadata, include);
            row
        })
        .collect();
    let rows = if rows.is_empty() && printed.null_when_empty {
        Value::Null
    } else {
        Value::Array(rows)
    };
    // The real server labels a Table plain `application/json`.
    Reply::json(
        200,
        json!({
            "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata,
            "columnDefinitions": printed.definitions, "rows": rows,
        }),
    )
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

    #[test]
    fn every_printer_has_a_cell_per_column() {
        let empty = json!({"metadata": {"name": "x"}, "spec": {}, "status": {}});
        for (group, plural) in [
            ("", "pods"),
            ("", "nodes"),
            ("", "events"),
            ("apps", "deployments"),
            ("batch", "cronjobs"),
            ("networking.k8s.io", "ingresses"),
            ("storage.k8s.io", "csidrivers"),
            (
                "flowcontrol.apiserver.k8s.io",
                "prioritylevelconfigurations",
            ),
        ] {
            let p = builtin_printer(group, plural).expect("a printer");
            assert_eq!((p.cells)(&empty).len(), p.columns.len(), "{plural}");
        }
    }
}
