//! Why an external kind's CRD could not be read or its types generated.

use crate::typegen::TypegenError;

/// What stopped `create api --external` or `update external`. Each message names the CRD's
/// source, the problem and the fix.
#[derive(Debug, thiserror::Error)]
pub enum ExternalError {
    /// The CRD could not be fetched.
    #[error(
        "could not read the CRD from {origin}: {reason}{}\n  fix: {fix}",
        source.as_ref().map(|e| format!(" ({e})")).unwrap_or_default()
    )]
    Fetch {
        /// The source as given.
        origin: String,
        /// What failed.
        reason: String,
        /// The I/O error, when there is one (the file does not read, the program does not run,
        /// its output is not text).
        #[source]
        source: Option<std::io::Error>,
        /// How to get the CRD.
        fix: String,
    },
    /// The text is no usable CRD.
    #[error(
        "{origin} cannot be used: {error}.\n  fix: pass a CustomResourceDefinition (YAML or JSON, as `kubectl get crd <name> -o yaml` prints it)"
    )]
    Crd {
        /// The source.
        origin: String,
        /// What is wrong with it.
        #[source]
        error: TypegenError,
    },
    /// A version asked for is not in the CRD, or the CRD has no schema for it.
    #[error("{origin}: {error}.\n  fix: {fix}")]
    Version {
        /// The source.
        origin: String,
        /// The problem.
        #[source]
        error: TypegenError,
        /// How to pick a version.
        fix: String,
    },
    /// `--group`/`--kind` match no CRD of the source.
    #[error(
        "{origin} has no CRD of {wanted} (it has {available}).\n  fix: pass --kind (and --group) as the CRD names them, or leave them out to take every CRD of the file"
    )]
    NoMatch {
        /// The source.
        origin: String,
        /// What was asked for.
        wanted: String,
        /// The kinds it has.
        available: String,
    },
    /// A flag that means nothing (or something else) with `--external`.
    #[error("{flag} cannot be used with --external: {reason}.\n  fix: {fix}")]
    Flag {
        /// The flag.
        flag: &'static str,
        /// Why not.
        reason: String,
        /// What to do instead.
        fix: String,
    },
    /// The kind is already in PROJECT.
    #[error("{group}/{version} {kind} is already in PROJECT{how}.\n  fix: {fix}")]
    Exists {
        /// Its group.
        group: String,
        /// Its version.
        version: String,
        /// Its kind.
        kind: String,
        /// How it is there (" as an external kind", " as this project's API").
        how: String,
        /// What to do.
        fix: String,
    },
    /// `update external` with nothing to update.
    #[error("{reason}\n  fix: {fix}")]
    NothingToUpdate {
        /// Why.
        reason: String,
        /// What to do.
        fix: String,
    },
}
