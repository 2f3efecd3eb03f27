//! Where rules come from: `#[kubeforge::rbac]` declarations collected through `inventory`, and
//! the rules a controller needs for the kinds it reconciles, owns or watches.

use kube::Resource;

use super::rule::Rule;

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
