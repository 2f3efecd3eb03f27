//! kube-apiserver's health endpoints (`/healthz`, `/livez`, `/readyz`, as Go's `healthz`
//! package serves them): `ok` in plain text, or with `?verbose` each check's line and
//! `<name> check passed`; `?exclude=<check>` (repeatable) marks a check excluded and warns of
//! those that match none; `/<endpoint>/<check>` answers one check. The checks are the real
//! server's, in its order (kube-apiserver v1.34.9 started as envtest starts it, without a front
//! proxy client certificate, so without `aggregator-reload-proxy-client-cert`; its post-start
//! hooks among them); on a running embedded server every one passes.

use serde_json::Value;

use crate::support::query::Query;
use crate::support::request::Reply;

/// The checks after `ping`, `log` and the storage check, the same on the three endpoints.
const HOOKS: &[&str] = &[
    "poststarthook/start-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/bootstrap-controller",
    "poststarthook/start-kubernetes-service-cidr-controller",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-status-local-available-controller",
    "poststarthook/apiservice-status-remote-available-controller",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-wait-for-first-sync",
    "poststarthook/apiservice-discovery-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
];

/// The checks of `endpoint` (`healthz`, `livez` or `readyz`), in order.
fn checks(endpoint: &str) -> Vec<&'static str> {
    let storage = if endpoint == "readyz" {
        "informer-sync"
    } else {
        "etcd"
    };
    let mut out = vec!["ping", "log", storage];
    out.extend(HOOKS);
    if endpoint == "readyz" {
        out.push("shutdown");
    }
    out
}

fn text(code: u16, body: String) -> Reply {
    // Written as the root handler writes it: with `X-Content-Type-Options: nosniff`.
    Reply::Json {
        code,
        body: Value::String(body),
        content_type: "text/plain; charset=utf-8".into(),
        warnings: Vec::new(),
    }
}

/// The answer to a request for `path` (under `/healthz`, `/livez` or `/readyz`) with `query`.
pub fn serve(path: &str, query: &Query) -> Reply {
    let path = path.trim_start_matches('/');
    let (endpoint, check) = path.split_once('/').unwrap_or((path, ""));
    let checks = checks(endpoint);
    if !check.is_empty() || path.ends_with('/') {
        // One check, as `http.ServeMux` hands it to its handler (Go sniffs `ok` as text).
        return if checks.contains(&check) {
            Reply::Raw {
                code: 200,
                content_type: "text/plain; charset=utf-8".into(),
                body: "ok".into(),
                etag: None,
                document: None,
            }
        } else {
            text(404, "404 page not found\n".into())
        };
    }
    if query.get("verbose").is_none() {
        return text(200, "ok".into());
    }
    let mut excluded: Vec<&str> = query.values("exclude");
    let mut out = String::new();
    for check in checks {
        if excluded.contains(&check) {
            excluded.retain(|e| *e != check);
            out.push_str(&format!("[+]{check} excluded: ok\n"));
        } else {
            out.push_str(&format!("[+]{check} ok\n"));
        }
    }
    if !excluded.is_empty() {
        excluded.sort_unstable();
        excluded.dedup();
        let quoted: Vec<String> = excluded.iter().map(|e| format!("{e:?}")).collect();
        out.push_str(&format!(
            "warn: some health checks cannot be excluded: no matches for {}\n",
            quoted.join(",")
        ));
    }
    out.push_str(&format!("{endpoint} check passed\n"));
    text(200, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(path: &str, query: &str) -> (u16, String) {
        match serve(path, &Query::parse(Some(query))) {
            Reply::Json { code, body, .. } => (code, body.as_str().unwrap_or_default().into()),
            Reply::Raw { code, body, .. } => (code, String::from_utf8_lossy(&body).into()),
            _ => panic!("a text answer"),
        }
    }

    #[test]
    fn ok_or_every_check_with_exclusions() {
        assert_eq!(body("/livez", ""), (200, "ok".into()));
        let (_, verbose) = body("/readyz", "verbose=false&exclude=log&exclude=zz&exclude=aa");
        assert!(verbose.starts_with("[+]ping ok\n[+]log excluded: ok\n[+]informer-sync ok\n"));
        assert!(verbose.ends_with(
            "[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for \"aa\",\"zz\"\nreadyz check passed\n"
        ));
        assert_eq!(
            body("/healthz/poststarthook/rbac/bootstrap-roles", ""),
            (200, "ok".into())
        );
        assert_eq!(body("/livez/informer-sync", "").0, 404);
    }
}
