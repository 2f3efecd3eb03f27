//! Checks of a new Event (`ValidateEventCreate`), made on its stored core `v1` form: every
//! Event passes the legacy checks (its namespace agrees with the object's it is about; one
//! with an `eventTime` names who reported it, and what and why), and one written through
//! `events.k8s.io/v1` must also have an `eventTime` and a `Normal` or `Warning` type.

use serde_json::Value;

use crate::support::meta::qualified_name_errors;
use crate::support::status::Cause;

use crate::registry::builtin::validation::errors::{invalid, required};

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
        if text(object, field).is_empty() {
            causes.push(required(field));
        }
    }
    causes
}

/// The checks of an Event created through `group` (`""` or `events.k8s.io`).
pub fn create_causes(group: &str, object: &Value) -> Vec<Cause> {
    if group.is_empty() {
        return legacy(object, "reportingComponent");
    }
    let mut causes = legacy(object, "reportingController");
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
    causes
}
