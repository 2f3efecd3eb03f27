//! Watches: newline-delimited JSON events from a resourceVersion, initial events (legacy
//! "get state and start at most recent" and `sendInitialEvents` streaming lists), bookmarks,
//! 410 Expired for versions older than the resource's watch cache, selector transitions and
//! timeouts.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::Instant;

use super::read::Filter;
use super::state::Api;
use crate::registry::stored::as_served;
use crate::storage::{Event, EventType, StoreError};
use crate::support::request::Target;
use crate::support::request::{Reply, Req, WatchStream};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

struct Watcher {
    def: Arc<ResourceDef>,
    namespace: Option<String>,
    filter: Filter,
    pending: VecDeque<Bytes>,
    rx: Option<broadcast::Receiver<Arc<Event>>>,
    /// Events at or below this were already sent (or were part of the initial state).
    last_rv: u64,
    deadline: Instant,
    bookmark_every: Option<Duration>,
    next_bookmark: Instant,
}

fn line(event_type: &str, object: &Value) -> Bytes {
    let mut s = crate::support::json_order::to_vec(&json!({"type": event_type, "object": object}));
    s.push(b'\n');
    Bytes::from(s)
}

fn bookmark(def: &ResourceDef, rv: u64, initial_end: bool) -> Bytes {
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    if initial_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    line(
        "BOOKMARK",
        &json!({"kind": def.kind, "apiVersion": def.api_version(), "metadata": metadata}),
    )
}

impl Watcher {
    fn in_scope(&self, object: &Value) -> bool {
        let ns = object["metadata"]["namespace"].as_str().unwrap_or_default();
        self.namespace.as_ref().is_none_or(|n| n == ns)
    }

    fn selected(&self, object: &Value) -> bool {
        self.in_scope(object) && self.filter.matches(object)
    }

    /// The wire event for a store event, applying selector transitions like the cacher.
    fn translate(&self, event: &Event) -> Option<Bytes> {
        if event.key != self.def.storage_key {
            return None;
        }
        let now = self.selected(&event.object);
        let before = event.prev.as_ref().is_some_and(|p| self.selected(p));
        let kind = match (event.kind, before, now) {
            (EventType::Added, _, true) => "ADDED",
            (EventType::Modified, true, true) => "MODIFIED",
            (EventType::Modified, false, true) => "ADDED",
            (EventType::Modified, true, false) => {
                // An object that stopped matching leaves as it was when it last matched,
                // at the event's resourceVersion, as the cacher sends it.
                let mut last = event.prev.as_deref().cloned().unwrap_or_default();
                last["metadata"]["resourceVersion"] = Value::String(event.rv.to_string());
                return Some(line("DELETED", &as_served(&self.def, &last)));
            }
            (EventType::Deleted, _, true) => "DELETED",
            (EventType::Deleted, true, false) => "DELETED",
            _ => return None,
        };
        Some(line(kind, &as_served(&self.def, &event.object)))
    }

    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if let Some(b) = self.pending.pop_front() {
                return Some(b);
            }
            let rx = self.rx.as_mut()?;
            let wake = match self.bookmark_every {
                Some(_) => self.deadline.min(self.next_bookmark),
                None => self.deadline,
            };
            tokio::select! {
                received = rx.recv() => match received {
                    Ok(event) => {
                        if event.rv <= self.last_rv {
                            continue;
                        }
                        self.last_rv = event.rv;
                        if let Some(b) = self.translate(&event) {
                            return Some(b);
                        }
                    }
                    // Too slow a consumer or a closed server: end the watch; the client
                    // resumes from its last resourceVersion.
                    Err(RecvError::Lagged(_) | RecvError::Closed) => return None,
                },
                () = tokio::time::sleep_until(wake) => {
                    if Instant::now() >= self.deadline {
                        return None;
                    }
                    if let Some(every) = self.bookmark_every {
                        self.next_bookmark = Instant::now() + every;
                        return Some(bookmark(&self.def, self.last_rv, false));
                    }
                }
            }
        }
    }
}

fn error_stream(e: ApiError) -> Reply {
    let body = line("ERROR", &e.to_status());
    Reply::Watch(WatchStream(Box::pin(futures::stream::iter([body]))))
}

/// Starts a watch on a collection.
pub fn start(api: &Arc<Api>, req: &Req, target: &Target) -> Result<Reply, ApiError> {
    let def = target.def.clone();
    let q = &req.query;
    let filter = Filter::from_query(&def, q)?.with_shards(&api.options.feature_gates, q)?;
    let options = super::list_options::parse(q, true)?;
    // Only an explicit `sendInitialEvents` streams the initial state this way; the real
    // server's defaulting of a plain watch changes nothing a client sees here.
    let send_initial = q.flag("sendInitialEvents");
    let bookmarks = q.flag("allowWatchBookmarks");
    let rv_param = q.get("resourceVersion").filter(|s| !s.is_empty());
    let timeout = Duration::from_secs(
        options
            .timeout_seconds
            .and_then(|t| u64::try_from(t).ok())
            .filter(|t| *t > 0)
            .unwrap_or(1800),
    );
    let namespace = target.namespace.clone();
    let cluster = api.lock();
    let current = cluster.store.resource_version();
    let mut pending = VecDeque::new();
    let mut watcher_filter_probe = Watcher {
        def: def.clone(),
        namespace,
        filter,
        pending: VecDeque::new(),
        rx: None,
        last_rv: current,
        deadline: Instant::now() + timeout,
        bookmark_every: bookmarks.then_some(api.options.bookmark_interval),
        next_bookmark: Instant::now() + api.options.bookmark_interval,
    };
    let initial_state = send_initial || matches!(rv_param, None | Some("0"));
    if initial_state {
        if let Some(rv) = rv_param.filter(|r| *r != "0") {
            let rv: u64 = rv
                .parse()
                .map_err(|_| super::list_options::resource_version_not_a_number(rv))?;
            if rv > current {
                return Err(ApiError::too_large_resource_version(rv, current));
            }
        }
        if let Some(bucket) = cluster.store.bucket(&def.storage_key) {
            for obj in bucket.values() {
                if watcher_filter_probe.selected(obj) {
                    pending.push_back(line("ADDED", &as_served(&def, obj)));
                }
            }
        }
        if send_initial && bookmarks {
            pending.push_back(bookmark(&def, current, true));
        }
        watcher_filter_probe.rx = Some(cluster.store.subscribe());
    } else {
        let rv: u64 = rv_param.unwrap_or_default().parse().map_err(|_| {
            super::list_options::resource_version_not_a_number(rv_param.unwrap_or_default())
        })?;
        match cluster.store.watch_from(&def.storage_key, rv) {
            Ok((past, rx)) => {
                for event in past {
                    if let Some(b) = watcher_filter_probe.translate(&event) {
                        pending.push_back(b);
                    }
                }
                watcher_filter_probe.rx = Some(rx);
            }
            Err(StoreError::TooOld { requested, oldest }) => {
                return Ok(error_stream(ApiError::expired(format!(
                    "too old resource version: {requested} ({oldest})"
                ))));
            }
            Err(StoreError::TooLarge { requested, current }) => {
                return Err(ApiError::too_large_resource_version(requested, current));
            }
        }
    }
    drop(cluster);
    watcher_filter_probe.pending = pending;
    let stream = futures::stream::unfold(watcher_filter_probe, |mut w| async move {
        let item = w.next().await?;
        Some((item, w))
    });
    Ok(Reply::Watch(WatchStream(Box::pin(stream))))
}
