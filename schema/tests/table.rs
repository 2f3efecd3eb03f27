//! The one table of the CRD schema rules: each schema with every violation kube-apiserver
//! reports for it (as a `openAPIV3Schema` at that path), word for word, and the kubeforge fix
//! the runtime's `manifests` prints under it. The messages were recorded from kube-apiserver
//! 1.34; the embedded API server (`kubeforge-testenv`) and the runtime both use these rules.

use kubeforge_schema::check;
use serde_json::{Value, json};

const P: &str = "openAPIV3Schema";

struct Case {
    name: &'static str,
    schema: Value,
    /// Every violation in the order `check(..).all()` gives them, with `{P}` for the root.
    want: &'static [&'static str],
    /// (a substring of a violation, the start of its fix) for the violations that have one.
    hints: &'static [(&'static str, &'static str)],
}

fn spec(props: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": props}}})
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "a structural schema",
            schema: json!({"type": "object", "properties": {
                "spec": {"type": "object", "required": ["size"], "properties": {
                    "size": {"type": "integer", "minimum": 1, "default": 1},
                    "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "extra": {"x-kubernetes-preserve-unknown-fields": true},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                        "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
                    "choice": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                        "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
                    "tpl": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
                    "mode": {"type": "string", "anyOf": [{"enum": ["a"]}, {"pattern": "^b"}]},
                    "rules": {"type": "string", "x-kubernetes-validations": [{"rule": "self != ''", "reason": "FieldValueForbidden", "fieldPath": ""}]},
                }},
                "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}},
            }}),
            want: &[],
            hints: &[],
        },
        Case {
            name: "value validations with structure, fields only under a junctor",
            schema: json!({"type": "object", "properties": {
                "spec": {"properties": {
                    "foo": {"type": "string", "anyOf": [{"type": "string", "description": "d"}, {"nullable": true}]},
                    "list": {"type": "array"},
                    "bar": {"type": "object", "anyOf": [{"properties": {"x": {"type": "string"}}}]},
                }},
                "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
            }}),
            want: &[
                "{P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
                "{P}.properties[spec].properties[bar].anyOf[0].properties[x].type: Forbidden: must be empty to be structural",
                "{P}.properties[spec].properties[bar].properties[x]: Required value: because it is defined in {P}.properties[spec].properties[bar].anyOf[0].properties[x]",
                "{P}.properties[spec].properties[foo].anyOf[0].description: Forbidden: must be empty to be structural",
                "{P}.properties[spec].properties[foo].anyOf[0].type: Forbidden: must be empty to be structural",
                "{P}.properties[spec].properties[foo].anyOf[1].nullable: Forbidden: must be false to be structural",
                "{P}.properties[spec].properties[list].items: Required value: must be specified",
                "{P}.properties[spec].type: Required value: must not be empty for specified object fields",
            ],
            hints: &[
                ("anyOf[0].type", "enum variants of different shapes"),
                ("[spec].type", "give the field a type"),
                ("[metadata]", "only metadata.name"),
            ],
        },
        Case {
            name: "shapes a Rust type can produce",
            schema: spec(json!({
                "untagged": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "set": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
                "mixed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
            })),
            want: &[
                "{P}.properties[spec].properties[untagged].anyOf[0].type: Forbidden: must be empty to be structural",
                "{P}.properties[spec].properties[untagged].anyOf[1].type: Forbidden: must be empty to be structural",
                "{P}.properties[spec].properties[untagged].type: Required value: must not be empty for specified object fields",
                "{P}.properties[spec].properties[mixed].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
                "{P}.properties[spec].properties[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                "{P}.properties[spec].properties[set].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            ],
            hints: &[
                ("[untagged].type", "give the field a type"),
                (
                    "[untagged].anyOf[0].type",
                    "enum variants of different shapes",
                ),
                ("[set].uniqueItems", "use #[kubeforge(list_type = \"set\")]"),
                (
                    "[ports].items.properties[name].default",
                    "make the key field non-optional",
                ),
                (
                    "[mixed].additionalProperties",
                    "a struct with a #[serde(flatten)] map",
                ),
            ],
        },
        Case {
            // The structural rules are not checked on a schema the structural form cannot
            // hold: the field without a type goes unreported.
            name: "keywords the structural form cannot hold",
            schema: spec(json!({
                "tree": {"$ref": "#/components/schemas/Tree"},
                "a": {"type": "array", "items": {"type": "string"}, "additionalItems": {"type": "string"}},
                "b": {"description": "no type"},
            })),
            want: &[
                "{P}.properties[spec].properties[a].additionalItems: Forbidden: additionalItems is not supported",
                "{P}.properties[spec].properties[tree].$ref: Forbidden: $ref is not supported",
            ],
            hints: &[("[tree].$ref", "a recursive type outside #[kubeforge::api]")],
        },
        Case {
            // ... and when no keyword rule reports it, the conversion error stands alone.
            name: "$schema",
            schema: json!({"type": "object", "$schema": "http://x", "properties": {"b": {"description": "no type"}}}),
            want: &[r#"{P}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported"#],
            hints: &[],
        },
        Case {
            name: "list types, map types and validation rules",
            schema: spec(json!({
                "ids": {"type": "array", "x-kubernetes-list-map-keys": ["id"], "items": {"type": "string"}},
                "objs": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}},
                "l": {"type": "array", "x-kubernetes-list-type": "map", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
                "m": {"type": "string", "x-kubernetes-map-type": "other"},
                "rules": {"type": "string", "x-kubernetes-validations": [{"rule": "", "reason": "Nope"}, {"rule": "a\nb"}, {"rule": "true", "fieldPath": ".nope"}]},
                "r": {"type": "string", "pattern": "(unclosed"},
            })),
            want: &[
                r#"{P}.properties[spec].properties[r].pattern: Invalid value: "(unclosed": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `(unclosed`"#,
                "{P}.properties[spec].properties[ids].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty",
                "{P}.properties[spec].properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map",
                r#"{P}.properties[spec].properties[m].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified"#,
                r#"{P}.properties[spec].properties[m].x-kubernetes-map-type: Unsupported value: "other": supported values: "atomic", "granular""#,
                "{P}.properties[spec].properties[objs].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
                "{P}.properties[spec].properties[rules].x-kubernetes-validations[0].rule: Required value: rule is not specified",
                r#"{P}.properties[spec].properties[rules].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired""#,
                "{P}.properties[spec].properties[rules].x-kubernetes-validations[1].message: Required value: message must be specified if rule contains line breaks",
                r#"{P}.properties[spec].properties[rules].x-kubernetes-validations[2].fieldPath: Invalid value: ".nope": must be a valid path"#,
            ],
            hints: &[],
        },
        Case {
            name: "patterns Go's regexp refuses",
            schema: spec(json!({
                "p0": {"type": "string", "pattern": "a)"},
                "p1": {"type": "string", "pattern": "x[a"},
                "p2": {"type": "string", "pattern": "*"},
                "p3": {"type": "string", "pattern": "a\\q"},
                "p4": {"type": "string", "pattern": "[z-a]"},
                "p5": {"type": "string", "pattern": "(?=x)"},
                "p6": {"type": "string", "pattern": "a{2,1}"},
                "p7": {"type": "string", "pattern": "(a)\\1"},
                "p8": {"type": "string", "pattern": "(?i"},
                "p9": {"type": "string", "pattern": "a**"},
                "pa": {"type": "string", "pattern": "\\p{Foo}"},
                "pb": {"type": "string", "pattern": "x\\"},
                "ok": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
            })),
            want: &[
                r#"{P}.properties[spec].properties[p0].pattern: Invalid value: "a)": must be a valid regular expression, but isn't: error parsing regexp: unexpected ): `a)`"#,
                r#"{P}.properties[spec].properties[p1].pattern: Invalid value: "x[a": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: `[a`"#,
                r#"{P}.properties[spec].properties[p2].pattern: Invalid value: "*": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: `*`"#,
                r#"{P}.properties[spec].properties[p3].pattern: Invalid value: "a\\q": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: `\q`"#,
                r#"{P}.properties[spec].properties[p4].pattern: Invalid value: "[z-a]": must be a valid regular expression, but isn't: error parsing regexp: invalid character class range: `z-a`"#,
                r#"{P}.properties[spec].properties[p5].pattern: Invalid value: "(?=x)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"#,
                r#"{P}.properties[spec].properties[p6].pattern: Invalid value: "a{2,1}": must be a valid regular expression, but isn't: error parsing regexp: invalid repeat count: `{2,1}`"#,
                r#"{P}.properties[spec].properties[p7].pattern: Invalid value: "(a)\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: `\1`"#,
                r#"{P}.properties[spec].properties[p8].pattern: Invalid value: "(?i": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?i`"#,
                r#"{P}.properties[spec].properties[p9].pattern: Invalid value: "a**": must be a valid regular expression, but isn't: error parsing regexp: invalid nested repetition operator: `**`"#,
                r#"{P}.properties[spec].properties[pa].pattern: Invalid value: "\\p{Foo}": must be a valid regular expression, but isn't: error parsing regexp: invalid character class range: `\p{Foo}`"#,
                r#"{P}.properties[spec].properties[pb].pattern: Invalid value: "x\\": must be a valid regular expression, but isn't: error parsing regexp: trailing backslash at end of expression: ``"#,
            ],
            hints: &[],
        },
        Case {
            name: "the root and metadata",
            schema: json!({"type": "string", "additionalProperties": {"type": "string"}, "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}}),
            want: &[
                "{P}.additionalProperties: Forbidden: must not be used at the root",
                "{P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
                r#"{P}.type: Invalid value: "string": must be object at the root"#,
                "{P}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
            ],
            hints: &[],
        },
    ]
}

#[test]
fn every_schema_gets_the_real_servers_violations() {
    let mut failures = Vec::new();
    for case in cases() {
        let got: Vec<String> = check(&case.schema, P)
            .all()
            .iter()
            .map(ToString::to_string)
            .collect();
        let want: Vec<String> = case.want.iter().map(|w| w.replace("{P}", P)).collect();
        if got != want {
            failures.push(format!("{}:\n got  {got:#?}\n want {want:#?}", case.name));
        }
        let violations = check(&case.schema, P).all();
        for (at, fix) in case.hints {
            let found = violations
                .iter()
                .find(|v| v.to_string().contains(at))
                .map(kubeforge_schema::Violation::hint);
            match found {
                Some(Some(h)) if h.starts_with(fix) => {}
                other => failures.push(format!(
                    "{}: `{at}` should have the fix `{fix}..`, has {other:?}\n in {got:#?}",
                    case.name
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
