//! PUT: replacing an object through its main endpoint, `/status` or `/finalize`, with the
//! real server's update strategy (preconditions, immutable metadata, generation, finalizers,
//! no-op detection), admission and managed fields.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::body_type::check_type;
use super::create::{checked_as, create_object_with, decoded_view, is_service, node_ports_refused};
use super::event_errors;
use super::fields::{Fields, managers_after_in};
use super::manager_versions;
use super::state::Cluster;
use super::status_credit;
use super::subresource::Endpoint;
use crate::admission::admit::admit;
use crate::admission::defaults::pod_status::qos_class;
use crate::admission::policies;
use crate::admission::webhooks::config::Operation;
use crate::registry::schema::go_quote;
use crate::registry::{crd, node_ports, stored, strategy, subresources};
use crate::support::json_order::raw_bytes;
use crate::support::meta;
use crate::support::query::Query;
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

/// Whether a Deployment's annotations changed: its strategy (not its status strategy) bumps
/// the generation for them too (they are copied to its ReplicaSets). An absent and an empty
/// map are equal.
fn annotations_bump(def: &ResourceDef, new: &Value, old: &Value) -> bool {
    if (def.group.as_str(), def.plural.as_str()) != ("apps", "deployments") {
        return false;
    }
    let of = |o: &Value| {
        o["metadata"]["annotations"]
            .as_object()
            .filter(|m| !m.is_empty())
            .cloned()
    };
    of(new) != of(old)
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
    check_type(def, &mut new)?;
    let mut new = crate::storage::conversion::builtin::to_storage(def, new);
    meta::ensure_metadata(&mut new);
    check_identity(def, ns, name, &new)?;
    let stored_old = cluster
        .store
        .get(&def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    // A custom resource is updated as seen in the request's version (see `registry::stored`).
    let old = stored::old_as_served(def, &stored_old, query.converted_old());
    let sent_managed = new["metadata"].get("managedFields").cloned();
    let current_rv = meta::meta_str(&old, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    // The decoder's verdict on a custom resource's undeclared fields comes first; its
    // warnings go with the handler's refusals.
    let decoded = crate::admission::admit::undeclared(def, &new, query)?;
    match sent_resource_version(&new)? {
        Some(rv) if current_rv.parse::<u64>().ok() != Some(rv) => {
            return Err(ApiError::conflict(def, name).after_warnings(&decoded));
        }
        Some(_) => {}
        None if def.allow_unconditional_update
            || matches!(endpoint, Endpoint::Finalize | Endpoint::Scale) => {}
        None => return Err(resource_version_required(def, name).after_warnings(&decoded)),
    }
    // A volume's phase transition time as the status write sent it (see below).
    let mut phase_time_sent = None;
    // A status write the field manager sees otherwise than its strategy writes it.
    let mut status_sent = None;
    match endpoint {
        Endpoint::Main | Endpoint::Scale => {
            // A CertificateSigningRequest's spec is set once, at creation; its request is
            // still decoded from the body first (not base64: 400).
            if strategy::is_csr(&def.group, &def.plural) {
                if let Some(why) =
                    crate::registry::validation::undecodable(&def.group, &def.kind, &new)
                {
                    return Err(ApiError::bad_request(why));
                }
                new["spec"] = old["spec"].clone();
            }
            // A Namespace's finalizers change only through `/finalize`.
            if def.group.is_empty() && def.plural == "namespaces" {
                new["spec"]["finalizers"] = old["spec"]["finalizers"].clone();
            }
            if def.status_subresource && !strategy::main_writes_status(&def.group, &def.plural) {
                match old.get("status") {
                    Some(s) => new["status"] = s.clone(),
                    None => {
                        if let Some(o) = new.as_object_mut() {
                            o.remove("status");
                        }
                    }
                }
            }
            // A Service that stops being a LoadBalancer loses its load balancer status.
            let kind = |o: &Value| {
                o["spec"]["type"]
                    .as_str()
                    .unwrap_or("ClusterIP")
                    .to_string()
            };
            if is_service(def)
                && endpoint == Endpoint::Main
                && kind(&old) == "LoadBalancer"
                && kind(&new) != "LoadBalancer"
                && new.get("status").is_some()
            {
                new["status"]["loadBalancer"] = json!({});
            }
        }
        Endpoint::Status if def.group == "certificates.k8s.io" => {
            let sent_meta = new["metadata"].clone();
            new = subresources::csr_status(&old, &new, &meta::now())
                .map_err(|causes| ApiError::invalid(def, name, causes))?;
            // The status strategy keeps the metadata sent.
            let kept =
                crate::support::status_metadata::status_metadata(&def.group, &def.kind, false);
            new["metadata"] = kept.metadata(&old["metadata"], sent_meta);
        }
        Endpoint::EphemeralContainers => {
            new = subresources::take_ephemeral_containers(&old, &new);
        }
        Endpoint::Resize => {
            new = subresources::resize(&old, &new, qos_class)
                .map_err(|causes| ApiError::invalid(def, name, causes))?;
        }
        Endpoint::Approval => {
            let sent_meta = new["metadata"].take();
            new = subresources::approval(&old, &new, &meta::now())
                .map_err(|causes| ApiError::invalid(def, name, causes))?;
            // The approval strategy keeps the metadata sent, as the status strategy does.
            new["metadata"] = sent_meta;
        }
        Endpoint::Status => {
            if is_service(def) {
                crate::admission::defaults::core::service_status(&mut new);
            }
            if status_credit::differs(def) {
                status_sent = Some(new.clone());
            }
            let status = new.get("status").cloned();
            let sent_meta = new["metadata"].take();
            new = (*old).clone();
            match status {
                Some(s) => new["status"] = s,
                None => {
                    if let Some(o) = new.as_object_mut() {
                        o.remove("status");
                    }
                }
            }
            // Most kinds' status strategies keep the metadata sent; some reset it (or a part).
            let kept = crate::support::status_metadata::status_metadata(
                &def.group,
                &def.kind,
                def.custom.is_some(),
            );
            new["metadata"] = kept.metadata(&old["metadata"], sent_meta);
            if def.group.is_empty() && def.plural == "persistentvolumes" {
                phase_time_sent = Some(strategy::volume_phase_time(&new));
                strategy::volume_phase_transition(&old, &mut new, &meta::now());
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
    for field in status_credit::KEPT_METADATA {
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
    // The field manager sees a Service's update as decoded and defaulted, before the REST's
    // allocator keeps or fills in its addresses, IP families and node ports and the
    // strategy drops what a type change leaves behind (and the load balancer status, which
    // a write of the Service's main endpoint never changes for the field manager).
    let service_spec = (is_service(def) && endpoint == Endpoint::Main)
        .then(|| decoded_view(def, &new)["spec"].take());
    // The Service REST's allocator keeps the stored addresses, checks and defaults the IP
    // family fields and drops what a type change leaves behind, before the strategy
    // validates: its errors are then the only ones.
    if is_service(def) && endpoint == Endpoint::Main && !query.stops_before_validation() {
        crate::registry::allocate::service_ip_families(&mut new, Some(&old))
            .map_err(|causes| ApiError::invalid(def, name, causes))?;
        // Then the node ports the update asks for.
        node_ports::allocate_update(&cluster.store, &new, &old, query.dry_run())
            .map_err(|refusal| node_ports_refused(def, name, refusal))?;
    }
    // A built-in kind's status strategy (most kinds with a status subresource) prepares the
    // status sent, checks only the metadata and the status, and warns of nothing (a Service
    // aside): admission stops before validation, which is theirs.
    if endpoint == Endpoint::Main && def.group.is_empty() && def.plural == "pods" {
        strategy::prepare_pod(&mut new);
    }
    // The field manager records the request as decoded, before the strategy prepares it.
    let sent = (endpoint == Endpoint::Main
        && strategy::credits_sent_fields(&def.group, &def.plural, &new))
    .then(|| decoded_view(def, &new));
    let dropped_spec_change = endpoint == Endpoint::Main
        && strategy::drop_disabled_on_update(&def.group, &def.plural, &mut new, &old);
    if endpoint == Endpoint::Main {
        crate::admission::chain::mutate_update(def, &mut new, &old);
    }
    let status_alone = endpoint == Endpoint::Status
        && def.custom.is_none()
        && crate::registry::validation::validates_status_alone(&def.group, &def.kind);
    // A claim's status strategy drops the statuses of deallocated devices after
    // kube-apiserver's field manager ran: their writer is credited with them as sent.
    let claim_devices_sent = (status_alone && def.plural == "resourceclaims")
        .then(|| decoded_view(def, &new)["status"].get("devices").cloned())
        .flatten();
    if status_alone {
        crate::registry::validation::prepare_status_update(&def.group, &def.kind, &mut new, &old);
    }
    let mut warnings = if endpoint == Endpoint::Finalize {
        Vec::new()
    } else if status_alone {
        let before_validation = query.clone().stop_before_validation();
        admit(def, &mut new, Some(&old), &before_validation)?
    } else if endpoint == Endpoint::Main && def.group.is_empty() && def.plural == "pods" {
        // An invalid new pod's 422 lists the errors of the update after its own.
        admit(def, &mut new, Some(&old), query).map_err(|e| {
            crate::registry::validation::pod_update_after_own_errors(e, def, &new, &old)
        })?
    } else if endpoint == Endpoint::Main && event_errors::is_event(def) {
        admit(def, &mut new, Some(&old), query).map_err(|e| {
            event_errors::update_refused(def, checked_as(cluster, def), name, &old, &new, e)
        })?
    } else {
        let warnings = admit(def, &mut new, Some(&old), query)?;
        match status_sent.as_ref() {
            Some(sent) if def.custom.is_some() => {
                let warn = crate::admission::admit::FieldValidation::from_query(query)?
                    == crate::admission::admit::FieldValidation::Warn;
                status_credit::undeclared_warnings(def, sent, warn, warnings)
            }
            _ => warnings,
        }
    };
    if endpoint == Endpoint::Main && !query.stops_before_validation() {
        let causes = strategy::update_causes(&def.group, &def.plural, &old, &new);
        if !causes.is_empty() {
            return Err(ApiError::invalid(checked_as(cluster, def), name, causes));
        }
        crate::admission::chain::validate_update(&cluster.store, def, ns, name, &new, &old)
            .map_err(|e| e.after_warnings(&warnings))?;
    }
    if status_alone && !query.stops_before_validation() {
        // A claim's new allocation granting admin access is checked first.
        let mut causes = crate::registry::checks::admin_access::status_causes(
            &cluster.store,
            &def.group,
            &def.plural,
            ns,
            &new,
            &old,
        );
        causes.extend(crate::registry::validation::status_update(
            &def.group, &def.kind, &new, &old,
        ));
        if !causes.is_empty() {
            return Err(ApiError::invalid(def, name, causes));
        }
        if is_service(def) {
            warnings.extend(crate::registry::validation::service_status_warnings(&new));
        }
    }
    if endpoint == Endpoint::EphemeralContainers {
        let causes = subresources::check_ephemeral_containers(&old, &new);
        if !causes.is_empty() {
            return Err(ApiError::invalid(def, name, causes));
        }
    }
    if !query.stops_before_validation() {
        let security = crate::admission::pod_security::Write {
            def,
            subresource: endpoint.subresource(),
            namespace: ns,
            name,
            object: &new,
            old: Some(&old),
        };
        match crate::admission::pod_security::admit(&cluster.store, &security) {
            Ok(more) => warnings.extend(more),
            Err(mut refused) => {
                refused.warnings = warnings;
                return Err(refused);
            }
        }
    }
    if is_service(def) && endpoint == Endpoint::Main {
        crate::registry::allocate::service(&cluster.store, &mut new, Some(&old), query.dry_run());
    }
    // A status write stores the CRD's status as sent (validated by its status strategy):
    // dropping an old stored version is how a storage migration ends.
    if crd::is_crd(def) && endpoint != Endpoint::Status {
        let now = meta::now();
        let status = old.get("status").cloned();
        crd::check_install(&cluster.registry, def, name, &mut new, &now, &[])?;
        // The status is kept but for a new storage version: the naming controller accepts
        // the names the spec asks for after the write.
        if let Some(mut s) = status {
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
    // A PriorityClass is given generation 1 on create, and its strategy never bumps it (its
    // value is immutable; a new description or preemption policy leaves it).
    let bumps = !(def.group == "scheduling.k8s.io" && def.plural == "priorityclasses");
    // A raw value's bytes are part of the spec the strategy compares (a DeviceClass's
    // parameters re-written by a strategic merge patch, or sent with other white space).
    if def.tracks_generation
        && bumps
        && (dropped_spec_change
            || spec_part(def, &new) != spec_part(def, &old)
            || !raw_bytes::same_bytes(&old, &new, "spec")
            || (endpoint != Endpoint::Status && annotations_bump(def, &new, &old)))
    {
        let generation = old["metadata"]["generation"].as_i64().unwrap_or(0) + 1;
        new["metadata"]["generation"] = json!(generation);
    }
    let versions = manager_versions::of(&cluster.store, def);
    let mut credited = match service_spec {
        Some(spec) => Some(as_decoded_service(&new, &old, spec)),
        None => sent.and_then(|s| strategy::credited_on_update(&def.group, &def.plural, &new, &s)),
    };
    // The volume's status strategy dates a new phase after the field manager ran: the time
    // is credited as the write sent it.
    if let Some(devices) = claim_devices_sent
        && new["status"].get("devices") != Some(&devices)
    {
        let mut view = credited.unwrap_or_else(|| new.clone());
        view["status"]["devices"] = devices;
        credited = Some(view);
    }
    if let Some(sent) = status_sent {
        let view = credited.unwrap_or_else(|| new.clone());
        credited = Some(status_credit::view(def, &old, &sent, view));
    }
    if let Some(time) = phase_time_sent {
        let mut view = credited.unwrap_or_else(|| new.clone());
        strategy::with_volume_phase_time(&mut view, time);
        credited = Some(view);
    }
    managers_after_in(
        def,
        Some(&old),
        credited.as_ref().unwrap_or(&new),
        sent_managed.as_ref(),
        endpoint,
        fields,
        &BTreeMap::new(),
        versions.as_ref(),
    )
    .write_to(&mut new);
    let mut old_cmp = (*old).clone();
    new["metadata"]["resourceVersion"] = Value::String(current_rv.clone());
    old_cmp["metadata"]["resourceVersion"] = Value::String(current_rv);
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
        // A body admitted in the version its request addressed met the policies there.
        if !query.was_admitted_elsewhere() {
            let more = policies::validate(&cluster.store, &cluster.registry, &write, query)
                .map_err(|e| e.after_warnings(&warnings))?;
            warnings.extend(more);
        }
        if matches!(endpoint, Endpoint::Main | Endpoint::Resize) && !query.stops_before_quota() {
            crate::admission::chain::validate_update_last(
                &cluster.store,
                def,
                ns,
                name,
                &new,
                &old,
            )
            .map_err(|e| e.after_warnings(&warnings))?;
        }
    }
    // An update that changes nothing has been through admission all the same (a policy may
    // refuse it), as on the real server; it stores nothing. The store compares the bytes it
    // would write, so a raw value whose bytes change (only its text) is a change, and a number
    // spelled otherwise (`1.0` for `1`) is not.
    if def.custom.is_some() {
        crate::storage::numbers::as_stored(&mut new);
    }
    if def.custom.is_some() {
        // Compared as the store would write it: an object stored in an earlier storage
        // version is rewritten in the current one, as the real store compares bytes.
        new = stored::to_stored(def, new);
        old_cmp = (*stored_old).clone();
        old_cmp["metadata"]["resourceVersion"] = new["metadata"]["resourceVersion"].clone();
    }
    if new == old_cmp && raw_bytes::same_bytes(&old, &new, "") {
        return Ok((stored_old, warnings));
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

/// Refuses a body whose namespace or name is not the URL's (an unset one is the URL's), in
/// the handler's order: the namespace first.
pub(super) fn check_identity(
    def: &ResourceDef,
    ns: &str,
    name: &str,
    object: &Value,
) -> Result<(), ApiError> {
    if def.namespaced {
        let body_ns = meta::meta_str(object, "namespace").unwrap_or_default();
        if !body_ns.is_empty() && body_ns != ns {
            return Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
    }
    let body_name = meta::meta_str(object, "name").unwrap_or_default();
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({name})"
        )));
    }
    Ok(())
}

/// The resourceVersion an update body sets as its precondition: `None` when unset or `0`
/// (an unconditional update), a bare 500 with Go's `strconv.ParseUint` message when it is
/// not an unsigned decimal number, as kube-apiserver answers.
fn sent_resource_version(object: &Value) -> Result<Option<u64>, ApiError> {
    let Some(rv) = meta::meta_str(object, "resourceVersion").filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let failure = |why: &str| {
        ApiError::without_reason(
            500,
            format!("strconv.ParseUint: parsing {}: {why}", go_quote(rv)),
        )
    };
    if !rv.bytes().all(|b| b.is_ascii_digit()) {
        return Err(failure("invalid syntax"));
    }
    let value = rv
        .parse::<u64>()
        .map_err(|_| failure("value out of range"))?;
    Ok((value != 0).then_some(value))
}

/// The etcd key kube-apiserver names in a failed storage precondition, for the kinds a PUT
/// creates (their storage prefixes are not always the resource's name).
fn storage_key(def: &ResourceDef, ns: &str, name: &str) -> String {
    let prefix = match (def.group.as_str(), def.plural.as_str()) {
        ("", "services") => "services/specs",
        ("", "endpoints") => "services/endpoints",
        (_, plural) => plural,
    };
    if ns.is_empty() {
        format!("/registry/{prefix}/{name}")
    } else {
        format!("/registry/{prefix}/{ns}/{name}")
    }
}

/// A PUT of an absent object of a kind whose strategy allows it: a create, with the create's
/// admission and validation (201). A resourceVersion in the body must be a number and is then
/// ignored; a uid is a precondition no absent object meets. Through `/status` it is the
/// status store's create (see [`create_object_with`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn create_on_update(
    cluster: &mut Cluster,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    mut object: Value,
    query: &Query,
    fields: Fields,
    endpoint: Endpoint,
) -> Result<(Arc<Value>, Vec<String>), ApiError> {
    check_type(def, &mut object)?;
    meta::ensure_metadata(&mut object);
    check_identity(def, ns, name, &object)?;
    sent_resource_version(&object)?;
    if let Some(uid) = meta::meta_str(&object, "uid").filter(|u| !u.is_empty()) {
        return Err(uid_precondition_failed(def, ns, name, uid, ""));
    }
    if let Some(m) = object["metadata"].as_object_mut() {
        m.remove("resourceVersion");
        m.insert("name".into(), Value::String(name.to_string()));
    }
    let target_ns = (def.namespaced && !ns.is_empty()).then_some(ns);
    create_object_with(
        cluster, def, target_ns, object, query, fields, None, endpoint,
    )
}

/// The 409 of a PUT whose body names a uid other than the stored object's (`stored`, empty
/// when there is none): the storage layer checks it as a precondition before anything else.
pub(super) fn uid_precondition_failed(
    def: &ResourceDef,
    ns: &str,
    name: &str,
    sent: &str,
    stored: &str,
) -> ApiError {
    let why = format!(
        "StorageError: invalid object, Code: 4, Key: {}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {sent}, UID in object meta: {stored}",
        storage_key(def, ns, name)
    );
    ApiError::conflict_with(def, name, &why)
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

/// What the field manager credits for an update of a Service's main endpoint: `new` with the
/// spec as decoded (`spec`) and the stored status.
fn as_decoded_service(new: &Value, old: &Value, spec: Value) -> Value {
    let mut view = new.clone();
    view["spec"] = spec;
    match old.get("status") {
        Some(s) => view["status"] = s.clone(),
        None => {
            if let Some(o) = view.as_object_mut() {
                o.remove("status");
            }
        }
    }
    view
}
