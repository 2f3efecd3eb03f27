//! One `ConversionReview` round trip: building the request in the version the CRD asks for,
//! reading the webhook's answer, and checking the converted objects exactly as
//! kube-apiserver's webhook converter does (same count, desired apiVersion, same kind,
//! unchanged name/namespace/uid, only labels and annotations taken from the webhook's
//! metadata). Failures carry the real server's messages.

use serde_json::{Map, Value, json};

use super::converter::Converter;
use crate::support::meta;

/// The `ConversionReview` version sent to a webhook (`conversionReviewVersions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewVersion {
    /// `apiextensions.k8s.io/v1`: the response's kind and `uid` are checked.
    V1,
    /// `apiextensions.k8s.io/v1beta1`: as the real server, only the result is checked.
    V1beta1,
}

impl ReviewVersion {
    /// The first version of `conversionReviewVersions` this server speaks, as kube-apiserver
    /// picks it; None when the list names neither `v1` nor `v1beta1`.
    pub fn choose(listed: &[String]) -> Option<Self> {
        listed.iter().find_map(|v| match v.as_str() {
            "v1" => Some(ReviewVersion::V1),
            "v1beta1" => Some(ReviewVersion::V1beta1),
            _ => None,
        })
    }

    fn api_version(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "apiextensions.k8s.io/v1",
            ReviewVersion::V1beta1 => "apiextensions.k8s.io/v1beta1",
        }
    }
}

/// Why a conversion failed; `Display` is the real server's message (sent with code 500).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConversionError {
    /// The call failed, or the webhook answered with a malformed or failed review.
    #[error("conversion webhook for {gvk} failed: {reason}")]
    Failed {
        /// The converted object's (or list's) `group/version, Kind=Kind`.
        gvk: String,
        /// What went wrong (the webhook's `result.message` when it reported a failure).
        reason: String,
    },
    /// The webhook returned a different number of objects than it was sent.
    #[error("conversion webhook for {gvk} returned {got} objects, expected {expected}")]
    Count {
        /// The converted object's (or list's) group, version and kind.
        gvk: String,
        /// How many objects came back.
        got: usize,
        /// How many objects were sent.
        expected: usize,
    },
    /// A converted object breaks a rule (wrong apiVersion or kind, changed identity, bad
    /// metadata).
    #[error("conversion webhook for {gvk} returned invalid {what}: {reason}")]
    Invalid {
        /// The converted object's (or list's) group, version and kind.
        gvk: String,
        /// `object`, `converted object at index N`, `metadata`, ... as the real message says.
        what: String,
        /// The broken rule.
        reason: String,
    },
    /// The CRD names no `ConversionReview` version this server speaks.
    #[error("no supported conversion review versions")]
    NoReviewVersion,
}

/// `group/version, Kind=Kind` of an object, as Go's `GroupVersionKind.String()`.
pub fn gvk_of(object: &Value) -> String {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    format!("{group}/{version}, Kind={kind}")
}

/// The `ConversionReview` request for `objects`.
pub fn request(version: ReviewVersion, uid: &str, desired: &str, objects: &[Value]) -> Value {
    json!({
        "apiVersion": version.api_version(),
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects},
    })
}

/// The converted objects of a webhook's answer, or why the answer is unusable.
pub fn converted_objects(
    version: ReviewVersion,
    uid: &str,
    answer: &Value,
) -> Result<Vec<Value>, String> {
    if version == ReviewVersion::V1 {
        let got = gvk_of(answer);
        let want = "apiextensions.k8s.io/v1, Kind=ConversionReview";
        if got != want {
            return Err(format!("expected webhook response of {want}, got {got}"));
        }
    }
    let response = match answer.get("response") {
        Some(r) if r.is_object() => r,
        _ => return Err("no response provided".into()),
    };
    if version == ReviewVersion::V1 {
        let got = response["uid"].as_str().unwrap_or_default();
        if got != uid {
            return Err(format!("expected response.uid={uid:?}, got {got:?}"));
        }
    }
    let status = response["result"]["status"].as_str().unwrap_or_default();
    if status != "Success" {
        return Err(match response["result"]["message"].as_str() {
            Some(m) if !m.is_empty() => m.to_string(),
            _ => format!("response.result.status was '{status}', not 'Success'"),
        });
    }
    match &response["convertedObjects"] {
        Value::Array(items) => Ok(items.clone()),
        Value::Null => Ok(Vec::new()),
        other => Err(format!(
            "json: cannot unmarshal {} into Go struct field ConversionResponse.response.convertedObjects of type []runtime.RawExtension",
            go_type(other)
        )),
    }
}

/// The Go type name the real server would print for a JSON value (`%T` of unstructured data).
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

fn meta_field<'a>(object: &'a Value, field: &str) -> &'a str {
    object["metadata"][field].as_str().unwrap_or_default()
}

/// kube-apiserver's `validateConvertedObject`: kind, name, namespace and uid must not change.
fn validate_identity(original: &Value, converted: &Value) -> Result<(), String> {
    let pairs = [
        (
            "kind",
            original["kind"].as_str(),
            converted["kind"].as_str(),
        ),
        (
            "name",
            Some(meta_field(original, "name")),
            Some(meta_field(converted, "name")),
        ),
        (
            "namespace",
            Some(meta_field(original, "namespace")),
            Some(meta_field(converted, "namespace")),
        ),
        (
            "UID",
            Some(meta_field(original, "uid")),
            Some(meta_field(converted, "uid")),
        ),
    ];
    for (what, before, after) in pairs {
        let (before, after) = (before.unwrap_or_default(), after.unwrap_or_default());
        if before != after {
            return Err(format!("must have the same {what}: {before} != {after}"));
        }
    }
    Ok(())
}

/// kube-apiserver's `restoreObjectMeta`: the original metadata with the webhook's labels and
/// annotations (validated when they changed).
fn restore_metadata(original: &Value, converted: &mut Value) -> Result<(), String> {
    let answered = match converted.get("metadata") {
        None => return Err("missing metadata in converted object".into()),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err(format!(
                "invalid metadata of type {} in converted object",
                go_type(other)
            ));
        }
    };
    let mut restored: Map<String, Value> = original["metadata"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for field in ["labels", "annotations"] {
        let answer = match answered.get(field) {
            None | Some(Value::Null) => {
                restored.remove(field);
                continue;
            }
            Some(Value::Object(m)) => m,
            Some(other) => {
                return Err(format!(
                    "invalid metadata.{field} of type {} in converted object",
                    go_type(other)
                ));
            }
        };
        if let Some((k, v)) = answer.iter().find(|(_, v)| !v.is_string()) {
            return Err(format!(
                "metadata.{field}[{k}] must be a string, but is {} in converted object",
                go_type(v)
            ));
        }
        let before = restored.get(field).and_then(Value::as_object);
        if before != Some(answer) {
            let probe = json!({"metadata": {field: answer}});
            let causes = meta::validate_labels_and_annotations(&probe);
            let messages: Vec<String> = causes
                .iter()
                .map(|c| format!("{}: {}", c.field, c.message))
                .collect();
            match messages.len() {
                0 => {}
                1 => return Err(messages[0].clone()),
                _ => return Err(format!("[{}]", messages.join(", "))),
            }
        }
        restored.insert(field.to_string(), Value::Object(answer.clone()));
    }
    converted["metadata"] = Value::Object(restored);
    Ok(())
}

/// The group/version part of an apiVersion as Go prints a `GroupVersion`.
fn group_version(object: &Value) -> String {
    object["apiVersion"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Converts `objects` to `desired` through `converter`, checking the answer like kube-apiserver.
///
/// `source` is the object (or list) being converted; its group/version/kind names the
/// conversion in error messages, and `is_list` picks the list wording of the real server.
/// Objects already in the desired version are not sent; when none needs converting the
/// webhook is not called at all.
pub async fn convert(
    converter: &dyn Converter,
    version: ReviewVersion,
    source: &Value,
    is_list: bool,
    mut objects: Vec<Value>,
    desired: &str,
) -> Result<Vec<Value>, ConversionError> {
    let gvk = gvk_of(source);
    let pending: Vec<usize> = (0..objects.len())
        .filter(|&i| objects[i]["apiVersion"].as_str() != Some(desired))
        .collect();
    if pending.is_empty() {
        return Ok(objects);
    }
    let uid = meta::new_uid();
    let sent: Vec<Value> = pending.iter().map(|&i| objects[i].clone()).collect();
    let review = request(version, &uid, desired, &sent);
    let failed = |reason: String| ConversionError::Failed {
        gvk: gvk.clone(),
        reason,
    };
    let answer = converter.call(review).await.map_err(failed)?;
    let returned = converted_objects(version, &uid, &answer).map_err(failed)?;
    if returned.len() != sent.len() {
        return Err(ConversionError::Count {
            gvk,
            got: returned.len(),
            expected: sent.len(),
        });
    }
    let invalid = |what: String, reason: String| ConversionError::Invalid {
        gvk: gvk.clone(),
        what,
        reason,
    };
    for (n, (slot, mut converted)) in pending.into_iter().zip(returned).enumerate() {
        let original = &objects[slot];
        // The real server reports list positions after advancing its index.
        let (object_at, metadata_at) = if is_list {
            (
                format!("converted object at index {}", n + 1),
                format!("metadata in object at index {}", n + 1),
            )
        } else {
            ("object".to_string(), "metadata".to_string())
        };
        if !converted.is_object() {
            let at = if is_list {
                format!("converted object at index {n}")
            } else {
                "object at index 0".to_string()
            };
            return Err(invalid(
                at,
                format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    go_type(&converted)
                ),
            ));
        }
        let kind_at = if is_list {
            object_at.clone()
        } else {
            "object at index 0".to_string()
        };
        let received = group_version(&converted);
        if received != desired {
            return Err(invalid(
                kind_at,
                format!("invalid groupVersion (expected {desired}, received {received})"),
            ));
        }
        let (want_kind, got_kind) = (
            original["kind"].as_str().unwrap_or_default(),
            converted["kind"].as_str().unwrap_or_default(),
        );
        if want_kind != got_kind {
            return Err(invalid(
                kind_at,
                format!("invalid kind (expected {want_kind}, received {got_kind})"),
            ));
        }
        validate_identity(original, &converted).map_err(|r| invalid(object_at, r))?;
        restore_metadata(original, &mut converted).map_err(|r| invalid(metadata_at, r))?;
        objects[slot] = converted;
    }
    Ok(objects)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::conversion::converter::tests::FnConverter;

    fn widget(version: &str, name: &str) -> Value {
        json!({
            "apiVersion": format!("example.dev/{version}"), "kind": "Widget",
            "metadata": {"name": name, "namespace": "ns", "uid": "u-1", "resourceVersion": "7",
                         "labels": {"a": "b"}},
            "spec": {"host": "h"},
        })
    }

    /// A webhook renaming `spec.host` (v1beta1) to `spec.hostname` (v1) and back.
    fn renaming() -> FnConverter {
        FnConverter::new(|review: Value| {
            let desired = review["request"]["desiredAPIVersion"]
                .as_str()
                .unwrap()
                .to_string();
            let objects: Vec<Value> = review["request"]["objects"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| {
                    let mut o = o.clone();
                    let spec = o["spec"].as_object_mut().unwrap();
                    if desired.ends_with("/v1") {
                        if let Some(h) = spec.remove("host") {
                            spec.insert("hostname".into(), h);
                        }
                    } else if let Some(h) = spec.remove("hostname") {
                        spec.insert("host".into(), h);
                    }
                    o["apiVersion"] = json!(desired);
                    o
                })
                .collect();
            Ok(json!({
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                "response": {"uid": review["request"]["uid"], "result": {"status": "Success"},
                             "convertedObjects": objects},
            }))
        })
    }

    #[tokio::test]
    async fn converts_and_keeps_metadata() {
        let caller = renaming();
        let input = widget("v1beta1", "a");
        let out = convert(
            &caller,
            ReviewVersion::V1,
            &input,
            false,
            vec![input.clone()],
            "example.dev/v1",
        )
        .await
        .unwrap();
        assert_eq!(out[0]["spec"], json!({"hostname": "h"}));
        assert_eq!(out[0]["apiVersion"], "example.dev/v1");
        assert_eq!(out[0]["metadata"], input["metadata"]);
        assert_eq!(caller.calls(), 1);
    }

    #[tokio::test]
    async fn objects_already_in_the_desired_version_are_not_sent() {
        let caller = renaming();
        let list = json!({"apiVersion": "example.dev/v1", "kind": "WidgetList"});
        let items = vec![widget("v1", "a"), widget("v1beta1", "b"), widget("v1", "c")];
        let out = convert(
            &caller,
            ReviewVersion::V1,
            &list,
            true,
            items,
            "example.dev/v1",
        )
        .await
        .unwrap();
        assert_eq!(out[1]["spec"], json!({"hostname": "h"}));
        assert_eq!(out[0]["spec"], json!({"host": "h"}), "sent as is");
        assert_eq!(caller.calls(), 1);
        let none = convert(
            &caller,
            ReviewVersion::V1,
            &list,
            true,
            vec![widget("v1", "a")],
            "example.dev/v1",
        )
        .await
        .unwrap();
        assert_eq!(none.len(), 1);
        assert_eq!(caller.calls(), 1, "nothing to convert: no call");
    }

    fn answering(answer: Value) -> FnConverter {
        FnConverter::new(move |review: Value| {
            let mut a = answer.clone();
            if a["response"]["uid"] == json!("SAME") {
                a["response"]["uid"] = review["request"]["uid"].clone();
            }
            Ok(a)
        })
    }

    async fn single(caller: &FnConverter, version: ReviewVersion) -> Result<Vec<Value>, String> {
        let input = widget("v1beta1", "a");
        convert(
            caller,
            version,
            &input,
            false,
            vec![input.clone()],
            "example.dev/v1",
        )
        .await
        .map_err(|e| e.to_string())
    }

    #[tokio::test]
    async fn failures_carry_the_real_messages() {
        let review = |response: Value| json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response});
        let failed = answering(review(json!({"uid": "SAME",
            "result": {"status": "Failure", "message": "spec.host is required"}})));
        assert_eq!(
            single(&failed, ReviewVersion::V1).await.unwrap_err(),
            "conversion webhook for example.dev/v1beta1, Kind=Widget failed: spec.host is required"
        );
        let no_message = answering(review(
            json!({"uid": "SAME", "result": {"status": "Failure"}}),
        ));
        assert!(
            single(&no_message, ReviewVersion::V1)
                .await
                .unwrap_err()
                .ends_with("failed: response.result.status was 'Failure', not 'Success'")
        );
        let wrong_uid = answering(review(
            json!({"uid": "other", "result": {"status": "Success"}}),
        ));
        let e = single(&wrong_uid, ReviewVersion::V1).await.unwrap_err();
        assert!(e.contains("failed: expected response.uid=\""), "{e}");
        assert!(e.ends_with("got \"other\""), "{e}");
        // v1beta1 answers are not checked for uid or kind, as in kube-apiserver.
        let beta = answering(json!({"response": {"result": {"status": "Success"},
            "convertedObjects": [widget("v1", "a")]}}));
        assert!(single(&beta, ReviewVersion::V1beta1).await.is_ok());
        assert_eq!(
            single(&beta, ReviewVersion::V1).await.unwrap_err(),
            "conversion webhook for example.dev/v1beta1, Kind=Widget failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind="
        );
        let down = FnConverter::new(|_| Err("connection refused".into()));
        assert_eq!(
            single(&down, ReviewVersion::V1).await.unwrap_err(),
            "conversion webhook for example.dev/v1beta1, Kind=Widget failed: connection refused"
        );
    }

    fn success(objects: Value) -> FnConverter {
        answering(
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "response": {"uid": "SAME", "result": {"status": "Success"}, "convertedObjects": objects}}),
        )
    }

    #[tokio::test]
    async fn converted_objects_are_checked() {
        let gvk = "conversion webhook for example.dev/v1beta1, Kind=Widget";
        let e = single(&success(json!([])), ReviewVersion::V1)
            .await
            .unwrap_err();
        assert_eq!(e, format!("{gvk} returned 0 objects, expected 1"));
        let e = single(&success(json!([widget("v1beta1", "a")])), ReviewVersion::V1)
            .await
            .unwrap_err();
        assert_eq!(
            e,
            format!(
                "{gvk} returned invalid object at index 0: invalid groupVersion (expected example.dev/v1, received example.dev/v1beta1)"
            )
        );
        let e = single(
            &success(json!([widget("v1", "renamed")])),
            ReviewVersion::V1,
        )
        .await
        .unwrap_err();
        assert_eq!(
            e,
            format!("{gvk} returned invalid object: must have the same name: a != renamed")
        );
        let mut other_uid = widget("v1", "a");
        other_uid["metadata"]["uid"] = json!("u-2");
        let e = single(&success(json!([other_uid])), ReviewVersion::V1)
            .await
            .unwrap_err();
        assert!(e.ends_with("must have the same UID: u-1 != u-2"), "{e}");
        let mut no_meta = widget("v1", "a");
        no_meta.as_object_mut().unwrap().remove("metadata");
        // No metadata at all: the identity check sees an empty name first.
        let e = single(&success(json!([no_meta])), ReviewVersion::V1)
            .await
            .unwrap_err();
        assert!(e.ends_with("must have the same name: a != "), "{e}");
    }

    #[tokio::test]
    async fn only_labels_and_annotations_come_from_the_webhook() {
        let mut answer = widget("v1", "a");
        answer["metadata"]["labels"] = json!({"added": "yes"});
        answer["metadata"]["annotations"] = json!({"note": "x"});
        answer["metadata"]["resourceVersion"] = json!("999");
        answer["metadata"]["finalizers"] = json!(["sneaky"]);
        let out = single(&success(json!([answer])), ReviewVersion::V1)
            .await
            .unwrap();
        let m = &out[0]["metadata"];
        assert_eq!(m["labels"], json!({"added": "yes"}));
        assert_eq!(m["annotations"], json!({"note": "x"}));
        assert_eq!(m["resourceVersion"], "7");
        assert!(m.get("finalizers").is_none());
        let mut bad = widget("v1", "a");
        bad["metadata"]["labels"] = json!({"bad key!": "v"});
        let e = single(&success(json!([bad])), ReviewVersion::V1)
            .await
            .unwrap_err();
        assert!(
            e.starts_with("conversion webhook for example.dev/v1beta1, Kind=Widget returned invalid metadata: metadata.labels: Invalid value: \"bad key!\""),
            "{e}"
        );
        let mut not_string = widget("v1", "a");
        not_string["metadata"]["labels"] = json!({"n": 1});
        let e = single(&success(json!([not_string])), ReviewVersion::V1)
            .await
            .unwrap_err();
        assert!(
            e.ends_with("metadata.labels[n] must be a string, but is int64 in converted object"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn list_positions_in_messages() {
        let caller = success(json!([widget("v1", "a"), widget("v1", "x")]));
        let list = json!({"apiVersion": "example.dev/v1beta1", "kind": "WidgetList"});
        let e = convert(
            &caller,
            ReviewVersion::V1,
            &list,
            true,
            vec![widget("v1beta1", "a"), widget("v1beta1", "b")],
            "example.dev/v1",
        )
        .await
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "conversion webhook for example.dev/v1beta1, Kind=WidgetList returned invalid converted object at index 2: must have the same name: b != x"
        );
    }

    #[test]
    fn review_versions() {
        let v = |l: &[&str]| {
            ReviewVersion::choose(
                &l.iter()
                    .map(std::string::ToString::to_string)
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(v(&["v1", "v1beta1"]), Some(ReviewVersion::V1));
        assert_eq!(v(&["v1beta1", "v1"]), Some(ReviewVersion::V1beta1));
        assert_eq!(v(&["v2", "v1"]), Some(ReviewVersion::V1));
        assert_eq!(v(&["v2"]), None);
        let r = request(ReviewVersion::V1beta1, "u", "g/v1", &[json!({})]);
        assert_eq!(r["apiVersion"], "apiextensions.k8s.io/v1beta1");
        assert_eq!(r["request"]["desiredAPIVersion"], "g/v1");
    }
}
