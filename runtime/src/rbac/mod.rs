//! RBAC declarations: `#[kubeforge::rbac(...)]` registers rules (the equivalent of
//! `+kubebuilder:rbac`), `reconciles`/`owns`/`watches` derive the rules a controller needs for a
//! kind, and [`role_manifests`] merges everything into `config/rbac/role.yaml`.

mod normalize;
mod role;

pub use normalize::normalize;
pub use role::{ROLE_NAME, role_manifests};

use kube::Resource;

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
    items.iter().map(|s| s.to_string()).collect()
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

/// The rules of one `#[kubeforge::rbac]` attribute, registered through `inventory`.
#[derive(Debug)]
pub struct Declaration {
    source: &'static str,
    rules: fn() -> Vec<Rule>,
}

impl Declaration {
    /// Called by the macro: `source` is the module declaring the rules.
    pub const fn new(source: &'static str, rules: fn() -> Vec<Rule>) -> Self {
        Declaration { source, rules }
    }
    /// The module that declared these rules.
    pub fn source(&self) -> &'static str {
        self.source
    }
    /// The declared rules.
    pub fn rules(&self) -> Vec<Rule> {
        (self.rules)()
    }
}

inventory::collect!(Declaration);

/// Every rule declared in the program (unmerged, in no particular order).
pub fn declared_rules() -> Vec<Rule> {
    inventory::iter::<Declaration>
        .into_iter()
        .flat_map(Declaration::rules)
        .collect()
}

fn group_and_plural<K: Resource<DynamicType = ()>>() -> (String, String) {
    (K::group(&()).into_owned(), K::plural(&()).into_owned())
}

const ALL_VERBS: [&str; 7] = [
    "create", "delete", "get", "list", "patch", "update", "watch",
];

/// What the controller of kind `K` needs (the rules kubebuilder scaffolds above a reconciler):
/// full access to `K`, `get;update;patch` on its status and `update` on its finalizers.
pub fn reconciles<K: Resource<DynamicType = ()>>() -> Vec<Rule> {
    let (group, plural) = group_and_plural::<K>();
    vec![
        Rule::new(&[&group], &[&plural], &ALL_VERBS),
        Rule::new(
            &[&group],
            &[&format!("{plural}/status")],
            &["get", "patch", "update"],
        ),
        Rule::new(&[&group], &[&format!("{plural}/finalizers")], &["update"]),
    ]
}

/// What a controller that owns (creates and manages) objects of kind `K` needs.
pub fn owns<K: Resource<DynamicType = ()>>() -> Vec<Rule> {
    let (group, plural) = group_and_plural::<K>();
    vec![Rule::new(&[&group], &[&plural], &ALL_VERBS)]
}

/// What a controller that only watches kind `K` needs: `get;list;watch`.
pub fn watches<K: Resource<DynamicType = ()>>() -> Vec<Rule> {
    let (group, plural) = group_and_plural::<K>();
    vec![Rule::new(&[&group], &[&plural], &["get", "list", "watch"])]
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
        .map(|verb| verb.to_string())
        .collect()
}
