//! Webhook configurations as the dispatcher sees them: the stored Mutating- and
//! ValidatingWebhookConfigurations read into [`Hook`]s (sorted by configuration name, then
//! in order), and the matching of a request against their rules, namespaceSelector and
//! objectSelector.

use std::sync::Arc;
use std::time::Duration;

use crate::support::selector::label::LabelSelector;
use serde_json::Value;

use crate::storage::Store;
use crate::support::resource::ResourceDef;

/// Storage key of MutatingWebhookConfigurations.
pub const MUTATING_KEY: &str = "admissionregistration.k8s.io/mutatingwebhookconfigurations";
/// Storage key of ValidatingWebhookConfigurations.
pub const VALIDATING_KEY: &str = "admissionregistration.k8s.io/validatingwebhookconfigurations";

/// An admission operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// POST, or an apply patch that creates.
    Create,
    /// PUT and PATCH.
    Update,
    /// DELETE.
    Delete,
    /// A connection through a subresource: `pods/exec`, `pods/attach`, `pods/portforward`
    /// and the `pods`, `services` and `nodes` proxies.
    Connect,
}

impl Operation {
    /// The name used in rules and reviews.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
        }
    }
}

/// One `rules` entry.
#[derive(Debug, Clone, Default)]
pub struct Rule {
    operations: Vec<String>,
    api_groups: Vec<String>,
    api_versions: Vec<String>,
    resources: Vec<String>,
    scope: String,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

impl Rule {
    /// Reads one `rules` (or `resourceRules`) entry.
    pub fn parse(v: &Value) -> Self {
        Rule {
            operations: strings(&v["operations"]),
            api_groups: strings(&v["apiGroups"]),
            api_versions: strings(&v["apiVersions"]),
            resources: strings(&v["resources"]),
            scope: v["scope"].as_str().unwrap_or("*").to_string(),
        }
    }

    /// Whether the rule covers the operation.
    pub fn matches_operation(&self, op: Operation) -> bool {
        self.operations.iter().any(|o| o == "*" || o == op.as_str())
    }

    /// Whether the rule covers a group/version/resource/subresource of the given scope.
    pub fn matches_resource(&self, def: &ResourceDef, subresource: Option<&str>) -> bool {
        let listed = |list: &[String], v: &str| list.iter().any(|x| x == "*" || x == v);
        if !listed(&self.api_groups, &def.group) || !listed(&self.api_versions, &def.version) {
            return false;
        }
        let scope_ok = match self.scope.as_str() {
            "Cluster" => !def.namespaced,
            "Namespaced" => def.namespaced,
            _ => true,
        };
        scope_ok
            && self.resources.iter().any(|r| {
                if r == "*/*" {
                    return true;
                }
                let (res, sub) = match r.split_once('/') {
                    Some((res, sub)) => (res, Some(sub)),
                    None => (r.as_str(), None),
                };
                let res_ok = res == "*" || res == def.plural;
                let sub_ok = match (sub, subresource) {
                    (None, None) => true,
                    (None, Some(_)) | (Some(_), None) => false,
                    (Some(want), Some(have)) => want == "*" || want == have,
                };
                res_ok && sub_ok
            })
    }
}

/// One webhook of a configuration, with the server's defaults applied.
#[derive(Debug, Clone)]
pub struct Hook {
    /// `webhooks[].name`
    pub name: String,
    /// `clientConfig`
    pub client_config: Value,
    rules: Vec<Rule>,
    /// `failurePolicy: Ignore` (the default is Fail).
    pub ignore_failures: bool,
    /// `matchPolicy: Equivalent` (the default).
    pub match_equivalent: bool,
    namespace_selector: Value,
    object_selector: Value,
    /// `sideEffects`
    pub side_effects: String,
    /// `timeoutSeconds` (default 10).
    pub timeout: Duration,
    /// `reinvocationPolicy: IfNeeded` (mutating only).
    pub reinvoke: bool,
    /// `matchConditions`: (name, CEL expression), all of which must hold for a call.
    pub match_conditions: Vec<(String, String)>,
}

impl Hook {
    /// Reads one `webhooks[]` entry (defaults for absent fields as the server sets them).
    pub fn parse(v: &Value) -> Self {
        Hook {
            name: v["name"].as_str().unwrap_or_default().to_string(),
            client_config: v["clientConfig"].clone(),
            rules: v["rules"]
                .as_array()
                .into_iter()
                .flatten()
                .map(Rule::parse)
                .collect(),
            ignore_failures: v["failurePolicy"].as_str() == Some("Ignore"),
            match_equivalent: v["matchPolicy"].as_str() != Some("Exact"),
            namespace_selector: v["namespaceSelector"].clone(),
            object_selector: v["objectSelector"].clone(),
            side_effects: v["sideEffects"].as_str().unwrap_or("Unknown").to_string(),
            timeout: Duration::from_secs(v["timeoutSeconds"].as_u64().unwrap_or(10).clamp(1, 30)),
            reinvoke: v["reinvocationPolicy"].as_str() == Some("IfNeeded"),
            match_conditions: v["matchConditions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    (
                        c["name"].as_str().unwrap_or_default().to_string(),
                        c["expression"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect(),
        }
    }

    /// Whether the webhook's `matchConditions` hold for the AdmissionReview request `request`
    /// builds (its `object`, `oldObject` and the request itself); `Ok(false)` as soon as one
    /// is false, otherwise `Err` when some could not be evaluated (the failure policy
    /// decides), with the real server's wording: `expression '<src>' resulted in error:
    /// <why>`, several joined as Go's error aggregate (`[a, b]`). A webhook without
    /// conditions holds without the request being built or converted for CEL. `authorizer`
    /// gives the `authorizer` variables (unbound without them).
    pub fn conditions_hold(
        &self,
        request: impl FnOnce() -> Value,
        authorizer: impl FnOnce() -> Option<[(&'static str, cel::Value); 2]>,
    ) -> Result<bool, String> {
        use crate::registry::schema::{CelError, compile_expression, eval_expression, json_to_cel};
        if self.match_conditions.is_empty() {
            return Ok(true);
        }
        let request = request();
        let mut vars = vec![
            ("object", json_to_cel(&request["object"])),
            ("oldObject", json_to_cel(&request["oldObject"])),
            ("request", json_to_cel(&request)),
        ];
        if self
            .match_conditions
            .iter()
            .any(|(_, src)| src.contains("authorizer"))
        {
            vars.extend(authorizer().into_iter().flatten());
        }
        let mut errors: Vec<String> = Vec::new();
        for (_, src) in &self.match_conditions {
            let outcome =
                compile_expression(src, &["object", "oldObject", "request", "authorizer"])
                    .and_then(|e| eval_expression(&e, &vars));
            let why = match outcome {
                Ok(cel::Value::Bool(true)) => continue,
                Ok(cel::Value::Bool(false)) => return Ok(false),
                Ok(other) => format!("{other:?} is not a bool"),
                Err(CelError::Compile(m)) => format!("compilation error: {m}"),
                Err(e) => e.to_string(),
            };
            errors.push(format!("expression '{src}' resulted in error: {why}"));
        }
        match errors.len() {
            0 => Ok(true),
            1 => Err(errors.remove(0)),
            _ => Err(format!("[{}]", errors.join(", "))),
        }
    }

    /// Whether a dry-run request may call this webhook (`sideEffects` None or NoneOnDryRun).
    pub fn supports_dry_run(&self) -> bool {
        matches!(self.side_effects.as_str(), "None" | "NoneOnDryRun")
    }

    /// The resource version the webhook is called with when its rules cover the request:
    /// the request's own, or with `matchPolicy: Equivalent` another served version of the
    /// same custom resource. `versions` are the served versions of the request's resource.
    pub fn matching_version(
        &self,
        op: Operation,
        def: &Arc<ResourceDef>,
        subresource: Option<&str>,
        versions: &[Arc<ResourceDef>],
    ) -> Option<Arc<ResourceDef>> {
        let covers = |d: &ResourceDef| {
            self.rules
                .iter()
                .any(|r| r.matches_operation(op) && r.matches_resource(d, subresource))
        };
        if covers(def) {
            return Some(def.clone());
        }
        if !self.match_equivalent || def.custom.is_none() {
            return None;
        }
        versions
            .iter()
            .find(|d| d.version != def.version && covers(d))
            .cloned()
    }

    /// Whether the namespaceSelector selects `labels` (the namespace's labels; `None` for
    /// cluster-scoped objects other than Namespaces, which every selector matches).
    pub fn namespace_matches(&self, labels: Option<&Value>) -> bool {
        match labels {
            None => true,
            Some(labels) => selector_matches(&self.namespace_selector, labels),
        }
    }

    /// Whether the namespaceSelector selects every namespace (absent or empty): then the
    /// namespace is not looked at, and a missing one does not matter.
    pub fn selects_every_namespace(&self) -> bool {
        LabelSelector::from_metav1(&self.namespace_selector).is_empty()
    }

    /// Whether the objectSelector selects the new or the old object. An empty selector
    /// selects every request; any other selects only through an object that is there and
    /// has metadata (a CONNECT's options object has none, so it never matches).
    pub fn object_matches(&self, object: Option<&Value>, old: Option<&Value>) -> bool {
        let selector = LabelSelector::from_metav1(&self.object_selector);
        if selector.is_empty() {
            return true;
        }
        let selects = |o: Option<&Value>| {
            o.and_then(|o| o.get("metadata"))
                .filter(|m| m.is_object())
                .is_some_and(|m| selector.matches(&m["labels"]))
        };
        selects(object) || selects(old)
    }
}

/// Whether a `metav1.LabelSelector` (matchLabels, matchExpressions) selects `labels`.
/// An empty or absent selector selects everything.
pub fn selector_matches(selector: &Value, labels: &Value) -> bool {
    LabelSelector::from_metav1(selector).matches(labels)
}

/// Every webhook of the stored configurations under `key` (sorted by configuration name,
/// then in their order), or none when there are no configurations (the fast path).
pub fn load(store: &Store, key: &str) -> Vec<Hook> {
    let Some(bucket) = store.bucket(key) else {
        return Vec::new();
    };
    let mut hooks = Vec::new();
    // The bucket is ordered by name: configurations in name order, webhooks in order.
    for configuration in bucket.values() {
        for hook in configuration["webhooks"].as_array().into_iter().flatten() {
            hooks.push(Hook::parse(hook));
        }
    }
    hooks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use serde_json::json;

    fn hook(rules: Value) -> Hook {
        Hook::parse(&json!({"name": "h.example.com", "rules": rules}))
    }

    #[test]
    fn rules_match_resources_and_subresources() {
        let reg = Registry::with_builtins();
        let pods = reg.get("", "v1", "pods").unwrap();
        let deploy = reg.get("apps", "v1", "deployments").unwrap();
        let m = |rules: Value, def: &Arc<ResourceDef>, sub: Option<&str>, op: Operation| {
            hook(rules).matching_version(op, def, sub, &[]).is_some()
        };
        let rule = |res: &str| json!([{"operations": ["CREATE"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": [res], "scope": "*"}]);
        assert!(m(rule("pods"), &pods, None, Operation::Create));
        assert!(!m(rule("pods"), &pods, Some("status"), Operation::Create));
        assert!(!m(rule("pods"), &pods, None, Operation::Update));
        assert!(m(
            rule("pods/status"),
            &pods,
            Some("status"),
            Operation::Create
        ));
        assert!(!m(rule("pods/status"), &pods, None, Operation::Create));
        assert!(m(rule("*"), &deploy, None, Operation::Create));
        assert!(!m(rule("*"), &deploy, Some("scale"), Operation::Create));
        assert!(m(rule("*/*"), &deploy, Some("scale"), Operation::Create));
        assert!(m(
            rule("*/scale"),
            &deploy,
            Some("scale"),
            Operation::Create
        ));
        assert!(m(
            rule("deployments/*"),
            &deploy,
            Some("scale"),
            Operation::Create
        ));
        let scoped = json!([{"operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["*"], "scope": "Cluster"}]);
        assert!(!m(scoped, &pods, None, Operation::Delete));
        let groups = json!([{"operations": ["*"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["*"]}]);
        assert!(m(groups.clone(), &deploy, None, Operation::Delete));
        assert!(!m(groups, &pods, None, Operation::Delete));
    }

    #[test]
    fn label_selectors() {
        let labels = json!({"env": "prod", "team": "a"});
        assert!(selector_matches(&json!({}), &labels));
        assert!(selector_matches(&Value::Null, &Value::Null));
        assert!(selector_matches(
            &json!({"matchLabels": {"env": "prod"}}),
            &labels
        ));
        assert!(!selector_matches(
            &json!({"matchLabels": {"env": "dev"}}),
            &labels
        ));
        let expr = |op: &str, values: Value| json!({"matchExpressions": [{"key": "env", "operator": op, "values": values}]});
        assert!(selector_matches(&expr("In", json!(["prod", "x"])), &labels));
        assert!(!selector_matches(&expr("NotIn", json!(["prod"])), &labels));
        assert!(selector_matches(&expr("Exists", Value::Null), &labels));
        assert!(!selector_matches(
            &expr("DoesNotExist", Value::Null),
            &labels
        ));
        assert!(selector_matches(
            &expr("NotIn", json!(["prod"])),
            &json!({})
        ));
    }
}
