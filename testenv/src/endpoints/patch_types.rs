//! The documents of a PATCH request: its type (from `Content-Type`), its body, and applying
//! a merge, JSON or strategic merge patch to an object.

use serde_json::{Value, json};

use crate::admission::admit::FieldValidation;
use crate::registry::schema;
use crate::support::meta;
use crate::support::patch;
use crate::support::request::{Req, patch_json_body};
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};
use crate::support::{go_decode, go_encode};

mod decode;
mod kind;

pub use kind::PatchType;

/// Go's name for the JSON type of `v` in decoding errors.
fn go_json_type(v: &Value) -> &'static str {
    match v {
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    }
}

/// The 422 the real server answers when a JSON patch cannot be applied (a failed `test`, a
/// missing path, an unknown operation): no details of why.
fn json_patch_rejected() -> ApiError {
    ApiError {
        code: 422,
        reason: "Invalid",
        message: "the server rejected our request due to an error in our request".into(),
        details: serde_json::json!({}),
        warnings: Vec::new(),
    }
}

/// Applies a merge, JSON or strategic merge patch document to `current`.
pub fn apply_patch(
    def: &ResourceDef,
    kind: PatchType,
    current: &mut Value,
    patch_doc: &Value,
) -> Result<(), ApiError> {
    let object_name = meta::meta_str(current, "name")
        .unwrap_or_default()
        .to_string();
    let bad = |e: patch::PatchError| match e {
        patch::PatchError::Malformed(_) => ApiError::bad_request(e.to_string()),
        patch::PatchError::Unsupported(_) => ApiError::unsupported_media_type(),
        patch::PatchError::Internal(message) => ApiError::without_reason(500, message),
        patch::PatchError::Refused(message) => ApiError::bad_request(message),
        _ => ApiError::invalid(
            def,
            &object_name,
            vec![Cause {
                reason: "FieldValueInvalid".into(),
                message: e.to_string(),
                field: String::new(),
            }],
        ),
    };
    match kind {
        PatchType::Merge => {
            if !patch_doc.is_object() {
                return Err(ApiError::bad_request(format!(
                    "error decoding patch: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    go_json_type(patch_doc)
                )));
            }
            patch::merge_patch(current, patch_doc);
            // The result is decoded into the kind's Go type before anything else.
            decode::patched_type_error(def, kind, patch_doc, current).map_or(Ok(()), Err)
        }
        PatchType::Json => {
            if !patch_doc.is_array() {
                return Err(ApiError::bad_request(format!(
                    "error decoding patch: json: cannot unmarshal {} into Go value of type []handlers.jsonPatchOp",
                    go_json_type(patch_doc)
                )));
            }
            patch::json_patch(current, patch_doc).map_err(|_| json_patch_rejected())?;
            decode::patched_type_error(def, kind, patch_doc, current).map_or(Ok(()), Err)
        }
        PatchType::Strategic => {
            if def.custom.is_some() {
                return Err(ApiError::unsupported_media_type());
            }
            patch::strategic::strategic_merge(current, patch_doc, &def.group, &def.kind)
                .map_err(bad)?;
            // The result is decoded into the kind's Go type before anything else.
            match crate::registry::validation::patch_type_error(
                &def.group,
                &def.version,
                &def.kind,
                patch_doc,
                current,
            ) {
                Some(err) => Err(err),
                None => Ok(()),
            }
        }
        // An apply patch needs the field manager (managers, conflicts): it is served by
        // `apply::apply`, never as a plain document patch.
        PatchType::Apply => Err(ApiError::unsupported_media_type()),
    }
}

/// What field validation makes of a patch's result (for a built-in kind, see
/// [`decode::patched_strict`]). For a merge or JSON patch to a custom resource, as the real
/// server's patcher decodes the patched object: with `Strict`, the fields the merge patch
/// repeats and the fields the schema does not declare in the result are a 422 naming the
/// patched object as Go writes it (`"" is invalid: patch: Invalid value: "{...}": strict
/// decoding error: unknown field "spec.x"`); with `Warn`, the repeated fields are the first
/// warnings (admission warns about the unknown ones). Returns those warnings.
pub fn check_patched(
    def: &ResourceDef,
    kind: PatchType,
    req: &Req,
    patch: &Value,
    (original, patched): (&Value, &Value),
) -> Result<Vec<String>, ApiError> {
    let validation = FieldValidation::from_query(&req.query)?;
    if validation == FieldValidation::Ignore {
        return Ok(Vec::new());
    }
    let duplicates = || -> Vec<String> {
        go_decode::parse(&req.body)
            .map(|node| go_decode::duplicate_fields(&node))
            .unwrap_or_default()
            .iter()
            .map(|path| format!("duplicate field {}", schema::go_quote(path)))
            .collect()
    };
    let Some(openapi) = def.custom.as_ref().and_then(|c| c.schema.as_ref()) else {
        let repeated = match kind {
            PatchType::Merge | PatchType::Strategic => duplicates(),
            _ => Vec::new(),
        };
        let strict = validation == FieldValidation::Strict;
        return decode::patched_strict(def, kind, strict, repeated, patch, (original, patched));
    };
    if !matches!(kind, PatchType::Merge | PatchType::Json) {
        return Ok(Vec::new());
    }
    let mut errors: Vec<String> = match kind {
        PatchType::Merge => duplicates(),
        _ => Vec::new(),
    };
    if validation == FieldValidation::Warn {
        return Ok(errors);
    }
    let unknown = schema::prune(&mut patched.clone(), openapi);
    errors.extend(unknown.iter().map(|p| schema::unknown_field_message(p)));
    if errors.is_empty() {
        return Ok(Vec::new());
    }
    let message = format!(
        "Invalid value: {}: strict decoding error: {}",
        schema::go_quote(&go_encode::encode(patched)),
        errors.join(", ")
    );
    Err(ApiError {
        code: 422,
        reason: "Invalid",
        message: format!(" \"\" is invalid: patch: {message}"),
        details: json!({"causes": [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}]}),
        warnings: Vec::new(),
    })
}

/// Parses a patch body: YAML for apply patches (JSON, which is YAML, read directly), JSON
/// otherwise.
pub fn patch_body(req: &Req, kind: PatchType) -> Result<Value, ApiError> {
    if kind == PatchType::Apply {
        if let Ok(v) = serde_json::from_slice::<Value>(&req.body) {
            return Ok(v);
        }
        let text =
            std::str::from_utf8(&req.body).map_err(|e| ApiError::bad_request(e.to_string()))?;
        serde_saphyr::from_str::<Value>(text)
            .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))
    } else {
        patch_json_body(req)
    }
}
