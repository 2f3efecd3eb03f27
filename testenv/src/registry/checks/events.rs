//! Checks of an Event (`ValidateEventCreate`, `ValidateEventUpdate`), made on its stored core
//! `v1` form: every Event passes the legacy checks (its namespace agrees with the object's it
//! is about; one with an `eventTime` names who reported it, and what and why, each within its
//! length); one created through `events.k8s.io/v1` must also have an `eventTime`, a `Normal`
//! or `Warning` type, a series of at least two, and none of the deprecated fields; one updated
//! through `events.k8s.io/v1` may change only its series and metadata. Field paths are the Go
//! type's (`message`, `involvedObject`), whatever group the request used, and values are
//! printed as Go prints them (struct fields by their Go names).

use serde_json::Value;

use crate::support::meta::qualified_name_errors;
use crate::support::status::Cause;

use crate::registry::builtin::validation::errors::{go_value, invalid, invalid_text, required};
use crate::registry::builtin::validation::go_object_reference;

fn text<'a>(object: &'a Value, field: &str) -> &'a str {
    object[field].as_str().unwrap_or_default()
}

/// The legacy checks; `controller_field` is where the request named the reporting
/// controller (`reportingComponent` in `v1`, `reportingController` in `events.k8s.io/v1`).
fn legacy(object: &Value, controller_field: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    let ns = object["metadata"]["namespace"].as_str().unwrap_or_default();
    let about = object["involvedObject"]["namespace"]
        .as_str()
        .unwrap_or_default();
    let mismatch = || {
        invalid(
            "involvedObject.namespace",
            &about.into(),
            "does not match event.namespace",
        )
    };
    if text(object, "eventTime").is_empty() {
        let agrees = if about.is_empty() {
            ns.is_empty() || ns == "default"
        } else {
            ns == about
        };
        if !agrees {
            causes.push(mismatch());
        }
        return causes;
    }
    if about.is_empty() && ns != "default" && ns != "kube-system" {
        causes.push(mismatch());
    }
    let controller = text(object, "reportingComponent");
    if controller.is_empty() {
        causes.push(required(controller_field));
    }
    for why in qualified_name_errors(controller) {
        causes.push(invalid(controller_field, &controller.into(), &why));
    }
    for field in ["reportingInstance", "action", "reason"] {
        let value = text(object, field);
        if value.is_empty() {
            causes.push(required(field));
        }
        if value.len() > NAME_LIMIT {
            causes.push(too_long(field, NAME_LIMIT));
        }
    }
    if text(object, "message").len() > NOTE_LIMIT {
        causes.push(too_long("message", NOTE_LIMIT));
    }
    causes
}

/// The longest `reportingInstance`, `action` and `reason` an Event with an `eventTime` may
/// have.
const NAME_LIMIT: usize = 128;
/// The longest message (note) such an Event may have.
const NOTE_LIMIT: usize = 1024;

fn too_long(field: &str, limit: usize) -> Cause {
    invalid(
        field,
        &"".into(),
        &format!("can have at most {limit} characters"),
    )
}

/// A series, when set, counts at least two and says when it was last seen.
fn series(object: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let Some(series) = object.get("series").filter(|s| !s.is_null()) else {
        return causes;
    };
    if series["count"].as_i64().unwrap_or(0) < 2 {
        causes.push(invalid("series.count", &"".into(), "should be at least 2"));
    }
    if text(series, "lastObservedTime").is_empty() {
        causes.push(required("series.lastObservedTime"));
    }
    causes
}

/// An Event's errors split where kube-apiserver reports the object meta among them: the
/// legacy checks every Event passes come before it, the strict ones of `events.k8s.io/v1`
/// after it (a core `v1` write has no strict ones).
#[derive(Debug, Default)]
pub struct Parts {
    /// The legacy checks' errors.
    pub legacy: Vec<Cause>,
    /// The strict checks' errors (series, required and unset fields, what may not change).
    pub strict: Vec<Cause>,
}

impl Parts {
    /// All the errors, in order.
    pub fn all(self) -> Vec<Cause> {
        let mut out = self.legacy;
        out.extend(self.strict);
        out
    }
}

/// The checks of an Event created through `group` (`""` or `events.k8s.io`).
pub fn create_causes(group: &str, object: &Value) -> Vec<Cause> {
    create_parts(group, object).all()
}

/// The checks of an Event created through `group`, split around the object meta's.
pub fn create_parts(group: &str, object: &Value) -> Parts {
    if group.is_empty() {
        return Parts {
            legacy: legacy(object, "reportingComponent"),
            strict: Vec::new(),
        };
    }
    let legacy = legacy(object, "reportingController");
    let mut causes = series(object);
    if text(object, "eventTime").is_empty() {
        causes.push(required("eventTime"));
    }
    let kind = text(object, "type");
    if kind != "Normal" && kind != "Warning" {
        causes.push(invalid(
            "type",
            &"".into(),
            &format!("has invalid value: {kind}"),
        ));
    }
    let source = &object["source"];
    let unset = [
        ("firstTimestamp", text(object, "firstTimestamp").is_empty()),
        ("lastTimestamp", text(object, "lastTimestamp").is_empty()),
        ("count", object["count"].as_i64().unwrap_or(0) == 0),
        (
            "source",
            text(source, "component").is_empty() && text(source, "host").is_empty(),
        ),
    ];
    for (field, is_unset) in unset {
        if !is_unset {
            causes.push(invalid(field, &"".into(), "needs to be unset"));
        }
    }
    Parts {
        legacy,
        strict: causes,
    }
}

/// The checks of an update of an Event through `group`: the legacy checks of the new Event,
/// and through `events.k8s.io/v1` its series (when it changed) and the fields that may not
/// change, in the real server's order (`reason` twice, as it checks it twice).
pub fn update_causes(group: &str, old: &Value, new: &Value) -> Vec<Cause> {
    update_parts(group, old, new).all()
}

/// The checks of an update of an Event through `group`, split around the object meta's
/// (checked again, as an update, between them through `events.k8s.io/v1`).
pub fn update_parts(group: &str, old: &Value, new: &Value) -> Parts {
    if group.is_empty() {
        return Parts {
            legacy: legacy(new, "reportingComponent"),
            strict: Vec::new(),
        };
    }
    let legacy = legacy(new, "reportingController");
    let mut causes = Vec::new();
    if old.get("series") != new.get("series") {
        causes.extend(series(new));
    }
    let fields: [Immutable; 14] = [
        ("involvedObject", "involvedObject", reference),
        ("reason", "reason", string),
        ("message", "message", string),
        ("source", "source", source),
        ("firstTimestamp", "firstTimestamp", time),
        ("lastTimestamp", "lastTimestamp", time),
        ("count", "count", count),
        ("reason", "reason", string),
        ("type", "type", string),
        ("eventTime", "eventTime", time),
        ("action", "action", string),
        ("related", "related", reference),
        ("reportingController", "reportingComponent", string),
        ("reportingInstance", "reportingInstance", string),
    ];
    for (path, stored, shown) in fields {
        let value = shown(&new[stored]);
        if value != shown(&old[stored]) {
            causes.push(invalid_text(path, &value, "field is immutable"));
        }
    }
    Parts {
        legacy,
        strict: causes,
    }
}

/// A field that may not change: its path, where the stored form keeps it, how Go prints it.
type Immutable = (&'static str, &'static str, fn(&Value) -> String);

/// A string field as Go prints it (quoted, `""` when absent).
fn string(value: &Value) -> String {
    go_value(&Value::String(value.as_str().unwrap_or_default().into()))
}

/// A `metav1.Time` or `MicroTime` as Go prints it: its JSON, `null` when zero.
fn time(value: &Value) -> String {
    match value.as_str() {
        Some(t) if !t.is_empty() => go_value(&Value::String(t.into())),
        _ => "null".into(),
    }
}

/// An `int32` count, 0 when absent.
fn count(value: &Value) -> String {
    value.as_i64().unwrap_or(0).to_string()
}

/// An `ObjectReference` (the internal type, without JSON tags) as Go's JSON writes it, or
/// `null` for an absent `related`.
fn reference(value: &Value) -> String {
    go_object_reference(value)
}

/// An `EventSource` (the internal type) as Go's JSON writes it.
fn source(value: &Value) -> String {
    go_struct(value, &[("Component", "component"), ("Host", "host")])
}

/// A struct of string fields, each under its Go name, in declaration order.
fn go_struct(value: &Value, fields: &[(&str, &str)]) -> String {
    let members: Vec<String> = fields
        .iter()
        .map(|(go, json)| {
            let text = value[*json].as_str().unwrap_or_default();
            format!("{}:{}", Value::from(*go), Value::from(text))
        })
        .collect();
    format!("{{{}}}", members.join(","))
}
