//! IPAddresses (`networking.k8s.io/v1`): `ValidateIPAddress`'s check of the parent
//! reference and `ValidateIPAddressUpdate`'s rule that it never changes. The name's rule
//! (an address in canonical form, as `IsValidIP` with the canonical check words it) is
//! checked with the other names, in `crate::support::meta`.

use serde_json::Value;

use super::errors::{Errors, dns1123_subdomain, invalid_str, invalid_text, required};
use super::go_diff::{GoValue, marshal};

const PARENT: &str = "spec.parentRef";

/// `IsValidPathSegmentName`: not `.` or `..`, then neither `/` nor `%` (each reported).
fn path_segment(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(*c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// The parent reference's field `name` as a string (empty when unset).
fn text<'a>(parent: &'a Value, name: &str) -> &'a str {
    parent[name].as_str().unwrap_or_default()
}

/// `validateIPAddressParentReference`: the reference is required; its group, when set, is
/// a DNS subdomain; its resource and name are required path segments; its namespace, when
/// set, a path segment.
pub fn ip_address(object: &Value) -> Errors {
    let parent = &object["spec"]["parentRef"];
    if !parent.is_object() {
        return vec![required(PARENT)];
    }
    let mut out = Vec::new();
    let group = text(parent, "group");
    if !group.is_empty() {
        for why in dns1123_subdomain(group) {
            out.push(invalid_str(&format!("{PARENT}.group"), group, &why));
        }
    }
    for (field, needed) in [("resource", true), ("name", true), ("namespace", false)] {
        let value = text(parent, field);
        let path = format!("{PARENT}.{field}");
        if value.is_empty() {
            if needed {
                out.push(required(&path));
            }
            continue;
        }
        for why in path_segment(value) {
            out.push(invalid_str(&path, value, &why));
        }
    }
    out
}

/// A `*networking.ParentReference` as a field error prints it: the Go struct's fields in
/// declaration order, `null` when unset.
fn parent_as_go(parent: &Value) -> Option<GoValue> {
    parent.is_object().then(|| {
        GoValue::Struct(
            [
                ("Group", "group"),
                ("Resource", "resource"),
                ("Namespace", "namespace"),
                ("Name", "name"),
            ]
            .into_iter()
            .map(|(go, json)| (go, GoValue::Json(Value::String(text(parent, json).into()))))
            .collect(),
        )
    })
}

/// `ValidateIPAddressUpdate`, after the object's own checks: the parent reference may not
/// change (nor be removed).
pub fn ip_address_update(object: &Value, old: &Value) -> Errors {
    let new = parent_as_go(&object["spec"]["parentRef"]);
    let printed = |v: &Option<GoValue>| v.as_ref().map_or_else(|| "null".to_string(), marshal);
    if printed(&new) == printed(&parent_as_go(&old["spec"]["parentRef"])) {
        return Vec::new();
    }
    vec![invalid_text(PARENT, &printed(&new), "field is immutable")]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn messages(errors: &Errors) -> Vec<String> {
        errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect()
    }

    #[test]
    fn the_parent_reference_is_required_and_made_of_path_segments() {
        assert_eq!(
            messages(&ip_address(&json!({"spec": {}}))),
            ["spec.parentRef: Required value"]
        );
        let errors = ip_address(&json!({"spec": {"parentRef": {
            "group": "Bad_", "resource": "a/b", "name": "..", "namespace": "%x"}}}));
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.parentRef.group",
                "spec.parentRef.resource",
                "spec.parentRef.name",
                "spec.parentRef.namespace"
            ]
        );
        assert_eq!(
            messages(&ip_address(&json!({"spec": {"parentRef": {}}}))),
            [
                "spec.parentRef.resource: Required value",
                "spec.parentRef.name: Required value"
            ]
        );
    }

    #[test]
    fn the_parent_reference_never_changes() {
        let old = json!({"spec": {"parentRef": {"resource": "services", "namespace": "default", "name": "x"}}});
        assert!(ip_address_update(&old, &old).is_empty());
        let moved = json!({"spec": {"parentRef": {"resource": "services", "namespace": "default", "name": "y"}}});
        assert_eq!(
            messages(&ip_address_update(&moved, &old)),
            [
                r#"spec.parentRef: Invalid value: {"Group":"","Resource":"services","Namespace":"default","Name":"y"}: field is immutable"#
            ]
        );
        assert_eq!(
            messages(&ip_address_update(&json!({"spec": {}}), &old)),
            ["spec.parentRef: Invalid value: null: field is immutable"]
        );
    }
}
