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
    let errs = check_crd(&copy);
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// [`check_structural`] for an update of `old` to `new`, plus the update rules: `spec.group`
/// and `spec.names.plural` never change, `spec.scope` and `spec.names.kind` not once the
/// CRD is established (`field is immutable`), and every version in `status.storedVersions`
/// must stay in `spec.versions` (`must appear in spec.versions`).
pub fn check_structural_update(new: &Value, old: &Value) -> Result<(), Vec<FieldError>> {
    let mut errs = check_structural(new).err().unwrap_or_default();
    let at = |v: &Value, path: &[&str]| {
        let mut cur = v;
        for p in path {
            cur = cur.get(p).unwrap_or(&Value::Null);
        }
        cur.clone()
    };
    let established = old
        .get("status")
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some("Established")
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        });
    let mut immutable = vec![
        ("spec.group", vec!["spec", "group"]),
        ("spec.names.plural", vec!["spec", "names", "plural"]),
    ];
    if established {
        immutable.insert(1, ("spec.scope", vec!["spec", "scope"]));
        immutable.insert(2, ("spec.names.kind", vec!["spec", "names", "kind"]));
    }
    for (field, path) in immutable {
        let (n, o) = (at(new, &path), at(old, &path));
        if n != o {
            errs.push(FieldError::invalid(field, &n, "field is immutable"));
        }
    }
    let versions: Vec<String> = at(new, &["spec", "versions"])
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|v| v.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let stored = at(old, &["status", "storedVersions"]);
    for (i, sv) in stored.as_array().into_iter().flatten().enumerate() {
        if let Some(name) = sv.as_str()
            && !versions.iter().any(|v| v == name)
        {
            errs.push(FieldError::invalid(
                format!("status.storedVersions[{i}]"),
                sv,
                "must appear in spec.versions",
            ));
        }
    }
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
    fn non_structural_schemas_are_rejected_with_the_real_messages() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"properties": {
                "foo": {"type": "string", "anyOf": [{"type": "string", "description": "d"}, {"nullable": true}]},
                "list": {"type": "array"},
                "bar": {"type": "object", "anyOf": [{"properties": {"x": {"type": "string"}}}]},
            }},
            "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
        }});
        let got = msgs(&crd(schema));
        let want = [
            format!(
                "{P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
            ),
            format!(
                "{P}.properties[spec].properties[bar].anyOf[0].properties[x].type: Forbidden: must be empty to be structural"
            ),
            format!(
                "{P}.properties[spec].properties[bar].properties[x]: Required value: because it is defined in {P}.properties[spec].properties[bar].anyOf[0].properties[x]"
            ),
            format!(
                "{P}.properties[spec].properties[foo].anyOf[0].description: Forbidden: must be empty to be structural"
            ),
            format!(
                "{P}.properties[spec].properties[foo].anyOf[0].type: Forbidden: must be empty to be structural"
            ),
            format!(
                "{P}.properties[spec].properties[foo].anyOf[1].nullable: Forbidden: must be false to be structural"
            ),
            format!(
                "{P}.properties[spec].properties[list].items: Required value: must be specified"
            ),
            format!(
                "{P}.properties[spec].type: Required value: must not be empty for specified object fields"
            ),
        ];
        assert_eq!(got, want);
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
            got.contains(
                &"spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required"
                    .to_string()
            )
        );
        assert!(
            got.iter()
                .any(|m| m.starts_with("spec.versions: Invalid value: [")
                    && m.ends_with("must have exactly one version marked as storage version"))
        );
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
                r#"status.storedVersions[0]: Invalid value: "v1alpha1": must appear in spec.versions"#,
            ]
        );
        // before it is established, the scope may still change
        old["status"]["conditions"] = json!([]);
        new["spec"]["versions"][0]["name"] = json!("v1alpha1");
        assert_eq!(check_structural_update(&new, &old), Ok(()));
    }

    #[test]
    fn printer_columns_conversion_and_list_map_rules() {
        let mut c = crd(
            json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
                "ids": {"type": "array", "x-kubernetes-list-map-keys": ["id"], "items": {"type": "string"}},
                "objs": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}},
                "rules": {"type": "string", "x-kubernetes-validations": [{"rule": "", "reason": "Nope"}]},
            }}}}),
        );
        c["spec"]["versions"][0]["additionalPrinterColumns"] =
            json!([{"name": "Age", "type": "time", "jsonPath": "metadata.creationTimestamp"}]);
        c["spec"]["conversion"] =
            json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v2"]}});
        let got = msgs(&c);
        let sp = format!("{P}.properties[spec].properties");
        for want in [
            r#"spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string"#.to_string(),
            r#"spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "metadata.creationTimestamp": must be a simple json path starting with ."#.to_string(),
            "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook".to_string(),
            r#"spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1"#.to_string(),
            format!("{sp}[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"),
            format!("{sp}[ids].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty"),
            format!("{sp}[objs].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set"),
            format!("{sp}[rules].x-kubernetes-validations[0].rule: Required value: rule is not specified"),
            format!(r#"{sp}[rules].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired""#),
        ] {
            assert!(got.contains(&want), "missing {want}\n in {got:#?}");
        }
    }

    #[test]
    fn keywords_list_types_and_defaults() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "u": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
            "m": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
            "l": {"type": "array", "x-kubernetes-list-type": "map", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
            "d": {"type": "integer", "default": "one"},
            "o": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x", "b": 1}},
            "r": {"type": "string", "pattern": "(unclosed"},
        }}}});
        let got = msgs(&crd(schema));
        let sp = format!("{P}.properties[spec].properties");
        for want in [
            format!(
                "{sp}[u].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
            ),
            format!(
                "{sp}[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"
            ),
            format!(
                "{sp}[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"
            ),
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
        assert!(got.iter().any(|m| m.starts_with(&format!("{sp}[r].pattern: Invalid value: \"(unclosed\": must be a valid regular expression, but isn't:"))), "{got:#?}");
    }
}
