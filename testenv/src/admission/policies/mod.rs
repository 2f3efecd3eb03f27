//! ValidatingAdmissionPolicy: every write a policy's `matchConstraints` and its binding's
//! `matchResources` cover is checked with the policy's CEL validations (for each params
//! object the binding's `paramRef` selects), and the binding's `validationActions` decide:
//! `Deny` refuses the write with the first failed validation's message, `Warn` answers with
//! one `Warning` per failed validation, `Audit` has nothing to write to here. A policy's
//! `authorizer` asks RBAC ([`rbac`]) about the requesting user, as the real server's does.

pub mod evaluate;
pub mod matching;
pub mod rbac;
pub mod rbac_covers;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::admission::webhooks::config::Operation;
use crate::registry::Registry;
use crate::registry::schema::cel_types::authz::{self, Attributes};
use crate::storage::Store;
use crate::support::query::Query;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;
use evaluate::{Inputs, Violation};
use matching::Request;

const POLICIES: &str = "admissionregistration.k8s.io/validatingadmissionpolicies";
const BINDINGS: &str = "admissionregistration.k8s.io/validatingadmissionpolicybindings";

/// A write as admission policies see it.
pub struct Write<'a> {
    /// The resource written.
    pub def: &'a ResourceDef,
    /// The subresource, if any.
    pub subresource: Option<&'a str>,
    /// The operation.
    pub operation: Operation,
    /// The object's namespace (empty for cluster-scoped objects).
    pub namespace: &'a str,
    /// The object's name.
    pub name: &'a str,
    /// The object as it would be stored (absent on delete).
    pub object: Option<&'a Value>,
    /// The stored object (absent on create).
    pub old: Option<&'a Value>,
}

fn gvr(def: &ResourceDef) -> (Value, Value) {
    (
        json!({"group": def.group, "version": def.version, "kind": def.kind}),
        json!({"group": def.group, "version": def.version, "resource": def.plural}),
    )
}

/// The `request` variable: the admission request's attributes.
fn request_json(w: &Write<'_>, query: &Query) -> Value {
    let (kind, resource) = gvr(w.def);
    let user = query
        .requester()
        .map(super::super::support::user::User::to_json)
        .unwrap_or(json!({}));
    json!({
        "kind": kind, "resource": resource, "subResource": w.subresource.unwrap_or_default(),
        "requestKind": kind, "requestResource": resource,
        "requestSubResource": w.subresource.unwrap_or_default(),
        "name": w.name, "namespace": w.namespace, "operation": w.operation.as_str(),
        "userInfo": user, "dryRun": query.dry_run(),
    })
}

/// The `authorizer` variables of a write: the requesting user (an empty user for the
/// server's own writes), RBAC over the roles and bindings stored now, and the written
/// resource as `requestResource`.
fn authorizer_variables(
    store: &Store,
    w: &Write<'_>,
    query: &Query,
) -> [(&'static str, cel::Value); 2] {
    let user = query.requester().cloned().unwrap_or_default();
    let request = Attributes {
        group: w.def.group.clone(),
        resource: w.def.plural.clone(),
        subresource: w.subresource.unwrap_or_default().to_string(),
        namespace: w.namespace.to_string(),
        name: w.name.to_string(),
        ..Attributes::default()
    };
    authz::variables(user, Arc::new(rbac::Snapshot::of(store)), &request)
}

/// The params objects a binding selects for `policy` (`Ok(vec![Null])` without params),
/// or the violation of a binding whose params are missing and must not be.
fn params(
    store: &Store,
    registry: &Registry,
    policy: &Value,
    binding: &Value,
    namespace: &str,
) -> Result<Vec<Value>, Option<Violation>> {
    let kind = &policy["spec"]["paramKind"];
    let reference = &binding["spec"]["paramRef"];
    if !kind.is_object() || !reference.is_object() {
        return Ok(vec![Value::Null]);
    }
    let api_version = kind["apiVersion"].as_str().unwrap_or_default();
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let Some(def) = registry
        .all()
        .find(|d| {
            d.group == group
                && d.version == version
                && Some(d.kind.as_str()) == kind["kind"].as_str()
        })
        .cloned()
    else {
        return Err(Some(Violation {
            message: format!(
                "failed to configure binding: paramKind {api_version}, Kind={} is not served",
                kind["kind"].as_str().unwrap_or_default()
            ),
            reason: "Invalid".into(),
        }));
    };
    let ns = match reference["namespace"].as_str().filter(|n| !n.is_empty()) {
        Some(n) => n.to_string(),
        None if def.namespaced => namespace.to_string(),
        None => String::new(),
    };
    let found: Vec<Value> = match reference["name"].as_str().filter(|n| !n.is_empty()) {
        Some(name) => store
            .get(&def.storage_key, &ns, name)
            .map(|o| vec![(*o).clone()])
            .unwrap_or_default(),
        None => {
            let selector = &reference["selector"];
            store
                .bucket(&def.storage_key)
                .into_iter()
                .flatten()
                .filter(|((o_ns, _), o)| {
                    *o_ns == ns
                        && crate::admission::webhooks::config::selector_matches(
                            selector,
                            &o["metadata"]["labels"],
                        )
                })
                .map(|(_, o)| (**o).clone())
                .collect()
        }
    };
    if !found.is_empty() {
        return Ok(found);
    }
    if reference["parameterNotFoundAction"] == "Allow" {
        return Err(None);
    }
    Err(Some(Violation {
        message: "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction".into(),
        reason: "Invalid".into(),
    }))
}

fn denial(w: &Write<'_>, policy: &str, binding: &str, v: &Violation) -> ApiError {
    let text = format!(
        "ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: {}",
        v.message
    );
    let (code, reason) = match v.reason.as_str() {
        "Forbidden" => (403, "Forbidden"),
        "Unauthorized" => (401, "Unauthorized"),
        "RequestEntityTooLarge" => (413, "RequestEntityTooLarge"),
        _ => (422, "Invalid"),
    };
    let mut e = ApiError::new(
        code,
        reason,
        format!("{} \"{}\" is forbidden: {text}", w.def.qualified(), w.name),
    );
    let mut details = json!({"name": w.name, "kind": w.def.plural, "causes": [{"message": text}]});
    if !w.def.group.is_empty() {
        details["group"] = json!(w.def.group);
    }
    e.details = details;
    e
}

/// Checks a write against every binding that covers it; the warnings of `Warn` bindings,
/// or the denial of the first `Deny` binding with a failed validation.
pub fn validate(
    store: &Store,
    registry: &Registry,
    w: &Write<'_>,
    query: &Query,
) -> Result<Vec<String>, ApiError> {
    let Some(bindings) = store.bucket(BINDINGS).filter(|b| !b.is_empty()) else {
        return Ok(Vec::new());
    };
    let namespace_object: Option<Arc<Value>> = (!w.namespace.is_empty())
        .then(|| store.get("/namespaces", "", w.namespace))
        .flatten();
    let is_namespace = w.def.group.is_empty() && w.def.plural == "namespaces";
    let namespace_labels = if is_namespace {
        Some(
            w.object
                .or(w.old)
                .map_or(Value::Null, |o| o["metadata"]["labels"].clone()),
        )
    } else {
        namespace_object
            .as_ref()
            .map(|n| n["metadata"]["labels"].clone())
    };
    let request = Request {
        def: w.def,
        subresource: w.subresource,
        operation: w.operation,
        name: w.name,
        object: w.object,
        old: w.old,
        namespace_labels: namespace_labels
            .as_ref()
            .or(if w.def.namespaced || is_namespace {
                Some(&Value::Null)
            } else {
                None
            }),
    };
    let mut warnings = Vec::new();
    let request_value = request_json(w, query);
    // Built once, and only for a write some matching policy's expressions could ask.
    let mut authorizer: Option<[(&'static str, cel::Value); 2]> = None;
    for binding in bindings.values() {
        let policy_name = binding["spec"]["policyName"].as_str().unwrap_or_default();
        let binding_name = binding["metadata"]["name"].as_str().unwrap_or_default();
        let Some(policy) = store.get(POLICIES, "", policy_name) else {
            continue;
        };
        if !matching::matches(&policy["spec"]["matchConstraints"], &request)
            || !matching::binding_matches(&binding["spec"]["matchResources"], &request)
        {
            continue;
        }
        let actions: Vec<&str> = binding["spec"]["validationActions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if authorizer.is_none() && policy["spec"].to_string().contains("authorizer") {
            authorizer = Some(authorizer_variables(store, w, query));
        }
        let violations: Vec<Violation> =
            match params(store, registry, &policy, binding, w.namespace) {
                Err(None) => continue,
                Err(Some(v)) => vec![v],
                Ok(all) => all
                    .iter()
                    .flat_map(|p| {
                        evaluate::evaluate(
                            &policy,
                            &Inputs {
                                object: w.object.unwrap_or(&Value::Null),
                                old_object: w.old.unwrap_or(&Value::Null),
                                request: &request_value,
                                params: p,
                                namespace_object: namespace_object
                                    .as_deref()
                                    .unwrap_or(&Value::Null),
                                authorizer: authorizer.as_ref().map(|a| &a[..]),
                            },
                        )
                    })
                    .collect(),
            };
        let Some(first) = violations.first() else {
            continue;
        };
        if actions.contains(&"Deny") {
            return Err(denial(w, policy_name, binding_name, first));
        }
        if actions.contains(&"Warn") {
            warnings.extend(violations.iter().map(|v| {
                format!(
                    "Validation failed for ValidatingAdmissionPolicy '{policy_name}' with binding '{binding_name}': {}",
                    v.message
                )
            }));
        }
    }
    Ok(warnings)
}
