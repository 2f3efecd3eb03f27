//! The status rules of a CustomResourceDefinition's status update
//! (`ValidateUpdateCustomResourceDefinitionStatus`): only the accepted names are checked —
//! each name a DNS-1035 label (the kinds lower-cased), `kind` and `listKind` not the same.
//! The stored versions and the conditions are written as they are sent.

use serde_json::Value;

use super::errors::{Errors, child, index, invalid_str};
use crate::registry::schema::names::dns1035_label;

/// What the real server adds before the rules of a kind written in mixed case.
const MIXED_CASE: &str = "may have mixed case, but should otherwise match: ";

/// The errors of the DNS-1035 label `value` at `path` (none when empty), joined as the real
/// server joins them, after `prefix`.
fn label(path: &str, value: &str, checked: &str, prefix: &str) -> Errors {
    let errs = dns1035_label(checked);
    if value.is_empty() || errs.is_empty() {
        return Vec::new();
    }
    vec![invalid_str(
        path,
        value,
        &format!("{prefix}{}", errs.join(",")),
    )]
}

/// The errors of each name of the list at `path` (empty ones included).
fn each(names: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for (i, name) in names.as_array().into_iter().flatten().enumerate() {
        let name = name.as_str().unwrap_or_default();
        let errs = dns1035_label(name);
        if !errs.is_empty() {
            out.push(invalid_str(&index(path, i), name, &errs.join(",")));
        }
    }
    out
}

/// `ValidateCustomResourceDefinitionNames` of the names at `path`.
fn names(names: &Value, path: &str) -> Errors {
    let text = |f: &str| names[f].as_str().unwrap_or_default();
    let mut out = Vec::new();
    for f in ["plural", "singular"] {
        out.extend(label(&child(path, f), text(f), text(f), ""));
    }
    for f in ["kind", "listKind"] {
        let lower = text(f).to_lowercase();
        out.extend(label(&child(path, f), text(f), &lower, MIXED_CASE));
    }
    out.extend(each(&names["shortNames"], &child(path, "shortNames")));
    if !text("kind").is_empty() && text("kind") == text("listKind") {
        out.push(invalid_str(
            &child(path, "listKind"),
            text("listKind"),
            "kind and listKind may not be the same",
        ));
    }
    out.extend(each(&names["categories"], &child(path, "categories")));
    out
}

/// A CustomResourceDefinition's status: its accepted names.
pub fn custom_resource_definition(object: &Value) -> Errors {
    names(&object["status"]["acceptedNames"], "status.acceptedNames")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(object: &Value) -> Vec<String> {
        custom_resource_definition(object)
            .into_iter()
            .map(|c| format!("{} {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn accepted_names_are_labels_and_kinds_differ() {
        let crd = json!({"status": {"acceptedNames": {"plural": "Bad_P", "singular": "",
            "kind": "Bad Kind", "listKind": "Bad Kind", "shortNames": ["ok", "BAD"],
            "categories": ["x", "Y!"]}, "storedVersions": ["v9"], "conditions": [{"type": ""}]}});
        let got = found(&crd);
        let fields: Vec<&str> = got.iter().map(|g| g.split(' ').next().unwrap()).collect();
        assert_eq!(
            fields,
            [
                "status.acceptedNames.plural",
                "status.acceptedNames.kind",
                "status.acceptedNames.listKind",
                "status.acceptedNames.shortNames[1]",
                "status.acceptedNames.listKind",
                "status.acceptedNames.categories[1]",
            ]
        );
        assert!(got[1].contains(": may have mixed case, but should otherwise match: a DNS-1035"));
        assert!(
            got[4].ends_with("Invalid value: \"Bad Kind\": kind and listKind may not be the same")
        );
    }

    #[test]
    fn mixed_case_kinds_and_long_names() {
        let long = "a".repeat(64);
        let crd = json!({"status": {"acceptedNames": {"plural": long, "kind": "Gizmo",
            "listKind": "GizmoList"}}});
        let got = found(&crd);
        assert_eq!(got.len(), 1);
        assert!(
            got[0].contains(": must be no more than 63 characters\n")
                || got[0].ends_with("must be no more than 63 characters")
        );
        assert!(found(&json!({"status": {}})).is_empty());
    }
}
