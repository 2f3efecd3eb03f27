//! A Node's specific annotations (`ValidateNodeSpecificAnnotations`): the deprecated
//! `scheduler.alpha.kubernetes.io/taints` (a JSON list of taints, each checked as a spec taint
//! is) and `scheduler.alpha.kubernetes.io/preferAvoidPods` (a JSON `AvoidPods`, each entry
//! naming a controller). An annotation's JSON is decoded as Go's `encoding/json` decodes it
//! into the Go type (`go_types`): a syntax error first, else the first error in document
//! order, in Go's words; an empty annotation is not checked.

use serde_json::Value;

use super::errors::{Errors, child, index, invalid, invalid_str, required};
use crate::support::go_decode::{self, Node};
use crate::support::go_json::syntax_error;
use crate::support::go_time::{self, Precision};

/// The annotation holding taints, from before taints were a spec field.
pub const TAINTS: &str = "scheduler.alpha.kubernetes.io/taints";

/// The annotation holding the controllers whose pods should avoid the node.
pub const PREFER_AVOID_PODS: &str = "scheduler.alpha.kubernetes.io/preferAvoidPods";

/// The errors of the node's specific annotations, under `path` (`metadata.annotations`); the
/// taints of the annotation are checked by `check_taints` under their own path.
pub fn node_annotations(
    object: &Value,
    path: &str,
    check_taints: impl Fn(&Value, &str) -> Errors,
) -> Errors {
    let annotations = &object["metadata"]["annotations"];
    let mut out = Vec::new();
    let taints_text = annotations[TAINTS].as_str().unwrap_or_default();
    if !taints_text.is_empty() {
        match go_types::decode(taints_text, &go_types::TAINTS) {
            Ok(Value::Array(list)) if !list.is_empty() => {
                out.extend(check_taints(&Value::Array(list), &child(path, TAINTS)));
            }
            Ok(_) => {}
            Err(why) => out.push(invalid_str(path, TAINTS, &why)),
        }
    }
    let avoid_text = annotations[PREFER_AVOID_PODS].as_str().unwrap_or_default();
    if !avoid_text.is_empty() {
        match go_types::decode(avoid_text, &go_types::AVOID_PODS) {
            Ok(avoid) => {
                let entries = avoid["preferAvoidPods"]
                    .as_array()
                    .map_or(&[][..], Vec::as_slice);
                for (i, entry) in entries.iter().enumerate() {
                    let at = index(&child(path, PREFER_AVOID_PODS), i);
                    out.extend(avoid_pods_entry(entry, &at));
                }
            }
            Err(why) => out.push(invalid_str(
                &child(path, "AvoidPods"),
                PREFER_AVOID_PODS,
                &why,
            )),
        }
    }
    out
}

/// `validatePreferAvoidPodsEntry`: the entry names a pod controller, which is a controller.
/// (An owner reference without `controller` makes the real server's check dereference a nil
/// pointer and drop the connection; it is refused here as one that is not a controller.)
fn avoid_pods_entry(entry: &Value, at: &str) -> Errors {
    let controller = &entry["podSignature"]["podController"];
    if !controller.is_object() {
        return vec![required(&child(at, "PodSignature"))];
    }
    if controller["controller"] != Value::Bool(true) {
        return vec![invalid(
            &format!("{at}.PodSignature.PodController.Controller"),
            &Value::Bool(false),
            "must point to a controller",
        )];
    }
    Vec::new()
}

/// The Go types of the two annotations, and Go's `encoding/json` decoding into them.
mod go_types {
    use super::*;

    /// A Go type as the decoder meets it.
    pub enum GoType {
        /// A string type, by its Go name (`string`, `core.TaintEffect`, `types.UID`).
        Text(&'static str),
        /// A `bool` or `*bool`.
        Flag,
        /// A `metav1.Time` (or a pointer to one): its own `UnmarshalJSON`.
        Time,
        /// A struct: its Go name and its fields by JSON name.
        Record(&'static str, &'static [(&'static str, GoType)]),
        /// A slice: its Go name and its items' type.
        List(&'static str, &'static GoType),
    }

    /// `[]core.Taint`, the taints annotation.
    pub static TAINTS: GoType = GoType::List("[]core.Taint", &TAINT);
    static TAINT: GoType = GoType::Record(
        "core.Taint",
        &[
            ("key", GoType::Text("string")),
            ("value", GoType::Text("string")),
            ("effect", GoType::Text("core.TaintEffect")),
            ("timeAdded", GoType::Time),
        ],
    );

    /// `v1.AvoidPods`, the preferAvoidPods annotation.
    pub static AVOID_PODS: GoType = GoType::Record(
        "v1.AvoidPods",
        &[(
            "preferAvoidPods",
            GoType::List("[]v1.PreferAvoidPodsEntry", &AVOID_PODS_ENTRY),
        )],
    );
    static AVOID_PODS_ENTRY: GoType = GoType::Record(
        "v1.PreferAvoidPodsEntry",
        &[
            (
                "podSignature",
                GoType::Record("v1.PodSignature", &[("podController", OWNER_REFERENCE)]),
            ),
            ("evictionTime", GoType::Time),
            ("reason", GoType::Text("string")),
            ("message", GoType::Text("string")),
        ],
    );
    const OWNER_REFERENCE: GoType = GoType::Record(
        "v1.OwnerReference",
        &[
            ("apiVersion", GoType::Text("string")),
            ("kind", GoType::Text("string")),
            ("name", GoType::Text("string")),
            ("uid", GoType::Text("types.UID")),
            ("controller", GoType::Flag),
            ("blockOwnerDeletion", GoType::Flag),
        ],
    );

    impl GoType {
        fn name(&self) -> &'static str {
            match self {
                GoType::Text(name) | GoType::Record(name, _) | GoType::List(name, _) => name,
                GoType::Flag => "bool",
                GoType::Time => "v1.Time",
            }
        }
    }

    /// Where the decoder is: the top-level struct's short name (empty for a slice) and the
    /// JSON path below it, as Go's type errors name it.
    struct At<'a> {
        top: &'a str,
        path: Vec<String>,
    }

    impl At<'_> {
        /// Go's `UnmarshalTypeError` text for a `found` value where `ty` was expected.
        fn type_error(&self, found: &Node, ty: &GoType) -> String {
            let into = match self.path.last() {
                None => format!("Go value of type {}", ty.name()),
                Some(last) => {
                    let place = format!("{}.{}", self.top, self.path.join("."));
                    if last.parse::<usize>().is_ok() {
                        format!("{place} of type {}", ty.name())
                    } else {
                        format!("Go struct field {place} of type {}", ty.name())
                    }
                }
            };
            format!("json: cannot unmarshal {} into {into}", found.go_kind())
        }
    }

    /// Decodes `text` into `ty` as Go's `json.Unmarshal` does: the decoded value (only the
    /// fields the type has; `null` leaves a field unset) or the first error.
    pub fn decode(text: &str, ty: &GoType) -> Result<Value, String> {
        if let Some(why) = syntax_error(text.as_bytes()) {
            return Err(why);
        }
        let node = go_decode::parse(text.as_bytes()).ok_or("invalid JSON")?;
        let top = match ty {
            GoType::Record(name, _) => name.rsplit('.').next().unwrap_or_default(),
            _ => "",
        };
        let mut at = At {
            top,
            path: Vec::new(),
        };
        value(&node, ty, &mut at)
    }

    fn value(node: &Node, ty: &GoType, at: &mut At) -> Result<Value, String> {
        match (ty, node) {
            (GoType::Time, Node::Null) => Ok(Value::Null),
            (GoType::Time, Node::String(s)) => {
                let time = go_time::parse(s, Precision::Seconds)?;
                Ok(Value::String(go_time::normalize(time, Precision::Seconds)))
            }
            // `metav1.Time` decodes its JSON as a Go string first.
            (GoType::Time, other) => Err(format!(
                "json: cannot unmarshal {} into Go value of type string",
                other.go_kind()
            )),
            (_, Node::Null) => Ok(Value::Null),
            (GoType::Text(_), Node::String(s)) => Ok(Value::String(s.clone())),
            (GoType::Flag, Node::Bool(b)) => Ok(Value::Bool(*b)),
            (GoType::List(_, item), Node::Array(items)) => {
                let mut out = Vec::new();
                for (i, node) in items.iter().enumerate() {
                    at.path.push(i.to_string());
                    let decoded = value(node, item, at)?;
                    at.path.pop();
                    // A `null` item is the item type's zero value.
                    out.push(if decoded.is_null() && matches!(item, GoType::Record(..)) {
                        Value::Object(serde_json::Map::new())
                    } else {
                        decoded
                    });
                }
                Ok(Value::Array(out))
            }
            (GoType::Record(_, fields), Node::Object(members)) => {
                let mut out = serde_json::Map::new();
                for (key, node) in members {
                    // Go matches a member to a field by its exact name, else ignoring case;
                    // other members are ignored, and a later member wins.
                    let field = fields.iter().find(|(name, _)| name == key).or_else(|| {
                        fields
                            .iter()
                            .find(|(name, _)| name.eq_ignore_ascii_case(key))
                    });
                    let Some((name, field_type)) = field else {
                        continue;
                    };
                    at.path.push((*name).to_string());
                    let decoded = value(node, field_type, at)?;
                    at.path.pop();
                    if decoded.is_null() {
                        out.remove(*name);
                    } else {
                        out.insert((*name).to_string(), decoded);
                    }
                }
                Ok(Value::Object(out))
            }
            (ty, found) => Err(at.type_error(found, ty)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(annotations: Value) -> Vec<String> {
        let node = json!({"metadata": {"annotations": annotations}});
        node_annotations(&node, "metadata.annotations", |list, path| {
            vec![invalid(path, list, "checked")]
        })
        .into_iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
    }

    fn taints_error(text: &str) -> String {
        go_types::decode(text, &go_types::TAINTS).unwrap_err()
    }

    fn avoid_error(text: &str) -> String {
        go_types::decode(text, &go_types::AVOID_PODS).unwrap_err()
    }

    #[test]
    fn taints_annotation_is_decoded_then_checked() {
        assert_eq!(
            errors(json!({TAINTS: "x"})),
            [
                "metadata.annotations: Invalid value: \"scheduler.alpha.kubernetes.io/taints\": invalid character 'x' looking for beginning of value"
            ]
        );
        assert!(errors(json!({TAINTS: "[]"})).is_empty());
        assert!(errors(json!({TAINTS: "null"})).is_empty());
        assert_eq!(
            errors(
                json!({TAINTS: "[{\"KEY\": \"a\", \"x\": 1, \"timeAdded\": \"2020-01-01T01:00:00.5+01:00\"}, null]"})
            ),
            [
                "metadata.annotations.scheduler.alpha.kubernetes.io/taints: Invalid value: [{\"key\":\"a\",\"timeAdded\":\"2020-01-01T00:00:00Z\"},{}]: checked"
            ]
        );
    }

    #[test]
    fn taints_errors_are_go_decoder_errors_in_document_order() {
        assert_eq!(
            taints_error("{}"),
            "json: cannot unmarshal object into Go value of type []core.Taint"
        );
        assert_eq!(
            taints_error("[1]"),
            "json: cannot unmarshal number into .0 of type core.Taint"
        );
        assert_eq!(
            taints_error("[{\"effect\": 5, \"key\": 1}]"),
            "json: cannot unmarshal number into Go struct field .0.effect of type core.TaintEffect"
        );
        assert_eq!(
            taints_error("[{\"timeAdded\": \"bad\", \"key\": 5}]"),
            "parsing time \"bad\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"bad\" as \"2006\""
        );
        assert_eq!(
            taints_error("[{\"timeAdded\": true}]"),
            "json: cannot unmarshal bool into Go value of type string"
        );
    }

    #[test]
    fn avoid_pods_entries_name_a_controller() {
        let entries = r#"{"preferAvoidPods": [{}, null, {"PodSignature": {"podController": {"controller": false}}}, {"podSignature": {"podController": {"controller": true}}}]}"#;
        assert_eq!(
            errors(json!({PREFER_AVOID_PODS: entries})),
            [
                "metadata.annotations.scheduler.alpha.kubernetes.io/preferAvoidPods[0].PodSignature: Required value",
                "metadata.annotations.scheduler.alpha.kubernetes.io/preferAvoidPods[1].PodSignature: Required value",
                "metadata.annotations.scheduler.alpha.kubernetes.io/preferAvoidPods[2].PodSignature.PodController.Controller: Invalid value: false: must point to a controller"
            ]
        );
        assert_eq!(
            errors(json!({PREFER_AVOID_PODS: "[]"})),
            [
                "metadata.annotations.AvoidPods: Invalid value: \"scheduler.alpha.kubernetes.io/preferAvoidPods\": json: cannot unmarshal array into Go value of type v1.AvoidPods"
            ]
        );
    }

    #[test]
    fn avoid_pods_errors_name_the_field() {
        assert_eq!(
            avoid_error(r#"{"preferAvoidPods": 5}"#),
            "json: cannot unmarshal number into Go struct field AvoidPods.preferAvoidPods of type []v1.PreferAvoidPodsEntry"
        );
        assert_eq!(
            avoid_error(r#"{"preferAvoidPods": [1]}"#),
            "json: cannot unmarshal number into AvoidPods.preferAvoidPods.0 of type v1.PreferAvoidPodsEntry"
        );
        assert_eq!(
            avoid_error(r#"{"preferAvoidPods": [{"reason": 5, "evictionTime": "bad"}]}"#),
            "json: cannot unmarshal number into Go struct field AvoidPods.preferAvoidPods.0.reason of type string"
        );
        assert_eq!(
            avoid_error(
                r#"{"preferAvoidPods": [{"podSignature": {"podController": {"uid": 5}}}]}"#
            ),
            "json: cannot unmarshal number into Go struct field AvoidPods.preferAvoidPods.0.podSignature.podController.uid of type types.UID"
        );
        assert_eq!(
            avoid_error(r#"{"preferAvoidPods": [{"evictionTime": [1]}]}"#),
            "json: cannot unmarshal array into Go value of type string"
        );
    }
}
