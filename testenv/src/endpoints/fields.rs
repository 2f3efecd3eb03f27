//! Who owns what a write changes: the `metadata.managedFields` a create, update or patch
//! records (server-side apply computes its own, see `super::apply`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::manager_versions;
use super::options;
use super::subresource::Endpoint;
use crate::registry::{strategy, validation};
use crate::storage::conversion::builtin::{self, BuiltinVersions};
use crate::support::fieldmanager::{
    self, Changes, ManagedFields, OneVersion, Operation, Owner, Scope, Types, Versions,
};
use crate::support::meta;
use crate::support::query::Query;
use crate::support::request::Req;
use crate::support::resource::ResourceDef;

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
        Fields::Update(options::update_manager(req))
    }

    /// The update operation of the manager a bare query names (`fieldManager`, else
    /// `unknown`).
    pub fn of_query(query: &Query) -> Self {
        Fields::Update(fieldmanager::default_manager(query.get("fieldManager"), ""))
    }
}

/// What a write through `endpoint` of `def` may own: the strategy's own reset fields where
/// the kind names them (see [`strategy::reset_fields`]), else all but `status` on the object
/// of a kind with a status subresource, and only `status` on `/status`.
pub fn scope_of(def: &ResourceDef, endpoint: Endpoint) -> Scope {
    match strategy::reset_fields(&def.group, &def.plural, endpoint.subresource()) {
        Some(reset) => Scope::Except(reset),
        None => Scope::of(def.status_subresource, endpoint == Endpoint::Status),
    }
}

/// The managedFields subresource name of an endpoint.
fn subresource_of(endpoint: Endpoint) -> &'static str {
    endpoint.subresource()
}

/// The managers after a write from `old` (absent on create) to `new`: managers of a version
/// a built-in kind is not served in are dropped (a custom kind's are all kept, see
/// [`managers_after_in`] for its CRD's versions).
pub fn managers_after(
    def: &ResourceDef,
    old: Option<&Value>,
    new: &Value,
    sent: Option<&Value>,
    endpoint: Endpoint,
    fields: Fields,
) -> ManagedFields {
    let versions: Box<dyn Versions> = match def.custom {
        Some(_) => Box::new(OneVersion),
        None => manager_versions::builtin(def),
    };
    let elsewhere = &BTreeMap::new();
    managers_after_in(
        def,
        old,
        new,
        sent,
        endpoint,
        fields,
        elsewhere,
        versions.as_ref(),
    )
}

/// [`managers_after`] for a write to one version of a kind whose versions differ in their
/// field paths: `elsewhere` holds what the write changed as seen in each other version that
/// an entry was recorded in (see [`fieldmanager::update_across_versions`]). `versions` are
/// the kind's (see [`crate::endpoints::manager_versions::of`]): the entries of a version it
/// has not are dropped, and when one of them cannot be converted to, the object is stored
/// without managedFields, as kube-apiserver 1.34 stores an update whose managers it fails to
/// update.
#[allow(clippy::too_many_arguments)]
pub fn managers_after_in(
    def: &ResourceDef,
    old: Option<&Value>,
    new: &Value,
    sent: Option<&Value>,
    endpoint: Endpoint,
    fields: Fields,
    elsewhere: &BTreeMap<String, Changes>,
    versions: &dyn Versions,
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
    // kinds, the spec and status structs, the structs in them that are no pointers, and the
    // zero values Go writes) exist there already.
    let empty = if def.custom.is_some() {
        json!({"metadata": {}})
    } else {
        let mut zero = json!({"apiVersion": def.api_version(), "kind": def.kind,
            "metadata": {}, "spec": {}, "status": {}});
        validation::omit_empty_collections(&mut zero);
        validation::write_zero_values(&mut zero);
        zero
    };
    // The field manager sees the objects as the request's version has them (an
    // events.k8s.io Event stored as a core one, an autoscaling/v1 autoscaler stored as v2).
    let served = |object: &Value| {
        let mut out = builtin::from_storage(def, object);
        out["apiVersion"] = json!(def.api_version());
        out
    };
    let (old_served, new_served);
    let (old, new) = if builtin::renames(def) {
        old_served = old.map(served);
        new_served = served(new);
        (old_served.as_ref(), &new_served)
    } else {
        (old, new)
    };
    // Subresource writes never take managedFields from the body.
    let base = match old {
        Some(old) if endpoint == Endpoint::Main => ManagedFields::for_update(sent, old),
        Some(old) => ManagedFields::of_object(old).unwrap_or_default(),
        None => ManagedFields::for_update(sent, &empty),
    };
    // An update of an object without managers does not start tracking them (the real
    // server's rule for objects written before field management, and after a reset with
    // `[]` or `[{}]`); a create always does, and so does the next apply.
    if old.is_some() && base.entries.is_empty() {
        return base;
    }
    let Ok(base) = fieldmanager::reconcile(base, versions) else {
        return ManagedFields::default();
    };
    let builtin_elsewhere;
    let elsewhere = match BuiltinVersions::of(def) {
        Some(versions) if elsewhere.is_empty() => {
            builtin_elsewhere = builtin_changes(def, &versions, &base, old.unwrap_or(&empty), new);
            &builtin_elsewhere
        }
        _ => elsewhere,
    };
    fieldmanager::update_across_versions(
        Types::of(def),
        Some(old.unwrap_or(&empty)),
        new,
        base,
        &owner,
        scope_of(def, endpoint),
        &meta::now(),
        elsewhere,
    )
}

/// What a write from `old` to `new` (both as `def` serves them) changed as seen in each other
/// version of a built-in kind that an entry of `managed` was recorded in: an autoscaling/v1
/// manager of a HorizontalPodAutoscaler written through autoscaling/v2 loses
/// `spec.targetCPUUtilizationPercentage` when the CPU metric changes.
fn builtin_changes(
    def: &ResourceDef,
    versions: &BuiltinVersions,
    managed: &ManagedFields,
    old: &Value,
    new: &Value,
) -> BTreeMap<String, Changes> {
    let here = def.api_version();
    let in_here = |object: &Value| {
        let mut out = object.clone();
        out["apiVersion"] = json!(here);
        out
    };
    let (old, new) = (in_here(old), in_here(new));
    let mut out = BTreeMap::new();
    for entry in &managed.entries {
        let version = &entry.owner.api_version;
        if *version == here || out.contains_key(version) {
            continue;
        }
        let Some(there) = versions.def(version) else {
            continue;
        };
        // Built-in conversions are made at once: never pending.
        let (Ok(before), Ok(after)) = (
            versions.convert(&old, version),
            versions.convert(&new, version),
        ) else {
            continue;
        };
        out.insert(
            version.clone(),
            Changes::between(Types::of(&there), Some(&before), &after),
        );
    }
    out
}
