//! PUT: replacing an object through its main endpoint, `/status` or `/finalize`, with the
//! real server's update strategy (preconditions, immutable metadata, generation, finalizers,
//! no-op detection), admission and managed fields.

use std::sync::Arc;

use serde_json::{Value, json};

use super::create::{check_type, is_service};
use super::fields::{Fields, managers_after};
use super::options;
use super::state::{Api, Cluster};
use super::subresource::{Endpoint, endpoint_of, ns_of};
use crate::admission::admit::admit;
use crate::admission::defaults::pod_status::qos_class;
use crate::admission::policies;
use crate::admission::webhooks::config::Operation;
use crate::registry::{crd, strategy, subresources};
use crate::storage::conversion::builtin::as_version;
use crate::support::meta;
use crate::support::query::Query;
use crate::support::request::{Reply, Req, Target, object_body};
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};

/// Everything but metadata (and status, when it is a subresource): what `generation` tracks.
fn spec_part(def: &ResourceDef, object: &Value) -> Value {
    let mut o = object.clone();
    if let Some(m) = o.as_object_mut() {
        m.remove("metadata");
        m.remove("apiVersion");
        m.remove("kind");
        if def.status_subresource {
            m.remove("status");
        }
    }
    o
}

/// Replaces a stored object with `new` following the update strategy of `endpoint`:
/// resourceVersion precondition, immutable metadata, generation, finalizer rules, no-op
/// detection, and removal once a deleting object has no finalizers left. Changed fields
/// are owned by the query's `fieldManager`.
pub fn update_object(
    cluster: &mut Cluster,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    new: Value,
    endpoint: Endpoint,
    query: &Query,
) -> Result<(Arc<Value>, Vec<String>), ApiError> {
    let fields = Fields::of_query(query);
    update_object_as(cluster, def, ns, name, new, endpoint, query, fields)
}

/// [`update_object`], recording managedFields as `fields` says. A main-endpoint update
/// whose body carries managedFields keeps them as sent (`[{}]` clears them, an empty list
/// keeps the stored ones), as the real server does.
#[allow(clippy::too_many_arguments)]
pub fn update_object_as(
    cluster: &mut Cluster,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    mut new: Value,
    endpoint: Endpoint,
    query: &Query,
    fields: Fields,
) -> Result<(Arc<Value>, Vec<String>), ApiError> {
    let old = cluster
        .store
        .get(&def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    check_type(def, &mut new)?;
    let mut new = crate::storage::conversion::builtin::to_storage(def, new);
    meta::ensure_metadata(&mut new);
    let sent_managed = new["metadata"].get("managedFields").cloned();
    let body_name = meta::meta_str(&new, "name").unwrap_or_default();
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({name})"
        )));
    }
    if def.namespaced {
        let body_ns = meta::meta_str(&new, "namespace").unwrap_or_default();
        if !body_ns.is_empty() && body_ns != ns {
            return Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
    }
    let current_rv = meta::meta_str(&old, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    match meta::meta_str(&new, "resourceVersion").filter(|s| !s.is_empty()) {
        Some(rv) if rv != current_rv => return Err(ApiError::conflict(def, name)),
        Some(_) => {}
        None if def.allow_unconditional_update
            || matches!(endpoint, Endpoint::Finalize | Endpoint::Scale) => {}
        None => return Err(resource_version_required(def, name)),
    }
    match endpoint {
        Endpoint::Main | Endpoint::Scale => {
            // A CertificateSigningRequest's spec is set once, at creation.
            if strategy::is_csr(&def.group, &def.plural) {
                new["spec"] = old["spec"].clone();
            }
            if def.status_subresource {
                match old.get("status") {
                    Some(s) => new["status"] = s.clone(),
                    None => {
                        if let Some(o) = new.as_object_mut() {
                            o.remove("status");
                        }
                    }
                }
            }
        }
        Endpoint::Status if def.group == "certificates.k8s.io" => {
            new = subresources::csr_status(&old, &new, &meta::now())
                .map_err(|causes| ApiError::invalid(def, name, causes))?;
        }
        Endpoint::EphemeralContainers => {
            new = subresources::take_ephemeral_containers(&old, &new);
        }
        Endpoint::Resize => {
            new = subresources::resize(&old, &new, qos_class)
                .map_err(|causes| ApiError::invalid(def, name, causes))?;
        }
        Endpoint::Approval => {
            new = subresources::approval(&old, &new, &meta::now())
                .map_err(|causes| ApiError::invalid(def, name, causes))?;
        }
        Endpoint::Status => {
            let status = new.get("status").cloned();
            new = (*old).clone();
            match status {
                Some(s) => new["status"] = s,
                None => {
                    if let Some(o) = new.as_object_mut() {
                        o.remove("status");
                    }
                }
            }
        }
        Endpoint::Finalize => {
            // The finalize strategy keeps only the status: spec and metadata are written.
            match old.get("status") {
                Some(s) => new["status"] = s.clone(),
                None => {
                    if let Some(o) = new.as_object_mut() {
                        o.remove("status");
                    }
                }
            }
            if new["spec"]["finalizers"].is_null() {
                new["spec"]["finalizers"] = json!([]);
            }
            let causes =
                meta::validate_finalizer_names("spec.finalizers", &new["spec"]["finalizers"]);
            if !causes.is_empty() {
                return Err(ApiError::invalid(def, name, causes));
            }
        }
    }
    // Immutable and server-owned metadata comes from the stored object.
    for field in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "namespace",
        "name",
    ] {
        match old["metadata"].get(field) {
            Some(v) => new["metadata"][field] = v.clone(),
            None => {
                if let Some(m) = new["metadata"].as_object_mut() {
                    m.remove(field);
                }
            }
        }
    }
    if let Some(m) = new["metadata"].as_object_mut() {
        m.remove("resourceVersion");
        m.remove("managedFields");
        if m.get("finalizers")
            .is_some_and(|f| f.as_array().is_some_and(Vec::is_empty) || f.is_null())
        {
            m.remove("finalizers");
        }
    }
    if meta::is_deleting(&old) {
        let before = meta::finalizers(&old);
        let added: Vec<String> = meta::finalizers(&new)
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        if !added.is_empty() {
            let list = added
                .iter()
                .map(|f| format!("{f:?}"))
                .collect::<Vec<_>>()
                .join(", ");
            let cause = Cause {
                reason: "FieldValueForbidden".into(),
                message: format!(
                    "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{{{list}}}"
                ),
                field: "metadata.finalizers".into(),
            };
            // kube-apiserver checks an update's metadata twice (the generic registry's common
            // fields, then the kind's own update validation), so the cause is listed twice;
            // the message, aggregated, names it once.
            return Err(ApiError::invalid(def, name, vec![cause.clone(), cause]));
        }
    }
    let mut warnings = if endpoint == Endpoint::Finalize {
        Vec::new()
    } else {
        admit(def, &mut new, Some(&old), query)?
    };
    if endpoint == Endpoint::Main && !query.stops_before_validation() {
        let causes = strategy::update_causes(&def.group, &def.plural, &old, &new);
        if !causes.is_empty() {
            return Err(ApiError::invalid(def, name, causes));
        }
    }
    if endpoint == Endpoint::EphemeralContainers {
        let causes = subresources::check_ephemeral_containers(&old, &new);
        if !causes.is_empty() {
            return Err(ApiError::invalid(def, name, causes));
        }
    }
    if is_service(def) && endpoint == Endpoint::Main {
        crate::registry::allocate::service(&cluster.store, &mut new, Some(&old));
    }
    if crd::is_crd(def) {
        let now = meta::now();
        let status = old.get("status").cloned();
        crd::check_install(&cluster.registry, def, name, &mut new, &now)?;
        // Keep the original condition timestamps; only names/storedVersions can change.
        if let Some(mut s) = status {
            s["acceptedNames"] = new["status"]["acceptedNames"].clone();
            let mut stored: Vec<Value> =
                s["storedVersions"].as_array().cloned().unwrap_or_default();
            for v in new["status"]["storedVersions"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if !stored.contains(v) {
                    stored.push(v.clone());
                }
            }
            s["storedVersions"] = Value::Array(stored);
            new["status"] = s;
        }
    }
    if def.tracks_generation && spec_part(def, &new) != spec_part(def, &old) {
        let generation = old["metadata"]["generation"].as_i64().unwrap_or(0) + 1;
        new["metadata"]["generation"] = json!(generation);
    }
    managers_after(
        def,
        Some(&old),
        &new,
        sent_managed.as_ref(),
        endpoint,
        fields,
    )
    .write_to(&mut new);
    let mut old_cmp = (*old).clone();
    new["metadata"]["resourceVersion"] = Value::String(current_rv.clone());
    old_cmp["metadata"]["resourceVersion"] = Value::String(current_rv);
    if new == old_cmp {
        return Ok((old, warnings));
    }
    if !query.stops_before_validation() {
        let sub = endpoint.subresource();
        let write = policies::Write {
            def,
            subresource: (!sub.is_empty()).then_some(sub),
            operation: Operation::Update,
            namespace: ns,
            name,
            object: Some(&new),
            old: Some(&old),
        };
        warnings.extend(policies::validate(
            &cluster.store,
            &cluster.registry,
            &write,
            query,
        )?);
    }
    if query.dry_run() {
        return Ok((Arc::new(new), warnings));
    }
    if meta::is_deleting(&new) && meta::finalizers(&new).is_empty() {
        let removed = super::delete::remove_now(cluster, def, ns, name, Some(new))
            .ok_or_else(|| ApiError::not_found(def, name))?;
        return Ok((removed, warnings));
    }
    let stored = cluster.store.put(&def.storage_key, ns, name, new);
    if crd::is_crd(def) {
        crd::register(&mut cluster.registry, &stored);
    }
    let controllers = cluster.controllers.clone();
    controllers.updated(cluster, def, &stored, ns);
    Ok((stored, warnings))
}

/// The 422 of an update without resourceVersion where the kind needs one (custom
/// resources, also through `/status`): the real server names the resource, not the kind.
fn resource_version_required(def: &ResourceDef, name: &str) -> ApiError {
    let qualified = if def.group.is_empty() {
        def.plural.clone()
    } else {
        format!("{}.{}", def.plural, def.group)
    };
    let cause = Cause {
        reason: "FieldValueInvalid".into(),
        message: "Invalid value: 0: must be specified for an update".into(),
        field: "metadata.resourceVersion".into(),
    };
    ApiError {
        code: 422,
        reason: "Invalid",
        message: format!(
            "{qualified} {name:?} is invalid: {}: {}",
            cause.field, cause.message
        ),
        details: json!({"name": name, "group": def.group, "kind": def.plural,
            "causes": [{"reason": cause.reason, "message": cause.message, "field": cause.field}]}),
        warnings: Vec::new(),
    }
}

/// PUT on an object or its status.
pub fn update(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    options::validate_write_options("UpdateOptions", &req.query)?;
    let object = object_body(req, &target.def.kind)?;
    let fields = Fields::of_request(req, &object);
    let name = target.name.as_deref().unwrap_or_default();
    let mut cluster = api.lock();
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
        body: as_version(&target.def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}
