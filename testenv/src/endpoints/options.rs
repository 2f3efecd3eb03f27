//! The options of write requests (`CreateOptions`, `UpdateOptions`, `PatchOptions`:
//! `fieldManager`, `force`, `dryRun`, ...) checked as the real server checks them, and the
//! field manager an update writes as.

use serde_json::json;

use super::patch_types::PatchType;
use crate::support::fieldmanager;
use crate::support::query::Query;
use crate::support::request::Req;
use crate::support::status::{ApiError, Cause};

/// The longest `fieldManager` the real server accepts.
pub const FIELD_MANAGER_MAX: usize = 128;

/// A 422 about request options (`PatchOptions.meta.k8s.io "" is invalid: ...`), as the
/// real server reports invalid Create-, Update-, Patch- and DeleteOptions.
pub fn options_invalid(kind: &str, causes: Vec<Cause>) -> ApiError {
    let summary: Vec<String> = causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect();
    let summary = if summary.len() == 1 {
        summary[0].clone()
    } else {
        format!("[{}]", summary.join(", "))
    };
    ApiError {
        code: 422,
        reason: "Invalid",
        message: format!("{kind}.meta.k8s.io \"\" is invalid: {summary}"),
        details: json!({
            "group": "meta.k8s.io",
            "kind": kind,
            "causes": causes.iter().map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field})).collect::<Vec<_>>(),
        }),
        warnings: Vec::new(),
    }
}

fn field_manager_causes(query: &Query) -> Vec<Cause> {
    let manager = query.get("fieldManager").unwrap_or_default();
    let mut causes = Vec::new();
    if manager.len() > FIELD_MANAGER_MAX {
        causes.push(Cause {
            reason: "FieldValueTooLong".into(),
            message: format!("Too long: may not be more than {FIELD_MANAGER_MAX} bytes"),
            field: "fieldManager".into(),
        });
    }
    if let Some((i, c)) = manager.char_indices().find(|(_, c)| c.is_control()) {
        causes.push(Cause {
            reason: "FieldValueInvalid".into(),
            message: format!(
                "Invalid value: {manager:?}: invalid character U+{:04X} (at position {i})",
                c as u32
            ),
            field: "fieldManager".into(),
        });
    }
    if let Some(dry) = query.get("dryRun").filter(|d| !d.is_empty() && *d != "All") {
        causes.push(Cause {
            reason: "FieldValueNotSupported".into(),
            message: format!("Unsupported value: [{dry:?}]: supported values: \"All\""),
            field: "dryRun".into(),
        });
    }
    causes.extend(field_validation_cause(query));
    causes
}

/// `fieldValidation` must be empty, `Ignore`, `Strict` or `Warn`.
fn field_validation_cause(query: &Query) -> Option<Cause> {
    let value = query.get("fieldValidation")?;
    (!matches!(value, "" | "Ignore" | "Strict" | "Warn")).then(|| Cause {
        reason: "FieldValueNotSupported".into(),
        message: format!(
            "Unsupported value: {}: supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"",
            crate::registry::schema::go_quote(value)
        ),
        field: "fieldValidation".into(),
    })
}

/// Checks `fieldManager` and `fieldValidation` of a create (`CreateOptions`) or update
/// (`UpdateOptions`).
pub fn validate_write_options(options_kind: &str, query: &Query) -> Result<(), ApiError> {
    let causes = field_manager_causes(query);
    if causes.is_empty() {
        Ok(())
    } else {
        Err(options_invalid(options_kind, causes))
    }
}

/// Checks the options of a PATCH: `force` only on apply, `fieldManager` required for apply
/// and at most 128 printable characters.
pub fn validate_patch_options(kind: PatchType, query: &Query) -> Result<(), ApiError> {
    let mut causes = Vec::new();
    if kind != PatchType::Apply {
        if query.get("force").is_some() {
            causes.push(Cause {
                reason: "FieldValueForbidden".into(),
                message: "Forbidden: may not be specified for non-apply patch".into(),
                field: "force".into(),
            });
        }
    } else if query.get("fieldManager").is_none_or(str::is_empty) {
        causes.push(Cause {
            reason: "FieldValueRequired".into(),
            message: "Required value: is required for apply patch".into(),
            field: "fieldManager".into(),
        });
    }
    causes.extend(field_manager_causes(query));
    if causes.is_empty() {
        Ok(())
    } else {
        Err(options_invalid("PatchOptions", causes))
    }
}

/// The manager an update request (create, PUT, non-apply PATCH) writes as.
pub fn update_manager(req: &Req) -> String {
    fieldmanager::default_manager(req.query.get("fieldManager"), &req.user_agent)
}
