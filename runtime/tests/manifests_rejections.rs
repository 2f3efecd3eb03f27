//! Rust shapes with no structural form, and version sets that cannot merge, fail with an
//! explanation naming the field or the colliding types instead of producing a CRD the API
//! server rejects.

use kube::CustomResource;
use kubeforge::manifests::{self, ManifestsArgs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Variants of different JSON types.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Mixed {
    Text(String),
    Number(i64),
}

/// A spec with an untagged enum of different types.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "bad.example.com", version = "v1", kind = "Untagged")]
pub struct UntaggedSpec {
    /// Either text or a number.
    pub value: Mixed,
}

/// A recursive type without a schemaless escape hatch.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Node {
    /// Children.
    pub children: Vec<Node>,
}

/// A spec holding a recursive type.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "bad.example.com", version = "v1", kind = "Recursive")]
pub struct RecursiveSpec {
    /// The tree.
    pub root: Node,
}

/// Unit and data variants mixed.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub enum Shape {
    Empty,
    Sized { size: i32 },
}

/// A spec with a mixed enum.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "bad.example.com", version = "v1", kind = "MixedEnum")]
pub struct MixedEnumSpec {
    /// The shape.
    pub shape: Shape,
}

pub mod v1 {
    use super::*;
    /// v1, storage by kube's default.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(group = "bad.example.com", version = "v1", kind = "Twice")]
    pub struct TwiceSpec {
        /// A.
        pub a: String,
    }
}

pub mod v2 {
    use super::*;
    /// v2, also storage by kube's default: a collision.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(group = "bad.example.com", version = "v2", kind = "Twice")]
    pub struct TwiceSpec {
        /// A.
        pub a: String,
    }
}

pub mod scoped {
    use super::*;
    /// v1 namespaced.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(group = "bad.example.com", version = "v1", kind = "Scoped", namespaced)]
    pub struct ScopedSpec {
        /// A.
        pub a: String,
    }
    /// v2 cluster-scoped: the versions disagree on scope.
    pub mod v2 {
        use super::*;
        #[kubeforge::api]
        #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
        #[kube(
            group = "bad.example.com",
            version = "v2",
            kind = "Scoped",
            storage = false
        )]
        pub struct ScopedSpec {
            /// A.
            pub a: String,
        }
    }
}

fn error(kind: &str) -> String {
    manifests::crd("bad.example.com", kind)
        .expect_err("must be rejected")
        .to_string()
}

#[test]
fn untagged_enums_of_different_types_are_explained() {
    let e = error("Untagged");
    assert!(e.contains(".spec.value"), "{e}");
    assert!(
        e.contains("untagged enum") || e.contains("different JSON types"),
        "{e}"
    );
}

#[test]
fn recursive_types_are_explained() {
    let e = error("Recursive");
    assert!(e.contains("recursive Rust type"), "{e}");
    assert!(e.contains("schemaless, preserve_unknown_fields"), "{e}");
}

#[test]
fn enums_mixing_unit_and_data_variants_are_explained() {
    let e = error("MixedEnum");
    assert!(e.contains("MixedEnum") && e.contains("shape"), "{e}");
}

#[test]
fn two_storage_versions_name_the_colliding_types() {
    let e = error("Twice");
    assert!(
        e.contains("twices.bad.example.com has more than one storage version"),
        "{e}"
    );
    assert!(e.contains("v1 (manifests_rejections::v1::Twice)"), "{e}");
    assert!(e.contains("v2 (manifests_rejections::v2::Twice)"), "{e}");
    assert!(e.contains("#[kube(storage = false)]"), "{e}");
}

#[test]
fn versions_disagreeing_on_scope_are_rejected() {
    let e = error("Scoped");
    assert!(e.contains("disagree on scope"), "{e}");
    assert!(
        e.contains("v1 (manifests_rejections::scoped::Scoped): Namespaced"),
        "{e}"
    );
}

#[test]
fn manifests_refuses_to_write_anything() {
    let dir = tempfile::tempdir().unwrap();
    let err = manifests::run(ManifestsArgs {
        output_dir: dir.path().into(),
        ..Default::default()
    });
    assert!(err.is_err());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written on error"
    );
}
