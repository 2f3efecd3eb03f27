//! The checks of a whole CustomResourceDefinition on create and update: the CRD-level rules
//! and every version's structural schema, on a copy with the CRD defaults applied, plus the
//! rules of an update (immutable fields, stored versions).

use serde_json::Value;

use super::crd::{apply_crd_defaults, check_crd};
use super::errors::FieldError;

/// Checks a whole CustomResourceDefinition object (as JSON) the way the apiserver's CRD
/// validation does: names (plural/singular/kind/listKind, `metadata.name ==
/// <plural>.<group>`), scope, exactly one storage version, at least one served, version
/// names, printer columns, scale subresource paths, conversion, and that every version's
/// `openAPIV3Schema` is a structural schema whose defaults are valid and pruned.
///
/// The CRD defaults (`singular`, `listKind`, `conversion`) are applied to a copy first, as
/// the server does before validating; use `apply_crd_defaults` to store them.
/// Messages match the real server's (`spec.validation.openAPIV3Schema.properties[spec].type:
/// Required value: must not be empty for specified object fields` when every version has
/// the same schema, `spec.versions[1].schema.openAPIV3Schema...` when they differ).
pub fn check_structural(crd: &Value) -> Result<(), Vec<FieldError>> {
    let mut copy = crd.clone();
    apply_crd_defaults(&mut copy);
    let errs = check_crd(&copy, None);
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// [`check_structural`] for an update of `old` to `new`, plus the update rules: `spec.group`
/// and `spec.names.plural` never change, `spec.scope` and `spec.names.kind` not once the
/// CRD is established (`field is immutable`), and every version in `status.storedVersions`
/// must stay in `spec.versions` (`missing from spec.versions; ...`).
pub fn check_structural_update(new: &Value, old: &Value) -> Result<(), Vec<FieldError>> {
    let mut copy = new.clone();
    apply_crd_defaults(&mut copy);
    let errs = check_crd(&copy, Some(old));
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(schema: Value) -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "memcacheds.cache.example.com"},
            "spec": {"group": "cache.example.com", "scope": "Namespaced",
                "names": {"plural": "memcacheds", "kind": "Memcached"},
                "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": schema}}]}
        })
    }

    fn msgs(c: &Value) -> Vec<String> {
        match check_structural(c) {
            Ok(()) => vec![],
            Err(e) => e.iter().map(FieldError::to_message).collect(),
        }
    }

    /// A single version's schema is the CRD's shared schema: the real server reports it as
    /// `spec.validation` (see `crd::identical_per_version`).
    const P: &str = "spec.validation.openAPIV3Schema";

    #[test]
    fn a_good_crd_passes() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "size": {"type": "integer", "minimum": 1, "default": 1},
                "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
                "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "tpl": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
                "mode": {"type": "string", "anyOf": [{"enum": ["a"]}, {"pattern": "^b"}]},
            }},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}},
        }});
        assert_eq!(msgs(&crd(schema)), Vec::<String>::new());
    }

    #[test]
    fn schema_rules_come_from_the_shared_table() {
        // The structural and keyword rules are `kubeforge-schema`'s (its test table holds
        // them); here they are reported at the CRD's path, structural errors first.
        let schema = json!({"type": "object", "properties": {
            "spec": {"properties": {"u": {"type": "array", "uniqueItems": true, "items": {"type": "string"}}}},
        }});
        assert_eq!(
            msgs(&crd(schema)),
            [
                format!(
                    "{P}.properties[spec].type: Required value: must not be empty for specified object fields"
                ),
                format!(
                    "{P}.properties[spec].properties[u].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
                ),
            ]
        );
    }

    #[test]
    fn crd_level_checks() {
        let mut c = crd(json!({"type": "object"}));
        c["metadata"]["name"] = json!("wrong.cache.example.com");
        c["spec"]["scope"] = json!("Global");
        c["spec"]["names"]["kind"] = json!("Mem_cached");
        c["spec"]["versions"] = json!([
            {"name": "v1", "served": false, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
            {"name": "V2", "served": false, "storage": false}
        ]);
        let got = msgs(&c);
        assert_eq!(
            got[0],
            r#"metadata.name: Invalid value: "wrong.cache.example.com": must be spec.names.plural+"."+spec.group"#
        );
        assert!(got.iter().any(|m| m.starts_with(r#"spec.names.kind: Invalid value: "Mem_cached": may have mixed case, but should otherwise match: a DNS-1035 label"#)), "{got:?}");
        assert!(got.contains(&r#"spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced""#.to_string()));
        assert!(got.iter().any(|m| {
            m.starts_with(r#"spec.versions[1].name: Invalid value: "V2": a DNS-1035 label"#)
        }));
        assert!(
            got.contains(&"spec.versions[1].schema.openAPIV3Schema: Required value".to_string())
        );
        assert!(
            got.iter().any(|m| m.starts_with(r#"spec.versions: Invalid value: [{"Name":"v1","Served":false,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":{"OpenAPIV3Schema":{"ID":"#)
                && m.ends_with("must have exactly one version marked as storage version")),
            "{got:?}"
        );
        assert!(got.contains(
            &"status.storedVersions: Invalid value: null: must have at least one stored version"
                .to_string()
        ));
        assert!(!got.iter().any(|m| m.contains("must serve")), "{got:?}");
        let mut g = crd(json!({"type": "object"}));
        g["spec"]["group"] = json!("example");
        g["metadata"]["name"] = json!("memcacheds.example");
        assert_eq!(
            msgs(&g),
            vec![
                r#"spec.group: Invalid value: "example": should be a domain with at least one dot"#
            ]
        );
    }

    /// kube-apiserver v1.34.9's answers to CRDs without versions, with an empty list and
    /// with two versions of the same name (recorded by hand against the binaries).
    #[test]
    fn versions_and_stored_versions_as_kube_apiserver_answers() {
        let stored_none =
            "status.storedVersions: Invalid value: null: must have at least one stored version";
        let storage = "must have exactly one version marked as storage version";
        let mut c = crd(json!({"type": "object"}));
        c["spec"]["versions"] = json!([]);
        assert_eq!(
            msgs(&c),
            [
                format!("spec.versions: Invalid value: []: {storage}"),
                stored_none.to_string()
            ]
        );
        c["spec"].as_object_mut().unwrap().remove("versions");
        assert_eq!(
            msgs(&c),
            [
                format!("spec.versions: Invalid value: null: {storage}"),
                stored_none.to_string()
            ]
        );
        let version = json!({"name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object"}}});
        c["spec"]["versions"] = json!([version, version]);
        let one = r#"{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}"#;
        assert_eq!(
            msgs(&c),
            [
                format!(
                    "spec.versions: Invalid value: [{one},{one}]: must contain unique version names"
                ),
                format!("spec.versions: Invalid value: [{one},{one}]: {storage}"),
                r#"status.storedVersions: Invalid value: ["v1"]: must have the storage version v1"#
                    .to_string(),
            ]
        );
    }

    /// kube-apiserver v1.34.9's causes, in its order, for the CRD of differential step 013#1.
    const REAL_013_1: &str = r#"spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"
spec.versions[0].schema.openAPIV3Schema: Required value
spec.versions[0].name: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
spec.versions: Invalid value: [{"Name":"V1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v2","Served":false,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":{"OpenAPIV3Schema":{"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":false,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":null,"Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":null,"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":null,"XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}},"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version
spec.version: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
spec.names.singular: Invalid value: "bad_kind": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
spec.names.kind: Invalid value: "bad_kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
spec.names.listKind: Invalid value: "bad_kindList": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
spec.names.shortNames[0]: Invalid value: "B!": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
status.storedVersions: Invalid value: null: must have at least one stored version"#;

    #[test]
    fn causes_come_in_kube_apiservers_order() {
        let c = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "bads.diff.kubeforge.dev"},
            "spec": {"group": "diff.kubeforge.dev", "scope": "Global",
                "names": {"plural": "bads", "kind": "bad_kind", "shortNames": ["B!"]},
                "versions": [{"name": "V1", "served": true, "storage": false},
                    {"name": "v2", "served": false, "storage": false,
                        "schema": {"openAPIV3Schema": {"type": "object"}}}]}});
        assert_eq!(msgs(&c), REAL_013_1.lines().collect::<Vec<_>>());
    }

    #[test]
    fn update_rules() {
        let mut old = crd(json!({"type": "object"}));
        old["status"] = json!({"storedVersions": ["v1alpha1"],
            "conditions": [{"type": "Established", "status": "True"}]});
        assert_eq!(check_structural_update(&old, &old), Ok(()));
        let mut new = old.clone();
        new["spec"]["scope"] = json!("Cluster");
        new["spec"]["versions"][0]["name"] = json!("v1");
        let got: Vec<String> = check_structural_update(&new, &old)
            .unwrap_err()
            .iter()
            .map(FieldError::to_message)
            .collect();
        assert_eq!(
            got,
            [
                r#"spec.scope: Invalid value: "Cluster": field is immutable"#,
                r#"status.storedVersions[0]: Invalid value: "v1alpha1": missing from spec.versions; v1alpha1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1alpha1 and removes v1alpha1 from status.storedVersions"#,
            ]
        );
        // before it is established, the scope may still change
        old["status"]["conditions"] = json!([]);
        new["spec"]["versions"][0]["name"] = json!("v1alpha1");
        assert_eq!(check_structural_update(&new, &old), Ok(()));
    }

    #[test]
    fn printer_columns_and_conversion() {
        let mut c = crd(json!({"type": "object"}));
        c["spec"]["versions"][0]["additionalPrinterColumns"] =
            json!([{"name": "Age", "type": "time", "jsonPath": "metadata.creationTimestamp"}]);
        c["spec"]["conversion"] =
            json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v2"]}});
        let got = msgs(&c);
        for want in [
            r#"spec.additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string"#.to_string(),
            r#"spec.additionalPrinterColumns[0].JSONPath: Invalid value: "metadata.creationTimestamp": must be a simple json path starting with ."#.to_string(),
            "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook".to_string(),
            r#"spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1"#.to_string(),
        ] {
            assert!(got.contains(&want), "missing {want}\n in {got:#?}");
        }
    }

    #[test]
    fn defaults_are_checked_on_a_structural_schema() {
        let sp = format!("{P}.properties[spec].properties");
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "u": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
            "d": {"type": "integer", "default": "one"},
        }}}});
        // Defaults are checked on a structural schema, before the keyword rules (as
        // kube-apiserver 1.34 answers) ...
        assert_eq!(
            msgs(&crd(schema)),
            [
                format!(
                    r#"{sp}[d].default: Invalid value: "string":  in body must be of type integer: "string""#
                ),
                format!(
                    "{sp}[u].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
                ),
            ]
        );
        // ... and not on one that is not structural.
        let not_structural = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "u": {"description": "no type"},
            "d": {"type": "integer", "default": "one"},
        }}}});
        assert_eq!(
            msgs(&crd(not_structural)),
            [format!(
                "{sp}[u].type: Required value: must not be empty for specified object fields"
            )]
        );
        let defaults_only = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "d": {"type": "integer", "default": "one"},
            "o": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x", "b": 1}},
        }}}});
        let got = msgs(&crd(defaults_only));
        for want in [
            format!(
                r#"{sp}[d].default: Invalid value: "string": {} in body must be of type integer: "string""#,
                ""
            ),
            format!(
                r#"{sp}[o].default: Invalid value: {{"a":"x","b":1}}: must not have unknown fields"#
            ),
        ] {
            assert!(got.contains(&want), "missing {want}\n in {got:#?}");
        }
    }
}
