//! Query-string parsing and the request options the handlers read from it.

use std::collections::HashMap;
use std::sync::Arc;

use super::go_decode::Decoding;
use super::user::User;

/// Decoded query parameters (last value wins; [`Query::values`] gives every value of a
/// repeated one), plus internal flags no URL can set.
#[derive(Debug, Clone, Default)]
pub struct Query(HashMap<String, String>, Internal, Vec<(String, String)>);

/// Flags the server sets on the requests it makes to itself.
#[derive(Debug, Clone, Default)]
struct Internal {
    /// Who made the request (set once it is authenticated): what admission sees as
    /// `request.userInfo`.
    requester: Option<Arc<User>>,
    /// Admission stops before validation (after defaulting): the object mutating webhooks see.
    stop_before_validation: bool,
    /// Admission stops before ResourceQuota, the last validating plugin: the object
    /// validating webhooks see, which a later run checks against the quotas.
    stop_before_quota: bool,
    /// The body's managedFields were computed by the server (an apply or a field-managed
    /// write replayed after webhooks or conversion): store them as they are.
    managed_fields_computed: bool,
    /// What decoding the body found that its parsed value no longer shows (duplicate
    /// fields, a value of the wrong Go type).
    decoding: Option<Arc<Decoding>>,
    /// The stored object converted by its CRD's webhook to the version the write is in,
    /// when it was stored in another version: what the update compares with.
    converted_old: Option<Arc<serde_json::Value>>,
    /// The body was admitted (pruned, defaulted, validated) in the version the client
    /// addressed and converted to the storage version: it is not admitted again there.
    admitted_elsewhere: bool,
    /// The admission webhooks ran for this request already, in the version it addressed
    /// (a custom resource converted by its CRD's webhook): its inner requests skip them.
    webhooks_done: bool,
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Query {
    /// Parses `a=b&c=d` (percent-decoded).
    pub fn parse(raw: Option<&str>) -> Self {
        let mut map = HashMap::new();
        let mut pairs = Vec::new();
        for pair in raw.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (k, v) = (percent_decode(k), percent_decode(v));
            pairs.push((k.clone(), v.clone()));
            map.insert(k, v);
        }
        Query(map, Internal::default(), pairs)
    }

    /// Sets a parameter (requests the server makes to itself).
    pub fn set(&mut self, key: &str, value: &str) {
        self.0.insert(key.to_string(), value.to_string());
        self.2.retain(|(k, _)| k != key);
        self.2.push((key.to_string(), value.to_string()));
    }

    /// Every value of a parameter, in the order of the query (`command=ls&command=-l`).
    pub fn values(&self, key: &str) -> Vec<&str> {
        self.2
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Makes admission stop after defaulting, before any validation: the first phase of a
    /// write with mutating webhooks. Not reachable from a URL.
    pub fn stop_before_validation(mut self) -> Self {
        self.1.stop_before_validation = true;
        self
    }

    /// Whether admission stops before validation (see [`Query::stop_before_validation`]).
    pub fn stops_before_validation(&self) -> bool {
        self.1.stop_before_validation
    }

    /// Makes admission stop before ResourceQuota, the validating plugin that comes after the
    /// validating webhooks: the run whose object those webhooks see. Not reachable from a URL.
    pub fn stop_before_quota(mut self) -> Self {
        self.1.stop_before_quota = true;
        self
    }

    /// Whether admission stops before ResourceQuota (see [`Query::stop_before_quota`]).
    pub fn stops_before_quota(&self) -> bool {
        self.1.stop_before_quota
    }

    /// Marks a replayed write whose body carries managedFields the server already computed
    /// (a dry-run result re-submitted after webhooks, or an apply made in another version):
    /// they are stored as sent instead of being recomputed as an update. Not reachable
    /// from a URL.
    pub fn managed_fields_computed(mut self) -> Self {
        self.1.managed_fields_computed = true;
        self
    }

    /// Whether the body's managedFields are stored as sent (see
    /// [`Query::managed_fields_computed`]).
    pub fn has_computed_managed_fields(&self) -> bool {
        self.1.managed_fields_computed
    }

    /// Records what decoding the request body found (duplicate fields, a value of the
    /// wrong type), for admission to report as the real decoder does. Not reachable from a
    /// URL.
    pub fn set_decoding(&mut self, decoding: Decoding) {
        self.1.decoding = (!decoding.is_empty()).then(|| Arc::new(decoding));
    }

    /// Carries the stored object as converted for the write (see `Internal::converted_old`).
    pub fn with_converted_old(mut self, old: serde_json::Value) -> Self {
        self.1.converted_old = Some(Arc::new(old));
        self
    }

    /// The stored object as converted for the write, if the write carries it.
    pub fn converted_old(&self) -> Option<&Arc<serde_json::Value>> {
        self.1.converted_old.as_ref()
    }

    /// Marks the body as admitted in another version (see `Internal::admitted_elsewhere`).
    pub fn admitted_elsewhere(mut self) -> Self {
        self.1.admitted_elsewhere = true;
        self
    }

    /// Whether the body was admitted in another version already.
    pub fn was_admitted_elsewhere(&self) -> bool {
        self.1.admitted_elsewhere
    }

    /// Marks the admission webhooks as run (see `Internal::webhooks_done`).
    pub fn webhooks_done(mut self) -> Self {
        self.1.webhooks_done = true;
        self
    }

    /// Whether the admission webhooks ran for this request already.
    pub fn has_run_webhooks(&self) -> bool {
        self.1.webhooks_done
    }

    /// What decoding the request body found (see [`Query::set_decoding`]).
    pub fn decoding(&self) -> Option<&Decoding> {
        self.1.decoding.as_deref()
    }

    /// Records who makes the request (authentication does). Not reachable from a URL.
    pub fn set_requester(&mut self, user: User) {
        self.1.requester = Some(Arc::new(user));
    }

    /// Who makes the request, if it was authenticated (requests the server makes for its
    /// controllers have no requester).
    pub fn requester(&self) -> Option<&User> {
        self.1.requester.as_deref()
    }

    /// A parameter's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// A parameter read as a boolean as the real server's query decoder reads one: its first
    /// value is false when it is `0` or `false` in any case, true otherwise (empty, `f`, `no`
    /// and any other text included: a bad value is never an error); absent, it is false.
    pub fn flag(&self, key: &str) -> bool {
        self.2
            .iter()
            .find(|(k, _)| k == key)
            .is_some_and(|(_, v)| v != "0" && !v.eq_ignore_ascii_case("false"))
    }

    /// Whether `dryRun=All` was asked for.
    pub fn dry_run(&self) -> bool {
        self.get("dryRun") == Some("All")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_value_of_a_repeated_parameter() {
        let mut q = Query::parse(Some("command=ls&command=-l&x=1&command=%2Ftmp"));
        assert_eq!(q.values("command"), ["ls", "-l", "/tmp"]);
        assert_eq!(q.get("command"), Some("/tmp"));
        assert!(q.values("y").is_empty());
        q.set("command", "echo");
        assert_eq!(q.values("command"), ["echo"]);
    }

    #[test]
    fn reads_booleans_as_the_real_query_decoder() {
        for value in ["true", "1", "", "f", "F", "no", "abc", "2"] {
            assert!(
                Query::parse(Some(&format!("watch={value}"))).flag("watch"),
                "{value}"
            );
        }
        for value in ["0", "false", "FALSE", "False"] {
            assert!(
                !Query::parse(Some(&format!("watch={value}"))).flag("watch"),
                "{value}"
            );
        }
        assert!(Query::parse(Some("watch=true&watch=false")).flag("watch"));
        assert!(!Query::parse(Some("watch=false&watch=true")).flag("watch"));
    }

    #[test]
    fn decodes() {
        let q = Query::parse(Some("labelSelector=app%3Dweb%2Ctier+in+%28a%29&watch=1&x"));
        assert_eq!(q.get("labelSelector"), Some("app=web,tier in (a)"));
        assert!(q.flag("watch"));
        assert_eq!(q.get("x"), Some(""));
        assert!(q.flag("x"));
        assert!(!q.flag("y"));
        assert!(!q.stops_before_validation());
        assert!(!Query::parse(Some("stop_before_validation=true")).stops_before_validation());
        assert!(q.stop_before_validation().stops_before_validation());
    }
}
