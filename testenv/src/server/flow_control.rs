//! Priority and fairness, as far as a client can see it on an idle server: the FlowSchema a
//! request is classified into and that schema's priority level, named by UID in the answer's
//! `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID` headers, as
//! kube-apiserver's filter names them. Nothing is queued or refused: the embedded server
//! serves every request at once, as an idle real server does.
//!
//! The filter runs after authentication and impersonation (it classifies the user the
//! request acts as) and before authorization, so a 403 of authorization carries the headers
//! and a 401 does not. Long-running requests other than watches (proxies, `exec`, `attach`,
//! `log`, `portforward`) are not classified.

use std::sync::Arc;

use serde_json::Value;

use crate::endpoints::Api;
use crate::faults::RequestInfo;
use crate::support::user::User;

const GROUP: &str = "flowcontrol.apiserver.k8s.io";

/// The flow schema and priority level a request was classified into, by UID (empty for a
/// mandatory one the server imagines because its object is gone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// `metadata.uid` of the matched FlowSchema.
    pub flow_schema_uid: String,
    /// `metadata.uid` of its PriorityLevelConfiguration.
    pub priority_level_uid: String,
}

impl Classification {
    /// Puts the two headers on `headers`, as the real filter sets them.
    pub fn set_headers(&self, headers: &mut http::HeaderMap) {
        for (name, uid) in [
            (
                "x-kubernetes-pf-prioritylevel-uid",
                &self.priority_level_uid,
            ),
            ("x-kubernetes-pf-flowschema-uid", &self.flow_schema_uid),
        ] {
            if let Ok(value) = http::HeaderValue::from_str(uid) {
                headers.insert(name, value);
            }
        }
    }
}

/// What the classification reads of a request: who makes it, and what the real server's
/// request-info parser makes of its method and path.
pub struct Digest<'a> {
    /// The user the request acts as (after impersonation).
    pub user: &'a User,
    /// The parsed request.
    pub info: &'a RequestInfo,
    /// The request's path, for non-resource rules.
    pub path: &'a str,
}

/// The classification of a request, or `None` for the long-running requests the filter lets
/// through unclassified. Flow schemas are tried by `matchingPrecedence`, then name; one whose
/// priority level does not exist is skipped; the mandatory `exempt` and `catch-all` schemas and
/// levels are imagined (without a UID) when their objects are gone, as the real configuration
/// controller imagines them.
pub fn classify(api: &Api, digest: &Digest<'_>) -> Option<Classification> {
    if is_long_running(digest.info) {
        return None;
    }
    let (schemas, levels) = {
        let cluster = api.lock();
        let objects = |plural: &str| -> Vec<Arc<Value>> {
            let Some(def) = cluster
                .registry
                .all()
                .find(|d| d.group == GROUP && d.plural == plural && d.version == "v1")
            else {
                return Vec::new();
            };
            cluster
                .store
                .bucket(&def.storage_key)
                .into_iter()
                .flatten()
                .map(|(_, o)| Arc::clone(o))
                .collect()
        };
        (
            objects("flowschemas"),
            objects("prioritylevelconfigurations"),
        )
    };
    let level_uid = |name: &str| -> Option<String> {
        match levels.iter().find(|l| l["metadata"]["name"] == name) {
            Some(level) => Some(uid(level)),
            // The mandatory levels are imagined when gone.
            None if name == "exempt" || name == "catch-all" => Some(String::new()),
            None => None,
        }
    };
    let mut usable: Vec<(&Value, String)> = schemas
        .iter()
        .map(|s| &**s)
        .filter_map(|s| {
            let level = s["spec"]["priorityLevelConfiguration"]["name"].as_str()?;
            Some((s, level_uid(level)?))
        })
        .collect();
    usable.sort_by_key(|(s, _)| {
        (
            s["spec"]["matchingPrecedence"].as_i64().unwrap_or(1000),
            s["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    });
    let named = |name: &str| usable.iter().any(|(s, _)| s["metadata"]["name"] == name);
    let imagined = |name: &str| Classification {
        flow_schema_uid: String::new(),
        priority_level_uid: level_uid(name).unwrap_or_default(),
    };
    // A gone `exempt` schema is imagined first: it matches `system:masters`.
    if !named("exempt") && in_group(digest.user, "system:masters") {
        return Some(imagined("exempt"));
    }
    let matched = usable
        .iter()
        .find(|(s, _)| matches_schema(digest, s))
        .map(|(s, level)| Classification {
            flow_schema_uid: uid(s),
            priority_level_uid: level.clone(),
        });
    // A gone `catch-all` is imagined last: it matches every request.
    matched.or_else(|| (!named("catch-all")).then(|| imagined("catch-all")))
}

fn uid(object: &Value) -> String {
    object["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// kube-apiserver's long-running check: the `watch` and `proxy` verbs, and the `attach`,
/// `exec`, `proxy`, `log` and `portforward` subresources; watches are classified all the same.
fn is_long_running(info: &RequestInfo) -> bool {
    let subresource = info.resource.split_once('/').map(|(_, s)| s);
    info.verb == "proxy"
        || matches!(
            subresource,
            Some("attach" | "exec" | "proxy" | "log" | "portforward")
        )
}

fn in_group(user: &User, group: &str) -> bool {
    user.groups.iter().any(|g| g == group)
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether `x` is in `list`, or `list` is exactly the wildcard (a wildcard among other
/// entries is only itself, as the real matcher reads it).
fn contains(list: &[&str], x: &str, wildcard: &str) -> bool {
    list == [wildcard] || list.contains(&x)
}

fn matches_schema(digest: &Digest<'_>, schema: &Value) -> bool {
    schema["spec"]["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|rule| matches_rule(digest, rule))
}

fn matches_rule(digest: &Digest<'_>, rule: &Value) -> bool {
    let subjects = rule["subjects"].as_array().into_iter().flatten();
    if !subjects
        .into_iter()
        .any(|s| matches_subject(digest.user, s))
    {
        return false;
    }
    let info = digest.info;
    if info.resource.is_empty() {
        return rule["nonResourceRules"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| {
                contains(&strings(&r["verbs"]), &info.verb, "*")
                    && matches_url(&strings(&r["nonResourceURLs"]), digest.path)
            });
    }
    rule["resourceRules"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| {
            contains(&strings(&r["verbs"]), &info.verb, "*")
                && contains(&strings(&r["resources"]), &info.resource, "*")
                && contains(&strings(&r["apiGroups"]), &info.group, "*")
                && if info.namespace.is_empty() {
                    r["clusterScope"] == true
                } else {
                    contains(&strings(&r["namespaces"]), &info.namespace, "*")
                }
        })
}

fn matches_subject(user: &User, subject: &Value) -> bool {
    match subject["kind"].as_str() {
        Some("User") => subject["user"]["name"]
            .as_str()
            .is_some_and(|n| n == "*" || n == user.username),
        Some("Group") => subject["group"]["name"]
            .as_str()
            .is_some_and(|n| n == "*" || in_group(user, n)),
        Some("ServiceAccount") => {
            let account = &subject["serviceAccount"];
            let namespace = account["namespace"].as_str().unwrap_or_default();
            match account["name"].as_str() {
                None => false,
                Some("*") => user
                    .username
                    .strip_prefix("system:serviceaccount:")
                    .and_then(|rest| rest.strip_prefix(namespace))
                    .is_some_and(|rest| rest.starts_with(':')),
                Some(name) => user.username == format!("system:serviceaccount:{namespace}:{name}"),
            }
        }
        _ => false,
    }
}

/// A non-resource rule's URLs: `*`, the path itself, or a prefix ending in `/*` (or `*`),
/// which matches below it.
fn matches_url(urls: &[&str], path: &str) -> bool {
    urls.iter().any(|url| {
        if *url == "*" || *url == path {
            return true;
        }
        let prefix = url.strip_suffix('*').unwrap_or(url);
        let prefix = if prefix.ends_with('/') {
            prefix.to_string()
        } else {
            format!("{prefix}/")
        };
        path.starts_with(&prefix)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user(name: &str, groups: &[&str]) -> User {
        User {
            username: name.into(),
            uid: String::new(),
            groups: groups.iter().map(ToString::to_string).collect(),
            extra: Default::default(),
        }
    }

    #[test]
    fn subjects_match_as_the_real_matcher_reads_them() {
        let sa = user(
            "system:serviceaccount:kube-system:x",
            &["system:authenticated"],
        );
        let all_in = |ns: &str| json!({"kind": "ServiceAccount", "serviceAccount": {"namespace": ns, "name": "*"}});
        assert!(matches_subject(&sa, &all_in("kube-system")));
        assert!(!matches_subject(&sa, &all_in("kube")));
        let named = json!({"kind": "ServiceAccount", "serviceAccount": {"namespace": "kube-system", "name": "x"}});
        assert!(matches_subject(&sa, &named));
        assert!(matches_subject(
            &sa,
            &json!({"kind": "Group", "group": {"name": "system:authenticated"}})
        ));
        assert!(!matches_subject(
            &sa,
            &json!({"kind": "User", "user": {"name": "x"}})
        ));
        assert!(!matches_subject(&sa, &json!({"kind": "Group"})));
    }

    #[test]
    fn a_wildcard_counts_only_alone() {
        assert!(contains(&["*"], "get", "*"));
        assert!(!contains(&["*", "list"], "get", "*"));
        assert!(contains(&["*", "get"], "get", "*"));
    }

    #[test]
    fn non_resource_urls_match_a_prefix_below_a_star() {
        assert!(matches_url(&["/healthz"], "/healthz"));
        assert!(matches_url(&["/healthz/*"], "/healthz/etcd"));
        assert!(!matches_url(&["/healthz"], "/healthzx"));
        assert!(matches_url(&["/healthz"], "/healthz/etcd"));
        assert!(matches_url(&["*"], "/version"));
    }

    #[test]
    fn only_watches_of_the_long_running_requests_are_classified() {
        let info = |verb: &str, resource: &str| RequestInfo {
            verb: verb.into(),
            group: String::new(),
            resource: resource.into(),
            namespace: "n".into(),
            name: "p".into(),
        };
        assert!(!is_long_running(&info("watch", "pods")));
        assert!(is_long_running(&info("get", "pods/log")));
        assert!(is_long_running(&info("create", "pods/exec")));
        assert!(is_long_running(&info("proxy", "services")));
        assert!(!is_long_running(&info("get", "pods/status")));
    }
}
