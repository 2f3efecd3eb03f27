//! API errors as the real server sends them: `Status` objects with reason, code and details.

use serde_json::{Value, json};

use crate::support::resource::ResourceDef;

/// One `details.causes` entry of an `Invalid` status.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    /// Machine reason such as `FieldValueRequired`.
    pub reason: String,
    /// Human message for the field.
    pub message: String,
    /// The field path, for example `spec.replicas`.
    pub field: String,
}

/// An error response of the API server; serialises to a `Status` object.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status code.
    pub code: u16,
    /// `StatusReason` such as `NotFound` or `Conflict`.
    pub reason: &'static str,
    /// Human readable message, worded like kube-apiserver's.
    pub message: String,
    /// `details` object (name, group, kind, causes, ...), or null.
    pub details: Value,
    /// `Warning` headers the request earned before it failed (the real server sends them
    /// with the error).
    pub warnings: Vec<String>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.reason, self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

/// `details` of an error about one object: the group only when it is not the core group,
/// as the real server writes it.
fn details(def: &ResourceDef, name: &str) -> Value {
    let mut d = json!({"name": name, "kind": def.plural});
    if !def.group.is_empty() {
        d["group"] = json!(def.group);
    }
    d
}

impl ApiError {
    /// An error with any code, reason and message.
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: Value::Null,
            warnings: Vec::new(),
        }
    }

    /// 404 NotFound for one object.
    pub fn not_found(def: &ResourceDef, name: &str) -> Self {
        let mut e = Self::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", def.qualified()),
        );
        e.details = details(def, name);
        e
    }

    /// 404 NotFound for a path that names no resource.
    pub fn no_route(path: &str) -> Self {
        let mut e = Self::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        );
        e.details = json!({});
        let _ = path;
        e
    }

    /// 404 for a missing namespace (a create into it, or a get of it).
    pub fn namespace_not_found(ns: &str) -> Self {
        let mut e = Self::new(404, "NotFound", format!("namespaces \"{ns}\" not found"));
        e.details = json!({"name": ns, "kind": "namespaces"});
        e
    }

    /// 409 AlreadyExists.
    pub fn already_exists(def: &ResourceDef, name: &str) -> Self {
        let mut e = Self::new(
            409,
            "AlreadyExists",
            format!("{} \"{name}\" already exists", def.qualified()),
        );
        e.details = details(def, name);
        e
    }

    /// 409 Conflict for a stale resourceVersion (optimistic concurrency).
    pub fn conflict(def: &ResourceDef, name: &str) -> Self {
        Self::conflict_with(
            def,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 409 Conflict with a specific explanation (failed preconditions).
    pub fn conflict_with(def: &ResourceDef, name: &str, why: &str) -> Self {
        let mut e = Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": {why}",
                def.qualified()
            ),
        );
        e.details = details(def, name);
        e
    }

    /// 422 Invalid with field causes.
    pub fn invalid(def: &ResourceDef, name: &str, causes: Vec<Cause>) -> Self {
        // The message names each distinct error once (apimachinery's `ToAggregate`); the
        // causes keep every one.
        let mut summary: Vec<String> = Vec::new();
        for c in &causes {
            let line = if c.field.is_empty() {
                c.message.clone()
            } else {
                format!("{}: {}", c.field, c.message)
            };
            if !summary.contains(&line) {
                summary.push(line);
            }
        }
        let summary = if summary.len() == 1 {
            summary[0].clone()
        } else {
            format!("[{}]", summary.join(", "))
        };
        let mut e = Self::new(
            422,
            "Invalid",
            format!("{} \"{name}\" is invalid: {summary}", def.qualified_kind()),
        );
        e.details = json!({
            "name": name, "group": def.group, "kind": def.kind,
            "causes": causes.iter().map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field})).collect::<Vec<_>>(),
        });
        e
    }

    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    /// 403 Forbidden for one object.
    pub fn forbidden(def: &ResourceDef, name: &str, why: &str) -> Self {
        let mut e = Self::new(
            403,
            "Forbidden",
            format!("{} \"{name}\" is forbidden: {why}", def.qualified()),
        );
        e.details = details(def, name);
        e
    }

    /// 403 refusing new content in a namespace that is being deleted.
    pub fn namespace_terminating(def: &ResourceDef, name: &str, ns: &str) -> Self {
        let mut e = Self::forbidden(
            def,
            name,
            &format!(
                "unable to create new content in namespace {ns} because it is being terminated"
            ),
        );
        e.details["causes"] = json!([{
            "reason": "NamespaceTerminating",
            "message": format!("namespace {ns} is being terminated"),
            "field": "metadata.namespace",
        }]);
        e
    }

    /// 405 MethodNotAllowed.
    pub fn method_not_allowed(message: impl Into<String>) -> Self {
        let mut e = Self::new(405, "MethodNotAllowed", message);
        e.details = json!({});
        e
    }

    /// 410 Expired: a resourceVersion or continue token older than the retained history.
    pub fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    /// 415 UnsupportedMediaType: a patch type the resource does not take, in the words of
    /// the real server, which lists the patch types of a custom resource.
    pub fn unsupported_media_type() -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
        )
    }

    /// 504 Timeout for a resourceVersion the server has not reached yet.
    pub fn too_large_resource_version(requested: u64, current: u64) -> Self {
        let mut e = Self::new(
            504,
            "Timeout",
            format!("Timeout: Too large resource version: {requested}, current: {current}"),
        );
        e.details = json!({"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}], "retryAfterSeconds": 1});
        e
    }

    /// 500 InternalError.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, "InternalError", message)
    }

    /// A failure the real server answers with a bare code and no reason (the `Status` has
    /// no `reason` field), such as a 500 when an apply patch does not fit the schema.
    pub fn without_reason(code: u16, message: impl Into<String>) -> Self {
        Self::new(code, "", message)
    }

    /// The error sent with the warnings the request earned before it (`earlier`), then its
    /// own: the real server keeps a request's warnings whatever refuses it afterwards.
    #[must_use]
    pub fn after_warnings(mut self, earlier: &[String]) -> Self {
        let own = std::mem::take(&mut self.warnings);
        self.warnings = earlier.iter().cloned().chain(own).collect();
        self
    }

    /// The `Status` object for this error.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": self.message, "reason": self.reason, "code": self.code,
        });
        // Errors without a reason (a kubelet that cannot be reached) have none on the wire.
        if self.reason.is_empty()
            && let Some(map) = status.as_object_mut()
        {
            map.remove("reason");
        }
        if !self.details.is_null() {
            status["details"] = omit_empty(self.details.clone());
        }
        status
    }
}

/// A successful `Status` (deletions without a returned object).
pub fn success(def: &ResourceDef, name: &str, uid: &str) -> Value {
    json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": omit_empty(json!({"name": name, "group": def.group, "kind": def.plural, "uid": uid})),
    })
}

/// `details` without its empty fields: the real `StatusDetails` omits an empty name, group,
/// kind, uid and causes (the core group is no `"group": ""`).
fn omit_empty(mut details: Value) -> Value {
    if let Some(map) = details.as_object_mut() {
        map.retain(|_, v| match v {
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            _ => true,
        });
    }
    details
}
