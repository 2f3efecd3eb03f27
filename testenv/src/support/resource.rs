//! What one served resource is: group, version, kind, plural, scope, subresources and where
//! its objects are stored. The registry (`crate::registry`) keeps the set of them; every layer
//! describes the resource it works on with a [`ResourceDef`].

/// Where the replica count of a kind lives, for the `scale` subresource.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleSpec {
    /// JSON path of the desired replicas, for example `.spec.replicas`.
    pub spec_replicas_path: String,
    /// JSON path of the observed replicas, for example `.status.replicas`.
    pub status_replicas_path: String,
    /// JSON path of the label selector string, if any.
    pub label_selector_path: Option<String>,
}

/// What the CRD of a custom kind says about one served version.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomVersion {
    /// The version's `openAPIV3Schema`, if it declares one.
    pub schema: Option<serde_json::Value>,
    /// `additionalPrinterColumns` of the version.
    pub printer_columns: Vec<serde_json::Value>,
    /// JSON paths of the version's `selectableFields`.
    pub selectable_fields: Vec<String>,
}

/// One servable resource: a group/version/plural with its kind and behaviour.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDef {
    /// API group, empty for the core group.
    pub group: String,
    /// API version within the group.
    pub version: String,
    /// Object kind, for example `Deployment`.
    pub kind: String,
    /// Lower-case plural used in URLs, for example `deployments`.
    pub plural: String,
    /// Lower-case singular name.
    pub singular: String,
    /// Short names kubectl accepts (`deploy`).
    pub short_names: Vec<String>,
    /// Categories (`all`).
    pub categories: Vec<String>,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Whether the kind has a `/status` subresource.
    pub status_subresource: bool,
    /// The `/scale` subresource, if any.
    pub scale: Option<ScaleSpec>,
    /// Whether `metadata.generation` is maintained (bumped on spec changes).
    pub tracks_generation: bool,
    /// Whether PUT without `metadata.resourceVersion` is allowed.
    pub allow_unconditional_update: bool,
    /// Create-only "virtual" kinds such as TokenReview that are answered, never stored.
    pub create_only: bool,
    /// Where objects are stored: shared by every version of the same group and plural.
    pub storage_key: String,
    /// For custom kinds, what the CRD declares for this version.
    pub custom: Option<CustomVersion>,
}

impl ResourceDef {
    /// `apiVersion` string of this resource (`v1`, `apps/v1`).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The "qualified resource" used in error messages: `deployments.apps`, `configmaps`.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The kind qualified by group, as in `Deployment.apps "x" is invalid`.
    pub fn qualified_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }

    /// The verbs discovery advertises for this resource, in the real server's order (a custom
    /// resource's handler lists them in an order of its own).
    pub fn verbs(&self) -> Vec<&'static str> {
        if self.create_only {
            vec!["create"]
        } else if self.custom.is_some() {
            vec![
                "delete",
                "deletecollection",
                "get",
                "list",
                "patch",
                "create",
                "update",
                "watch",
            ]
        } else {
            vec![
                "create",
                "delete",
                "deletecollection",
                "get",
                "list",
                "patch",
                "update",
                "watch",
            ]
        }
    }
}

#[cfg(test)]
impl ResourceDef {
    /// A namespaced resource with only its names set, for unit tests of code that reads
    /// names (the registry, a layer above, describes the real ones).
    pub fn named(group: &str, version: &str, kind: &str, plural: &str) -> Self {
        ResourceDef {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: plural.into(),
            singular: kind.to_lowercase(),
            short_names: Vec::new(),
            categories: Vec::new(),
            namespaced: true,
            status_subresource: false,
            scale: None,
            tracks_generation: true,
            allow_unconditional_update: true,
            create_only: false,
            storage_key: format!("{group}/{plural}"),
            custom: None,
        }
    }
}
