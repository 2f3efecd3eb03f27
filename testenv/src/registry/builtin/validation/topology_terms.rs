//! Topology selector terms (`ValidateTopologySelectorTerm`) and a StorageClass's
//! `allowedTopologies` built of them (`validateAllowedTopologies`): each expression's values
//! set and unique, its key a label name and unique in its term, and no two terms alike.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::errors::{Errors, child, duplicate, index, invalid_str, required};
use crate::support::meta::qualified_name_errors;

/// A term as Go reduces it for comparison: each key's set of values (a later expression
/// with the same key replaces an earlier one).
type Term<'a> = BTreeMap<&'a str, BTreeSet<&'a str>>;

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// `ValidateTopologySelectorTerm` of the term at `path`, with the term as Go compares it.
fn term<'a>(term: &'a Value, path: &str) -> (Term<'a>, Errors) {
    let mut out = Vec::new();
    let mut keys = Term::new();
    let expressions = child(path, "matchLabelExpressions");
    for (i, e) in items(&term["matchLabelExpressions"]).iter().enumerate() {
        let at = index(&expressions, i);
        let values_path = child(&at, "values");
        let values = items(&e["values"]);
        if values.is_empty() {
            out.push(required(&values_path));
        }
        let mut set = BTreeSet::new();
        for (j, v) in values.iter().enumerate() {
            let v = v.as_str().unwrap_or_default();
            if !set.insert(v) {
                out.push(duplicate(&index(&values_path, j), &Value::String(v.into())));
            }
        }
        let key = e["key"].as_str().unwrap_or_default();
        let key_path = child(&at, "key");
        for why in qualified_name_errors(key) {
            out.push(invalid_str(&key_path, key, &why));
        }
        if keys.insert(key, set).is_some() {
            out.push(duplicate(&key_path, &Value::String(key.into())));
        }
    }
    (keys, out)
}

/// `validateAllowedTopologies` of a StorageClass's `allowedTopologies`. Go compares each
/// term with as many empty terms as the list is long before the earlier terms, so a term
/// without expressions is reported once for each of those too.
pub fn allowed_topologies(list: &Value, path: &str) -> Errors {
    let list = items(list);
    let mut out = Vec::new();
    let mut earlier: Vec<Term> = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let at = index(path, i);
        let (reduced, errors) = term(t, &at);
        out.extend(errors);
        let blanks = if reduced.is_empty() { list.len() } else { 0 };
        let alike = blanks + earlier.iter().filter(|e| **e == reduced).count();
        for _ in 0..alike {
            out.push(duplicate(
                &child(&at, "matchLabelExpressions"),
                &Value::String(String::new()),
            ));
        }
        earlier.push(reduced);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn alike_and_empty_terms_are_duplicates() {
        let list = json!([
            {"matchLabelExpressions": [{"key": "k", "values": ["v", "v"]}]},
            {"matchLabelExpressions": [{"key": "k", "values": ["v"]}]},
            {},
        ]);
        let fields: Vec<String> = allowed_topologies(&list, "allowedTopologies")
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        assert_eq!(
            fields,
            [
                "allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: \"v\"",
                "allowedTopologies[1].matchLabelExpressions: Duplicate value: \"\"",
                "allowedTopologies[2].matchLabelExpressions: Duplicate value: \"\"",
                "allowedTopologies[2].matchLabelExpressions: Duplicate value: \"\"",
                "allowedTopologies[2].matchLabelExpressions: Duplicate value: \"\"",
            ]
        );
    }
}
