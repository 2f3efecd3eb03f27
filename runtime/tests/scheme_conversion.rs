//! Version conversion through the scheme: direct and hub-and-spoke chains from `From` impls.

use kube::CustomResource;
use kubeforge::scheme::{self, ConvertError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The fixture kinds of `v1`.
pub mod v1 {
    use super::*;
    /// v1: a single name.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "conv.example.com",
        version = "v1",
        kind = "Pet",
        storage = false
    )]
    pub struct PetSpec {
        /// Full name.
        pub name: String,
    }
}

/// The fixture kinds of `v2`.
pub mod v2 {
    use super::*;
    /// v2 (the hub): first and last name.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(group = "conv.example.com", version = "v2", kind = "Pet")]
    pub struct PetSpec {
        /// First name.
        pub first: String,
        /// Last name.
        pub last: String,
    }
}

/// The fixture kinds of `v3`.
pub mod v3 {
    use super::*;
    /// v3: names in a list.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "conv.example.com",
        version = "v3",
        kind = "Pet",
        storage = false
    )]
    pub struct PetSpec {
        /// Names.
        pub names: Vec<String>,
    }
}

impl From<v1::Pet> for v2::Pet {
    fn from(p: v1::Pet) -> Self {
        let (first, last) = p.spec.name.split_once(' ').unwrap_or((&p.spec.name, ""));
        let mut out = v2::Pet::new(
            "",
            v2::PetSpec {
                first: first.into(),
                last: last.into(),
            },
        );
        out.metadata = p.metadata;
        out
    }
}

impl From<v2::Pet> for v3::Pet {
    fn from(p: v2::Pet) -> Self {
        let mut out = v3::Pet::new(
            "",
            v3::PetSpec {
                names: vec![p.spec.first, p.spec.last],
            },
        );
        out.metadata = p.metadata;
        out
    }
}

kubeforge::conversion!(v1::Pet => v2::Pet, v2::Pet => v3::Pet);

fn v1_object() -> serde_json::Value {
    json!({"apiVersion": "conv.example.com/v1", "kind": "Pet", "metadata": {"name": "rex", "labels": {"a": "b"}}, "spec": {"name": "Rex Dog"}})
}

#[test]
fn converts_directly_and_through_the_hub() {
    let v2 = scheme::convert(v1_object(), "conv.example.com/v2").unwrap();
    assert_eq!(v2["apiVersion"], "conv.example.com/v2");
    assert_eq!(v2["spec"], json!({"first": "Rex", "last": "Dog"}));
    assert_eq!(v2["metadata"]["labels"], json!({"a": "b"}));
    let v3 = scheme::convert(v1_object(), "conv.example.com/v3").unwrap();
    assert_eq!(v3["spec"], json!({"names": ["Rex", "Dog"]}));
    assert_eq!(
        scheme::convert(v1_object(), "conv.example.com/v1").unwrap(),
        v1_object()
    );
}

#[test]
fn missing_paths_and_bad_objects_are_errors() {
    let v3 = json!({"apiVersion": "conv.example.com/v3", "kind": "Pet", "metadata": {"name": "x"}, "spec": {"names": []}});
    let err = scheme::convert(v3, "conv.example.com/v1").unwrap_err();
    assert!(
        matches!(
            &err,
            ConvertError::NoPath { kind, from, to }
                if kind == "Pet" && from == "conv.example.com/v3" && to == "conv.example.com/v1"
        ),
        "{err:?}"
    );
    assert!(matches!(
        scheme::convert(json!({"spec": {}}), "conv.example.com/v2").unwrap_err(),
        ConvertError::Untyped
    ));
    let broken = json!({"apiVersion": "conv.example.com/v1", "kind": "Pet", "metadata": {}, "spec": {"name": 5}});
    let err = scheme::convert(broken, "conv.example.com/v2").unwrap_err();
    assert!(matches!(&err, ConvertError::Failed { .. }), "{err:?}");
    // The serde error is kept typed as the source, and named in the message.
    let source = std::error::Error::source(&err)
        .and_then(|e| e.downcast_ref::<serde_json::Error>())
        .expect("the serde error is the source");
    assert!(source.is_data(), "{source}");
    assert!(err.to_string().ends_with(&source.to_string()), "{err}");
}

#[test]
fn the_merged_crd_stores_the_hub_version() {
    let crd = scheme::crd_for("conv.example.com", "Pet").unwrap();
    let versions: Vec<(&str, bool)> = crd
        .spec
        .versions
        .iter()
        .map(|v| (v.name.as_str(), v.storage))
        .collect();
    assert_eq!(versions, [("v1", false), ("v2", true), ("v3", false)]);
}

#[test]
fn conversion_reviews_are_answered_in_order() {
    use kube::core::conversion::ConversionReview;
    let review: ConversionReview = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "desiredAPIVersion": "conv.example.com/v3",
            "objects": [v1_object(), {"apiVersion": "conv.example.com/v2", "kind": "Pet", "metadata": {"name": "b"}, "spec": {"first": "A", "last": "B"}}]
        }
    }))
    .unwrap();
    let answer = serde_json::to_value(scheme::review(review)).unwrap();
    assert_eq!(
        answer["response"]["uid"],
        "705ab4f5-6393-11e8-b7cc-42010a800002"
    );
    assert_eq!(answer["response"]["result"]["status"], "Success");
    let objects = answer["response"]["convertedObjects"].as_array().unwrap();
    assert_eq!(objects[0]["spec"], json!({"names": ["Rex", "Dog"]}));
    assert_eq!(objects[1]["metadata"]["name"], "b");
    assert_eq!(objects[1]["apiVersion"], "conv.example.com/v3");

    let impossible: ConversionReview = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "u", "desiredAPIVersion": "conv.example.com/v1", "objects": [objects[0].clone()]}
    }))
    .unwrap();
    let answer = serde_json::to_value(scheme::review(impossible)).unwrap();
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    assert!(
        answer["response"]["result"]["message"]
            .as_str()
            .unwrap()
            .contains("no conversion of Pet"),
        "{answer}"
    );
}
