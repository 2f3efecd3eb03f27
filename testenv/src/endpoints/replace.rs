//! PUT on an object or its status: a replace of the stored object, or a create where the
//! kind's strategy allows one ([`super::update`] does the work).

use std::sync::Arc;

use super::body_type::{check_type, with_decoder_warnings};
use super::fields::Fields;
use super::options;
use super::state::Api;
use super::subresource::{Endpoint, endpoint_of, ns_of};
use super::update::{check_identity, create_on_update, uid_precondition_failed, update_object_as};
use crate::registry::stored::as_served;
use crate::registry::strategy;
use crate::support::meta;
use crate::support::request::{Reply, Req, Target, object_body};
use crate::support::status::ApiError;

/// PUT on an object or its status.
pub fn replace(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    options::validate_write_options("UpdateOptions", &req.query)?;
    replace_decoded(api, req, target).map_err(|e| with_decoder_warnings(&target.def, req, e))
}

/// [`replace`] once its options are read: what follows the body's decoding.
fn replace_decoded(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let object = object_body(req, &target.def.kind)?;
    let fields = Fields::of_request(req, &object);
    let name = target.name.as_deref().unwrap_or_default();
    let def = &target.def;
    // The decoder's refusals come first, then the body's namespace and name (with the
    // decoder's warnings).
    let decoded = crate::admission::admit::decoded(def, &req.query)?;
    if object.is_object() {
        let with_warnings = |mut e: ApiError| {
            e.warnings = decoded.clone();
            e
        };
        check_type(def, &mut object.clone()).map_err(with_warnings)?;
        check_identity(def, ns_of(target), name, &object).map_err(with_warnings)?;
    }
    if object.is_object() && meta::meta_str(&object, "name").is_none_or(str::is_empty) {
        check_type(def, &mut object.clone())?;
        check_identity(def, ns_of(target), name, &object)?;
        return Err(ApiError::bad_request(format!(
            "the name of the object ({name} based on URL) was undeterminable: name must be provided"
        )));
    }
    let mut cluster = api.lock();
    let endpoint = endpoint_of(target);
    // The status store shares the main store's strategy, so it creates too (a Service).
    let creating_endpoint = match endpoint {
        Endpoint::Main => true,
        Endpoint::Status => def.status_subresource,
        _ => false,
    };
    if creating_endpoint
        && strategy::creates_on_update(&def.group, &def.plural)
        && cluster
            .store
            .get(&def.storage_key, ns_of(target), name)
            .is_none()
    {
        super::escalation::check_write(api, &cluster.store, req, target, &object, None)?;
        let (stored, warnings) = create_on_update(
            &mut cluster,
            def,
            ns_of(target),
            name,
            object,
            &req.query,
            fields,
            endpoint,
        )?;
        return Ok(Reply::Json {
            code: 201,
            body: as_served(def, &stored),
            content_type: "application/json".into(),
            warnings,
        });
    }
    // A uid in the body is a precondition on the stored object (a PUT's, not a patch's).
    if let Some(sent) = meta::meta_str(&object, "uid").filter(|u| !u.is_empty())
        && let Some(stored) = cluster.store.get(&def.storage_key, ns_of(target), name)
    {
        let current = meta::meta_str(&stored, "uid").unwrap_or_default();
        if sent != current {
            return Err(uid_precondition_failed(
                def,
                ns_of(target),
                name,
                sent,
                current,
            ));
        }
    }
    if let Some(old) = cluster.store.get(&def.storage_key, ns_of(target), name) {
        super::escalation::check_write(api, &cluster.store, req, target, &object, Some(&old))?;
    }
    let (stored, warnings) = update_object_as(
        &mut cluster,
        &target.def,
        ns_of(target),
        name,
        object,
        endpoint_of(target),
        &req.query,
        fields,
    )?;
    Ok(Reply::Json {
        code: 200,
        body: as_served(&target.def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}
