//! Merges declared rules the way controller-gen does: verbs of identical targets are united,
//! then targets sharing a group and verb set are combined into one rule; everything sorted.

use std::collections::{BTreeMap, BTreeSet};

use super::rule::Rule;

type Target = (Option<String>, String, String, Vec<String>, Vec<String>);

/// Deterministic, merged and sorted rules.
pub fn normalize(rules: &[Rule]) -> Vec<Rule> {
    // 1. One entry per (namespace, group, resource, names, urls) with the union of verbs.
    let mut verbs_by_target: BTreeMap<Target, BTreeSet<String>> = BTreeMap::new();
    for rule in rules {
        let mut names = rule.resource_names.clone();
        names.sort();
        names.dedup();
        if !rule.non_resource_urls.is_empty() {
            for url in &rule.non_resource_urls {
                verbs_by_target
                    .entry((
                        rule.namespace.clone(),
                        String::new(),
                        String::new(),
                        Vec::new(),
                        vec![url.clone()],
                    ))
                    .or_default()
                    .extend(rule.verbs.iter().cloned());
            }
            continue;
        }
        for group in &rule.api_groups {
            for resource in &rule.resources {
                verbs_by_target
                    .entry((
                        rule.namespace.clone(),
                        group.clone(),
                        resource.clone(),
                        names.clone(),
                        Vec::new(),
                    ))
                    .or_default()
                    .extend(rule.verbs.iter().cloned());
            }
        }
    }
    // 2. Combine resources (or URLs) sharing namespace, group, names and verbs.
    type Key = (Option<String>, String, Vec<String>, Vec<String>, bool);
    let mut merged: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    for ((ns, group, resource, names, urls), verbs) in verbs_by_target {
        let verbs: Vec<String> = if verbs.contains("*") {
            vec!["*".into()]
        } else {
            verbs.into_iter().collect()
        };
        let is_url = !urls.is_empty();
        let entry = merged.entry((ns, group, names, verbs, is_url)).or_default();
        if is_url {
            entry.extend(urls);
        } else {
            entry.insert(resource);
        }
    }
    let mut out: Vec<Rule> = merged
        .into_iter()
        .map(|((namespace, group, names, verbs, is_url), targets)| {
            let targets: Vec<String> = targets.into_iter().collect();
            Rule {
                api_groups: if is_url { Vec::new() } else { vec![group] },
                resources: if is_url { Vec::new() } else { targets.clone() },
                resource_names: names,
                non_resource_urls: if is_url { targets } else { Vec::new() },
                verbs,
                namespace,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        (
            &a.namespace,
            a.non_resource_urls.is_empty(),
            &a.api_groups,
            &a.resources,
            &a.resource_names,
            &a.non_resource_urls,
            &a.verbs,
        )
            .cmp(&(
                &b.namespace,
                b.non_resource_urls.is_empty(),
                &b.api_groups,
                &b.resources,
                &b.resource_names,
                &b.non_resource_urls,
                &b.verbs,
            ))
    });
    out
}
