//! POST: creating an object, with the real server's checks (type, namespace, name), the
//! kind's initial status, admission, allocation and managed fields; and the namespaces every
//! cluster starts with.

use std::sync::Arc;

use serde_json::{Value, json};

use super::body_type::{check_type, with_decoder_warnings};
use super::event_errors;
use super::fields::{Fields, managers_after};
use super::options;
use super::state::{Api, Cluster};
use super::subresource::Endpoint;
use crate::admission::admit::admit;
use crate::admission::policies;
use crate::admission::webhooks::config::Operation;
use crate::registry::checks::admin_access;
use crate::registry::stored::as_served;
use crate::registry::{crd, node_ports, strategy};
use crate::support::fieldmanager::{self, ManagedFields, Owner, Scope, Types};
use crate::support::meta;
use crate::support::query::Query;
use crate::support::request::{Assigned, Reply, Req, Target, object_body};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Creates the namespaces every cluster starts with.
pub fn bootstrap(cluster: &mut Cluster) {
    let def = cluster
        .registry
        .get("", "v1", "namespaces")
        .expect("namespaces are a built-in resource");
    for name in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        let object = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        create_object(cluster, &def, None, object, &Query::default())
            .expect("bootstrap namespaces are valid");
    }
}

/// The namespace a request writes into, refusing a body/URL mismatch.
fn resolve_namespace(
    def: &ResourceDef,
    target_ns: Option<&str>,
    object: &mut Value,
) -> Result<String, ApiError> {
    meta::ensure_metadata(object);
    if !def.namespaced {
        if let Some(m) = object["metadata"].as_object_mut() {
            m.remove("namespace");
        }
        return Ok(String::new());
    }
    let body_ns = meta::meta_str(object, "namespace")
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let ns = match (target_ns, body_ns) {
        (Some(url), Some(body)) if url != body => {
            return Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        (Some(url), _) => url.to_string(),
        (None, Some(body)) => body,
        (None, None) => {
            return Err(ApiError::bad_request(format!(
                "the server could not find the requested resource: {} is namespaced; send the request to /namespaces/<namespace>/{}",
                def.qualified(),
                def.plural
            )));
        }
    };
    object["metadata"]["namespace"] = Value::String(ns.clone());
    Ok(ns)
}

/// Refuses new content in a namespace that is missing or terminating.
fn check_namespace(
    cluster: &Cluster,
    def: &ResourceDef,
    ns: &str,
    name: &str,
) -> Result<(), ApiError> {
    if ns.is_empty() {
        return Ok(());
    }
    match cluster.store.get("/namespaces", "", ns) {
        None => Err(ApiError::namespace_not_found(ns)),
        Some(n) if meta::is_deleting(&n) => Err(ApiError::namespace_terminating(def, name, ns)),
        Some(_) => Ok(()),
    }
}

/// What a kind's status looks like right after creation: create resets status, except a
/// Node's (the Node strategy lets a create set every field, status included) and a
/// ServiceCIDR's (its strategy keeps the status a create sends).
fn initial_status(def: &ResourceDef, object: &mut Value) {
    if !def.status_subresource
        || (def.group.is_empty() && def.kind == "Node")
        || strategy::main_writes_status(&def.group, &def.plural)
    {
        return;
    }
    if let Some(o) = object.as_object_mut() {
        o.remove("status");
    }
    if def.custom.is_some() || crd::is_crd(def) {
        return;
    }
    let status = if def.group.is_empty() && def.kind == "Pod" {
        Some(crate::admission::defaults::pod_status::pod_status_on_create(object))
    } else if def.group == "apiregistration.k8s.io" && def.kind == "APIService" {
        Some(api_service_status(object))
    } else {
        crate::admission::defaults::initial_status(&def.group, &def.version, &def.kind)
    };
    if let Some(status) = status {
        object["status"] = status;
    }
}

/// The APIService strategy's status of a new APIService: a local one (without
/// `spec.service`, served by this server) is available from its creation.
fn api_service_status(object: &Value) -> Value {
    if !object["spec"]["service"].is_null() {
        return json!({});
    }
    json!({"conditions": [{
        "type": "Available",
        "status": "True",
        "lastTransitionTime": crate::support::meta::now(),
        "reason": "Local",
        "message": "Local APIServices are always available",
    }]})
}

/// Refuses `metadata.resourceVersion` on create, and checks the name.
fn prepare_create_meta(
    cluster: &Cluster,
    def: &ResourceDef,
    object: &mut Value,
) -> Result<String, ApiError> {
    if meta::meta_str(object, "resourceVersion").is_some_and(|s| !s.is_empty()) {
        return Err(ApiError::bad_request(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    let mut name = meta::meta_str(object, "name")
        .unwrap_or_default()
        .to_string();
    // A missing or invalid name is reported by the validation, with the kind's other
    // errors (`ValidateObjectMeta`), after the mutating admission.
    let prefix = meta::meta_str(object, "generateName")
        .unwrap_or_default()
        .to_string();
    if name.is_empty() && !prefix.is_empty() {
        name = meta::name_from_prefix(def, &prefix);
        object["metadata"]["name"] = Value::String(name.clone());
    }
    let _ = (cluster, def);
    Ok(name)
}

/// Creates one object: the core of POST, used by bootstrap and CRD installation. Fields
/// are owned by the query's `fieldManager`.
pub fn create_object(
    cluster: &mut Cluster,
    def: &ResourceDef,
    target_ns: Option<&str>,
    object: Value,
    query: &Query,
) -> Result<(Arc<Value>, Vec<String>), ApiError> {
    create_object_as(
        cluster,
        def,
        target_ns,
        object,
        query,
        Fields::of_query(query),
    )
}

/// `object` as decoding into its Go type leaves it: defaulted, empty optional collections
/// dropped, zero values written. What the field manager credits to a manager.
pub(super) fn decoded_view(def: &ResourceDef, object: &Value) -> Value {
    let mut view = object.clone();
    crate::admission::defaults::apply_builtin_defaults(
        &def.group,
        &def.version,
        &def.kind,
        &mut view,
    );
    crate::registry::validation::omit_empty_collections(&mut view);
    crate::registry::validation::write_zero_values(&mut view);
    view
}

/// Creates one object, recording its managedFields as `fields` says.
pub fn create_object_as(
    cluster: &mut Cluster,
    def: &ResourceDef,
    target_ns: Option<&str>,
    object: Value,
    query: &Query,
    fields: Fields,
) -> Result<(Arc<Value>, Vec<String>), ApiError> {
    create_object_with(
        cluster,
        def,
        target_ns,
        object,
        query,
        fields,
        None,
        Endpoint::Main,
    )
}

/// [`create_object_as`] through `endpoint`, giving the object `identity` (the uid and
/// creation time its validating webhooks saw) instead of a new one. A create through
/// `/status` (a PUT of an absent Service there) uses the create strategy but not the Service
/// REST's allocation (no cluster IP, IP family fields or node port), and its manager owns
/// only the metadata and status it sent, as kube-apiserver's status store does.
#[allow(clippy::too_many_arguments)]
pub(super) fn create_object_with(
    cluster: &mut Cluster,
    def: &ResourceDef,
    target_ns: Option<&str>,
    mut object: Value,
    query: &Query,
    fields: Fields,
    identity: Option<Assigned>,
    endpoint: Endpoint,
) -> Result<(Arc<Value>, Vec<String>), ApiError> {
    if let Err(mut refused) = check_type(def, &mut object) {
        // The decoder ran first: its refusals come before the apiVersion check, its
        // warnings with it.
        refused.warnings = crate::admission::admit::decoded(def, query)?;
        return Err(refused);
    }
    let sent_managed = object
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .cloned();
    let mut object = crate::storage::conversion::builtin::to_storage(def, object);
    let ns = resolve_namespace(def, target_ns, &mut object)?;
    let name = prepare_create_meta(cluster, def, &mut object)?;
    check_namespace(cluster, def, &ns, &name)?;
    // The field manager records the creator's fields before the mutating admission plugins
    // run (their additions are nobody's): the object as decoding defaults it.
    // So does a ResourceSlice's strategy drop its fields of disabled features after it.
    let creator_view = (crate::admission::chain::mutates(def)
        || strategy::slice_sends_disabled(&def.group, &def.plural, &object))
    .then(|| decoded_view(def, &object));
    crate::admission::chain::mutate(&cluster.store, def, &ns, &mut object)?;
    // The status store's manager owns the status as sent, before the create resets it.
    let status_view = (endpoint == Endpoint::Status).then(|| decoded_view(def, &object));
    initial_status(def, &mut object);
    let (uid, now) = match identity {
        Some(Assigned {
            uid,
            creation_timestamp,
        }) => (uid, creation_timestamp),
        None => (meta::new_uid(), meta::now()),
    };
    {
        let m = object["metadata"]
            .as_object_mut()
            .expect("metadata is an object");
        m.remove("deletionTimestamp");
        m.remove("deletionGracePeriodSeconds");
        m.remove("managedFields");
        m.insert("uid".into(), Value::String(uid));
        m.insert("creationTimestamp".into(), Value::String(now.clone()));
        // A CSIDriver's strategy counts its generations from the first change of its spec.
        let csi_driver = def.group == "storage.k8s.io" && def.plural == "csidrivers";
        if def.tracks_generation && !csi_driver {
            m.insert("generation".into(), json!(1));
        } else {
            m.remove("generation");
        }
    }
    strategy::prepare_create(&def.group, &def.plural, &mut object);
    // The Service REST's allocator checks the cluster IPs and IP families (`clusterIPs`
    // filled in from `clusterIP`), then the requested node ports, before the strategy
    // validates anything: its errors are then the only ones. The fields it defaults are written after the field manager.
    if is_service(def) && endpoint == Endpoint::Main && !query.stops_before_validation() {
        let mut prepared = object.clone();
        if let Err(causes) = crate::registry::allocate::service_ip_families(&mut prepared, None) {
            return Err(ApiError::invalid(def, &name, causes));
        }
        let (store, dry_run) = (&cluster.store, query.dry_run());
        if let Err(causes) = crate::registry::service_ips::check_create(store, &prepared, dry_run) {
            return Err(ApiError::invalid(def, &name, causes));
        }
        // Then the node ports it asks for.
        node_ports::allocate_create(store, &prepared, dry_run)
            .map_err(|refusal| node_ports_refused(def, &name, refusal))?;
    }
    // A claim's admin access is the first error of its validation.
    let admin = if query.stops_before_validation() {
        Vec::new()
    } else {
        admin_access::causes(&cluster.store, &def.group, &def.plural, &ns, &object)
    };
    let mut warnings = admit(def, &mut object, None, query).map_err(|e| {
        if event_errors::is_event(def) {
            return event_errors::create_refused(def, checked_as(cluster, def), &name, &object, e);
        }
        admin_access::lead(def, &name, &admin, e)
    })?;
    if !query.stops_before_validation() {
        let mut causes = admin;
        if strategy::checks_on_its_own(&def.group, &def.plural) {
            causes.extend(strategy::create_causes(&def.group, &def.plural, &object));
        }
        if is_service(def) && endpoint == Endpoint::Status {
            // Without the REST's allocation nothing fills `clusterIPs` in from `clusterIP`.
            causes.extend(crate::registry::validation::service_cluster_ips(&object));
        }
        if !causes.is_empty() {
            return Err(ApiError::invalid(checked_as(cluster, def), &name, causes));
        }
    }
    // A CRD is created with its initial status; the controllers then establish it.
    let created_crd = crd::is_crd(def).then(|| {
        let mut first = object.clone();
        first["status"] = crd::initial_status(&object);
        first
    });
    if created_crd.is_some() {
        let crds = crd::stored_crds(&cluster.store);
        crd::check_install(&cluster.registry, def, &name, &mut object, &now, &crds)?;
    }
    let managers = match (&status_view, fields) {
        (Some(view), Fields::Update(manager)) => status_create_managers(def, view, manager),
        (_, fields) => managers_after(
            def,
            None,
            creator_view.as_ref().unwrap_or(&object),
            sent_managed.as_ref(),
            Endpoint::Main,
            fields,
        ),
    };
    managers.write_to(&mut object);
    // Addresses and node ports are allocated by the registry, after the field manager: they
    // are not the creator's fields. The status store has no allocator.
    if is_service(def) && endpoint == Endpoint::Main {
        crate::registry::allocate::service(&cluster.store, &mut object, None, query.dry_run());
    }
    strategy::generate_on_create(&def.group, &def.plural, &mut object);
    if !query.stops_before_validation() {
        // What refuses the object from here on is sent with the warnings it earned so far.
        crate::admission::chain::validate_limits(&cluster.store, def, &ns, &mut object)
            .map_err(|e| e.after_warnings(&warnings))?;
        let security = crate::admission::pod_security::Write {
            def,
            subresource: endpoint.subresource(),
            namespace: &ns,
            name: &name,
            object: &object,
            old: None,
        };
        match crate::admission::pod_security::admit(&cluster.store, &security) {
            Ok(more) => warnings.extend(more),
            Err(mut refused) => {
                refused.warnings = warnings;
                return Err(refused);
            }
        }
        let write = policies::Write {
            def,
            subresource: None,
            operation: Operation::Create,
            namespace: &ns,
            name: &name,
            object: Some(&object),
            old: None,
        };
        // A body admitted in the version its request addressed met the policies there.
        if !query.was_admitted_elsewhere() {
            let more = policies::validate(&cluster.store, &cluster.registry, &write, query)
                .map_err(|e| e.after_warnings(&warnings))?;
            warnings.extend(more);
        }
        if !query.stops_before_quota() {
            crate::admission::chain::validate(&cluster.store, def, &ns, &name, &mut object)
                .map_err(|e| e.after_warnings(&warnings))?;
        }
    }
    // Validation and admission come first, storage last: an invalid object that also exists
    // is a 422, not a 409, and the 409 carries the warnings already recorded.
    if cluster.store.get(&def.storage_key, &ns, &name).is_some() {
        let mut exists = ApiError::already_exists(def, &name);
        exists.warnings = warnings;
        return Err(exists);
    }
    if let Some(mut first) = created_crd {
        managers.write_to(&mut first);
        if query.dry_run() {
            return Ok((Arc::new(first), warnings));
        }
        // The naming controller's write (names accepted, `Established` still installing),
        // then the establishing controller's: two events, as on a real server, each a
        // status update of kube-apiserver's own.
        let by_controllers = controllers_status(def, &first, &managers, &object);
        let created = cluster.store.put(&def.storage_key, &ns, &name, first);
        if let Some(mut installing) = crd::installing(&object) {
            by_controllers.write_to(&mut installing);
            cluster.store.put(&def.storage_key, &ns, &name, installing);
        }
        by_controllers.write_to(&mut object);
        let established = cluster.store.put(&def.storage_key, &ns, &name, object);
        crd::register(&mut cluster.registry, &established);
        let controllers = cluster.controllers.clone();
        controllers.created(cluster, def, &established, &ns);
        return Ok((created, warnings));
    }
    // A custom resource's numbers as its storage codec gives them back (a dry run's answer
    // too has been through it).
    if def.custom.is_some() {
        crate::storage::numbers::as_stored(&mut object);
        object = crate::registry::stored::to_stored(def, object);
    }
    if query.dry_run() {
        return Ok((Arc::new(object), warnings));
    }
    let stored = cluster.store.put(&def.storage_key, &ns, &name, object);
    let controllers = cluster.controllers.clone();
    controllers.created(cluster, def, &stored, &ns);
    Ok((stored, warnings))
}

/// The managers of a create through `/status`: the status store resets only the spec, so
/// `manager` owns the metadata and the status the body set (before the create reset it),
/// recorded with `subresource: status`; managedFields in the body are not taken.
fn status_create_managers(def: &ResourceDef, view: &Value, manager: String) -> ManagedFields {
    let without_spec = |object: &Value| {
        let mut object = object.clone();
        if let Some(o) = object.as_object_mut() {
            o.remove("spec");
        }
        object
    };
    let mut empty = json!({"apiVersion": def.api_version(), "kind": def.kind,
        "metadata": {}, "spec": {}, "status": {}});
    crate::registry::validation::write_zero_values(&mut empty);
    let owner = Owner {
        manager,
        operation: fieldmanager::Operation::Update,
        api_version: def.api_version(),
        subresource: Endpoint::Status.subresource().to_string(),
    };
    fieldmanager::update(
        Types::of(def),
        Some(&without_spec(&empty)),
        &without_spec(view),
        ManagedFields::default(),
        &owner,
        Scope::Whole,
        &meta::now(),
    )
}

/// The managedFields of a new CRD once its controllers have written its status: the
/// creator's entry, then kube-apiserver's status update (accepted names and conditions).
fn controllers_status(
    def: &ResourceDef,
    first: &Value,
    managers: &ManagedFields,
    established: &Value,
) -> ManagedFields {
    let owner = Owner {
        manager: "kube-apiserver".into(),
        operation: fieldmanager::Operation::Update,
        api_version: def.api_version(),
        subresource: Endpoint::Status.subresource().to_string(),
    };
    fieldmanager::update(
        Types::of(def),
        Some(first),
        established,
        managers.clone(),
        &owner,
        Scope::OnlyStatus,
        &meta::now(),
    )
}

/// `errors.NewInternalError`: a 500 whose only cause is `message`.
pub(super) fn internal_error(message: String) -> ApiError {
    let mut e = ApiError::internal(format!("Internal error occurred: {message}"));
    e.details = json!({"causes": [{"message": message}]});
    e
}

/// The answer to a Service's node ports the allocator refused.
pub(super) fn node_ports_refused(
    def: &ResourceDef,
    name: &str,
    refusal: node_ports::Refusal,
) -> ApiError {
    match refusal {
        node_ports::Refusal::Invalid(causes) => ApiError::invalid(def, name, causes),
        node_ports::Refusal::Internal(message) => internal_error(message),
        node_ports::Refusal::Failed(message) => ApiError::without_reason(500, message),
    }
}

/// The kind a validation error names: Events are checked as core Events, whichever group
/// they were written through.
pub fn checked_as<'a>(cluster: &'a Cluster, def: &'a ResourceDef) -> &'a ResourceDef {
    if def.group != "events.k8s.io" {
        return def;
    }
    cluster
        .registry
        .all()
        .find(|d| d.group.is_empty() && d.plural == "events")
        .map_or(def, |d| d.as_ref())
}

/// Whether `def` is the core Service resource (which gets addresses allocated).
pub fn is_service(def: &ResourceDef) -> bool {
    def.group.is_empty() && def.plural == "services"
}

/// POST on a collection.
pub fn create(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    options::validate_write_options("CreateOptions", &req.query)?;
    create_decoded(api, req, target).map_err(|e| with_decoder_warnings(&target.def, req, e))
}

/// [`create`] once its options are read: what follows the body's decoding.
fn create_decoded(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let def = &target.def;
    let mut object = object_body(req, &def.kind)?;
    let fields = Fields::of_request(req, &object);
    if strategy::is_csr(&def.group, &def.plural) && object.is_object() {
        // Its spec is validated with the rest of the object, on admission.
        strategy::csr_on_create(&mut object, &req.user);
    }
    // A create replayed by the webhook chain keeps what its validating webhooks saw.
    let identity = req.assigned.clone();
    let mut cluster = api.lock();
    super::escalation::check_write(api, &cluster.store, req, target, &object, None)?;
    let (stored, warnings) = create_object_with(
        &mut cluster,
        &target.def,
        target.namespace.as_deref(),
        object,
        &req.query,
        fields,
        identity,
        Endpoint::Main,
    )?;
    Ok(Reply::Json {
        code: 201,
        body: as_served(&target.def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}
