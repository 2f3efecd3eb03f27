//! Validation of custom resources against their schema, with the real server's messages.

use super::*;
use serde_json::json;

fn msgs(object: Value, schema: Value) -> Vec<String> {
    validate(&object, &schema)
        .iter()
        .map(FieldError::to_message)
        .collect()
}

fn spec(props: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": props}}})
}

#[test]
fn type_mismatch_message() {
    assert_eq!(
        msgs(
            json!({"spec": {"replicas": "x"}}),
            spec(json!({"replicas": {"type": "integer"}}))
        ),
        vec![
            r#"spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string""#
        ]
    );
    let errs = validate(
        &json!({"spec": {"replicas": "x"}}),
        &spec(json!({"replicas": {"type": "integer"}})),
    );
    assert_eq!(errs[0].reason(), "FieldValueTypeInvalid");
    // 3.0 is an integer, 3.5 is not
    assert!(
        msgs(
            json!({"spec": {"r": 3.0}}),
            spec(json!({"r": {"type": "integer"}}))
        )
        .is_empty()
    );
    assert_eq!(
        msgs(
            json!({"spec": {"r": 3.5}}),
            spec(json!({"r": {"type": "integer"}}))
        ),
        vec![
            r#"spec.r: Invalid value: "number": spec.r in body must be of type integer: "number""#
        ]
    );
}

#[test]
fn required_and_null() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
        "required": ["size"], "properties": {"size": {"type": "integer"}, "n": {"type": "string", "nullable": true}, "s": {"type": "string"}}}}});
    assert_eq!(
        msgs(json!({"spec": {"n": null, "s": null}}), schema),
        vec![
            "spec.size: Required value",
            r#"spec.s: Invalid value: "null": spec.s in body must be of type string: "null""#
        ]
    );
}

#[test]
fn enum_bounds_lengths_pattern() {
    let schema = spec(json!({
        "mode": {"type": "string", "enum": ["a", "b"]},
        "size": {"type": "integer", "minimum": 1, "maximum": 10},
        "ex": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
        "name": {"type": "string", "maxLength": 5, "minLength": 2, "pattern": "^[a-z]+$"},
        "mul": {"type": "integer", "multipleOf": 5},
    }));
    let got = msgs(
        json!({"spec": {"mode": "x", "size": 0, "ex": 0, "name": "ABCDEFG", "mul": 7}}),
        schema.clone(),
    );
    assert_eq!(
        got,
        vec![
            "spec.ex: Invalid value: 0: spec.ex in body should be greater than 0",
            r#"spec.mode: Unsupported value: "x": supported values: "a", "b""#,
            "spec.mul: Invalid value: 7: spec.mul in body should be a multiple of 5",
            "spec.name: Too long: may not be more than 5 bytes",
            r#"spec.name: Invalid value: "ABCDEFG": spec.name in body should match '^[a-z]+$'"#,
            "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
        ]
    );
    assert_eq!(
        msgs(json!({"spec": {"size": 11, "name": "a"}}), schema),
        vec![
            r#"spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long"#,
            "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10",
        ]
    );
}

#[test]
fn arrays_and_items() {
    let schema = spec(json!({
        "l": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
        "m": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "u": {"type": "array", "uniqueItems": true, "items": {"type": "integer"}},
    }));
    assert_eq!(
        msgs(
            json!({"spec": {"l": ["a", 1, "c"], "m": [], "u": [1, 1]}}),
            schema
        ),
        vec![
            r#"spec.l[1]: Invalid value: "integer": spec.l[1] in body must be of type string: "integer""#,
            "spec.l: Too many: 3: must have at most 2 items",
            "spec.m: Invalid value: 0: spec.m in body should have at least 1 items",
            r#"spec.u: Invalid value: "": spec.u in body shouldn't contain duplicates"#,
        ]
    );
}

#[test]
fn formats_and_int_or_string() {
    let schema = spec(json!({
        "when": {"type": "string", "format": "date-time"},
        "n": {"type": "integer", "format": "int32"},
        "port": {"x-kubernetes-int-or-string": true},
    }));
    assert_eq!(
        msgs(
            json!({"spec": {"when": "yesterday", "n": 1_i64 << 40, "port": 8080}}),
            schema.clone()
        ),
        vec![
            r#"spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday""#
        ]
    );
    assert!(msgs(json!({"spec": {"port": "http"}}), schema.clone()).is_empty());
    assert_eq!(
        msgs(json!({"spec": {"port": true}}), schema),
        vec![
            r#"spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean""#
        ]
    );
}

#[test]
fn additional_properties_and_property_counts() {
    let schema = spec(json!({
        "labels": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}},
        "m": {"type": "object", "minProperties": 2, "additionalProperties": {"type": "integer"}},
    }));
    assert_eq!(
        msgs(
            json!({"spec": {"labels": {"a": "x", "b": 2}, "m": {"x": 1}}}),
            schema
        ),
        vec![
            "spec.labels: Too many: 2: must have at most 1 item",
            r#"spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer""#,
            "spec.m: Invalid value: 2: spec.m in body should have at least 2 properties",
        ]
    );
}

#[test]
fn composition() {
    let schema = spec(json!({
        "v": {"type": "integer", "anyOf": [{"minimum": 10}, {"maximum": 0}]},
        "w": {"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": 10}]},
        "x": {"type": "string", "not": {"enum": ["bad"]}},
    }));
    let got = msgs(json!({"spec": {"v": 5, "w": 5, "x": "bad"}}), schema);
    assert_eq!(
        got,
        vec![
            r#"<nil>: Invalid value: "": "spec.v" must validate at least one schema (anyOf)"#,
            "spec.v: Invalid value: 5: spec.v in body should be greater than or equal to 10",
            r#"<nil>: Invalid value: "": "spec.w" must validate one and only one schema (oneOf). Found 2 valid alternatives"#,
            r#"<nil>: Invalid value: "": "spec.x" must not validate the schema (not)"#,
        ]
    );
}

#[test]
fn list_types_and_embedded_resources() {
    let schema = spec(json!({
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
        "tpl": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
    }));
    assert_eq!(
        msgs(
            json!({"spec": {"tags": ["a", "b", "a"], "ports": [{"name": "x", "port": 1}, {"name": "x", "port": 2}], "tpl": {"kind": "Pod_x", "apiVersion": ""}}}),
            schema
        ),
        vec![
            r#"spec.ports[1]: Duplicate value: {"name":"x"}"#,
            r#"spec.tags[2]: Duplicate value: "a""#,
            r#"spec.tpl.apiVersion: Invalid value: "": must not be empty"#,
            r#"spec.tpl.kind: Invalid value: "Pod_x": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"#,
        ]
    );
}

#[test]
fn cel_rules() {
    let schema = spec(json!({
        "min": {"type": "integer"}, "max": {"type": "integer"},
        "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "Value is immutable"}]},
        "odd": {"type": "string", "x-kubernetes-validations": [{"rule": "self.unsupportedFn()"}]},
    }));
    let mut schema = schema;
    schema["properties"]["spec"]["x-kubernetes-validations"] = json!([
        {"rule": "self.min <= self.max", "message": "min must be <= max"},
        {"rule": "!has(self.forbidden)", "reason": "FieldValueForbidden", "fieldPath": ".forbidden"},
        {"rule": "has(self.min)"},
        {"rule": "self.max < 100", "messageExpression": "'max is ' + string(self.max)"},
    ]);
    assert_eq!(
        msgs(
            json!({"spec": {"min": 5, "max": 1, "name": "a", "odd": "x"}}),
            schema.clone()
        ),
        vec![r#"spec: Invalid value: "object": min must be <= max"#]
    );
    assert_eq!(
        msgs(json!({"spec": {"min": 1, "max": 100}}), schema.clone()),
        vec![r#"spec: Invalid value: "object": max is 100"#]
    );
    assert_eq!(
        msgs(json!({"spec": {"max": 1, "forbidden": 1}}), schema.clone()),
        vec![
            r#"spec: Invalid value: "object": no such key: min evaluating rule: min must be <= max"#,
            "spec.forbidden: Forbidden: failed rule: !has(self.forbidden)",
            r#"spec: Invalid value: "object": failed rule: has(self.min)"#,
        ]
    );
    let new = json!({"spec": {"min": 1, "max": 2, "name": "b"}});
    let old = json!({"spec": {"min": 1, "max": 2, "name": "a"}});
    assert!(validate(&new, &schema).is_empty());
    assert_eq!(
        validate_update(&new, &old, &schema)
            .iter()
            .map(FieldError::to_message)
            .collect::<Vec<_>>(),
        vec![r#"spec.name: Invalid value: "string": Value is immutable"#]
    );
    assert!(validate_update(&old, &old, &schema).is_empty());
}

#[test]
fn valid_object_has_no_errors() {
    let schema =
        spec(json!({"size": {"type": "integer", "minimum": 1}, "image": {"type": "string"}}));
    assert!(msgs(json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a"}, "spec": {"size": 3, "image": "m"}}), schema).is_empty());
}

mod ratcheting {
    use super::super::validate_update;
    use serde_json::json;

    fn schema() -> serde_json::Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["mode"], "properties": {
            "mode": {"type": "string", "enum": ["a", "b"]},
            "size": {"type": "integer", "maximum": 3},
            "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "port": {"type": "integer", "maximum": 100}}}},
            "raw": {"type": "array", "items": {"type": "integer", "maximum": 1}},
        }}}})
    }

    fn msgs(new: serde_json::Value, old: serde_json::Value) -> Vec<String> {
        validate_update(&new, &old, &schema())
            .iter()
            .map(crate::registry::schema::errors::FieldError::to_message)
            .collect()
    }

    #[test]
    fn unchanged_invalid_values_are_excused() {
        let old = json!({"spec": {"mode": "legacy", "size": 9, "labels": {"app.kubernetes.io/name": "long"},
            "ports": [{"name": "http", "port": 8080}], "raw": [5]}});
        // Only `size` changes (and is valid): every old error is excused except in the
        // atomic list, whose items do not correlate.
        let mut new = old.clone();
        new["spec"]["size"] = json!(2);
        assert_eq!(
            msgs(new.clone(), old.clone()),
            [
                "spec.raw[0]: Invalid value: 5: spec.raw[0] in body should be less than or equal to 1"
            ]
        );
        // Changing an invalid value to another invalid value is reported.
        new["spec"]["size"] = json!(10);
        new["spec"]["ports"][0]["port"] = json!(9090);
        assert_eq!(
            msgs(new, old.clone()),
            [
                "spec.ports[0].port: Invalid value: 9090: spec.ports[0].port in body should be less than or equal to 100",
                "spec.raw[0]: Invalid value: 5: spec.raw[0] in body should be less than or equal to 1",
                "spec.size: Invalid value: 10: spec.size in body should be less than or equal to 3",
            ]
        );
        // A missing required field is excused only while its object is unchanged.
        let old = json!({"spec": {"size": 1}});
        assert!(msgs(old.clone(), old.clone()).is_empty());
        assert_eq!(
            msgs(json!({"spec": {"size": 2}}), old),
            ["spec.mode: Required value"]
        );
    }
}

#[test]
fn bounds_compare_as_kube_openapi_does() {
    let schema = spec(json!({
        "u32": {"type": "integer", "maximum": 4294967295u64},
        "n": {"type": "number", "maximum": 4294967295u64},
        "big": {"type": "integer"},
        "i32": {"type": "integer", "format": "int32", "maximum": 4294967295u64},
    }));
    assert_eq!(
        msgs(
            json!({"spec": {"u32": 4294967296u64, "n": 4294967296.5, "big": u64::MAX, "i32": 4294967296u64}}),
            schema.clone()
        ),
        vec![
            r#"spec.big: Invalid value: "number": spec.big in body must be of type integer: "number""#,
            "spec.i32: Invalid value: 4294967296: spec.i32 in body should be less than or equal to 4294967295",
            "spec.n: Invalid value: 4.2949672965e+09: spec.n in body should be less than or equal to 4.294967295e+09",
            "spec.u32: Invalid value: 4294967296: spec.u32 in body should be less than or equal to 4294967295",
        ]
    );
    // Integer values meet bounds truncated to int64 (kube-apiserver 1.34's answers).
    let schema2 = spec(
        json!({"a": {"type": "number", "maximum": 2.5}, "c": {"type": "integer", "maximum": 1e19},
        "d": {"type": "number", "multipleOf": 2.5}}),
    );
    assert_eq!(
        msgs(json!({"spec": {"a": 3, "c": 5, "d": 5}}), schema2.clone()),
        vec![
            "spec.a: Invalid value: 3: spec.a in body should be less than or equal to 2",
            "spec.c: Invalid value: 5: spec.c in body should be less than or equal to -9223372036854775808",
            "spec.d: Invalid value: 5: spec.d in body should be a multiple of 2",
        ]
    );
    assert!(msgs(json!({"spec": {"d": 6}}), schema2).is_empty());
    // Integral floats up to 2^53 are integers; an int64 beyond it still is one.
    assert!(
        msgs(
            json!({"spec": {"big": 9007199254740993u64}}),
            schema.clone()
        )
        .is_empty()
    );
    assert!(msgs(json!({"spec": {"big": 3.0}}), schema).is_empty());
}

#[test]
fn a_number_of_the_wrong_type_still_meets_the_numeric_bounds() {
    // kube-apiserver v1.34.9's answers: a fraction or a number beyond int64 (a float64 to the
    // server) in an integer field meets `multipleOf`, `maximum` and `minimum` besides the type
    // error, and `enum` after Go's conversion (2.5 is taken for 2); a string or a boolean
    // meets `enum` only.
    let schema = spec(json!({
        "m": {"type": "integer", "maximum": 1, "minimum": 0, "multipleOf": 2},
        "e": {"type": "integer", "enum": [1, 2]},
        "u": {"type": "integer", "format": "uint64", "minimum": 0, "maximum": 9223372036854774784u64},
    }));
    let cases = [
        (
            json!({"m": 2.5}),
            vec![
                r#"spec.m: Invalid value: "number": spec.m in body must be of type integer: "number""#,
                "spec.m: Invalid value: 2.5: spec.m in body should be a multiple of 2",
                "spec.m: Invalid value: 2.5: spec.m in body should be less than or equal to 1",
            ],
        ),
        (
            json!({"m": -3.5}),
            vec![
                r#"spec.m: Invalid value: "number": spec.m in body must be of type integer: "number""#,
                "spec.m: Invalid value: -3.5: spec.m in body should be a multiple of 2",
                "spec.m: Invalid value: -3.5: spec.m in body should be greater than or equal to 0",
            ],
        ),
        (
            json!({"m": u64::MAX}),
            vec![
                r#"spec.m: Invalid value: "number": spec.m in body must be of type integer: "number""#,
                "spec.m: Invalid value: 1.8446744073709552e+19: spec.m in body should be a multiple of 2",
                "spec.m: Invalid value: 1.8446744073709552e+19: spec.m in body should be less than or equal to 1",
            ],
        ),
        (
            json!({"e": 2.5}),
            vec![
                r#"spec.e: Invalid value: "number": spec.e in body must be of type integer: "number""#,
            ],
        ),
        (
            json!({"e": 3.5}),
            vec![
                r#"spec.e: Invalid value: "number": spec.e in body must be of type integer: "number""#,
                r#"spec.e: Unsupported value: 3.5: supported values: "1", "2""#,
            ],
        ),
        (
            json!({"e": "x"}),
            vec![
                r#"spec.e: Invalid value: "string": spec.e in body must be of type integer: "string""#,
                r#"spec.e: Unsupported value: "x": supported values: "1", "2""#,
            ],
        ),
        (
            json!({"u": u64::MAX}),
            vec![
                r#"spec.u: Invalid value: "number": spec.u in body must be of type integer: "number""#,
                "spec.u: Invalid value: 1.8446744073709552e+19: spec.u in body should be less than or equal to 9.223372036854775e+18",
            ],
        ),
        (
            json!({"u": 9223372036854774785u64}),
            vec![
                "spec.u: Invalid value: 9223372036854774785: spec.u in body should be less than or equal to 9223372036854774784",
            ],
        ),
        (json!({"u": 9223372036854774784u64}), vec![]),
    ];
    for (object, expected) in cases {
        assert_eq!(
            msgs(json!({ "spec": object }), schema.clone()),
            expected,
            "{object}"
        );
    }
}
