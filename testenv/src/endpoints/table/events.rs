//! Table printer of events, core (`v1`) and `events.k8s.io` ones alike.

use serde_json::{Value, json};

use super::columns::{Col, Printer, text, wide};
use super::format::{name, or, since, string};

/// The printer of events (`events.k8s.io` events print as core events).
pub(super) fn printer(group: &str, plural: &str) -> Option<Printer> {
    match (group, plural) {
        ("", "events") => Some(Printer::new(EVENT, event)),
        ("events.k8s.io", "events") => Some(Printer::new(EVENT, |o| event(&as_core_event(o)))),
        _ => None,
    }
}

const EVENT: &[Col] = &[
    text("Last Seen"),
    text("Type"),
    text("Reason"),
    text("Object"),
    wide("Subobject"),
    wide("Source"),
    text("Message"),
    wide("First Seen"),
    wide("Count"),
    Col {
        format: "name",
        ..wide("Name")
    },
];

/// An `events.k8s.io/v1` Event with the fields of a core Event, as the printer reads it.
fn as_core_event(o: &Value) -> Value {
    json!({
        "metadata": o["metadata"],
        "involvedObject": o["regarding"],
        "message": o["note"],
        "source": o["deprecatedSource"],
        "firstTimestamp": o["deprecatedFirstTimestamp"],
        "lastTimestamp": o["deprecatedLastTimestamp"],
        "count": o["deprecatedCount"],
        "eventTime": o["eventTime"],
        "series": o["series"],
        "type": o["type"],
        "reason": o["reason"],
        "reportingComponent": o["reportingController"],
        "reportingInstance": o["reportingInstance"],
    })
}

fn event(o: &Value) -> Vec<Value> {
    let first = match o["firstTimestamp"].as_str() {
        Some(t) => since(Some(t)),
        None => since(o["eventTime"].as_str()),
    };
    let mut last = match o["lastTimestamp"].as_str() {
        Some(t) => since(Some(t)),
        None => first.clone(),
    };
    let mut n = o["count"].as_i64().unwrap_or(0);
    if o["series"].is_object() {
        last = since(o["series"]["lastObservedTime"].as_str());
        n = o["series"]["count"].as_i64().unwrap_or(0);
    } else if n == 0 {
        n = 1;
    }
    let involved = &o["involvedObject"];
    let kind = string(&involved["kind"]).to_lowercase();
    let target = match involved["name"].as_str().filter(|n| !n.is_empty()) {
        Some(n) => format!("{kind}/{n}"),
        None => kind,
    };
    let component = or(&o["source"]["component"], &string(&o["reportingComponent"]));
    let instance = or(&o["source"]["host"], &string(&o["reportingInstance"]));
    let source = if instance.is_empty() {
        component
    } else {
        format!("{component}, {instance}")
    };
    vec![
        json!(last),
        json!(string(&o["type"])),
        json!(string(&o["reason"])),
        json!(target),
        json!(string(&involved["fieldPath"])),
        json!(source),
        json!(string(&o["message"]).trim()),
        json!(first),
        json!(n),
        name(o),
    ]
}
