//! Impersonation, as kube-apiserver's impersonation filter does it after authentication: the
//! `Impersonate-User`, `Impersonate-Group` (repeatable), `Impersonate-Uid` and
//! `Impersonate-Extra-<key>` headers ask to act as another user; the requester must be
//! allowed to `impersonate` each part (`users` or `serviceaccounts`, `groups`,
//! `userextras/<key>` and `uids` of `authentication.k8s.io`), and the request is then served
//! as the user the headers describe. Asking for groups, extras or a uid without a user is
//! the real server's plain-text 500.

use std::collections::BTreeMap;

use http::HeaderMap;
use serde_json::Value;

use super::authz;
use super::rbac::Attributes;
use super::state::Api;
use crate::support::go_quote::go_quote;
use crate::support::meta;
use crate::support::request::Reply;
use crate::support::status::ApiError;
use crate::support::user::User;

const USER: &str = "impersonate-user";
const GROUP: &str = "impersonate-group";
const UID: &str = "impersonate-uid";
const EXTRA: &str = "impersonate-extra-";
const AUTHENTICATION: &str = "authentication.k8s.io";

/// What the impersonation headers of a request ask for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Requested {
    /// The first `Impersonate-User` value; empty: no user asked for.
    user: String,
    /// Every `Impersonate-Group` value, in order (an empty one counts).
    groups: Vec<String>,
    /// The first `Impersonate-Uid` value; empty: none.
    uid: String,
    /// `Impersonate-Extra-<key>` values by header (lowercase, as sent), each with its key
    /// (percent-decoded when it decodes) and its values in order.
    extras: BTreeMap<String, (String, Vec<String>)>,
    /// The request-target as sent, which the refusal of a request without a user quotes.
    request_uri: String,
}

/// Why a request may not act as the user its headers describe.
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    /// Groups, extras or a uid without a user: the real server's internal error, whose text
    /// lists what was asked for.
    WithoutUser(String),
    /// The requester may not impersonate one of the parts (403).
    Forbidden(ApiError),
}

impl Refused {
    /// The answer: a 403 `Status`, or the plain-text 500 of Go's `http.Error`.
    pub fn into_reply(self) -> Reply {
        match self {
            Refused::Forbidden(e) => Reply::error(e),
            Refused::WithoutUser(text) => Reply::Json {
                code: 500,
                body: Value::String(text),
                content_type: "text/plain; charset=utf-8".into(),
                warnings: Vec::new(),
            },
        }
    }
}

/// `%XX` sequences decoded as Go's `url.PathUnescape` decodes them; `None` when one is
/// malformed.
fn path_unescape(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

impl Requested {
    /// The impersonation headers of a request to `request_uri`.
    pub fn from_headers(headers: &HeaderMap, request_uri: &str) -> Self {
        let text = |v: &http::HeaderValue| String::from_utf8_lossy(v.as_bytes()).into_owned();
        let first = |name: &str| headers.get(name).map(text).unwrap_or_default();
        let mut extras = BTreeMap::new();
        for name in headers.keys() {
            // Header names are lowercase here, as Go lowercases the key it takes.
            let Some(encoded) = name.as_str().strip_prefix(EXTRA) else {
                continue;
            };
            let key = path_unescape(encoded).unwrap_or_else(|| encoded.to_string());
            let values = headers.get_all(name).iter().map(text).collect();
            extras.insert(encoded.to_string(), (key, values));
        }
        Requested {
            user: first(USER),
            groups: headers.get_all(GROUP).iter().map(text).collect(),
            uid: first(UID),
            extras,
            request_uri: request_uri.to_string(),
        }
    }

    /// Whether the request asks to impersonate anything.
    pub fn is_empty(&self) -> bool {
        self.user.is_empty()
            && self.groups.is_empty()
            && self.uid.is_empty()
            && self.extras.is_empty()
    }

    /// The parts without a user as Go prints the `ObjectReference`s it built (`%v`).
    fn describe_without_user(&self) -> String {
        let reference = |kind: &str, name: &str, api_version: &str, field: &str| {
            format!("{{{kind}  {name}  {api_version}  {field}}}")
        };
        let mut parts: Vec<String> = self
            .groups
            .iter()
            .map(|g| reference("Group", g, "", ""))
            .collect();
        for (key, values) in self.extras.values() {
            for v in values {
                parts.push(reference("UserExtra", v, "authentication.k8s.io/v1", key));
            }
        }
        if !self.uid.is_empty() {
            parts.push(reference("UID", &self.uid, "authentication.k8s.io/v1", ""));
        }
        format!("[{}]", parts.join(" "))
    }
}

/// The service account a user name stands for (`system:serviceaccount:<ns>:<name>` with a
/// valid namespace and name), as Go's `serviceaccount.SplitUsername` reads it.
fn service_account(username: &str) -> Option<(&str, &str)> {
    let rest = username.strip_prefix("system:serviceaccount:")?;
    let (ns, name) = rest.split_once(':')?;
    let valid = meta::dns1123_label(ns).is_empty()
        && meta::dns1123_subdomain(name).is_empty()
        && !name.contains(':');
    valid.then_some((ns, name))
}

/// The attributes of impersonating one part.
fn impersonating(group: &str, resource: &str, namespace: &str, name: &str) -> Attributes {
    Attributes {
        verb: "impersonate".into(),
        group: group.into(),
        resource: resource.into(),
        namespace: namespace.into(),
        name: name.into(),
        ..Attributes::default()
    }
}

/// The user `requester` acts as: itself without impersonation headers, otherwise the user
/// they describe, once the requester may impersonate each part (user or service account,
/// groups, extras, uid, in that order).
pub fn act_as(api: &Api, requester: &User, requested: &Requested) -> Result<User, Refused> {
    if requested.is_empty() {
        return Ok(requester.clone());
    }
    if requested.user.is_empty() {
        let text = format!(
            "Internal Server Error: {}: requested {} without impersonating a user",
            go_quote(&requested.request_uri),
            requested.describe_without_user()
        );
        let sanitized = text
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        return Err(Refused::WithoutUser(format!("{sanitized}\n")));
    }
    let groups_given = !requested.groups.is_empty();
    let mut user = User {
        username: requested.user.clone(),
        ..User::default()
    };
    let check = |a: Attributes| authz::check(api, requester, &a).map_err(Refused::Forbidden);
    match service_account(&requested.user) {
        Some((ns, name)) => {
            check(impersonating("", "serviceaccounts", ns, name))?;
            if !groups_given {
                user.groups = vec![
                    "system:serviceaccounts".into(),
                    format!("system:serviceaccounts:{ns}"),
                ];
            }
        }
        None => check(impersonating("", "users", "", &requested.user))?,
    }
    for group in &requested.groups {
        check(impersonating("", "groups", "", group))?;
        user.groups.push(group.clone());
    }
    for (key, values) in requested.extras.values() {
        for value in values {
            let mut a = impersonating(AUTHENTICATION, "userextras", "", value);
            a.subresource = key.clone();
            check(a)?;
            user.extra
                .entry(key.clone())
                .or_default()
                .push(value.clone());
        }
    }
    if !requested.uid.is_empty() {
        check(impersonating(AUTHENTICATION, "uids", "", &requested.uid))?;
        user.uid = requested.uid.clone();
    }
    // Who is not anonymous is authenticated, unless the groups say otherwise.
    let (implied, unless) = if user.username == "system:anonymous" {
        ("system:unauthenticated", &["system:unauthenticated"][..])
    } else {
        (
            "system:authenticated",
            &["system:authenticated", "system:unauthenticated"][..],
        )
    };
    if !user.groups.iter().any(|g| unless.contains(&g.as_str())) {
        user.groups.push(implied.into());
    }
    Ok(user)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                http::header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                http::HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn headers_are_read_as_go_reads_them() {
        let r = Requested::from_headers(
            &headers(&[
                ("Impersonate-User", "alice"),
                ("Impersonate-Group", "g1"),
                ("Impersonate-Group", "g2"),
                ("Impersonate-Extra-Foo%2fBar", "v1"),
                ("Impersonate-Extra-Foo%2fBar", "v2"),
                ("Impersonate-Extra-%zz", "x"),
            ]),
            "/api",
        );
        assert_eq!(r.user, "alice");
        assert_eq!(r.groups, ["g1", "g2"]);
        assert_eq!(
            r.extras.values().cloned().collect::<Vec<_>>(),
            [
                ("%zz".to_string(), vec!["x".to_string()]),
                (
                    "foo/bar".to_string(),
                    vec!["v1".to_string(), "v2".to_string()]
                ),
            ]
        );
        assert!(Requested::from_headers(&HeaderMap::new(), "/").is_empty());
    }

    #[test]
    fn parts_without_a_user_print_as_go_prints_them() {
        let r = Requested::from_headers(
            &headers(&[
                ("Impersonate-Group", "g"),
                ("Impersonate-Extra-A", "v"),
                ("Impersonate-Uid", "u"),
            ]),
            "/x?a=1&b=2",
        );
        assert_eq!(
            r.describe_without_user(),
            "[{Group  g    } {UserExtra  v  authentication.k8s.io/v1  a} {UID  u  authentication.k8s.io/v1  }]"
        );
    }

    #[test]
    fn service_account_names_are_split_as_go_splits_them() {
        assert_eq!(
            service_account("system:serviceaccount:ns1:sa"),
            Some(("ns1", "sa"))
        );
        assert_eq!(service_account("system:serviceaccount:ns1"), None);
        assert_eq!(service_account("system:serviceaccount:ns1:a:b"), None);
        assert_eq!(service_account("system:serviceaccount:NS:x"), None);
        assert_eq!(service_account("alice"), None);
    }
}
