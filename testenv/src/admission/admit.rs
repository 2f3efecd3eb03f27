//! Admission of written objects, in the real server's order: built-in defaulting for
//! built-in kinds; for custom resources pruning (with `fieldValidation` Strict/Warn/Ignore),
//! schema defaulting and schema validation; for CRDs themselves the structural checks; for
//! webhook configurations the real server's validation.
//!
//! A request with mutating webhooks runs this twice: first stopping after defaulting
//! ([`Query::stop_before_validation`]), to get the object the webhooks mutate, then in full
//! on what they return.

use serde_json::Value;

use super::defaults;
use crate::registry::schema::{self, FieldError};
use crate::registry::validation;
use crate::support::go_decode::Decoding;
use crate::support::query::Query;
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};

/// How unknown fields of a request are treated (`?fieldValidation=`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldValidation {
    /// Refuse the request (400) naming the unknown fields; kubectl's default.
    Strict,
    /// Drop them and answer with `Warning` headers; the server's default.
    Warn,
    /// Drop them silently.
    Ignore,
}

impl FieldValidation {
    /// Reads `fieldValidation` (default Warn, as kube-apiserver).
    pub fn from_query(query: &Query) -> Result<Self, ApiError> {
        match query.get("fieldValidation").unwrap_or_default() {
            "" | "Warn" => Ok(FieldValidation::Warn),
            "Strict" => Ok(FieldValidation::Strict),
            "Ignore" => Ok(FieldValidation::Ignore),
            other => Err(ApiError::bad_request(format!(
                "fieldValidation: Unsupported value: \"{other}\": supported values: \"Ignore\", \"Strict\", \"Warn\""
            ))),
        }
    }
}

/// A 422 Invalid built from schema field errors, with the real server's message.
pub fn invalid(def: &ResourceDef, name: &str, errors: &[FieldError]) -> ApiError {
    let causes = errors
        .iter()
        .map(|e| Cause {
            reason: e.reason().to_string(),
            message: e.message.clone(),
            field: e.field.clone(),
        })
        .collect();
    let mut err = ApiError::invalid(def, name, causes);
    err.message = schema::invalid_status_message(&def.qualified_kind(), name, errors);
    err
}

/// The 400 message of a body the decoder refuses: `Widget in version "v1" cannot be handled
/// as a Widget: <why>`, naming the body's own kind and version when it was decoded as
/// another version of the resource's type.
fn cannot_be_handled(def: &ResourceDef, decoding: Option<&Decoding>, why: &str) -> String {
    let (kind, version) = decoding
        .and_then(|d| d.decoded_as.as_ref())
        .map_or((def.kind.as_str(), def.version.as_str()), |(k, v)| {
            (k.as_str(), v.as_str())
        });
    format!(
        "{kind} in version {} cannot be handled as a {}: {why}",
        schema::go_quote(version),
        def.kind
    )
}

/// The strict decoder's words for a field repeated in one object: `duplicate field
/// "spec.color"`.
fn duplicate_field_message(path: &str) -> String {
    format!("duplicate field {}", schema::go_quote(path))
}

/// The 400 message of `fieldValidation=Strict` refusing a body: its duplicate fields, then
/// its unknown fields (`strict decoding error: duplicate field "spec.a", unknown field
/// "spec.b"`).
fn strict_decoding(def: &ResourceDef, decoding: Option<&Decoding>, errors: &[String]) -> String {
    cannot_be_handled(
        def,
        decoding,
        &format!("strict decoding error: {}", errors.join(", ")),
    )
}

/// A built-in kind's strict decoding errors (its unknown and repeated fields, in document
/// order), or the repeated fields `duplicates` of a body the decoder gave none for.
fn builtin_strict(decoding: Option<&Decoding>, duplicates: Vec<String>) -> Vec<String> {
    match decoding.map(|d| &d.strict) {
        Some(strict) if !strict.is_empty() => strict.clone(),
        _ => duplicates,
    }
}

/// What the decoder decides of a request's body before the handler looks at the object (its
/// namespace and name, then everything else): the 400 of a value of the wrong type, or of a
/// built-in kind's unknown and repeated fields with `fieldValidation=Strict`; otherwise the
/// warnings `fieldValidation=Warn` collects for them, which the real server sends with
/// whatever answer follows.
pub fn decoded(def: &ResourceDef, query: &Query) -> Result<Vec<String>, ApiError> {
    let validation = FieldValidation::from_query(query)?;
    let decoding = query.decoding();
    if let Some(why) = decoding.and_then(|d| d.type_error.as_deref()) {
        return Err(ApiError::bad_request(cannot_be_handled(def, decoding, why)));
    }
    if def.custom.is_some() {
        return Ok(Vec::new());
    }
    let duplicates = decoding
        .into_iter()
        .flat_map(|d| &d.duplicates)
        .map(|path| duplicate_field_message(path))
        .collect();
    let strict = builtin_strict(decoding, duplicates);
    match validation {
        FieldValidation::Strict if !strict.is_empty() => Err(ApiError::bad_request(
            strict_decoding(def, decoding, &strict),
        )),
        FieldValidation::Warn => Ok(strict),
        _ => Ok(Vec::new()),
    }
}

fn name_of(object: &Value) -> String {
    object["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The errors of the object's metadata as `ValidateObjectMeta` reports them: the
/// generateName and the name first (an update cannot change the name: the generic
/// registry checks its generateName), the labels and annotations, then the rest; a custom
/// resource's or CRD's update checks them twice more (the generic registry's update check,
/// then the strategy's).
fn metadata_causes(
    def: &ResourceDef,
    object: &Value,
    old: Option<&Value>,
    builtin: bool,
) -> Vec<Cause> {
    let mut causes = crate::support::meta::name_causes(def, object, old.is_some());
    causes.extend(crate::support::meta::validate_labels_and_annotations(
        object,
    ));
    causes.extend(validation::metadata(object));
    if !builtin && old.is_some() && !causes.is_empty() {
        let update = validation::metadata_update(object);
        causes.extend(update.iter().cloned());
        causes.extend(update);
    }
    causes
}

/// Prunes what a custom resource's schema does not declare from `object`: the messages of its
/// unknown and `duplicates` fields, or under `fieldValidation=Strict` the decoder's 400 for them.
fn custom_strict(
    def: &ResourceDef,
    decoding: Option<&Decoding>,
    object: &mut Value,
    duplicates: Vec<String>,
    validation: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    let unknown = match def.custom.as_ref().and_then(|c| c.schema.as_ref()) {
        Some(openapi) => schema::prune(object, openapi),
        None => Vec::new(),
    };
    let mut strict = duplicates;
    strict.extend(unknown.iter().map(|p| schema::unknown_field_message(p)));
    match validation {
        FieldValidation::Strict if strict.len() == unknown.len() && !unknown.is_empty() => {
            Err(ApiError::bad_request(
                schema::strict_decoding_status_message(&def.kind, &def.version, &unknown),
            ))
        }
        FieldValidation::Strict if !strict.is_empty() => Err(ApiError::bad_request(
            strict_decoding(def, decoding, &strict),
        )),
        _ => Ok(strict),
    }
}

/// A custom resource's strict decoding, which the real server's decoder runs on a replace's
/// whole body before the handler reads its resourceVersion (a `/status` replace too): the 400
/// of its unknown and repeated fields under `fieldValidation=Strict`, their warnings under
/// `Warn` (which an error of the handler carries).
pub fn undeclared(
    def: &ResourceDef,
    object: &Value,
    query: &Query,
) -> Result<Vec<String>, ApiError> {
    let validation = FieldValidation::from_query(query)?;
    if def.custom.is_none() || validation == FieldValidation::Ignore {
        return Ok(Vec::new());
    }
    let decoding = query.decoding();
    let duplicates = decoding
        .into_iter()
        .flat_map(|d| &d.duplicates)
        .map(|path| duplicate_field_message(path))
        .collect();
    custom_strict(def, decoding, &mut object.clone(), duplicates, validation)
}

/// Prepares an object for storage (`old` is the stored object on updates); returns
/// warnings for the `Warning` header.
pub fn admit(
    def: &ResourceDef,
    object: &mut Value,
    old: Option<&Value>,
    query: &Query,
) -> Result<Vec<String>, ApiError> {
    if def.custom.is_some() && query.was_admitted_elsewhere() {
        // Admitted in the version the client addressed; the storage version only prunes.
        return Ok(Vec::new());
    }
    let validation = FieldValidation::from_query(query)?;
    // With mutating webhooks, the first phase stops after defaulting: validation runs on
    // the object the webhooks return.
    let mutation_only = query.stops_before_validation();
    let builtin = def.custom.is_none() && !crate::registry::crd::is_crd(def);
    let decoding = query.decoding();
    if let Some(why) = decoding.and_then(|d| d.type_error.as_deref()) {
        return Err(ApiError::bad_request(cannot_be_handled(def, decoding, why)));
    }
    if builtin && let Some(message) = validation::undecodable(&def.group, &def.kind, object) {
        return Err(ApiError::bad_request(message));
    }
    let duplicates: Vec<String> = decoding
        .into_iter()
        .flat_map(|d| &d.duplicates)
        .map(|path| duplicate_field_message(path))
        .collect();
    // A built-in kind's metadata is validated as its decoding defaulted it (a
    // ReplicationController's or Job's labels copied from its template), with the rest of
    // its validation; the others' first.
    if !mutation_only && !builtin {
        let meta_causes = metadata_causes(def, object, old, builtin);
        if !meta_causes.is_empty() {
            return Err(ApiError::invalid(def, &name_of(object), meta_causes));
        }
    }
    let mut warnings = Vec::new();
    if let Some(custom) = &def.custom {
        let strict = custom_strict(def, decoding, object, duplicates, validation)?;
        if validation == FieldValidation::Warn {
            warnings.extend(strict);
        }
        let Some(openapi) = &custom.schema else {
            return Ok(warnings);
        };
        schema::apply_defaults(object, openapi);
        if mutation_only {
            return Ok(warnings);
        }
        let scale = def.scale.as_ref().map(|s| schema::ScalePaths {
            spec_replicas: &s.spec_replicas_path,
            status_replicas: &s.status_replicas_path,
            label_selector: s.label_selector_path.as_deref(),
        });
        let errors = schema::validate_custom_resource(object, old, openapi, scale);
        if !errors.is_empty() {
            let mut err = invalid(def, &name_of(object), &errors);
            err.warnings = warnings;
            return Err(err);
        }
        return Ok(warnings);
    }
    // A built-in kind's (or a CRD's) decoder knows its fields: unknown ones too, in document order.
    let strict = builtin_strict(decoding, duplicates);
    match validation {
        FieldValidation::Strict if !strict.is_empty() => {
            return Err(ApiError::bad_request(strict_decoding(
                def, decoding, &strict,
            )));
        }
        FieldValidation::Warn => warnings.extend(strict),
        _ => {}
    }
    if crate::registry::crd::is_crd(def) {
        schema::apply_crd_defaults(object);
        if mutation_only {
            return Ok(warnings);
        }
        let checked = match old {
            Some(old) => schema::check_structural_update(object, old),
            None => schema::check_structural(object),
        };
        if let Err(errors) = checked {
            return Err(invalid(def, &name_of(object), &errors));
        }
        return Ok(warnings);
    }
    defaults::apply_builtin_defaults(&def.group, &def.version, &def.kind, object);
    let sent_lists = validation::EmptyLists::of(object);
    validation::omit_empty_collections(object);
    validation::write_zero_values(object);
    if mutation_only {
        return Ok(warnings);
    }
    // Validation sees the empty lists the request sent, as Go's does; storage does not.
    sent_lists.restore(object);
    let meta_causes = metadata_causes(def, object, old, builtin);
    let mut causes = validation::validate(&def.group, &def.kind, object, old, meta_causes);
    if old.is_none() && !crate::registry::strategy::checks_on_its_own(&def.group, &def.plural) {
        // The kind's own create rules are part of the same validation.
        causes.extend(crate::registry::strategy::create_causes(
            &def.group,
            &def.plural,
            object,
        ));
    }
    if !causes.is_empty() {
        let mut refused = ApiError::invalid(def, &name_of(object), causes);
        refused.warnings = warnings;
        let early = validation::warnings_before_validation(&def.group, &def.kind, object, old);
        refused.warnings.extend(early);
        return Err(refused);
    }
    warnings.extend(validation::warnings(&def.group, &def.kind, object, old));
    validation::omit_empty_collections(object);
    let causes = crate::registry::admission_policy::check(def, object);
    if !causes.is_empty() {
        return Err(ApiError::invalid(def, &name_of(object), causes));
    }
    if let Some(mutating) = crate::registry::webhook_configuration::configuration_kind(def) {
        let causes = crate::registry::webhook_configuration::configuration(object, old, mutating);
        if !causes.is_empty() {
            return Err(ApiError::invalid(def, &name_of(object), causes));
        }
    }
    Ok(warnings)
}
