//! What the PodSecurity checks read of a pod (or a pod template): its containers in the
//! order the policy visits them, the optional fields of its security contexts as Go sees
//! them (a null is an unset pointer), and the shape of a check's answer.

use serde_json::Value;

/// The pod a check evaluates: its metadata (annotations) and its spec, as JSON.
#[derive(Clone, Copy)]
pub struct Pod<'a> {
    /// `metadata` of the pod or of the template.
    pub meta: &'a Value,
    /// `spec` of the pod or of the template.
    pub spec: &'a Value,
}

/// What one check refuses: the short reason (`host namespaces`) and its detail
/// (`hostNetwork=true`), empty when there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The forbidden reason, listed alone in the warnings of a namespace's new level.
    pub reason: String,
    /// What exactly is forbidden, written after the reason in parentheses.
    pub detail: String,
}

impl Violation {
    /// A violation with its reason and detail.
    pub fn new(reason: impl Into<String>, detail: impl Into<String>) -> Self {
        Violation {
            reason: reason.into(),
            detail: detail.into(),
        }
    }
}

impl<'a> Pod<'a> {
    /// Every container, init containers first, then the regular ones, then the ephemeral
    /// ones: the order the policy names them in.
    pub fn containers(self) -> impl Iterator<Item = &'a Value> {
        ["initContainers", "containers", "ephemeralContainers"]
            .into_iter()
            .flat_map(move |list| self.spec[list].as_array().into_iter().flatten())
    }

    /// The pod-level `securityContext` field at `path`, when set (not null).
    pub fn security(self, path: &[&str]) -> Option<&'a Value> {
        field(&self.spec["securityContext"], path)
    }

    /// Whether the pod says it runs on Windows (`spec.os.name: windows`).
    pub fn is_windows(self) -> bool {
        self.spec["os"]["name"].as_str() == Some("windows")
    }

    /// The pod's (or template's) annotations, sorted by key.
    pub fn annotations(self) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.meta["annotations"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| v.as_str().map(|v| (k.as_str(), v)))
    }

    /// The annotation `key`, when set.
    pub fn annotation(self, key: &str) -> Option<&'a str> {
        self.meta["annotations"][key].as_str()
    }
}

/// A container's name.
pub fn name(container: &Value) -> &str {
    container["name"].as_str().unwrap_or_default()
}

/// The container's `securityContext` field at `path`, when set (not null).
pub fn container_security<'a>(container: &'a Value, path: &[&str]) -> Option<&'a Value> {
    field(&container["securityContext"], path)
}

/// The field of `value` at `path`, when every step is set (not null).
pub fn field<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut at = value;
    for step in path {
        at = at.get(step)?;
    }
    (!at.is_null()).then_some(at)
}

/// A string field at `path`, empty when unset (Go's zero value).
pub fn text<'a>(value: &'a Value, path: &[&str]) -> &'a str {
    field(value, path)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Each item between double quotes, joined by `, ` (the policy's `joinQuote`).
pub fn join_quote<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let quoted: Vec<String> = items
        .into_iter()
        .map(|s| format!("\"{}\"", s.as_ref()))
        .collect();
    quoted.join(", ")
}

/// `singular` for one, `plural` otherwise.
pub fn pluralize<'s>(singular: &'s str, plural: &'s str, count: usize) -> &'s str {
    if count == 1 { singular } else { plural }
}

/// `container "a"` or `containers "a", "b"`.
pub fn containers_phrase<S: AsRef<str>>(names: &[S]) -> String {
    format!(
        "{} {}",
        pluralize("container", "containers", names.len()),
        join_quote(names.iter())
    )
}
