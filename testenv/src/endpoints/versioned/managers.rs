//! The managedFields of an update (create, PUT, non-apply patch) in a non-storage version, as
//! kube-apiserver's field manager records them: it runs in the version the request was
//! written in, so the request's manager owns what changed in that version and its entry
//! carries that apiVersion (a manager writing through two versions has two entries); every
//! other manager's fields are compared in that manager's own version, the old and the new
//! object converted to it (by the CRD's webhook, as the real field manager converts them).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::endpoints::fields::{Fields, managers_after_in};
use crate::endpoints::manager_versions;
use crate::endpoints::options;
use crate::endpoints::state::Api;
use crate::endpoints::subresource::Endpoint;
use crate::storage::conversion::Codec;
use crate::support::fieldmanager::{Changes, KindVersions, ManagedFields, Types};
use crate::support::request::Req;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// One side of a write: the object in the requested version and in the storage version.
#[derive(Debug, Clone, Copy)]
pub struct Sides<'a> {
    /// As the client sees it (the requested version).
    pub served: &'a Value,
    /// As the store keeps it.
    pub stored: &'a Value,
}

/// The managers after the write `old` → `new` (no `old` on create) by the request's manager,
/// recorded in the requested version.
pub async fn record(
    api: &Arc<Api>,
    req: &Req,
    conv: &Codec,
    endpoint: Endpoint,
    old: Option<Sides<'_>>,
    new: Sides<'_>,
) -> Result<ManagedFields, ApiError> {
    let served = conv.served();
    let sent = new.served["metadata"].get("managedFields");
    let mut versions: Vec<String> = [old.map(|o| o.served), sent]
        .into_iter()
        .flatten()
        .filter_map(|v| match v.get("metadata") {
            Some(_) => ManagedFields::of_object(v).ok(),
            None => ManagedFields::decode(v).ok(),
        })
        .flat_map(|m| m.entries.into_iter().map(|e| e.owner.api_version))
        .filter(|v| *v != served.api_version())
        .collect();
    versions.sort();
    versions.dedup();
    let defs = {
        let cluster = api.lock();
        manager_versions::crd_defs(&cluster.store, &cluster.registry, served)
    };
    let listed = defs.iter().map(|d| d.api_version());
    let reach = KindVersions::custom(listed);
    let mut elsewhere = BTreeMap::new();
    for version in versions {
        if let Some(changes) = changes_in(conv, &defs, &version, old, new).await? {
            elsewhere.insert(version, changes);
        }
    }
    Ok(managers_after_in(
        served,
        old.map(|o| o.served),
        new.served,
        sent,
        endpoint,
        Fields::Update(options::update_manager(req)),
        &elsewhere,
        &reach,
    ))
}

/// What the write changed as seen in `api_version`; `None` when the kind's CRD does not
/// list that version (the field manager cannot convert to it, see
/// [`crate::support::fieldmanager::reconcile`]).
async fn changes_in(
    conv: &Codec,
    defs: &[Arc<ResourceDef>],
    api_version: &str,
    old: Option<Sides<'_>>,
    new: Sides<'_>,
) -> Result<Option<Changes>, ApiError> {
    let storage = conv.storage();
    if api_version == storage.api_version() {
        return Ok(Some(Changes::between(
            Types::of(storage),
            Some(old.map_or(&empty(), |o| o.stored)),
            new.stored,
        )));
    }
    let Some(def) = defs.iter().find(|d| d.api_version() == api_version) else {
        return Ok(None);
    };
    let before = match old {
        Some(o) => conv.to_version(o.stored.clone(), api_version).await?,
        None => empty(),
    };
    let after = conv.to_version(new.stored.clone(), api_version).await?;
    Ok(Some(Changes::between(
        Types::of(def),
        Some(&before),
        &after,
    )))
}

/// The object a create compares with (a custom kind's: only metadata).
fn empty() -> Value {
    json!({"metadata": {}})
}
