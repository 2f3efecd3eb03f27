//! Watching only this replica's share: the `shardSelector` query parameter (KEP-5866) on a
//! cache's list and watch requests, and whether the API server honours it.
//!
//! kube-runtime's watcher knows nothing of `shardSelector`, so a sharded informer gives it a
//! client whose requests get the parameter appended ([`with_shard_selector`]). Whether the
//! server filters is found out before each (re)start with one small list ([`probe`]): a v1.36+
//! server with the `ShardedListAndWatch` feature gate echoes the selector in the list's
//! `metadata.shardInfo`; an older server, or one with the gate off, ignores the parameter; a
//! server may also refuse it (400). Whatever the answer, the informer also filters every
//! object itself (same hash, same ranges), so a server that ignores the selector, or an API
//! server replica that differs from the one probed, costs bandwidth, never correctness.

use futures::FutureExt;
use http::{Request, Uri};
use kube::{Api, client::Body};
use std::time::Duration;

use super::{hash::ShardKey, range::RangeSet};
use crate::{cache::Kind, metrics::ShardFamilies};

/// How a sharded informer gets only its share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filtering {
    /// The API server filters list and watch (`shardSelector` honoured).
    Server,
    /// The informer lists and watches everything and drops other replicas' objects itself;
    /// the reason says why the server does not filter.
    Client(String),
}

/// Percent-encodes a query value (everything but RFC 3986's unreserved characters).
pub fn encode_query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len() * 2);
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `uri` with `shardSelector=<selector>` appended to its query.
fn add_selector(uri: &Uri, selector: &str) -> Option<Uri> {
    let path_and_query = uri.path_and_query()?;
    let separator = if path_and_query.query().is_some() {
        '&'
    } else {
        '?'
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(
        format!(
            "{}{separator}shardSelector={}",
            path_and_query.as_str(),
            encode_query_value(selector)
        )
        .parse()
        .ok()?,
    );
    Uri::from_parts(parts).ok()
}

/// A client that sends every GET (the list and watch requests of one informer's `Api`) with
/// `shardSelector=<selector>`, and everything else unchanged, through `client`.
pub fn with_shard_selector(client: &kube::Client, selector: String) -> kube::Client {
    let inner = client.clone();
    let service = tower::service_fn(move |mut request: Request<Body>| {
        if request.method() == http::Method::GET
            && let Some(uri) = add_selector(request.uri(), &selector)
        {
            *request.uri_mut() = uri;
        }
        let inner = inner.clone();
        async move { inner.send(request).await }.boxed()
    });
    kube::Client::new(service, client.default_namespace().to_string())
}

/// Asks the API server, with a one-item list of `resource_url`, whether it filters by
/// `selector` (see the [module docs](self)).
pub async fn probe(client: &kube::Client, resource_url: &str, selector: &str) -> Filtering {
    let url = format!(
        "{resource_url}?limit=1&shardSelector={}",
        encode_query_value(selector)
    );
    let request = match Request::get(url).body(Vec::new()) {
        Ok(r) => r,
        Err(e) => return Filtering::Client(format!("could not build the probe request: {e}")),
    };
    match client.request::<serde_json::Value>(request).await {
        Ok(list) => match list["metadata"]["shardInfo"]["selector"].as_str() {
            Some(echoed) if echoed == selector => Filtering::Server,
            Some(other) => Filtering::Client(format!(
                "the API server applied a different shard selector ({other:?})"
            )),
            None => Filtering::Client(
                "the API server ignores shardSelector (a server before v1.36, or the ShardedListAndWatch feature gate is off)"
                    .to_string(),
            ),
        },
        Err(kube::Error::Api(status)) if status.code == 400 => Filtering::Client(format!(
            "the API server refused shardSelector: {}",
            status.message
        )),
        Err(e) => Filtering::Client(format!("probing for shardSelector failed: {e}")),
    }
}

/// The `Api` a sharded informer of `K` lists and watches `ranges` through: `api` itself when
/// the ranges are the whole ring or the server does not filter by shard (the informer then
/// filters), else one whose requests carry the ranges' `shardSelector`. Records which in
/// `kubeforge_shard_server_side{kind}`.
pub async fn share_api<K: Kind>(
    api: &Api<K>,
    namespace: Option<&str>,
    key: ShardKey,
    ranges: &RangeSet,
    families: Option<&ShardFamilies>,
) -> Api<K> {
    let Some(selector) = ranges.selector(key) else {
        return api.clone();
    };
    let client = api.clone().into_client();
    let filtering = tokio::time::timeout(
        Duration::from_secs(10),
        probe(&client, api.resource_url(), &selector),
    )
    .await
    .unwrap_or_else(|_| Filtering::Client("probing for shardSelector timed out".into()));
    if let Some(f) = families {
        f.server_side
            .get_or_create(&[("kind", K::gvk())])
            .set(i64::from(filtering == Filtering::Server));
    }
    match filtering {
        Filtering::Server => {
            tracing::debug!(kind = %K::gvk(), %ranges, "watching this replica's share (server-side shardSelector)");
            K::api(with_shard_selector(&client, selector), namespace)
        }
        Filtering::Client(reason) => {
            tracing::info!(kind = %K::gvk(), %ranges, %reason, "watching every object and keeping this replica's share");
            api.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selector_is_appended_encoded() {
        let selector =
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
        let uri: Uri = "/api/v1/configmaps?watch=true&resourceVersion=5"
            .parse()
            .unwrap();
        let with = add_selector(&uri, selector).unwrap();
        assert_eq!(
            with.to_string(),
            "/api/v1/configmaps?watch=true&resourceVersion=5&shardSelector=shardRange%28object.metadata.uid%2C%20%270x0000000000000000%27%2C%20%270x8000000000000000%27%29"
        );
        let bare: Uri = "/api/v1/configmaps".parse().unwrap();
        assert!(
            add_selector(&bare, "a|b")
                .unwrap()
                .to_string()
                .ends_with("?shardSelector=a%7Cb")
        );
    }
}
