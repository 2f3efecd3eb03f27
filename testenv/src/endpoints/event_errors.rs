//! An Event refused for its metadata and for its own rules in one 422, as kube-apiserver
//! reports them.
//!
//! The object meta of an Event is checked in two places: by its strategy (through
//! `events.k8s.io/v1` only, between the legacy rules and the strict ones) and by the generic
//! registry (a create checks it after the strategy passed, with the name a path segment;
//! an update first, then the strategy). Admission reports the metadata errors alone; this
//! module puts the Event's own errors (`registry::checks::events`) where the real server
//! has them.

use serde_json::Value;

use crate::registry::checks::events::{self, Parts};
use crate::registry::validation;
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};

/// Whether `def` is an Event resource (core `v1` or `events.k8s.io/v1`).
pub fn is_event(def: &ResourceDef) -> bool {
    def.plural == "events" && matches!(def.group.as_str(), "" | "events.k8s.io")
}

/// The causes of a 422 `Invalid` answer, `None` for any other error.
fn causes_of(error: &ApiError) -> Option<Vec<Cause>> {
    if error.code != 422 || error.reason != "Invalid" {
        return None;
    }
    let causes = error.details["causes"].as_array()?;
    let text = |c: &Value, f: &str| c[f].as_str().unwrap_or_default().to_string();
    Some(
        causes
            .iter()
            .map(|c| Cause {
                reason: text(c, "reason"),
                message: text(c, "message"),
                field: text(c, "field"),
            })
            .collect(),
    )
}

/// The 422 of a refused Event, named as the core Event it is checked as, with the warnings
/// the admission's refusal carried.
fn refusal(checked_as: &ResourceDef, name: &str, causes: Vec<Cause>, of: ApiError) -> ApiError {
    let mut refused = ApiError::invalid(checked_as, name, causes);
    refused.warnings = of.warnings;
    refused
}

/// A create of an Event that admission refused (`error`, its metadata errors): through core
/// `v1` its own errors, when it has any, are the only ones (the generic check of the
/// metadata is not reached); through `events.k8s.io/v1` they surround the metadata's.
pub fn create_refused(
    def: &ResourceDef,
    checked_as: &ResourceDef,
    name: &str,
    object: &Value,
    error: ApiError,
) -> ApiError {
    let Some(meta) = causes_of(&error) else {
        return error;
    };
    let Parts { legacy, strict } = events::create_parts(&def.group, object);
    if def.group.is_empty() {
        if legacy.is_empty() {
            return error;
        }
        return refusal(checked_as, name, legacy, error);
    }
    let mut causes = legacy;
    causes.extend(meta);
    causes.extend(strict);
    refusal(checked_as, name, causes, error)
}

/// An update of an Event that admission refused (`error`: the generic registry's metadata
/// errors, then through `events.k8s.io/v1` the strategy's check of the metadata as an
/// update): the Event's legacy errors come after the generic ones, its strict ones last.
pub fn update_refused(
    def: &ResourceDef,
    checked_as: &ResourceDef,
    name: &str,
    old: &Value,
    new: &Value,
    error: ApiError,
) -> ApiError {
    let Some(mut generic) = causes_of(&error) else {
        return error;
    };
    let Parts { legacy, strict } = events::update_parts(&def.group, old, new);
    if legacy.is_empty() && strict.is_empty() {
        return error;
    }
    let mut again = Vec::new();
    if !def.group.is_empty() {
        let update = validation::metadata_update(new);
        if generic.ends_with(&update) {
            again = generic.split_off(generic.len() - update.len());
        }
    }
    let mut causes = generic;
    causes.extend(legacy);
    causes.extend(again);
    causes.extend(strict);
    refusal(checked_as, name, causes, error)
}
