//! AdmissionReview v1: the request sent to a webhook and the reading of its response.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::config::Operation;
use crate::registry::schema::cel_types::authz::{self, Authorize};
use crate::support::resource::ResourceDef;
use crate::support::user::User;

/// What is being admitted, in the version the client addressed.
#[derive(Debug, Clone)]
pub struct Attributes {
    /// CREATE, UPDATE, DELETE or CONNECT.
    pub operation: Operation,
    /// The addressed resource.
    pub def: Arc<ResourceDef>,
    /// `status`, `scale`, ... when a subresource is addressed.
    pub subresource: Option<String>,
    /// The namespace (empty for cluster-scoped objects).
    pub namespace: String,
    /// The object's name (empty for a create with generateName).
    pub name: String,
    /// The new object (None for DELETE; the options object for CONNECT).
    pub object: Option<Value>,
    /// The stored object (UPDATE and DELETE).
    pub old_object: Option<Value>,
    /// Whether the request is a dry run.
    pub dry_run: bool,
    /// CreateOptions, UpdateOptions or DeleteOptions of the request (null for CONNECT).
    pub options: Value,
    /// Who makes the request (the review's `userInfo`).
    pub user: User,
    /// The authorizer the match conditions' `authorizer` asks (RBAC as stored when the
    /// request came); None where no condition may ask it.
    pub authorizer: Option<Decider>,
}

/// The server's authorizer, as a request's admission carries it.
#[derive(Clone)]
pub struct Decider(pub Arc<dyn Authorize>);

impl fmt::Debug for Decider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Decider")
    }
}

impl Attributes {
    /// The `authorizer` and `authorizer.requestResource` variables of the match conditions:
    /// the requesting user, and the addressed resource as the request's own check.
    pub fn authorizer_variables(&self) -> Option<[(&'static str, cel::Value); 2]> {
        let decider = self.authorizer.as_ref()?;
        let request = authz::Attributes {
            group: self.def.group.clone(),
            resource: self.def.plural.clone(),
            subresource: self.subresource.clone().unwrap_or_default(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            ..authz::Attributes::default()
        };
        Some(authz::variables(
            self.user.clone(),
            decider.0.clone(),
            &request,
        ))
    }
}

/// The kind of the options object a CONNECT to `subresource` of `def` carries
/// (`PodExecOptions`, `ServiceProxyOptions`, ...), if it is a connect subresource.
pub fn connect_options_kind(def: &ResourceDef, subresource: &str) -> Option<String> {
    if !def.group.is_empty() || def.version != "v1" {
        return None;
    }
    match (def.plural.as_str(), subresource) {
        ("pods", "exec") => Some("PodExecOptions".into()),
        ("pods", "attach") => Some("PodAttachOptions".into()),
        ("pods", "portforward") => Some("PodPortForwardOptions".into()),
        ("pods" | "services" | "nodes", "proxy") => Some(format!("{}ProxyOptions", def.kind)),
        _ => None,
    }
}

fn kind_of(def: &ResourceDef, subresource: Option<&str>) -> Value {
    if subresource == Some("scale") {
        json!({"group": "autoscaling", "version": "v1", "kind": "Scale"})
    } else if let Some(kind) = subresource.and_then(|s| connect_options_kind(def, s)) {
        json!({"group": def.group, "version": def.version, "kind": kind})
    } else {
        json!({"group": def.group, "version": def.version, "kind": def.kind})
    }
}

fn resource_of(def: &ResourceDef) -> Value {
    json!({"group": def.group, "version": def.version, "resource": def.plural})
}

/// `object` as seen in version `def` (custom resources share one schema across versions
/// with `None` conversion, so only `apiVersion` changes; a Scale stays as it is).
pub fn in_version(object: &Value, def: &ResourceDef, subresource: Option<&str>) -> Value {
    let mut out = object.clone();
    if subresource != Some("scale") && out.is_object() {
        out["apiVersion"] = Value::String(def.api_version());
    }
    out
}

/// The AdmissionReview sent to a webhook matched through version `as_def` (the request's
/// own version unless matchPolicy Equivalent picked another one).
pub fn request(attrs: &Attributes, as_def: &ResourceDef, uid: &str) -> Value {
    let sub = attrs.subresource.as_deref();
    // Built member by member: `json!` with a `Value` inside re-serializes it, and the objects
    // are the bulk of a review.
    let object = |o: &Option<Value>| {
        o.as_ref()
            .map_or(Value::Null, |o| in_version(o, as_def, sub))
    };
    let mut request = Map::new();
    request.insert("uid".into(), uid.into());
    request.insert("kind".into(), kind_of(as_def, sub));
    request.insert("resource".into(), resource_of(as_def));
    request.insert("requestKind".into(), kind_of(&attrs.def, sub));
    request.insert("requestResource".into(), resource_of(&attrs.def));
    request.insert("operation".into(), attrs.operation.as_str().into());
    request.insert("userInfo".into(), attrs.user.to_json());
    request.insert("object".into(), object(&attrs.object));
    request.insert("oldObject".into(), object(&attrs.old_object));
    request.insert("dryRun".into(), attrs.dry_run.into());
    request.insert("options".into(), attrs.options.clone());
    if let Some(sub) = sub {
        request.insert("subResource".into(), sub.into());
        request.insert("requestSubResource".into(), sub.into());
    }
    // Both are omitted when empty, as in the real AdmissionRequest (a create with
    // generateName has no name yet when mutating webhooks see it).
    if !attrs.name.is_empty() {
        request.insert("name".into(), attrs.name.as_str().into());
    }
    if !attrs.namespace.is_empty() {
        request.insert("namespace".into(), attrs.namespace.as_str().into());
    }
    let mut review = Map::new();
    review.insert("apiVersion".into(), "admission.k8s.io/v1".into());
    review.insert("kind".into(), "AdmissionReview".into());
    review.insert("request".into(), Value::Object(request));
    Value::Object(review)
}

/// The `request` variable of a webhook's matchConditions: the review's request with every
/// field present (`request.name` is `""` before a name is generated, as in the real
/// server's CEL view of the request).
pub fn condition_request(attrs: &Attributes, as_def: &ResourceDef) -> Value {
    let mut request = self::request(attrs, as_def, "")["request"].take();
    if request.get("name").is_none() {
        request["name"] = json!("");
    }
    request
}

/// A webhook's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// `response.allowed`
    pub allowed: bool,
    /// The decoded JSONPatch of `response.patch`, if any.
    pub patch: Option<Value>,
    /// `response.warnings`
    pub warnings: Vec<String>,
    /// `response.status` (code, reason, message, details of a denial).
    pub status: Value,
}

/// Reads a webhook's AdmissionReview answer to the request `uid`; `Err` says why the
/// response is invalid (the real server's "received invalid webhook response" cases).
pub fn read_response(review: &Value, uid: &str) -> Result<Verdict, String> {
    let (api_version, kind) = (
        review["apiVersion"].as_str().unwrap_or_default(),
        review["kind"].as_str().unwrap_or_default(),
    );
    if api_version != "admission.k8s.io/v1" || kind != "AdmissionReview" {
        return Err(format!(
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {api_version}, Kind={kind}"
        ));
    }
    let Some(response) = review.get("response").filter(|r| r.is_object()) else {
        return Err("response was absent".into());
    };
    let got = response["uid"].as_str().unwrap_or_default();
    if got != uid {
        return Err(format!("expected response.uid={uid:?}, got {got:?}"));
    }
    let patch = match (response.get("patch"), response["patchType"].as_str()) {
        (None | Some(Value::Null), _) => None,
        (Some(_), None) => {
            return Err("webhook returned response.patch but not response.patchType".into());
        }
        (Some(encoded), Some("JSONPatch")) => {
            let bytes: k8s_openapi::ByteString = serde_json::from_value(encoded.clone())
                .map_err(|e| format!("response.patch is not base64: {e}"))?;
            let ops: Value = serde_json::from_slice(&bytes.0)
                .map_err(|e| format!("response.patch is not a JSON patch: {e}"))?;
            Some(ops)
        }
        (Some(_), Some(other)) => {
            return Err(format!(
                "webhook returned invalid response.patchType of {other:?}"
            ));
        }
    };
    Ok(Verdict {
        allowed: response["allowed"].as_bool().unwrap_or(false),
        patch,
        warnings: strings(&response["warnings"]),
        status: response["status"].clone(),
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;

    #[test]
    fn builds_the_request() {
        let reg = Registry::with_builtins();
        let deploy = reg.get("apps", "v1", "deployments").unwrap();
        let attrs = Attributes {
            operation: Operation::Update,
            def: deploy.clone(),
            subresource: Some("scale".into()),
            namespace: "ns".into(),
            name: "d".into(),
            object: Some(json!({"kind": "Scale"})),
            old_object: Some(json!({"kind": "Scale"})),
            user: User::admin(),
            authorizer: None,
            dry_run: true,
            options: json!({"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1"}),
        };
        let r = request(&attrs, &deploy, "u1");
        let q = &r["request"];
        assert_eq!(
            q["kind"],
            json!({"group": "autoscaling", "version": "v1", "kind": "Scale"})
        );
        assert_eq!(q["resource"]["resource"], "deployments");
        assert_eq!(q["subResource"], "scale");
        assert_eq!(q["requestSubResource"], "scale");
        assert_eq!(q["operation"], "UPDATE");
        assert_eq!(q["namespace"], "ns");
        assert_eq!(q["dryRun"], true);
        assert_eq!(q["uid"], "u1");
    }

    #[test]
    fn reads_responses() {
        let ok = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "response": {"uid": "u", "allowed": true, "patchType": "JSONPatch",
                // [{"op":"add","path":"/a","value":1}]
                "patch": "W3sib3AiOiJhZGQiLCJwYXRoIjoiL2EiLCJ2YWx1ZSI6MX1d",
                "warnings": ["w"]}});
        let v = read_response(&ok, "u").unwrap();
        assert!(v.allowed);
        assert_eq!(
            v.patch,
            Some(json!([{"op": "add", "path": "/a", "value": 1}]))
        );
        assert_eq!(v.warnings, vec!["w".to_string()]);
        assert!(
            read_response(&ok, "other")
                .unwrap_err()
                .contains("expected response.uid")
        );
        let bad = json!({"apiVersion": "v1", "kind": "Status"});
        assert!(
            read_response(&bad, "u")
                .unwrap_err()
                .contains("AdmissionReview")
        );
        let no_type = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "response": {"uid": "u", "allowed": true, "patch": "W10="}});
        assert!(
            read_response(&no_type, "u")
                .unwrap_err()
                .contains("patchType")
        );
    }
}
