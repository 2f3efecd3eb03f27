//! Which requests and watch events a fault applies to: a [`Matcher`] over the request's
//! attributes, derived from the HTTP request as kube-apiserver's `RequestInfoFactory` does.

/// The attributes of one API request, as kube-apiserver's `RequestInfo` names them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestInfo {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`
    /// (the lower-cased HTTP method for paths that name no resource).
    pub verb: String,
    /// API group, empty for the core group.
    pub group: String,
    /// Plural resource, with `/<subresource>` appended for subresources (`pods/status`);
    /// empty for paths that name no resource (discovery, `/version`).
    pub resource: String,
    /// Namespace of the request (for a Namespace object, its own name, as the real server).
    pub namespace: String,
    /// Object name; for lists and watches, the name a `metadata.name=` field selector pins.
    pub name: String,
}

impl RequestInfo {
    /// Derives the attributes from method, path and query parameters (`watch`,
    /// `fieldSelector`), following kube-apiserver's `RequestInfoFactory`.
    pub fn parse(
        method: &http::Method,
        path: &str,
        watch_param: bool,
        field_selector: Option<&str>,
    ) -> RequestInfo {
        let mut info = RequestInfo {
            verb: method.as_str().to_ascii_lowercase(),
            ..RequestInfo::default()
        };
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let mut rest: &[&str] = match parts.as_slice() {
            ["api", _version, rest @ ..] => rest,
            ["apis", group, _version, rest @ ..] => {
                info.group = group.to_string();
                rest
            }
            _ => return info,
        };
        if rest.is_empty() || rest == [""] {
            return info;
        }
        info.verb = match *method {
            http::Method::POST => "create",
            http::Method::GET | http::Method::HEAD => "get",
            http::Method::PUT => "update",
            http::Method::PATCH => "patch",
            http::Method::DELETE => "delete",
            _ => info.verb.as_str(),
        }
        .to_string();
        let mut legacy_watch = false;
        if rest.first() == Some(&"watch") {
            legacy_watch = true;
            rest = &rest[1..];
        }
        if rest.first() == Some(&"namespaces") && rest.len() > 1 {
            info.namespace = rest[1].to_string();
            // `/namespaces/<ns>/<resource>...` addresses a namespaced resource; otherwise
            // (`/namespaces/<name>[/status|/finalize]`) the Namespace object itself.
            if rest.len() > 2 && !matches!(rest[2], "status" | "finalize") {
                rest = &rest[2..];
            }
        }
        if let Some(resource) = rest.first() {
            info.resource = resource.to_string();
        }
        if let Some(name) = rest.get(1) {
            info.name = name.to_string();
        }
        if let Some(sub) = rest.get(2) {
            info.resource = format!("{}/{sub}", info.resource);
        }
        if legacy_watch {
            info.verb = "watch".into();
        } else if info.name.is_empty() && info.verb == "get" {
            info.verb = if watch_param { "watch" } else { "list" }.into();
        } else if info.name.is_empty() && info.verb == "delete" {
            info.verb = "deletecollection".into();
        }
        if info.name.is_empty()
            && matches!(info.verb.as_str(), "list" | "watch")
            && let Some(name) = field_selector.and_then(exact_name)
        {
            info.name = name;
        }
        info
    }
}

/// The name a field selector pins with `metadata.name=<name>` (or `==`), if any.
fn exact_name(selector: &str) -> Option<String> {
    let parsed = crate::support::selector::field::FieldSelector::parse(selector).ok()?;
    parsed.equals("metadata.name").map(str::to_string)
}

/// Selects requests (and watch events) by verb, resource, group, namespace and name; every
/// attribute left unset matches anything.
///
/// ```
/// use kubeforge_testenv::faults::Matcher;
/// let m = Matcher::any().verb("list").resource("configmaps").namespace("default");
/// # let _ = m;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Matcher {
    verb: Option<String>,
    resource: Option<String>,
    group: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
}

impl Matcher {
    /// Matches every request.
    pub fn any() -> Matcher {
        Matcher::default()
    }

    /// Only this verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
    /// `deletecollection`.
    #[must_use]
    pub fn verb(mut self, verb: impl Into<String>) -> Matcher {
        self.verb = Some(verb.into());
        self
    }

    /// Only this plural resource; a subresource is `pods/status` (and is not matched by
    /// `pods`, as in RBAC).
    #[must_use]
    pub fn resource(mut self, resource: impl Into<String>) -> Matcher {
        self.resource = Some(resource.into());
        self
    }

    /// Only this API group (`""` for the core group).
    #[must_use]
    pub fn group(mut self, group: impl Into<String>) -> Matcher {
        self.group = Some(group.into());
        self
    }

    /// Only requests in this namespace.
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Matcher {
        self.namespace = Some(namespace.into());
        self
    }

    /// Only requests for the object of this name (lists and watches pinned to it with a
    /// `metadata.name` field selector count).
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Matcher {
        self.name = Some(name.into());
        self
    }

    /// Whether a request with these attributes is selected.
    pub fn matches(&self, info: &RequestInfo) -> bool {
        let ok = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        ok(&self.verb, &info.verb)
            && ok(&self.resource, &info.resource)
            && ok(&self.group, &info.group)
            && ok(&self.namespace, &info.namespace)
            && ok(&self.name, &info.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::Method;

    fn info(method: Method, path: &str, watch: bool, fs: Option<&str>) -> RequestInfo {
        RequestInfo::parse(&method, path, watch, fs)
    }

    fn summary(i: &RequestInfo) -> String {
        format!(
            "{} {}|{} ns={} name={}",
            i.verb, i.group, i.resource, i.namespace, i.name
        )
    }

    #[test]
    fn verbs_and_attributes_follow_request_info() {
        let cases = [
            (
                Method::GET,
                "/api/v1/namespaces/default/configmaps",
                false,
                None,
                "list |configmaps ns=default name=",
            ),
            (
                Method::GET,
                "/api/v1/namespaces/default/configmaps",
                true,
                None,
                "watch |configmaps ns=default name=",
            ),
            (
                Method::GET,
                "/api/v1/namespaces/default/configmaps",
                true,
                Some("metadata.name=x"),
                "watch |configmaps ns=default name=x",
            ),
            (
                Method::GET,
                "/api/v1/namespaces/default/configmaps/x",
                false,
                None,
                "get |configmaps ns=default name=x",
            ),
            (
                Method::POST,
                "/api/v1/namespaces/default/configmaps",
                false,
                None,
                "create |configmaps ns=default name=",
            ),
            (
                Method::PUT,
                "/api/v1/namespaces/default/pods/p/status",
                false,
                None,
                "update |pods/status ns=default name=p",
            ),
            (
                Method::PATCH,
                "/apis/apps/v1/namespaces/a/deployments/d/scale",
                false,
                None,
                "patch apps|deployments/scale ns=a name=d",
            ),
            (
                Method::DELETE,
                "/apis/apps/v1/namespaces/a/deployments/d",
                false,
                None,
                "delete apps|deployments ns=a name=d",
            ),
            (
                Method::DELETE,
                "/apis/apps/v1/namespaces/a/deployments",
                false,
                None,
                "deletecollection apps|deployments ns=a name=",
            ),
            (
                Method::GET,
                "/api/v1/namespaces/foo",
                false,
                None,
                "get |namespaces ns=foo name=foo",
            ),
            (
                Method::PUT,
                "/api/v1/namespaces/foo/finalize",
                false,
                None,
                "update |namespaces/finalize ns=foo name=foo",
            ),
            (
                Method::GET,
                "/api/v1/namespaces",
                false,
                None,
                "list |namespaces ns= name=",
            ),
            (
                Method::GET,
                "/api/v1/watch/namespaces/default/pods",
                false,
                None,
                "watch |pods ns=default name=",
            ),
            (
                Method::GET,
                "/apis/test.dev/v1/widgets",
                false,
                Some("status.phase!=x,metadata.name==w"),
                "list test.dev|widgets ns= name=w",
            ),
            (
                Method::GET,
                "/apis/test.dev/v1/widgets",
                false,
                Some("metadata.name!=w"),
                "list test.dev|widgets ns= name=",
            ),
            (
                Method::GET,
                "/api/v1/namespaces/default/configmaps",
                false,
                Some("metadata.namespace=default"),
                "list |configmaps ns=default name=",
            ),
            (Method::GET, "/version", false, None, "get | ns= name="),
            (
                Method::GET,
                "/apis/apps/v1",
                false,
                None,
                "get apps| ns= name=",
            ),
        ];
        for (method, path, watch, fs, want) in cases {
            assert_eq!(summary(&info(method, path, watch, fs)), want, "{path}");
        }
    }

    #[test]
    fn unset_attributes_match_anything() {
        let i = info(
            Method::PATCH,
            "/api/v1/namespaces/default/configmaps/x",
            false,
            None,
        );
        assert!(Matcher::any().matches(&i));
        assert!(
            Matcher::any()
                .verb("patch")
                .resource("configmaps")
                .group("")
                .namespace("default")
                .name("x")
                .matches(&i)
        );
        assert!(!Matcher::any().verb("update").matches(&i));
        assert!(!Matcher::any().group("apps").matches(&i));
        assert!(!Matcher::any().name("y").matches(&i));
        let status = info(
            Method::PATCH,
            "/api/v1/namespaces/default/pods/p/status",
            false,
            None,
        );
        assert!(!Matcher::any().resource("pods").matches(&status));
        assert!(Matcher::any().resource("pods/status").matches(&status));
    }
}
