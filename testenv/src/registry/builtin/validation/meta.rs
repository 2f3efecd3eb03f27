//! `metadata.ownerReferences`, checked for every kind (`ValidateOwnerReferences`), and
//! the metadata errors a validation of the object meta reports.

use serde_json::{Value, json};

use super::errors::{Errors, invalid, invalid_text};

const FIELD: &str = "metadata.ownerReferences";

/// An owner reference as Go marshals it (its struct order, unset optional fields left out).
fn as_go(r: &Value) -> String {
    let mut parts: Vec<String> = ["apiVersion", "kind", "name", "uid"]
        .iter()
        .map(|f| format!("{f:?}:{}", json!(r[*f].as_str().unwrap_or_default())))
        .collect();
    for f in ["controller", "blockOwnerDeletion"] {
        if let Some(b) = r.get(f).and_then(Value::as_bool) {
            parts.push(format!("{f:?}:{b}"));
        }
    }
    format!("{{{}}}", parts.join(","))
}

/// The errors of the new object's metadata (labels, annotations, owner references) as each
/// of kube-apiserver's validations of the object meta reports them; the kinds whose update
/// validation checks the object meta again list them once per check.
pub fn object_meta(object: &Value) -> Errors {
    let mut out = crate::support::meta::validate_labels_and_annotations(object);
    out.extend(owner_references(object));
    out
}

/// The errors of an object's owner references: apiVersion with a version, kind, name and
/// uid present, and at most one controller.
pub fn owner_references(object: &Value) -> Errors {
    let Some(refs) = object["metadata"]["ownerReferences"].as_array() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut controllers = Vec::new();
    for r in refs {
        let text = |f: &str| r[f].as_str().unwrap_or_default().to_string();
        let api_version = text("apiVersion");
        // The version is the part after the last `/` (all of it for the core group).
        let version = api_version.rsplit('/').next().unwrap_or_default();
        if version.is_empty() || api_version.matches('/').count() > 1 {
            out.push(invalid(
                &format!("{FIELD}.apiVersion"),
                &json!(api_version),
                "version must not be empty",
            ));
        }
        for f in ["kind", "name", "uid"] {
            if text(f).is_empty() {
                out.push(invalid(
                    &format!("{FIELD}.{f}"),
                    &json!(""),
                    "must not be empty",
                ));
            }
        }
        if r["controller"].as_bool() == Some(true) {
            controllers.push(format!("{}/{}", text("kind"), text("name")));
        }
    }
    if controllers.len() > 1 {
        let list: Vec<String> = refs.iter().map(as_go).collect();
        out.push(invalid_text(
            FIELD,
            &format!("[{}]", list.join(",")),
            &format!(
                "Only one reference can have Controller set to true. Found \"true\" in references for {} and {}",
                controllers[0], controllers[1]
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_uid_and_two_controllers() {
        let o = json!({"metadata": {"ownerReferences": [
            {"apiVersion": "v1", "kind": "K", "name": "a", "controller": true},
            {"apiVersion": "v1", "kind": "K", "name": "b", "uid": "u", "controller": true},
        ]}});
        let errs = owner_references(&o);
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].field, "metadata.ownerReferences.uid");
        assert!(errs[1].message.ends_with("references for K/a and K/b"));
    }
}
