//! One RBAC rule as declared, and whether a set of rules grants a verb on a resource.

/// One RBAC rule as declared (before merging).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rule {
    /// API groups (`""` is the core group).
    pub api_groups: Vec<String>,
    /// Resources, with subresources as `deployments/status`.
    pub resources: Vec<String>,
    /// Restricts the rule to these object names (empty: all).
    pub resource_names: Vec<String>,
    /// Non-resource URLs (`/metrics`); exclusive with resources.
    pub non_resource_urls: Vec<String>,
    /// Verbs (`get`, `list`, ...).
    pub verbs: Vec<String>,
    /// `Some(ns)`: the rule goes into a Role in `ns` instead of the ClusterRole.
    pub namespace: Option<String>,
}

fn owned(items: &[&str]) -> Vec<String> {
    items.iter().map(std::string::ToString::to_string).collect()
}

impl Rule {
    /// A rule granting `verbs` on `resources` of `groups`.
    pub fn new(groups: &[&str], resources: &[&str], verbs: &[&str]) -> Self {
        Rule {
            api_groups: owned(groups),
            resources: owned(resources),
            verbs: owned(verbs),
            ..Default::default()
        }
    }

    /// Restricts the rule to named objects.
    pub fn with_resource_names(mut self, names: &[&str]) -> Self {
        self.resource_names = owned(names);
        self
    }

    /// Adds non-resource URLs.
    pub fn with_urls(mut self, urls: &[&str]) -> Self {
        self.non_resource_urls = owned(urls);
        self
    }

    /// Places the rule in a namespaced Role (`None` keeps it where it is).
    pub fn in_namespace(mut self, namespace: Option<&str>) -> Self {
        if let Some(ns) = namespace {
            self.namespace = Some(ns.to_string());
        }
        self
    }
}

/// The verbs of `verbs` on `group`/`resource` that no declared cluster-wide rule grants (empty
/// when covered). The runtime can use it to warn at start-up when a controller watches or owns
/// a kind nobody declared RBAC for, instead of failing later with a 403.
pub fn missing_verbs(rules: &[Rule], group: &str, resource: &str, verbs: &[&str]) -> Vec<String> {
    let grants = |rule: &Rule, verb: &str| {
        rule.namespace.is_none()
            && rule.resource_names.is_empty()
            && rule.api_groups.iter().any(|g| g == group || g == "*")
            && rule.resources.iter().any(|r| r == resource || r == "*")
            && rule.verbs.iter().any(|v| v == verb || v == "*")
    };
    verbs
        .iter()
        .filter(|verb| !rules.iter().any(|rule| grants(rule, verb)))
        .map(std::string::ToString::to_string)
        .collect()
}
