//! Version sets that cannot merge fail with an explanation naming the colliding types instead
//! of producing a CRD the API server rejects; `manifests` lists every such kind in one run and
//! writes the others only with `--keep-going`.

use kube::CustomResource;
use kubeforge::manifests::{self, ManifestsArgs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A kind that generates fine next to the broken ones.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "bad.example.com", version = "v1", kind = "Fine")]
pub struct FineSpec {
    /// A.
    pub a: String,
}

/// The fixture kinds of `v1`.
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

/// The fixture kinds of `v2`.
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

/// The fixture kinds of `scoped`.
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
    /// The fixture kinds of `v2`.
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
        /// The spec of `Scoped` in `v2`.
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
fn manifests_lists_every_broken_kind_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let err = manifests::run(ManifestsArgs {
        output_dir: dir.path().into(),
        ..Default::default()
    })
    .expect_err("two kinds are broken")
    .to_string();
    assert!(
        err.starts_with("cannot generate 2 of the operator's kinds (nothing was written; --keep-going writes the other kinds):"),
        "{err}"
    );
    assert!(
        err.contains(
            "\n  Scoped.bad.example.com: the versions of scopeds.bad.example.com disagree on scope"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "\n  Twice.bad.example.com: twices.bad.example.com has more than one storage version"
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written on error"
    );
}

#[test]
fn keep_going_writes_the_other_kinds_and_still_fails() {
    let dir = tempfile::tempdir().unwrap();
    let err = manifests::run(ManifestsArgs {
        output_dir: dir.path().into(),
        keep_going: true,
        ..Default::default()
    })
    .expect_err("two kinds are broken")
    .to_string();
    assert!(
        err.starts_with("cannot generate 2 of the operator's kinds (the manifests of the other kinds were written):"),
        "{err}"
    );
    let mut written: Vec<String> = std::fs::read_dir(dir.path().join("crd/bases"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["bad.example.com_fines.yaml"]);
    assert!(dir.path().join("rbac/role.yaml").exists());

    // --check never writes, and lists the same failures.
    let check = tempfile::tempdir().unwrap();
    let err = manifests::run(ManifestsArgs {
        output_dir: check.path().into(),
        keep_going: true,
        check: true,
        ..Default::default()
    })
    .expect_err("two kinds are broken")
    .to_string();
    assert!(err.contains("Twice.bad.example.com"), "{err}");
    assert_eq!(std::fs::read_dir(check.path()).unwrap().count(), 0);
}
