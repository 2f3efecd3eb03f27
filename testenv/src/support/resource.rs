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
    /// Whether the version is marked `deprecated`, and the `deprecationWarning` it gives.
    pub deprecated: Option<Option<String>>,
    /// The kind of a list of these objects: the CRD's accepted `listKind`, as the real CRD
    /// handler serves it (the one its spec asks until the names are accepted).
    pub list_kind: String,
    /// What all versions of the kind share: the storage version, the conversion strategy
    /// and each version's schema, to read objects written in another version.
    pub forms: std::sync::Arc<StoredForms>,
}

/// How a CRD stores its objects, shared by all its versions: objects are written in the
/// storage version and read in whichever version they were written in, which may be an
/// earlier storage version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredForms {
    /// The version objects are written in now (`storage: true`).
    pub storage: String,
    /// Whether a webhook converts between versions (`strategy: Webhook`); otherwise only
    /// `apiVersion` changes.
    pub webhook: bool,
    /// Every version the CRD lists, served or not, with its `openAPIV3Schema`.
    pub schemas: Vec<(String, Option<serde_json::Value>)>,
}

impl StoredForms {
    /// The schema of `version`, if the CRD lists it with one.
    pub fn schema_of(&self, version: &str) -> Option<&serde_json::Value> {
        self.schemas
            .iter()
            .find(|(name, _)| name == version)
            .and_then(|(_, schema)| schema.as_ref())
    }
}

/// The verbs of a resource stored and served in full.
pub const STANDARD_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// The verbs of a custom resource, in the order the real server lists them for CRDs.
pub const CUSTOM_VERBS: &[&str] = &[
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

/// The verbs of `/status` and `/scale`.
pub const GET_PATCH_UPDATE: &[&str] = &["get", "patch", "update"];

/// One subresource as discovery lists it (`pods/log`, `deployments/scale`).
#[derive(Debug, Clone, PartialEq)]
pub struct SubresourceDef {
    /// The name after the object's name in the path (`status`, `eviction`).
    pub name: String,
    /// The group of the kind it answers with; empty with `version` for the resource's own
    /// group and version (built-in kinds leave them empty in discovery, as the real server).
    pub group: String,
    /// The version of the kind it answers with (see `group`).
    pub version: String,
    /// The kind it answers with (`Pod`, `Scale`, `Eviction`).
    pub kind: String,
    /// The verbs discovery lists for it.
    pub verbs: &'static [&'static str],
}

/// The storage version hash discovery publishes: the first 8 bytes of the SHA-256 of
/// `<group>/<version>/<kind>` of the storage version, base64 (as kube-apiserver computes it).
pub fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    use base64::Engine;
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("{group}/{version}/{kind}").as_bytes(),
    );
    base64::engine::general_purpose::STANDARD.encode(&digest.as_ref()[..8])
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
    /// The verbs discovery lists (and the server answers).
    pub verbs: &'static [&'static str],
    /// Every subresource discovery lists, in its order (status and scale among them).
    pub subresources: Vec<SubresourceDef>,
    /// The storage version hash discovery lists; `None` for kinds that are not stored.
    pub storage_version_hash: Option<String>,
    /// Whether DELETE answers with the deleted object rather than a `Status` (pods,
    /// services, storage classes, ...: as each kind's registry does in the real server).
    pub returns_deleted_object: bool,
    /// Where objects are stored: shared by every version of the same group and plural.
    pub storage_key: String,
    /// For custom kinds, what the CRD declares for this version.
    pub custom: Option<CustomVersion>,
}

impl ResourceDef {
    /// The kind of a list of these objects (`DeploymentList`; a custom kind's accepted
    /// `listKind`).
    pub fn list_kind(&self) -> String {
        match &self.custom {
            Some(custom) if !custom.list_kind.is_empty() => custom.list_kind.clone(),
            _ => format!("{}List", self.kind),
        }
    }

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

    /// Whether discovery lists `verb` for this resource.
    pub fn allows(&self, verb: &str) -> bool {
        self.verbs.contains(&verb)
    }

    /// The subresource named `name`, if discovery lists it.
    pub fn subresource(&self, name: &str) -> Option<&SubresourceDef> {
        self.subresources.iter().find(|s| s.name == name)
    }
}

impl ResourceDef {
    /// A namespaced resource with only its names set: for messages about kinds that are not
    /// served as resources (TokenRequest, Binding), and for unit tests of code that reads
    /// names (the registry, a layer above, describes the served ones).
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
            verbs: STANDARD_VERBS,
            subresources: Vec::new(),
            storage_version_hash: None,
            returns_deleted_object: false,
            storage_key: format!("{group}/{plural}"),
            custom: None,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn storage_version_hashes_are_the_real_servers() {
        // As listed by kube-apiserver v1.34 for configmaps and deployments.
        assert_eq!(
            super::storage_version_hash("", "v1", "ConfigMap"),
            "qFsyl6wFWjQ="
        );
        assert_eq!(
            super::storage_version_hash("apps", "v1", "Deployment"),
            "8aSe+NMegvE="
        );
    }
}
