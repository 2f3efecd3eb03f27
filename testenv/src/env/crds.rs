//! Gathering the caller's CRDs from typed values, YAML text and directories.

use std::path::PathBuf;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::Error;

/// Where a CRD comes from.
pub enum CrdSource {
    /// A typed CRD.
    Typed(Box<CustomResourceDefinition>),
    /// YAML text with one or more documents.
    Yaml {
        /// Description used in errors.
        origin: String,
        /// The YAML.
        text: String,
    },
    /// A directory of YAML files.
    Dir(PathBuf),
}

fn parse_yaml(origin: &str, text: &str) -> Result<Vec<Value>, Error> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(text).map_err(|e| Error::InvalidCrd {
        origin: origin.to_string(),
        message: "not valid YAML".into(),
        source: Some(e.into()),
    })?;
    let mut out = Vec::new();
    for (i, doc) in docs.into_iter().enumerate() {
        if doc.is_null() {
            continue;
        }
        let kind = doc.get("kind").and_then(Value::as_str).unwrap_or_default();
        if kind != "CustomResourceDefinition" {
            return Err(Error::InvalidCrd {
                origin: format!("{origin}, document {}", i + 1),
                message: format!(
                    "expected kind CustomResourceDefinition, found {kind:?}; pass only CRD manifests"
                ),
                source: None,
            });
        }
        out.push(doc);
    }
    Ok(out)
}

/// Every CRD as JSON, in the order given.
pub fn load(sources: &[CrdSource]) -> Result<Vec<Value>, Error> {
    let mut out = Vec::new();
    for source in sources {
        match source {
            CrdSource::Typed(crd) => {
                out.push(serde_json::to_value(crd).map_err(|e| Error::InvalidCrd {
                    origin: crd.metadata.name.clone().unwrap_or_default(),
                    message: "could not be written as JSON".into(),
                    source: Some(e.into()),
                })?);
            }
            CrdSource::Yaml { origin, text } => out.extend(parse_yaml(origin, text)?),
            CrdSource::Dir(dir) => {
                let read_err = |source| Error::Read {
                    path: dir.clone(),
                    source,
                };
                let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
                    .map_err(read_err)?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
                    .collect();
                files.sort();
                for file in files {
                    let text = std::fs::read_to_string(&file).map_err(|source| Error::Read {
                        path: file.clone(),
                        source,
                    })?;
                    out.extend(parse_yaml(&file.display().to_string(), &text)?);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::parse_yaml;
    use crate::Error;
    use std::error::Error as _;

    #[test]
    fn yaml_that_does_not_parse_keeps_the_parsers_error() {
        let err = parse_yaml("crd.yaml", "kind: [unclosed").unwrap_err();
        assert!(
            matches!(&err, Error::InvalidCrd { origin, .. } if origin == "crd.yaml"),
            "{err:?}"
        );
        let source = err.source().expect("the parser's error is the source");
        assert!(source.is::<serde_saphyr::Error>(), "{source:?}");
    }

    #[test]
    fn a_document_of_another_kind_has_no_parser_error() {
        let err = parse_yaml("crd.yaml", "kind: ConfigMap\n").unwrap_err();
        assert!(err.source().is_none(), "{err:?}");
        assert!(err.to_string().contains("found \"ConfigMap\""), "{err}");
    }
}
