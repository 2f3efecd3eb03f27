//! When each version of a served document was built, per server: the `Last-Modified` of
//! the OpenAPI documents. kube-apiserver keeps, per document, the version it last built and
//! when; a document that changes (a CRD added, changed or removed) is built anew, and a
//! version seen again after another one counts as new.

use std::sync::PoisonError;
use std::time::SystemTime;

use crate::endpoints::Api;

/// When `api`'s server built the version `etag` of the document `key`: now if it last
/// built another version (or none), else when it built this one.
pub fn built_at(api: &Api, key: &str, etag: &str) -> SystemTime {
    let mut built = api
        .documents_built
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    match built.get(key) {
        Some((last, at)) if last == etag => *at,
        _ => {
            let now = SystemTime::now();
            built.insert(key.to_string(), (etag.to_string(), now));
            now
        }
    }
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
    fn each_server_has_its_own_times() {
        let (one, two) = (server(), server());
        let first = built_at(&one, "v2", "\"A\"");
        later();
        assert!(built_at(&two, "v2", "\"A\"") > first);
        assert_eq!(built_at(&one, "v2", "\"A\""), first);
    }
}
