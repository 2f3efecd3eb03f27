//! GET of one object and of collections: selectors, pagination and resourceVersion
//! semantics, and Table output for kubectl.

use std::sync::Arc;

use serde_json::{Value, json};

use super::state::Api;
use super::table;
use crate::registry::field_labels::FieldKind;
use crate::registry::stored::as_served;
use crate::storage::StoreError;
use crate::support::features::FeatureGates;
use crate::support::query::Query;
use crate::support::request::Target;
use crate::support::request::{Reply, Req};
use crate::support::resource::ResourceDef;
use crate::support::selector::{FieldSelector, LabelSelector, ShardSelector};
use crate::support::status::ApiError;

/// Label, field and shard selectors of a request.
#[derive(Debug, Clone)]
pub struct Filter {
    /// `labelSelector`
    pub labels: LabelSelector,
    /// `fieldSelector`
    pub fields: FieldSelector,
    /// `shardSelector` as sent (echoed in a list's `metadata.shardInfo`) and parsed; only with
    /// the `ShardedListAndWatch` feature gate (see [`Filter::with_shards`]).
    pub shard: Option<(String, ShardSelector)>,
    /// Whose field values the field selector reads.
    kind: FieldKind,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            labels: LabelSelector::default(),
            fields: FieldSelector::default(),
            shard: None,
            kind: FieldKind::Generic,
        }
    }
}

impl Filter {
    /// Parses the selectors, refusing fields the resource does not support.
    pub fn from_query(def: &ResourceDef, query: &Query) -> Result<Self, ApiError> {
        let labels = LabelSelector::parse(query.get("labelSelector").unwrap_or_default())
            .map_err(ApiError::bad_request)?;
        let fields = FieldSelector::parse(query.get("fieldSelector").unwrap_or_default())
            .map_err(ApiError::bad_request)?;
        let kind = FieldKind::of(def);
        for field in fields.fields() {
            let supported = match &def.custom {
                Some(custom) => {
                    matches!(field, "metadata.name" | "metadata.namespace")
                        || custom
                            .selectable_fields
                            .iter()
                            .any(|p| p.trim_start_matches('.') == field)
                }
                None => kind.supports(field),
            };
            if !supported {
                let message = match &def.custom {
                    Some(_) => format!("field label not supported: {field}"),
                    None => kind.unsupported(field),
                };
                return Err(ApiError::bad_request(message));
            }
        }
        Ok(Filter {
            labels,
            fields,
            shard: None,
            kind,
        })
    }

    /// Adds the request's `shardSelector` when the `ShardedListAndWatch` gate is on (a 400
    /// naming the problem when it is malformed); with the gate off it is ignored, as a server
    /// without the feature ignores an unknown parameter. An empty value means no selector.
    pub fn with_shards(mut self, gates: &FeatureGates, query: &Query) -> Result<Self, ApiError> {
        if !gates.sharded_list_and_watch {
            return Ok(self);
        }
        if let Some(raw) = query.get("shardSelector").filter(|s| !s.is_empty()) {
            let selector = ShardSelector::parse(raw).map_err(ApiError::bad_request)?;
            self.shard = Some((raw.to_string(), selector));
        }
        Ok(self)
    }

    /// Whether an object passes every selector.
    pub fn matches(&self, object: &Value) -> bool {
        (self.labels.is_empty() || self.labels.matches(&object["metadata"]["labels"]))
            && self.fields.matches_by(|f| self.kind.value(object, f))
            && self.shard.as_ref().is_none_or(|(_, s)| s.matches(object))
    }
}

/// GET of one object (or its status).
pub fn get(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let name = target.name.as_deref().unwrap_or_default();
    let ns = target.namespace.as_deref().unwrap_or_default();
    if let Some(rv) = req.query.get("resourceVersion").filter(|rv| !rv.is_empty())
        && rv.parse::<u64>().is_err()
    {
        return Err(super::list_options::resource_version_not_a_number(rv));
    }
    let cluster = api.lock();
    let obj = cluster
        .store
        .get(&target.def.storage_key, ns, name)
        .ok_or_else(|| ApiError::not_found(&target.def, name))?;
    let stored = obj;
    let obj = as_served(&target.def, &stored);
    drop(cluster);
    if table::wants_table(&req.accept) {
        let rv = obj["metadata"]["resourceVersion"].clone();
        return Ok(table::reply_of_stored(
            &target.def,
            &[obj],
            Some(&[(*stored).clone()]),
            json!({"resourceVersion": rv}),
            &req.query,
        ));
    }
    Ok(Reply::json(200, obj))
}

/// The first storage key (namespace, name) a list continued from `from` reads: `from` is
/// relative to the list's prefix, a name within one namespace or of cluster-scoped objects,
/// `<namespace>/<name>` across namespaces.
fn continue_from(target: &Target, from: &str) -> (String, String) {
    match &target.namespace {
        Some(ns) => (ns.clone(), from.to_string()),
        None if target.def.namespaced => {
            let (ns, name) = from.split_once('/').unwrap_or((from, ""));
            (ns.to_string(), name.to_string())
        }
        None => (String::new(), from.to_string()),
    }
}

/// GET of a collection.
pub fn list(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let def = &target.def;
    let filter =
        Filter::from_query(def, &req.query)?.with_shards(&api.options.feature_gates, &req.query)?;
    let limit = super::list_options::parse(&req.query, false)?.limit;
    let continue_token = req.query.get("continue").filter(|s| !s.is_empty());
    let rv_param = req.query.get("resourceVersion").filter(|s| !s.is_empty());
    let rv_match = req
        .query
        .get("resourceVersionMatch")
        .filter(|s| !s.is_empty());
    if continue_token.is_some() && rv_param.is_some() {
        return Err(ApiError::bad_request(
            "specifying resource version is not allowed when using continue",
        ));
    }
    let cluster = api.lock();
    let current = cluster.store.resource_version();
    let parse_rv = |s: &str| {
        s.parse::<u64>().map_err(|_| {
            ApiError::bad_request(format!(
                "invalid resource version: resourceVersion: Invalid value: {s:?}: strconv.ParseUint: parsing {s:?}: invalid syntax"
            ))
        })
    };
    let (snapshot_rv, start_after) = match (continue_token, rv_param, rv_match) {
        (Some(token), _, _) => {
            let from = super::continue_token::decode(token).map_err(ApiError::bad_request)?;
            // A negative resourceVersion in a token reads the current state, as on the real server.
            let rv = u64::try_from(from.rv).unwrap_or(current);
            (rv, Some(continue_from(target, &from.from)))
        }
        (None, None, _) => (current, None),
        (None, Some(rv), Some("Exact")) => (parse_rv(rv)?, None),
        // `NotOlderThan` or none ([`super::list_options`] refused any other).
        (None, Some(rv), _) => {
            let rv = parse_rv(rv)?;
            if rv > current {
                return Err(ApiError::too_large_resource_version(rv, current));
            }
            (current, None)
        }
    };
    let bucket = cluster.store.snapshot_at(&def.storage_key, snapshot_rv).map_err(|e| match e {
        StoreError::TooOld { .. } if continue_token.is_some() => ApiError::expired(
            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
        ),
        // Served from etcd on a real server (its watch cache cannot): etcd's words.
        StoreError::TooOld { .. } => {
            ApiError::expired("The resourceVersion for the provided list is too old.")
        }
        StoreError::TooLarge { requested, current } => ApiError::too_large_resource_version(requested, current),
    })?;
    drop(cluster);
    let mut items = Vec::new();
    // The objects as stored, which some built-in tables print from.
    let mut stored = Vec::new();
    let mut next = None;
    let mut remaining = 0i64;
    for ((ns, name), obj) in bucket.range(start_after.clone().unwrap_or_default()..) {
        if target.namespace.as_ref().is_some_and(|t| t != ns) {
            continue;
        }
        // A full page gets a continue token when any object follows it, matching the
        // selectors or not, as the real server (which reads on in key order) does.
        if limit > 0 && items.len() as i64 >= limit {
            if next.is_none() {
                let last = items.last().map(|o: &Value| {
                    (
                        o["metadata"]["namespace"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                        o["metadata"]["name"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                    )
                });
                if let Some((lns, lname)) = last {
                    let key = if target.namespace.is_some() || lns.is_empty() {
                        lname
                    } else {
                        format!("{lns}/{lname}")
                    };
                    next = Some(super::continue_token::encode(snapshot_rv, &key));
                }
            }
            remaining += 1;
            continue;
        }
        if !filter.matches(obj) {
            continue;
        }
        let _ = (ns, name);
        let mut item = as_served(def, obj);
        if table::wants_table(&req.accept) {
            stored.push((**obj).clone());
        }
        // Typed lists of built-in kinds carry no apiVersion and kind on their items.
        if def.custom.is_none()
            && !table::wants_table(&req.accept)
            && let Some(m) = item.as_object_mut()
        {
            m.remove("apiVersion");
            m.remove("kind");
        }
        items.push(item);
    }
    let mut metadata = json!({"resourceVersion": snapshot_rv.to_string()});
    if let Some(token) = next {
        metadata["continue"] = json!(token);
        if filter.labels.is_empty()
            && filter.fields.fields().next().is_none()
            && filter.shard.is_none()
        {
            metadata["remainingItemCount"] = json!(remaining);
        }
    } else if def.custom.is_some() && !table::wants_table(&req.accept) {
        // Custom resource lists are unstructured on the real server: an empty continue
        // token is written out.
        metadata["continue"] = json!("");
    }
    if let Some((selector, _)) = &filter.shard {
        // The list is a sharded subset: say which selector produced it (ListMeta.shardInfo).
        metadata["shardInfo"] = json!({"selector": selector});
    }
    if table::wants_table(&req.accept) {
        return Ok(table::reply_of_stored(
            def,
            &items,
            Some(&stored),
            metadata,
            &req.query,
        ));
    }
    if def.custom.is_none() {
        // The items of a built-in kind's list carry no kind and apiVersion of their own.
        for item in &mut items {
            if let Some(o) = item.as_object_mut() {
                o.remove("kind");
                o.remove("apiVersion");
            }
        }
    }
    Ok(Reply::json(
        200,
        json!({
            "apiVersion": def.api_version(),
            "kind": def.list_kind(),
            "metadata": metadata,
            "items": items,
        }),
    ))
}
