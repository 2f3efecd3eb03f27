//! CustomResourceDefinitions read from text: YAML or JSON, one or several documents, or a
//! `List` of them, as files, URLs and `kubectl get crd -o json` give them.

use serde_json::Value;

use super::error::TypegenError;

/// How deeply a CRD's YAML may nest (serde-saphyr's default, 64, is two schema levels per
/// object level: a schema 32 objects deep would not read).
const MAX_YAML_DEPTH: usize = 512;

/// One `apiextensions.k8s.io/v1` CustomResourceDefinition, with what the generator reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Crd {
    /// `metadata.name` (`certificates.cert-manager.io`).
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.names.plural`.
    pub plural: String,
    /// `spec.names.singular`.
    pub singular: Option<String>,
    /// `spec.names.shortNames`.
    pub short_names: Vec<String>,
    /// `spec.names.categories`.
    pub categories: Vec<String>,
    /// `spec.scope` is `Namespaced`.
    pub namespaced: bool,
    /// `metadata.annotations["api-approved.kubernetes.io"]`: a CRD of a `*.k8s.io` group is
    /// refused without it, so the regenerated CRD carries it too.
    pub api_approved: Option<String>,
    /// `spec.versions`, in the CRD's order.
    pub versions: Vec<CrdVersion>,
    /// The document as YAML: its own text when it came as a YAML document, else rendered.
    pub text: String,
}

/// One version of a CRD.
#[derive(Debug, Clone, PartialEq)]
pub struct CrdVersion {
    /// `name` (`v1`).
    pub name: String,
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
    /// `deprecated`.
    pub deprecated: bool,
    /// `deprecationWarning`.
    pub deprecation_warning: Option<String>,
    /// `schema.openAPIV3Schema` (`Value::Null` when the version has none).
    pub schema: Value,
    /// Whether `subresources.status` is set.
    pub status_subresource: bool,
    /// `subresources.scale`.
    pub scale: Option<Scale>,
    /// `additionalPrinterColumns`.
    pub printer_columns: Vec<PrinterColumn>,
    /// `selectableFields[].jsonPath`.
    pub selectable_fields: Vec<String>,
}

/// The scale subresource's paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scale {
    /// `specReplicasPath`.
    pub spec_replicas_path: String,
    /// `statusReplicasPath`.
    pub status_replicas_path: String,
    /// `labelSelectorPath`.
    pub label_selector_path: Option<String>,
}

/// One additional printer column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    /// `name`.
    pub name: String,
    /// `type`.
    pub type_: String,
    /// `jsonPath`.
    pub json_path: String,
    /// `description`.
    pub description: Option<String>,
    /// `format`.
    pub format: Option<String>,
    /// `priority`.
    pub priority: Option<i64>,
}

impl Crd {
    /// The version named `name`.
    pub fn version(&self, name: &str) -> Option<&CrdVersion> {
        self.versions.iter().find(|v| v.name == name)
    }

    /// The storage version (the first served version when none is marked).
    pub fn storage_version(&self) -> Option<&CrdVersion> {
        self.versions
            .iter()
            .find(|v| v.storage)
            .or_else(|| self.versions.iter().find(|v| v.served))
    }

    /// `<group>_<plural>.yaml`, the name controller-gen gives the CRD's file.
    pub fn file_name(&self) -> String {
        format!("{}_{}.yaml", self.group, self.plural)
    }
}

/// Every CRD in `text` (YAML or JSON; several documents; `List`s). Documents of other kinds
/// are skipped; a text with no CRD at all, or a CRD of `apiextensions.k8s.io/v1beta1`, is an
/// error.
pub fn parse_crds(text: &str) -> Result<Vec<Crd>, TypegenError> {
    let mut crds = Vec::new();
    let mut other_kinds = Vec::new();
    let chunks = documents(text);
    let single = chunks.len() == 1;
    for chunk in chunks {
        let options = serde_saphyr::options! {
            budget: serde_saphyr::budget! {
                max_depth: MAX_YAML_DEPTH,
                // JSON's braces are YAML flow collections, which have a limit of their own.
                flow_nesting_limit: MAX_YAML_DEPTH,
            },
        };
        let value: Value =
            serde_saphyr::from_str_with_options(chunk, options).map_err(|source| {
                TypegenError::Parse {
                    source: Box::new(source),
                }
            })?;
        // A file of one document is copied whole (comments and `---` included).
        let own_text = if single { text } else { chunk };
        let own_text = (!chunk.trim_start().starts_with(['{', '['])).then_some(own_text);
        collect(&value, own_text, &mut crds, &mut other_kinds)?;
    }
    if crds.is_empty() {
        return Err(TypegenError::NoCrd {
            found: other_kinds.join(", "),
        });
    }
    Ok(crds)
}

/// The YAML documents of `text`, split at `---` lines (a JSON text is one document).
fn documents(text: &str) -> Vec<&str> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed.starts_with("--- ") {
            docs.push(&text[start..offset]);
            start = offset + line.len();
        }
        offset += line.len();
    }
    docs.push(&text[start..]);
    docs.into_iter()
        .filter(|d| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .collect()
}

fn collect(
    value: &Value,
    own_text: Option<&str>,
    crds: &mut Vec<Crd>,
    other_kinds: &mut Vec<String>,
) -> Result<(), TypegenError> {
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = value
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    if kind.ends_with("List")
        && let Some(items) = value.get("items").and_then(Value::as_array)
    {
        for item in items {
            collect(item, None, crds, other_kinds)?;
        }
        return Ok(());
    }
    if kind != "CustomResourceDefinition" {
        if !value.is_null() {
            other_kinds.push(if kind.is_empty() { "no kind" } else { kind }.to_owned());
        }
        return Ok(());
    }
    if api_version != "apiextensions.k8s.io/v1" {
        return Err(TypegenError::OldCrdVersion {
            api_version: api_version.to_owned(),
        });
    }
    let text = match own_text {
        Some(text) => text.to_owned(),
        None => render(value)?,
    };
    crds.push(crd(value, text)?);
    Ok(())
}

/// The CRD as YAML, without what a server adds (`status`, and the server-set metadata).
fn render(value: &Value) -> Result<String, TypegenError> {
    let mut value = value.clone();
    if let Some(map) = value.as_object_mut() {
        map.remove("status");
        if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            for key in [
                "managedFields",
                "resourceVersion",
                "uid",
                "creationTimestamp",
                "generation",
                "selfLink",
            ] {
                meta.remove(key);
            }
            if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
                annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
                if annotations.is_empty() {
                    meta.remove("annotations");
                }
            }
        }
    }
    serde_saphyr::to_string(&value).map_err(|source| TypegenError::Serialize {
        source: Box::new(source),
    })
}

fn str_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(Value::as_str)
}

fn strings_at(value: &Value, path: &[&str]) -> Vec<String> {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn crd(value: &Value, text: String) -> Result<Crd, TypegenError> {
    let name = str_at(value, &["metadata", "name"]).unwrap_or_default();
    let missing = |field: &str| TypegenError::BadCrd {
        name: name.to_owned(),
        reason: format!("it has no {field}"),
    };
    let group = str_at(value, &["spec", "group"]).ok_or_else(|| missing("spec.group"))?;
    let kind =
        str_at(value, &["spec", "names", "kind"]).ok_or_else(|| missing("spec.names.kind"))?;
    let plural =
        str_at(value, &["spec", "names", "plural"]).ok_or_else(|| missing("spec.names.plural"))?;
    let versions = value
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| missing("spec.versions"))?;
    Ok(Crd {
        name: if name.is_empty() {
            format!("{plural}.{group}")
        } else {
            name.to_owned()
        },
        group: group.to_owned(),
        kind: kind.to_owned(),
        plural: plural.to_owned(),
        singular: str_at(value, &["spec", "names", "singular"]).map(str::to_owned),
        short_names: strings_at(value, &["spec", "names", "shortNames"]),
        categories: strings_at(value, &["spec", "names", "categories"]),
        namespaced: str_at(value, &["spec", "scope"]) != Some("Cluster"),
        api_approved: value
            .pointer("/metadata/annotations/api-approved.kubernetes.io")
            .and_then(Value::as_str)
            .map(str::to_owned),
        versions: versions.iter().map(version).collect(),
        text,
    })
}

fn version(value: &Value) -> CrdVersion {
    let flag = |key: &str| value.get(key).and_then(Value::as_bool).unwrap_or(false);
    let scale = value.pointer("/subresources/scale").map(|s| Scale {
        spec_replicas_path: str_at(s, &["specReplicasPath"])
            .unwrap_or_default()
            .to_owned(),
        status_replicas_path: str_at(s, &["statusReplicasPath"])
            .unwrap_or_default()
            .to_owned(),
        label_selector_path: str_at(s, &["labelSelectorPath"]).map(str::to_owned),
    });
    let printer_columns = value
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .map(|columns| {
            columns
                .iter()
                .map(|c| PrinterColumn {
                    name: str_at(c, &["name"]).unwrap_or_default().to_owned(),
                    type_: str_at(c, &["type"]).unwrap_or("string").to_owned(),
                    json_path: str_at(c, &["jsonPath"]).unwrap_or_default().to_owned(),
                    description: str_at(c, &["description"]).map(str::to_owned),
                    format: str_at(c, &["format"]).map(str::to_owned),
                    priority: c.get("priority").and_then(Value::as_i64),
                })
                .collect()
        })
        .unwrap_or_default();
    let selectable_fields = value
        .get("selectableFields")
        .and_then(Value::as_array)
        .map(|f| {
            f.iter()
                .filter_map(|f| str_at(f, &["jsonPath"]).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    CrdVersion {
        name: str_at(value, &["name"]).unwrap_or_default().to_owned(),
        served: flag("served"),
        storage: flag("storage"),
        deprecated: flag("deprecated"),
        deprecation_warning: str_at(value, &["deprecationWarning"]).map(str::to_owned),
        schema: value
            .pointer("/schema/openAPIV3Schema")
            .cloned()
            .unwrap_or(Value::Null),
        status_subresource: value.pointer("/subresources/status").is_some(),
        scale,
        printer_columns,
        selectable_fields,
    }
}
