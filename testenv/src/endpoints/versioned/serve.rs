//! Which path a request to a custom kind takes: the plain handlers when no conversion is
//! involved, otherwise the conversion-aware handler of its verb.

use std::sync::Arc;

use futures::future::BoxFuture;
use http::Method;
use serde_json::Value;

use super::raw_texts::RawWrite;
use super::webhook::WebhookConverter;
use super::{patch, reads, watch, writes};
use crate::admission::webhooks::chain;
use crate::admission::webhooks::dispatch::Convert;
use crate::admission::webhooks::review::Decider;
use crate::endpoints::body_type::{BodyType, body_type};
use crate::endpoints::dispatch::{Handlers, handle_object};
use crate::endpoints::state::{Api, Cluster};
use crate::endpoints::subresource::ns_of;
use crate::registry::{conversion, validation};
use crate::storage::conversion::Codec;
use crate::support::fieldmanager::ManagedFields;
use crate::support::go_decode::{self, Decoding, Node};
use crate::support::request::{Reply, Req, Target, is_json};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;
use crate::support::webhook_client::Transport;
use crate::support::{go_merge, go_types};

/// Answers a request to an object, a collection or a subresource: directly when no
/// conversion is involved, otherwise through the CRD's conversion webhook.
pub async fn serve(api: &Arc<Api>, req: &Req, target: Target) -> Result<Reply, ApiError> {
    let raw = RawWrite::of(req, &target);
    let decoded = with_decoding(req, &target, raw.as_ref());
    let req = decoded.as_ref().unwrap_or(req);
    if target.def.custom.is_none() {
        let reply = handle_object(api, req, target).await;
        if let (Some(raw), Ok(reply)) = (&raw, &reply) {
            raw.written(reply);
        }
        return reply;
    }
    let plan = {
        let cluster = api.lock();
        conversion::lookup_any_version(&cluster.store, &cluster.registry, &target.def).filter(
            |plan| {
                plan.storage.version != target.def.version
                    || conversion::stored_in_other_versions(&cluster.store, &target.def)
                    || storage_write_across_versions(&cluster, req, &target)
            },
        )
    };
    let Some(plan) = plan else {
        return handle_object(api, req, target).await;
    };
    let converter = WebhookConverter::new(api.clone(), plan.client_config.clone());
    let conv = Arc::new(Codec::new(plan, Box::new(converter)));
    let webhooks = if chain::may_apply(req, &target) && !req.query.has_run_webhooks() {
        let cluster = api.lock();
        chain::plan(&cluster.store, &cluster.registry, req, &target)
    } else {
        None
    };
    match webhooks {
        Some(webhooks) => {
            let backend = Converting { api, conv: &conv };
            chain::run(&backend, req, &target, webhooks).await
        }
        None => serve_converted(api, req, target, &conv).await,
    }
}

/// The conversion-aware handlers as the admission webhook chain sees them: the webhooks are
/// called with the object in the version the request addressed (as kube-apiserver admits a
/// custom resource before its storage converts it), and each step of the chain is served in
/// that version, converted to and from the storage version.
struct Converting<'a> {
    api: &'a Arc<Api>,
    conv: &'a Arc<Codec>,
}

impl chain::Backend for Converting<'_> {
    fn handle<'a>(
        &'a self,
        req: &'a Req,
        target: &'a Target,
    ) -> BoxFuture<'a, Result<Reply, ApiError>> {
        Box::pin(async move {
            let mut req = req.clone();
            req.query = req.query.webhooks_done();
            serve_converted(self.api, &req, target.clone(), self.conv).await
        })
    }

    fn namespace(&self, name: &str) -> Option<Arc<Value>> {
        Handlers(self.api).namespace(name)
    }

    fn transport(&self) -> &Transport {
        self.api.transport()
    }

    fn authorizer(&self) -> Decider {
        Handlers(self.api).authorizer()
    }

    fn versions(&self) -> &dyn Convert {
        self
    }
}

/// A webhook matched through another version of the kind sees the objects converted to
/// it by the CRD's webhook, and its patched object is converted back.
impl Convert for Converting<'_> {
    fn convert<'a>(
        &'a self,
        object: &'a Value,
        to: &'a ResourceDef,
        subresource: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Value, ApiError>> {
        Box::pin(async move {
            if subresource == Some("scale") {
                return Ok(object.clone());
            }
            self.conv
                .to_version(object.clone(), &to.api_version())
                .await
        })
    }
}

/// Whether a request to the storage version of a kind converted by webhook is a write (PUT,
/// PATCH) to an object with managers recorded in another version: it is then served like a
/// request to another version, so that the field manager compares their fields in their
/// version (converted by the webhook, outside the store lock). Other requests to the
/// storage version never convert.
fn storage_write_across_versions(cluster: &Cluster, req: &Req, target: &Target) -> bool {
    let writes = matches!(req.method, Method::PUT | Method::PATCH)
        && matches!(target.subresource.as_deref(), None | Some("status"));
    let Some(name) = target.name.as_deref().filter(|_| writes) else {
        return false;
    };
    let Some(existing) = cluster
        .store
        .get(&target.def.storage_key, ns_of(target), name)
    else {
        return false;
    };
    let here = target.def.api_version();
    ManagedFields::of_object(&existing)
        .is_ok_and(|m| m.entries.iter().any(|e| e.owner.api_version != here))
}

/// The request with what Go's decoder finds in a created or replaced object's JSON body and
/// the parsed value no longer shows (duplicate fields; for a built-in kind, the first value
/// of the wrong type), recorded in its query for admission; `None` when there is nothing.
fn with_decoding(req: &Req, target: &Target, raw: Option<&RawWrite>) -> Option<Req> {
    let writes_object = matches!(req.method, Method::POST | Method::PUT)
        && matches!(target.subresource.as_deref(), None | Some("status"));
    if !writes_object || req.body.is_empty() || !is_json(req) {
        return None;
    }
    let node = go_decode::parse(&req.body)?;
    let def = &target.def;
    let decoding = match body_type_of(def, &node) {
        BodyType::Own => own_decoding(def, &node, raw),
        BodyType::Refused => return None,
        BodyType::Other {
            group,
            version,
            kind,
            go_type,
        } => {
            // Decoded as the body's own type, then refused by the apiVersion check: the
            // decoder's errors are those of its type's fields.
            let (type_error, strict) = if version == "__internal" {
                validation::internal_decoding(&def.group, &def.version, &def.kind, &go_type, &node)
            } else {
                let error = validation::decode_error(&group, &version, &kind, &node);
                let strict = validation::strict_errors(&group, &version, &kind, &node, &|_| false);
                (error, strict)
            };
            Decoding {
                duplicates: Vec::new(),
                type_error,
                strict,
                decoded_as: Some((kind, version)),
            }
        }
    };
    if decoding.is_empty() {
        return None;
    }
    let mut decorated = req.clone();
    // A built-in kind's repeated members are merged as Go's decoder merges them.
    if !decoding.duplicates.is_empty()
        && decoding.decoded_as.is_none()
        && let Some(index) = go_types::index_of_kind(&def.group, &def.version, &def.kind)
        && def.custom.is_none()
    {
        let merged = go_merge::decoded(&node, &go_types::Target::Struct(index));
        decorated.body = serde_json::to_vec(&merged).unwrap_or_default().into();
    }
    decorated.query.set_decoding(decoding);
    Some(decorated)
}

/// What the decoder makes of the `apiVersion` and `kind` a body's top level says.
fn body_type_of(def: &ResourceDef, node: &Node) -> BodyType {
    let Node::Object(members) = node else {
        return BodyType::Own;
    };
    let member = |name: &str| {
        members.iter().rev().find_map(|(key, value)| match value {
            Node::String(text) if key == name => Some(text.as_str()),
            _ => None,
        })
    };
    body_type(
        def,
        member("apiVersion").unwrap_or_default(),
        member("kind").unwrap_or_default(),
    )
}

/// What Go's decoder finds in a body of the resource's own type: its repeated members, and
/// for a built-in kind its first type error and strict errors.
fn own_decoding(def: &ResourceDef, node: &Node, raw: Option<&RawWrite>) -> Decoding {
    let type_error = def
        .custom
        .is_none()
        .then(|| validation::decode_error(&def.group, &def.version, &def.kind, node))
        .flatten();
    let in_raw = |path: &str| raw.is_some_and(|raw| raw.inside_raw(path));
    let strict = if def.custom.is_none() {
        validation::strict_errors(&def.group, &def.version, &def.kind, node, &in_raw)
    } else {
        Vec::new()
    };
    Decoding {
        // Go's decoder hands a raw value's bytes over as they are, repetitions included.
        duplicates: go_decode::duplicate_fields(node)
            .into_iter()
            .filter(|path| !in_raw(path))
            .collect(),
        type_error,
        strict,
        decoded_as: None,
    }
}

/// Serves a request to a non-storage version through `conv`.
async fn serve_converted(
    api: &Arc<Api>,
    req: &Req,
    target: Target,
    conv: &Arc<Codec>,
) -> Result<Reply, ApiError> {
    let sub = target.subresource.as_deref();
    let known_sub = match sub {
        None => true,
        Some("status") => target.def.status_subresource,
        Some("scale") => target.def.scale.is_some(),
        Some(_) => false,
    };
    if !known_sub {
        // The plain handler answers 404 for it, before touching any object.
        return handle_object(api, req, target).await;
    }
    let storage = Target {
        def: conv.plan().storage.clone(),
        ..target.clone()
    };
    let watching = req.query.flag("watch") || target.legacy_watch;
    let named = target.name.is_some();
    match (&req.method, named, sub) {
        // Scale objects are `autoscaling/v1` in every version: read through the storage version.
        (_, _, Some("scale")) => handle_object(api, req, storage).await,
        (&Method::GET, false, _) if watching => watch::start(api, req, storage, conv).await,
        (&Method::GET, false, _) => reads::list(api, req, storage, conv).await,
        (&Method::GET, true, _) => reads::get(api, req, storage, conv).await,
        (&Method::POST, false, None) => writes::create(api, req, storage, conv).await,
        (&Method::PUT, true, _) => writes::update(api, req, storage, conv).await,
        (&Method::PATCH, true, _) => patch::patch(api, req, &target, storage, conv).await,
        (&Method::DELETE, _, None) => writes::delete(api, req, storage, conv).await,
        // Everything else is refused by the plain handler (405) without a conversion.
        _ => handle_object(api, req, target).await,
    }
}
