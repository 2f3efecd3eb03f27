//! Whether the rules a user holds cover the rules they grant, as RBAC's escalation check
//! (`rbac/validation`'s `Covers`) decides it: each granted rule is broken down into rules of
//! one API group, resource, verb and resource name (or one non-resource URL and verb), and
//! each of those must be covered by one held rule. What is missing is described as the real
//! server's 403 lists it: rules of one resource merged over their verbs, one per line, in
//! sorted order.

use serde_json::Value;

use crate::support::go_quote::go_quote;

/// A PolicyRule's lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rule {
    /// `apiGroups`
    pub api_groups: Vec<String>,
    /// `resources`
    pub resources: Vec<String>,
    /// `nonResourceURLs`
    pub non_resource_urls: Vec<String>,
    /// `resourceNames`
    pub resource_names: Vec<String>,
    /// `verbs`
    pub verbs: Vec<String>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

impl Rule {
    /// The lists of a PolicyRule object (missing lists are empty).
    pub fn of(rule: &Value) -> Self {
        Rule {
            api_groups: strings(&rule["apiGroups"]),
            resources: strings(&rule["resources"]),
            non_resource_urls: strings(&rule["nonResourceURLs"]),
            resource_names: strings(&rule["resourceNames"]),
            verbs: strings(&rule["verbs"]),
        }
    }

    /// The rule as the escalation message prints it (`CompactString`): the non-empty lists,
    /// each as Go's `%q` prints a string slice.
    pub fn compact_string(&self) -> String {
        let list = |l: &[String]| {
            let quoted: Vec<String> = l.iter().map(|s| go_quote(s)).collect();
            format!("[{}]", quoted.join(" "))
        };
        let parts: Vec<String> = [
            ("APIGroups", &self.api_groups),
            ("Resources", &self.resources),
            ("NonResourceURLs", &self.non_resource_urls),
            ("ResourceNames", &self.resource_names),
            ("Verbs", &self.verbs),
        ]
        .into_iter()
        .filter(|(_, l)| !l.is_empty())
        .map(|(name, l)| format!("{name}:{}", list(l)))
        .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

fn one(s: &str) -> Vec<String> {
    vec![s.to_string()]
}

/// Rules of one group, resource, verb and resource name (or one URL and verb) that together
/// grant what `rule` grants (`BreakdownRule`).
fn breakdown(rule: &Rule) -> Vec<Rule> {
    let mut out = Vec::new();
    for group in &rule.api_groups {
        for resource in &rule.resources {
            for verb in &rule.verbs {
                let sub = |names: Vec<String>| Rule {
                    api_groups: one(group),
                    resources: one(resource),
                    resource_names: names,
                    verbs: one(verb),
                    ..Rule::default()
                };
                if rule.resource_names.is_empty() {
                    out.push(sub(Vec::new()));
                } else {
                    out.extend(rule.resource_names.iter().map(|n| sub(one(n))));
                }
            }
        }
    }
    for url in &rule.non_resource_urls {
        for verb in &rule.verbs {
            out.push(Rule {
                non_resource_urls: one(url),
                verbs: one(verb),
                ..Rule::default()
            });
        }
    }
    out
}

fn has(set: &[String], item: &str) -> bool {
    set.iter().any(|s| s == item)
}

fn has_all(set: &[String], items: &[String]) -> bool {
    items.iter().all(|i| has(set, i))
}

/// A resource list covers resources that are in it, or subresources it names as `*/<sub>`.
fn resources_cover(set: &[String], wanted: &[String]) -> bool {
    if has(set, "*") || has_all(set, wanted) {
        return true;
    }
    wanted.iter().all(|path| {
        has(set, path)
            || path
                .split_once('/')
                .is_some_and(|(_, sub)| has(set, &format!("*/{sub}")))
    })
}

fn url_covers(owner: &str, wanted: &str) -> bool {
    owner == wanted || owner.ends_with('*') && wanted.starts_with(owner.trim_end_matches('*'))
}

/// Whether one held rule covers one broken-down rule (`ruleCovers`).
fn covers(owner: &Rule, sub: &Rule) -> bool {
    let verbs = has(&owner.verbs, "*") || has_all(&owner.verbs, &sub.verbs);
    let groups = has(&owner.api_groups, "*") || has_all(&owner.api_groups, &sub.api_groups);
    let resources = resources_cover(&owner.resources, &sub.resources);
    let urls = sub
        .non_resource_urls
        .iter()
        .all(|u| owner.non_resource_urls.iter().any(|o| url_covers(o, u)));
    let names = owner.resource_names.is_empty()
        || (!sub.resource_names.is_empty() && has_all(&owner.resource_names, &sub.resource_names));
    verbs && groups && resources && urls && names
}

/// The broken-down parts of `granted` that no rule of `held` covers, in order.
pub fn missing(held: &[Rule], granted: &[Rule]) -> Vec<Rule> {
    granted
        .iter()
        .flat_map(breakdown)
        .filter(|sub| !held.iter().any(|owner| covers(owner, sub)))
        .collect()
}

/// The lines of the escalation message for `missing` rules: rules of one group, resource
/// and at most one resource name merged over their verbs (`CompactRules`), printed, sorted
/// and without repeats.
pub fn describe(missing: &[Rule]) -> Vec<String> {
    let mut merged: Vec<Rule> = Vec::new();
    for rule in missing {
        let simple = rule.non_resource_urls.is_empty()
            && rule.api_groups.len() == 1
            && rule.resources.len() == 1
            && rule.resource_names.len() <= 1;
        let same = |m: &Rule| {
            m.non_resource_urls.is_empty()
                && m.api_groups == rule.api_groups
                && m.resources == rule.resources
                && m.resource_names == rule.resource_names
        };
        match merged.iter_mut().find(|m| simple && same(m)) {
            Some(m) => m.verbs.extend(rule.verbs.iter().cloned()),
            None => merged.push(rule.clone()),
        }
    }
    let mut lines: Vec<String> = merged.iter().map(Rule::compact_string).collect();
    lines.sort();
    lines.dedup();
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: Value) -> Vec<Rule> {
        v.as_array().unwrap().iter().map(Rule::of).collect()
    }

    #[test]
    fn missing_rules_read_as_the_real_servers() {
        let held = rules(json!([
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]},
            {"nonResourceURLs": ["/healthz"], "verbs": ["get"]},
        ]));
        let granted = rules(json!([
            {"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get", "list", "watch"], "resourceNames": ["a", "b"]},
            {"nonResourceURLs": ["/metrics", "/healthz"], "verbs": ["get", "post"]},
            {"apiGroups": ["", "apps"], "resources": ["*"], "verbs": ["get"]},
        ]));
        assert_eq!(
            describe(&missing(&held, &granted)),
            [
                r#"{APIGroups:[""], Resources:["*"], Verbs:["get"]}"#,
                r#"{APIGroups:[""], Resources:["nodes"], ResourceNames:["a"], Verbs:["watch"]}"#,
                r#"{APIGroups:[""], Resources:["nodes"], ResourceNames:["b"], Verbs:["watch"]}"#,
                r#"{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list" "watch"]}"#,
                r#"{APIGroups:[""], Resources:["pods"], ResourceNames:["b"], Verbs:["get" "list" "watch"]}"#,
                r#"{APIGroups:["apps"], Resources:["*"], Verbs:["get"]}"#,
                r#"{NonResourceURLs:["/healthz"], Verbs:["post"]}"#,
                r#"{NonResourceURLs:["/metrics"], Verbs:["get"]}"#,
                r#"{NonResourceURLs:["/metrics"], Verbs:["post"]}"#,
            ]
        );
    }

    #[test]
    fn wildcards_and_subresources_cover() {
        let held = rules(json!([
            {"apiGroups": ["*"], "resources": ["*/status", "deployments"], "verbs": ["*"]},
            {"nonResourceURLs": ["/api/*"], "verbs": ["get"]},
        ]));
        let granted = rules(json!([
            {"apiGroups": ["apps"], "resources": ["deployments", "pods/status"], "verbs": ["get", "patch"], "resourceNames": ["x"]},
            {"nonResourceURLs": ["/api/v1"], "verbs": ["get"]},
        ]));
        assert!(missing(&held, &granted).is_empty());
        let named = rules(
            json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"], "resourceNames": ["x"]}]),
        );
        let any = rules(json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]));
        assert_eq!(missing(&named, &any).len(), 1);
        assert!(missing(&any, &named).is_empty());
    }
}
