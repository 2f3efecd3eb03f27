//! Why a CRD could not be turned into Rust types.

/// What went wrong reading a CRD or generating its types. The command that reads the CRD adds
/// where it came from and the fix.
#[derive(Debug, thiserror::Error)]
pub enum TypegenError {
    /// The text is neither YAML nor JSON.
    #[error("it is not YAML or JSON: {source}")]
    Parse {
        /// The parser's error (boxed: it is large).
        #[source]
        source: Box<serde_saphyr::Error>,
    },
    /// A CRD read could not be written back as YAML (its copy in the project).
    #[error("it could not be written back as YAML: {source}")]
    Serialize {
        /// The serializer's error (boxed: it may be large).
        #[source]
        source: Box<serde_saphyr::SerializeError>,
    },
    /// No document is a CustomResourceDefinition.
    #[error("it holds no CustomResourceDefinition{}", if found.is_empty() { String::new() } else { format!(" (only {found})") })]
    NoCrd {
        /// The kinds it holds instead.
        found: String,
    },
    /// A CRD of the long-removed `apiextensions.k8s.io/v1beta1`.
    #[error(
        "it is a CustomResourceDefinition of {api_version}; kubeforge reads apiextensions.k8s.io/v1 (Kubernetes 1.16 and later serve every CRD as v1: `kubectl get crd <name> -o yaml` prints it)"
    )]
    OldCrdVersion {
        /// The apiVersion found.
        api_version: String,
    },
    /// A CRD without a field every CRD has.
    #[error("the CustomResourceDefinition {name:?} is malformed: {reason}")]
    BadCrd {
        /// Its name.
        name: String,
        /// What is missing.
        reason: String,
    },
    /// The version asked for is not in the CRD.
    #[error("the CustomResourceDefinition {crd} has no version {version} (it has {available})")]
    NoSuchVersion {
        /// The CRD's name.
        crd: String,
        /// The version asked for.
        version: String,
        /// The versions it has.
        available: String,
    },
    /// The version has no `openAPIV3Schema`.
    #[error(
        "version {version} of the CustomResourceDefinition {crd} has no openAPIV3Schema, so it describes no fields to type"
    )]
    NoSchema {
        /// The CRD's name.
        crd: String,
        /// The version.
        version: String,
    },
}
