//! The REST layer: turns a parsed HTTP request into a store operation with the real
//! apiserver's semantics, and the result into a JSON reply or a watch stream.

pub mod admission;
pub mod allocate;
pub mod apply;
pub mod convert;
pub mod delete;
pub mod meta;
pub mod patching;
pub mod query;
pub mod read;
pub mod review;
pub mod route;
pub mod scale;
pub mod table;
pub mod watch;
pub mod write;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use http::Method;
use serde_json::Value;

use crate::registry::Registry;
use crate::status::ApiError;
use crate::store::Store;
pub use query::Query;
pub use review::Policy;
use route::{Route, Target};

/// Everything the server keeps: objects and the resources it serves.
pub struct Cluster {
    /// Objects, resourceVersions and history.
    pub store: Store,
    /// Served resources (built-ins plus established CRDs).
    pub registry: Registry,
    /// Server-side apply: what each field manager applied last.
    pub applied: apply::AppliedConfigs,
}

/// Tunables of the API server.
#[derive(Clone)]
pub struct ApiOptions {
    /// How TokenReview and SubjectAccessReview are answered.
    pub policy: Policy,
    /// Interval between watch bookmarks when clients ask for them.
    pub bookmark_interval: Duration,
    /// How many events the watch history keeps before older resourceVersions expire.
    pub history_limit: usize,
    /// Webhook service routes registered before start: (namespace, name, address).
    pub service_routes: Vec<(String, String, SocketAddr)>,
}

impl Default for ApiOptions {
    fn default() -> Self {
        ApiOptions {
            policy: Policy::default(),
            bookmark_interval: Duration::from_secs(60),
            history_limit: 10_000,
            service_routes: Vec::new(),
        }
    }
}

/// The shared state of one API server.
pub struct Api {
    cluster: Mutex<Cluster>,
    /// The server's tunables.
    pub options: ApiOptions,
    /// Where webhook service references lead: (namespace, name) → address.
    service_routes: Mutex<HashMap<(String, String), SocketAddr>>,
}

impl Api {
    /// A fresh cluster with the bootstrap namespaces (`default`, `kube-system`,
    /// `kube-public`, `kube-node-lease`).
    pub fn new(options: ApiOptions) -> Arc<Self> {
        let mut cluster = Cluster {
            store: Store::new(options.history_limit),
            registry: Registry::with_builtins(),
            applied: apply::AppliedConfigs::default(),
        };
        write::bootstrap(&mut cluster);
        cluster.store.compact();
        let routes = options
            .service_routes
            .iter()
            .map(|(ns, name, to)| ((ns.clone(), name.clone()), *to))
            .collect();
        Arc::new(Api {
            cluster: Mutex::new(cluster),
            options,
            service_routes: Mutex::new(routes),
        })
    }

    /// Locks the cluster for one whole operation.
    pub fn lock(&self) -> MutexGuard<'_, Cluster> {
        // A panic while holding the lock cannot leave the store half-written in a way that
        // matters more than failing every later request, so recover the guard.
        self.cluster.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Makes webhook calls to the service `namespace/name` (any port) connect to `to`: the
    /// embedded server has no cluster network to resolve services through.
    pub fn route_service(&self, namespace: &str, name: &str, to: SocketAddr) {
        self.service_routes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert((namespace.to_string(), name.to_string()), to);
    }

    /// The address registered for the service `namespace/name`, if any.
    pub fn service_route(&self, namespace: &str, name: &str) -> Option<SocketAddr> {
        self.service_routes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(namespace.to_string(), name.to_string()))
            .copied()
    }
}

/// One HTTP request, already read.
#[derive(Debug, Clone)]
pub struct Req {
    /// HTTP method.
    pub method: Method,
    /// Path without query.
    pub path: String,
    /// Decoded query parameters.
    pub query: Query,
    /// The `Accept` header.
    pub accept: String,
    /// The `Content-Type` header.
    pub content_type: String,
    /// The request body.
    pub body: Bytes,
}

/// What to send back.
pub enum Reply {
    /// A JSON document with a status code, content type and `Warning` headers.
    Json {
        /// HTTP status.
        code: u16,
        /// The document.
        body: Value,
        /// The `Content-Type` to send.
        content_type: String,
        /// Messages for `Warning: 299 - "..."` headers.
        warnings: Vec<String>,
    },
    /// A watch: newline-delimited JSON events.
    Watch(watch::WatchStream),
}

impl Reply {
    /// A JSON reply with `application/json`.
    pub fn json(code: u16, body: Value) -> Self {
        Reply::Json {
            code,
            body,
            content_type: "application/json".into(),
            warnings: Vec::new(),
        }
    }

    /// An error reply (a `Status` object).
    pub fn error(e: ApiError) -> Self {
        Reply::json(e.code, e.to_status())
    }
}

impl From<Result<Reply, ApiError>> for Reply {
    fn from(r: Result<Reply, ApiError>) -> Self {
        r.unwrap_or_else(Reply::error)
    }
}

/// Answers one request.
pub async fn handle(api: &Arc<Api>, req: Req) -> Reply {
    let route = {
        let cluster = api.lock();
        route::parse(&req.path, &cluster.registry)
    };
    match route {
        Err(_) => Reply::error(ApiError::no_route(&req.path)),
        Ok(Route::Object(target)) => crate::conversion::serve(api, &req, target).await.into(),
        Ok(other) => crate::discovery::serve(api, &req, other),
    }
}

/// Answers a request to an object, a collection or a subresource, as stored (no conversion).
pub(crate) async fn handle_object(
    api: &Arc<Api>,
    req: &Req,
    target: Target,
) -> Result<Reply, ApiError> {
    let sub = target.subresource.as_deref();
    if let Some(s) = sub {
        let known = match s {
            "status" => target.def.status_subresource,
            "scale" => target.def.scale.is_some(),
            "finalize" => target.def.plural == "namespaces" && target.def.group.is_empty(),
            _ => false,
        };
        if !known {
            return Err(ApiError::no_route(&req.path));
        }
    }
    if target.def.create_only {
        return if req.method == Method::POST && target.name.is_none() {
            review::create(api, req, &target)
        } else {
            Err(ApiError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({})",
                target.def.qualified()
            )))
        };
    }
    if let Some(plan) = crate::webhooks::admission::plan(api, req, &target) {
        return crate::webhooks::admission::run(api, req, &target, plan, dispatch).await;
    }
    dispatch(api, req, &target)
}

/// Runs the handler of a request on an object or collection (no admission webhooks).
pub fn dispatch(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let target = target.clone();
    let sub = target.subresource.as_deref();
    let watching = req.query.flag("watch") || target.legacy_watch;
    match (&req.method, target.name.as_deref(), sub) {
        (&Method::GET, None, _) if watching => watch::start(api, req, &target),
        (&Method::GET, None, _) => read::list(api, req, &target),
        (&Method::GET, Some(_), Some("scale")) => scale::get(api, req, &target),
        (&Method::GET, Some(_), _) => read::get(api, req, &target),
        (&Method::POST, None, None) => write::create(api, req, &target),
        (&Method::PUT, Some(_), Some("scale")) => scale::update(api, req, &target),
        (&Method::PUT, Some(_), _) => write::update(api, req, &target),
        (&Method::PATCH, Some(_), Some("scale")) => scale::patch(api, req, &target),
        (&Method::PATCH, Some(_), _) => patching::patch(api, req, &target),
        (&Method::DELETE, Some(_), None) => delete::delete(api, req, &target),
        (&Method::DELETE, None, None) => delete::delete_collection(api, req, &target),
        _ => Err(ApiError::method_not_allowed(format!(
            "the server does not allow this method on the requested resource ({})",
            target.def.qualified()
        ))),
    }
}

/// Parses a JSON request body, with the real server's message on failure.
pub fn json_body(req: &Req) -> Result<Value, ApiError> {
    if req.content_type.contains("protobuf") || req.content_type.contains("cbor") {
        // JSON and YAML are understood, plus the protobuf bodies of kubectl's typed commands.
        let why = match crate::protobuf::decode(&req.body) {
            Ok(object) => return Ok(object),
            Err(why) => why,
        };
        let mut e = ApiError::unsupported_media_type(&req.content_type);
        e.message = format!(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml ({} body: {why})",
            req.content_type
        );
        return Err(e);
    }
    if req.content_type.contains("yaml") {
        let text =
            std::str::from_utf8(&req.body).map_err(|e| ApiError::bad_request(e.to_string()))?;
        return serde_saphyr::from_str::<Value>(text)
            .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")));
    }
    serde_json::from_slice(&req.body).map_err(|e| {
        ApiError::bad_request(format!(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml ({e})"
        ))
    })
}
