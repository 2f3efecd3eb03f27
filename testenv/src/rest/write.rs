//! Create, update (main and status) and patch.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Api, Cluster, Query, Reply, Req, admission, apply, json_body, meta};
use crate::fieldmanager::{self, ManagedFields, Operation, Owner, Scope, Types};
use crate::registry::{ResourceDef, crd};
use crate::rest::route::Target;
use crate::status::{ApiError, Cause};

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

/// The object with `apiVersion` and `kind` of the served version `def` (None conversion).
pub fn as_version(def: &ResourceDef, object: &Value) -> Value {
    let mut out = super::convert::from_storage(def, object);
    out["apiVersion"] = Value::String(def.api_version());
    out["kind"] = Value::String(def.kind.clone());
    out
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

/// Refuses a body of another apiVersion or kind, with the real server's messages, and
/// fills both in when they are missing.
pub fn check_type(def: &ResourceDef, object: &mut Value) -> Result<(), ApiError> {
    if !object.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !api_version.is_empty() && api_version != def.api_version() {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            def.api_version()
        )));
    }
    if !kind.is_empty() && kind != def.kind {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({kind}) does not match the expected kind ({})",
            def.kind
        )));
    }
    object["apiVersion"] = Value::String(def.api_version());
    object["kind"] = Value::String(def.kind.clone());
    Ok(())
}

/// What a kind's status looks like right after creation: create resets status.
fn initial_status(def: &ResourceDef, object: &mut Value) {
    if !def.status_subresource {
        return;
    }
    if let Some(o) = object.as_object_mut() {
        o.remove("status");
    }
    if def.custom.is_some() || is_crd(def) {
        return;
    }
    let status = if def.group.is_empty() && def.kind == "Pod" {
        let qos = super::allocate::pod_qos_class(&object["spec"]);
        Some(json!({"phase": "Pending", "qosClass": qos}))
    } else {
        crate::defaults::initial_status(&def.group, &def.version, &def.kind)
    };
    if let Some(status) = status {
        object["status"] = status;
    }
}

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
    if name.is_empty() {
        let prefix = meta::meta_str(object, "generateName")
            .unwrap_or_default()
            .to_string();
        if prefix.is_empty() {
            return Err(ApiError::invalid(
                def,
                "",
                vec![Cause {
                    reason: "FieldValueRequired".into(),
                    message: "Required value: name or generateName is required".into(),
                    field: "metadata.name".into(),
                }],
            ));
        }
        name = meta::generate_name(&prefix);
        object["metadata"]["name"] = Value::String(name.clone());
    }
    if let Some(cause) = meta::validate_name(def, &name) {
        return Err(ApiError::invalid(def, &name, vec![cause]));
    }
    let _ = cluster;
    Ok(name)
}

/// Who owns what a write changes (recorded in `metadata.managedFields`).
#[derive(Debug)]
pub enum Fields {
    /// An update operation (create, PUT, non-apply patch) of this manager: the fields it
    /// changes become its own.
    Update(String),
    /// A server-side apply already computed the managers.
    Applied(ManagedFields),
}

impl Fields {
    /// The fields of a POST or PUT: the managedFields of the body when the server computed
    /// them itself (a replayed write, see [`Query::managed_fields_computed`]), otherwise
    /// an update operation of the request's manager.
    pub fn of_request(req: &Req, body: &Value) -> Self {
        if req.query.has_computed_managed_fields()
            && let Ok(managed) = ManagedFields::of_object(body)
            && !managed.entries.is_empty()
        {
            return Fields::Applied(managed);
        }
        Fields::Update(apply::update_manager(req))
    }

    /// The update operation of the manager a bare query names (`fieldManager`, else
    /// `unknown`).
    fn of_query(query: &Query) -> Self {
        Fields::Update(fieldmanager::default_manager(query.get("fieldManager"), ""))
    }
}

/// The managedFields subresource name of an endpoint.
fn subresource_of(endpoint: Endpoint) -> &'static str {
    match endpoint {
        Endpoint::Main => "",
        Endpoint::Status => "status",
        Endpoint::Finalize => "finalize",
    }
}

/// The managers after a write from `old` (absent on create) to `new`.
fn managers_after(
    def: &ResourceDef,
    old: Option<&Value>,
    new: &Value,
    sent: Option<&Value>,
    endpoint: Endpoint,
    fields: Fields,
) -> ManagedFields {
    let manager = match fields {
        Fields::Applied(managed) => return managed,
        Fields::Update(manager) => manager,
    };
    let owner = Owner {
        manager,
        operation: Operation::Update,
        api_version: def.api_version(),
        subresource: subresource_of(endpoint).to_string(),
    };
    // A create compares with an empty object of the kind: metadata (and, for built-in
    // kinds, the spec and status structs) exist there already.
    let empty = if def.custom.is_some() {
        json!({"metadata": {}})
    } else {
        json!({"metadata": {}, "spec": {}, "status": {}})
    };
    // Subresource writes never take managedFields from the body.
    let base = match old {
        Some(old) if endpoint == Endpoint::Main => ManagedFields::for_update(sent, old),
        Some(old) => ManagedFields::of_object(old).unwrap_or_default(),
        None => ManagedFields::for_update(sent, &empty),
    };
    fieldmanager::update(
        Types::of(def),
        Some(old.unwrap_or(&empty)),
        new,
        base,
        &owner,
        Scope::of(def.status_subresource, endpoint == Endpoint::Status),
        &meta::now(),
    )
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

/// Creates one object, recording its managedFields as `fields` says.
pub fn create_object_as(
    cluster: &mut Cluster,
    def: &ResourceDef,
    target_ns: Option<&str>,
    mut object: Value,
    query: &Query,
    fields: Fields,
) -> Result<(Arc<Value>, Vec<String>), ApiError> {
    check_type(def, &mut object)?;
    let sent_managed = object
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .cloned();
    let mut object = super::convert::to_storage(def, object);
    let ns = resolve_namespace(def, target_ns, &mut object)?;
    let name = prepare_create_meta(cluster, def, &mut object)?;
    check_namespace(cluster, def, &ns, &name)?;
    if cluster.store.get(&def.storage_key, &ns, &name).is_some() {
        return Err(ApiError::already_exists(def, &name));
    }
    initial_status(def, &mut object);
    let now = meta::now();
    {
        let m = object["metadata"]
            .as_object_mut()
            .expect("metadata is an object");
        m.remove("deletionTimestamp");
        m.remove("deletionGracePeriodSeconds");
        m.remove("managedFields");
        m.insert("uid".into(), Value::String(meta::new_uid()));
        m.insert("creationTimestamp".into(), Value::String(now.clone()));
        if def.tracks_generation {
            m.insert("generation".into(), json!(1));
        } else {
            m.remove("generation");
        }
    }
    let warnings = admission::admit(def, &mut object, None, query)?;
    if is_service(def) {
        super::allocate::service(&cluster.store, &mut object, None);
    }
    let is_crd = is_crd(def);
    if is_crd {
        install_crd_check(cluster, def, &name, &mut object, &now)?;
    }
    managers_after(
        def,
        None,
        &object,
        sent_managed.as_ref(),
        Endpoint::Main,
        fields,
    )
    .write_to(&mut object);
    if query.dry_run() {
        return Ok((Arc::new(object), warnings));
    }
    let stored = cluster.store.put(&def.storage_key, &ns, &name, object);
    if is_crd {
        register_crd(cluster, &stored);
    }
    crate::gc::created(cluster, def, &stored, &ns);
    Ok((stored, warnings))
}

/// Whether `def` is the core Service resource (which gets addresses allocated).
fn is_service(def: &ResourceDef) -> bool {
    def.group.is_empty() && def.plural == "services"
}

/// Whether `def` is the CustomResourceDefinition resource itself.
pub fn is_crd(def: &ResourceDef) -> bool {
    def.group == "apiextensions.k8s.io" && def.plural == "customresourcedefinitions"
}

fn install_crd_check(
    cluster: &Cluster,
    def: &ResourceDef,
    name: &str,
    crd_obj: &mut Value,
    now: &str,
) -> Result<(), ApiError> {
    let (group, plural) = crd::group_plural(crd_obj);
    let expected = format!("{plural}.{group}");
    if name != expected {
        return Err(ApiError::invalid(
            def,
            name,
            vec![Cause {
                reason: "FieldValueInvalid".into(),
                message: format!(
                    "Invalid value: \"{name}\": must be spec.names.plural+\".\"+spec.group"
                ),
                field: "metadata.name".into(),
            }],
        ));
    }
    if crd::storage_version(crd_obj).is_none() {
        return Err(ApiError::invalid(def, name, vec![Cause {
            reason: "FieldValueInvalid".into(),
            message: "Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage version".into(),
            field: "spec.versions".into(),
        }]));
    }
    let builtin_clash = cluster
        .registry
        .all()
        .any(|d| d.custom.is_none() && d.group == group && d.plural == plural);
    if builtin_clash {
        return Err(ApiError::invalid(
            def,
            name,
            vec![Cause {
                reason: "FieldValueInvalid".into(),
                message: format!("Invalid value: \"{group}\": is a built-in API group"),
                field: "spec.group".into(),
            }],
        ));
    }
    crd::establish(crd_obj, now);
    Ok(())
}

/// Makes a stored CRD's versions servable (replacing what an older revision served).
pub fn register_crd(cluster: &mut Cluster, crd_obj: &Value) {
    let (group, plural) = crd::group_plural(crd_obj);
    cluster.registry.remove_resource(&group, &plural);
    for def in crd::resources_of(crd_obj) {
        cluster.registry.insert(def);
    }
}

/// POST on a collection.
pub fn create(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    apply::validate_write_options("CreateOptions", &req.query)?;
    let object = json_body(req)?;
    let fields = Fields::of_request(req, &object);
    let mut cluster = api.lock();
    let (stored, warnings) = create_object_as(
        &mut cluster,
        &target.def,
        target.namespace.as_deref(),
        object,
        &req.query,
        fields,
    )?;
    Ok(Reply::Json {
        code: 201,
        body: as_version(&target.def, &stored),
        content_type: "application/json".into(),
        warnings,
    })
}

/// Which endpoint an update came through.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Endpoint {
    /// The object itself: status changes are ignored when status is a subresource.
    Main,
    /// `/status`: only status changes are kept.
    Status,
    /// `/finalize` of a namespace: only `spec.finalizers` changes are kept.
    Finalize,
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
    let mut new = super::convert::to_storage(def, new);
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
        None if def.allow_unconditional_update || endpoint != Endpoint::Main => {}
        None => {
            return Err(ApiError::invalid(
                def,
                name,
                vec![Cause {
                    reason: "FieldValueInvalid".into(),
                    message: "Invalid value: 0x0: must be specified for an update".into(),
                    field: "metadata.resourceVersion".into(),
                }],
            ));
        }
    }
    match endpoint {
        Endpoint::Main => {
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
            let finalizers = new["spec"]["finalizers"].clone();
            new = (*old).clone();
            new["spec"]["finalizers"] = if finalizers.is_null() {
                json!([])
            } else {
                finalizers
            };
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
            return Err(ApiError::invalid(
                def,
                name,
                vec![Cause {
                    reason: "FieldValueForbidden".into(),
                    message: format!(
                        "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{{{list}}}"
                    ),
                    field: "metadata.finalizers".into(),
                }],
            ));
        }
    }
    let warnings = if endpoint == Endpoint::Finalize {
        Vec::new()
    } else {
        admission::admit(def, &mut new, Some(&old), query)?
    };
    if is_service(def) && endpoint == Endpoint::Main {
        super::allocate::service(&cluster.store, &mut new, Some(&old));
    }
    if is_crd(def) {
        let now = meta::now();
        let status = old.get("status").cloned();
        install_crd_check(cluster, def, name, &mut new, &now)?;
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
    if query.dry_run() {
        return Ok((Arc::new(new), warnings));
    }
    if meta::is_deleting(&new) && meta::finalizers(&new).is_empty() {
        let removed = super::delete::remove_now(cluster, def, ns, name, Some(new))
            .ok_or_else(|| ApiError::not_found(def, name))?;
        return Ok((removed, warnings));
    }
    let stored = cluster.store.put(&def.storage_key, ns, name, new);
    if is_crd(def) {
        register_crd(cluster, &stored);
    }
    Ok((stored, warnings))
}

/// The update endpoint a request addresses.
pub fn endpoint_of(target: &Target) -> Endpoint {
    match target.subresource.as_deref() {
        Some("status") => Endpoint::Status,
        Some("finalize") => Endpoint::Finalize,
        _ => Endpoint::Main,
    }
}

/// The request's namespace, empty for cluster-scoped objects.
pub fn ns_of(target: &Target) -> &str {
    target.namespace.as_deref().unwrap_or_default()
}

/// PUT on an object or its status.
pub fn update(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    apply::validate_write_options("UpdateOptions", &req.query)?;
    let object = json_body(req)?;
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
