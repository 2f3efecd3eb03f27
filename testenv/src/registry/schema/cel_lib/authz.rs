//! Kubernetes' authz library as admission policies and webhook match conditions evaluate it:
//! `authorizer` checks the requesting user's permissions (`serviceAccount(ns, name)` switches
//! to a service account), `path(..)` or `group(..).resource(..)` narrow the check, with
//! `subresource`, `namespace`, `name`, `fieldSelector` and `labelSelector`, and `check(verb)`
//! asks the server's authorizer, answering a `Decision` (`allowed()`, `reason()`,
//! `errored()`, `error()`). `authorizer.requestResource` is the check of the request's own
//! resource.
//!
//! The decision itself is made by whoever binds `authorizer` ([`Authorize`]): the library
//! only carries the subject and the attributes to it.

use std::fmt;
use std::sync::Arc;

use cel::common::types::STRING_TYPE;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, ExecutionError, Value};
use serde_json::Value as Json;

use super::overload::{fail, opaque_arg, opaque_type, str_arg, value_fn};
use crate::support::user::User;

const AUTHORIZER: &str = "kubernetes.authorization.Authorizer";
const PATH_CHECK: &str = "kubernetes.authorization.PathCheck";
const GROUP_CHECK: &str = "kubernetes.authorization.GroupCheck";
const RESOURCE_CHECK: &str = "kubernetes.authorization.ResourceCheck";
const DECISION: &str = "kubernetes.authorization.Decision";

/// What an authorization check asks, as an authorizer sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, ...
    pub verb: String,
    /// The namespace, empty for cluster-wide requests.
    pub namespace: String,
    /// The API group of a resource request (empty for the core group).
    pub group: String,
    /// The resource (plural), empty for a non-resource request.
    pub resource: String,
    /// The subresource, if any.
    pub subresource: String,
    /// The object's name, if the request names one.
    pub name: String,
    /// The path of a non-resource request (`/healthz`, `/metrics`).
    pub path: Option<String>,
}

impl Attributes {
    /// The attributes of a SubjectAccessReview spec (`resourceAttributes` or
    /// `nonResourceAttributes`).
    pub fn of_review(spec: &Json) -> Self {
        let s = |v: &Json| v.as_str().unwrap_or_default().to_string();
        if let Some(n) = spec.get("nonResourceAttributes").filter(|v| v.is_object()) {
            return Attributes {
                verb: s(&n["verb"]),
                path: Some(s(&n["path"])),
                ..Attributes::default()
            };
        }
        let r = &spec["resourceAttributes"];
        Attributes {
            verb: s(&r["verb"]),
            namespace: s(&r["namespace"]),
            group: s(&r["group"]),
            resource: s(&r["resource"]),
            subresource: s(&r["subresource"]),
            name: s(&r["name"]),
            path: None,
        }
    }
}

/// An authorizer's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    /// Whether the check is allowed.
    pub allowed: bool,
    /// Why (`RBAC: allowed by ...`; empty for most denials).
    pub reason: String,
    /// The error the authorizer met, if any.
    pub error: Option<String>,
}

/// The server's authorizer, as the authz library asks it.
pub trait Authorize: Send + Sync {
    /// Whether `user` may do what `attributes` describe.
    fn authorize(&self, user: &User, attributes: &Attributes) -> Decision;
}

/// `authorizer`: a subject and the authorizer that decides for it.
#[derive(Clone)]
struct Authorizer {
    user: Arc<User>,
    decider: Arc<dyn Authorize>,
}

impl fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Authorizer({})", self.user.username)
    }
}

impl PartialEq for Authorizer {
    fn eq(&self, other: &Self) -> bool {
        self.user == other.user && Arc::ptr_eq(&self.decider, &other.decider)
    }
}

impl Eq for Authorizer {}

impl Opaque for Authorizer {
    fn runtime_type_name(&self) -> &str {
        AUTHORIZER
    }
}

/// A `PathCheck`, a `GroupCheck` or a `ResourceCheck`: the subject and what is checked so
/// far (the check's type name tells which).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Check {
    type_name: &'static str,
    authorizer: Authorizer,
    path: String,
    group: String,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
    field_selector: String,
    label_selector: String,
}

impl Opaque for Check {
    fn runtime_type_name(&self) -> &str {
        self.type_name
    }
}

impl Check {
    fn new(type_name: &'static str, authorizer: &Authorizer) -> Self {
        Check {
            type_name,
            authorizer: authorizer.clone(),
            path: String::new(),
            group: String::new(),
            resource: String::new(),
            subresource: String::new(),
            namespace: String::new(),
            name: String::new(),
            field_selector: String::new(),
            label_selector: String::new(),
        }
    }

    fn decide(&self, verb: &str) -> Decision {
        let attributes = if self.type_name == PATH_CHECK {
            Attributes {
                verb: verb.into(),
                path: Some(self.path.clone()),
                ..Attributes::default()
            }
        } else {
            Attributes {
                verb: verb.into(),
                namespace: self.namespace.clone(),
                group: self.group.clone(),
                resource: self.resource.clone(),
                subresource: self.subresource.clone(),
                name: self.name.clone(),
                path: None,
            }
        };
        self.authorizer
            .decider
            .authorize(&self.authorizer.user, &attributes)
    }
}

impl Opaque for Decision {
    fn runtime_type_name(&self) -> &str {
        DECISION
    }
}

/// The `authorizer` and `authorizer.requestResource` variables for `user`: the check of
/// the request's own resource is `group(resource.group).resource(resource.resource)` with
/// the request's subresource, namespace and name.
pub fn variables(
    user: User,
    decider: Arc<dyn Authorize>,
    request: &Attributes,
) -> [(&'static str, Value); 2] {
    let authorizer = Authorizer {
        user: Arc::new(user),
        decider,
    };
    let mut resource = Check::new(RESOURCE_CHECK, &authorizer);
    resource.group = request.group.clone();
    resource.resource = request.resource.clone();
    resource.subresource = request.subresource.clone();
    resource.namespace = request.namespace.clone();
    resource.name = request.name.clone();
    [
        ("authorizer", Value::Opaque(Arc::new(authorizer))),
        (
            "authorizer.requestResource",
            Value::Opaque(Arc::new(resource)),
        ),
    ]
}

/// The user a service account's credentials authenticate as, as the library builds it
/// (no `system:authenticated`: the library names the account, it does not log it in).
fn service_account_user(namespace: &str, name: &str) -> User {
    User {
        username: format!("system:serviceaccount:{namespace}:{name}"),
        groups: vec![
            "system:serviceaccounts".into(),
            format!("system:serviceaccounts:{namespace}"),
        ],
        ..User::default()
    }
}

fn check_arg(a: &[Value], type_name: &str) -> Result<Check, ExecutionError> {
    let check = opaque_arg::<Check>(a, 0)?;
    if check.type_name != type_name {
        return Err(ExecutionError::UnexpectedType {
            got: check.type_name.into(),
            want: type_name.into(),
        });
    }
    Ok(check.clone())
}

fn check_value(check: Check) -> Value {
    Value::Opaque(Arc::new(check))
}

/// Declares the library's functions on `env` (called once, when the environment is built).
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    let t = opaque_type;
    let s = || vec![STRING_TYPE];
    env.add_member_overload("path", "authorizer_path", t(AUTHORIZER), s(), to_path)?;
    env.add_member_overload("group", "authorizer_group", t(AUTHORIZER), s(), to_group)?;
    env.add_member_overload(
        "serviceAccount",
        "authorizer_serviceaccount",
        t(AUTHORIZER),
        vec![STRING_TYPE, STRING_TYPE],
        service_account,
    )?;
    env.add_member_overload(
        "resource",
        "groupcheck_resource",
        t(GROUP_CHECK),
        s(),
        to_resource,
    )?;
    for (name, f) in [
        (
            "subresource",
            subresource as cel::common::functions::Function,
        ),
        ("namespace", namespace),
        ("name", name),
        ("fieldSelector", field_selector),
        ("labelSelector", label_selector),
    ] {
        let id = format!("resourcecheck_{}", name.to_lowercase());
        env.add_member_overload(name, &id, t(RESOURCE_CHECK), s(), f)?;
    }
    env.add_member_overload("check", "pathcheck_check", t(PATH_CHECK), s(), check)?;
    env.add_member_overload(
        "check",
        "resourcecheck_check",
        t(RESOURCE_CHECK),
        s(),
        check,
    )?;
    for (name, f) in [
        ("allowed", allowed as cel::common::functions::Function),
        ("reason", reason),
        ("errored", errored),
        ("error", error),
    ] {
        let id = format!("decision_{name}");
        env.add_member_overload(name, &id, t(DECISION), vec![], f)?;
    }
    Ok(())
}

value_fn!(to_path, |a| {
    let path = str_arg(a, 1)?;
    if path.trim().is_empty() {
        return Err(fail("path", "path must not be empty"));
    }
    let mut check = Check::new(PATH_CHECK, opaque_arg::<Authorizer>(a, 0)?);
    check.path = path.to_string();
    Ok(check_value(check))
});
value_fn!(to_group, |a| {
    let mut check = Check::new(GROUP_CHECK, opaque_arg::<Authorizer>(a, 0)?);
    check.group = str_arg(a, 1)?.to_string();
    Ok(check_value(check))
});
value_fn!(service_account, |a| {
    let authorizer = opaque_arg::<Authorizer>(a, 0)?;
    let (namespace, name) = (str_arg(a, 1)?, str_arg(a, 2)?);
    if !crate::support::meta::dns1123_subdomain(name).is_empty() {
        return Err(fail("serviceAccount", "Invalid service account name"));
    }
    if !crate::support::meta::dns1123_label(namespace).is_empty() {
        return Err(fail("serviceAccount", "Invalid service account namespace"));
    }
    Ok(Value::Opaque(Arc::new(Authorizer {
        user: Arc::new(service_account_user(namespace, name)),
        decider: authorizer.decider.clone(),
    })))
});
value_fn!(to_resource, |a| {
    let resource = str_arg(a, 1)?;
    if resource.trim().is_empty() {
        return Err(fail("resource", "resource must not be empty"));
    }
    let mut check = check_arg(a, GROUP_CHECK)?;
    check.type_name = RESOURCE_CHECK;
    check.resource = resource.to_string();
    Ok(check_value(check))
});
value_fn!(subresource, |a| {
    let mut check = check_arg(a, RESOURCE_CHECK)?;
    check.subresource = str_arg(a, 1)?.to_string();
    Ok(check_value(check))
});
value_fn!(namespace, |a| {
    let mut check = check_arg(a, RESOURCE_CHECK)?;
    check.namespace = str_arg(a, 1)?.to_string();
    Ok(check_value(check))
});
value_fn!(name, |a| {
    let mut check = check_arg(a, RESOURCE_CHECK)?;
    check.name = str_arg(a, 1)?.to_string();
    Ok(check_value(check))
});
value_fn!(field_selector, |a| {
    let mut check = check_arg(a, RESOURCE_CHECK)?;
    check.field_selector = str_arg(a, 1)?.to_string();
    Ok(check_value(check))
});
value_fn!(label_selector, |a| {
    let mut check = check_arg(a, RESOURCE_CHECK)?;
    check.label_selector = str_arg(a, 1)?.to_string();
    Ok(check_value(check))
});
value_fn!(check, |a| {
    let verb = str_arg(a, 1)?;
    let decision = opaque_arg::<Check>(a, 0)?.decide(verb);
    Ok(Value::Opaque(Arc::new(decision)))
});
value_fn!(allowed, |a| Ok(Value::Bool(
    opaque_arg::<Decision>(a, 0)?.allowed
)));
value_fn!(reason, |a| Ok(Value::String(Arc::new(
    opaque_arg::<Decision>(a, 0)?.reason.clone()
))));
value_fn!(errored, |a| Ok(Value::Bool(
    opaque_arg::<Decision>(a, 0)?.error.is_some()
)));
value_fn!(error, |a| Ok(Value::String(Arc::new(
    opaque_arg::<Decision>(a, 0)?
        .error
        .clone()
        .unwrap_or_default()
))));
