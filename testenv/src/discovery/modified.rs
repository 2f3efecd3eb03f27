//! When each version of a served document was built or installed, per server: the
//! `Last-Modified` of the OpenAPI documents.
//!
//! kube-apiserver builds `/openapi/v2` on the first request after the API changed (a CRD
//! added, changed or removed), and a version seen again after another one counts as new
//! ([`built_at`]). An `/openapi/v3` group-version document is installed instead
//! ([`installed_at`]): a built-in one at start-up, a custom one when a CRD of its
//! group-version is written with a changed schema, whether or not anyone reads it then.

use std::sync::PoisonError;
use std::time::SystemTime;

use serde_json::Value;

use crate::endpoints::Api;

/// When `api`'s server built the version `etag` of the document `key`: now if it last
/// built another version (or none), else when it built this one.
pub fn built_at(api: &Api, key: &str, etag: &str) -> SystemTime {
    record(api, key, etag, |_| SystemTime::now())
}

/// When `api`'s server installed the version `etag` of the document `key`, `changed` being
/// when what the document is made of was last written (the server's start for a built-in
/// document, the last write to its CRDs' specs for a custom one): a version already
/// recorded keeps its time; a new one takes `changed`, or now when `changed` is not after
/// the version it replaces (a change the objects do not date, such as a CRD deleted).
pub fn installed_at(api: &Api, key: &str, etag: &str, changed: SystemTime) -> SystemTime {
    record(api, key, etag, |previous| match previous {
        Some(before) if changed <= before => SystemTime::now(),
        _ => changed,
    })
}

/// The time recorded for `key` at `etag`; a new version is recorded at what `new` gives for
/// the time of the version it replaces.
fn record(
    api: &Api,
    key: &str,
    etag: &str,
    new: impl FnOnce(Option<SystemTime>) -> SystemTime,
) -> SystemTime {
    let mut built = api
        .documents_built
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    match built.get(key) {
        Some((last, at)) if last == etag => *at,
        previous => {
            let at = new(previous.map(|(_, at)| *at));
            built.insert(key.to_string(), (etag.to_string(), at));
            at
        }
    }
}

/// When a CRD's spec was last written: the latest `time` of its managed fields entries
/// that own part of `spec` (status writes and metadata-only edits leave it), else its
/// `creationTimestamp`.
pub fn spec_written(crd: &Value) -> Option<SystemTime> {
    let time = |v: &Value| {
        v.as_str()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(SystemTime::from)
    };
    crd["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|entry| entry["fieldsV1"].get("f:spec").is_some())
        .filter_map(|entry| time(&entry["time"]))
        .max()
        .or_else(|| time(&crd["metadata"]["creationTimestamp"]))
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::Value;

    use super::*;
    use crate::endpoints::ApiOptions;
    use crate::endpoints::hooks::{Client, Controllers};
    use crate::support::resource::ResourceDef;

    /// Controllers that do nothing: these tests look only at the times.
    struct Idle;

    impl Controllers for Idle {
        fn started(&self, _: &mut dyn Client) {}
        fn serving(&self, _: &mut dyn Client, _: SocketAddr) {}
        fn created(&self, _: &mut dyn Client, _: &ResourceDef, _: &Value, _: &str) {}
        fn updated(&self, _: &mut dyn Client, _: &ResourceDef, _: &Value, _: &str) {}
        fn deleting(&self, _: &mut dyn Client, _: &Arc<ResourceDef>, _: &Value, _: &str) {}
        fn removed(&self, _: &mut dyn Client, _: &ResourceDef, _: &Value, _: &str) {}
    }

    fn server() -> Arc<Api> {
        Api::new(ApiOptions::default(), Arc::new(Idle))
    }

    fn later() {
        std::thread::sleep(Duration::from_millis(5));
    }

    #[test]
    fn a_version_keeps_its_time_until_another_one_is_built() {
        let api = server();
        let first = built_at(&api, "v2", "\"A\"");
        later();
        assert_eq!(built_at(&api, "v2", "\"A\""), first);
        let second = built_at(&api, "v2", "\"B\"");
        assert!(second > first);
        later();
        // Back to the first version: built anew, as kube-apiserver rebuilds it.
        assert!(built_at(&api, "v2", "\"A\"") > second);
        // Each document has its own version.
        later();
        assert!(built_at(&api, "v3/apis/apps/v1", "\"A\"") > second);
    }

    #[test]
    fn an_installed_version_keeps_the_time_it_was_installed_at() {
        let api = server();
        let start = SystemTime::now() - Duration::from_secs(60);
        assert_eq!(installed_at(&api, "v3/apis/apps/v1", "\"A\"", start), start);
        later();
        assert_eq!(
            installed_at(&api, "v3/apis/apps/v1", "\"A\"", SystemTime::now()),
            start
        );
        // A new version written later is dated by its write.
        let written = start + Duration::from_secs(30);
        assert_eq!(
            installed_at(&api, "v3/apis/apps/v1", "\"B\"", written),
            written
        );
        // A new version the objects do not date (not after the last one) is dated now.
        let before = SystemTime::now();
        assert!(installed_at(&api, "v3/apis/apps/v1", "\"C\"", start) >= before);
    }

    #[test]
    fn a_crd_spec_is_dated_by_its_last_spec_write() {
        let crd = serde_json::json!({"metadata": {
        "creationTimestamp": "2026-11-28T04:00:00Z",
        "managedFields": [
            {"manager": "kubectl", "time": "2026-11-28T04:10:00Z",
             "fieldsV1": {"f:spec": {"f:group": {}}}},
            {"manager": "apiextensions", "time": "2026-11-28T04:20:00Z",
             "fieldsV1": {"f:status": {}}},
            {"manager": "label", "time": "2026-11-28T04:30:00Z",
             "fieldsV1": {"f:metadata": {"f:labels": {}}}},
        ]}});
        let at = |t: &str| SystemTime::from(chrono::DateTime::parse_from_rfc3339(t).unwrap());
        assert_eq!(spec_written(&crd), Some(at("2026-11-28T04:10:00Z")));
        let bare = serde_json::json!({"metadata": {"creationTimestamp": "2026-11-28T04:00:00Z"}});
        assert_eq!(spec_written(&bare), Some(at("2026-11-28T04:00:00Z")));
        assert_eq!(spec_written(&serde_json::json!({})), None);
    }

    #[test]
    fn each_server_has_its_own_times() {
        let (one, two) = (server(), server());
        let first = built_at(&one, "v2", "\"A\"");
        later();
        assert!(built_at(&two, "v2", "\"A\"") > first);
        assert_eq!(built_at(&one, "v2", "\"A\""), first);
    }
}
