//! Objects the schemas must refuse, each with kube-apiserver v1.34's answer word for word.

use serde_json::{Value, json};

/// A valid sample of `kind` with the value at `pointer` (inside `spec`) replaced, and the
/// message the API server answers.
pub struct Refusal {
    pub kind: &'static str,
    pub name: &'static str,
    pub pointer: &'static str,
    pub value: Value,
    pub message: &'static str,
}

fn case(
    kind: &'static str,
    name: &'static str,
    pointer: &'static str,
    value: Value,
    message: &'static str,
) -> Refusal {
    Refusal {
        kind,
        name,
        pointer,
        value,
        message,
    }
}

/// Every refusal case.
pub fn cases() -> Vec<Refusal> {
    vec![
        case(
            "Scalars",
            "u8-too-big",
            "/uint8",
            json!(256),
            r#"Scalars.shapes.kubeforge.dev "u8-too-big" is invalid: spec.uint8: Invalid value: 256: spec.uint8 in body should be less than or equal to 255"#,
        ),
        case(
            "Scalars",
            "u16-negative",
            "/uint16",
            json!(-1),
            r#"Scalars.shapes.kubeforge.dev "u16-negative" is invalid: spec.uint16: Invalid value: -1: spec.uint16 in body should be greater than or equal to 0"#,
        ),
        case(
            "Scalars",
            "u32-too-big",
            "/uint32",
            json!(4294967296u64),
            r#"Scalars.shapes.kubeforge.dev "u32-too-big" is invalid: spec.uint32: Invalid value: 4294967296: spec.uint32 in body should be less than or equal to 4294967295"#,
        ),
        case(
            "Scalars",
            "u64-too-big",
            "/uint64",
            json!(u64::MAX),
            r#"Scalars.shapes.kubeforge.dev "u64-too-big" is invalid: [spec.uint64: Invalid value: "number": spec.uint64 in body must be of type integer: "number", spec.uint64: Invalid value: 1.8446744073709552e+19: spec.uint64 in body should be less than or equal to 9.223372036854775e+18]"#,
        ),
        case(
            "Scalars",
            "u64-over-the-bound",
            "/uint64",
            json!(9_223_372_036_854_774_785u64),
            r#"Scalars.shapes.kubeforge.dev "u64-over-the-bound" is invalid: spec.uint64: Invalid value: 9223372036854774785: spec.uint64 in body should be less than or equal to 9223372036854774784"#,
        ),
        case(
            "Scalars",
            "u64-negative",
            "/uint64",
            json!(-1),
            r#"Scalars.shapes.kubeforge.dev "u64-negative" is invalid: spec.uint64: Invalid value: -1: spec.uint64 in body should be greater than or equal to 0"#,
        ),
        case(
            "Scalars",
            "i8-too-small",
            "/int8",
            json!(-129),
            r#"Scalars.shapes.kubeforge.dev "i8-too-small" is invalid: spec.int8: Invalid value: -129: spec.int8 in body should be greater than or equal to -128"#,
        ),
        case(
            "Scalars",
            "nonzero-zero",
            "/nonzero",
            json!(0),
            r#"Scalars.shapes.kubeforge.dev "nonzero-zero" is invalid: spec.nonzero: Invalid value: 0: spec.nonzero in body should be greater than or equal to 1"#,
        ),
        case(
            "Scalars",
            "char-two",
            "/letter",
            json!("ab"),
            r#"Scalars.shapes.kubeforge.dev "char-two" is invalid: spec.letter: Too long: may not be more than 1 byte"#,
        ),
        case(
            "Scalars",
            "set-duplicates",
            "/tags",
            json!(["a", "a"]),
            r#"Scalars.shapes.kubeforge.dev "set-duplicates" is invalid: spec.tags[1]: Duplicate value: "a""#,
        ),
        case(
            "Scalars",
            "pair-short",
            "/pair",
            json!([1]),
            r#"Scalars.shapes.kubeforge.dev "pair-short" is invalid: spec.pair: Invalid value: 1: spec.pair in body should have at least 2 items"#,
        ),
        case(
            "Scalars",
            "int-or-string-bool",
            "/intOrString",
            json!(true),
            r#"Scalars.shapes.kubeforge.dev "int-or-string-bool" is invalid: spec.intOrString: Invalid value: "boolean": spec.intOrString in body must be of type integer,string: "boolean""#,
        ),
        case(
            "Enums",
            "mode-unknown",
            "/mode",
            json!("Medium"),
            r#"Enums.shapes.kubeforge.dev "mode-unknown" is invalid: [spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#,
        ),
        case(
            "Enums",
            "maybe-mode-unknown",
            "/maybeMode",
            json!("Fast "),
            r#"Enums.shapes.kubeforge.dev "maybe-mode-unknown" is invalid: [spec.maybeMode: Unsupported value: "Fast ": supported values: "Fast", "Slow", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#,
        ),
        case(
            "Enums",
            "source-both",
            "/source",
            json!({"git": {"url": "u"}, "bucket": {"name": "b"}}),
            r#"Enums.shapes.kubeforge.dev "source-both" is invalid: spec.source: Invalid value: "object": exactly one of `git` or `bucket` must be set"#,
        ),
        case(
            "Enums",
            "source-none",
            "/source",
            json!({}),
            r#"Enums.shapes.kubeforge.dev "source-none" is invalid: spec.source: Invalid value: "object": exactly one of `git` or `bucket` must be set"#,
        ),
        case(
            "Enums",
            "internal-missing-field",
            "/internal",
            json!({"type": "Git"}),
            r#"Enums.shapes.kubeforge.dev "internal-missing-field" is invalid: spec.internal: Invalid value: "object": `url` is required when type is Git"#,
        ),
        case(
            "Enums",
            "internal-foreign-field",
            "/internal",
            json!({"type": "Empty", "url": "u"}),
            r#"Enums.shapes.kubeforge.dev "internal-foreign-field" is invalid: spec.internal: Invalid value: "object": `url` is only allowed when type is Git"#,
        ),
        case(
            "Enums",
            "internal-unknown-tag",
            "/internal",
            json!({"type": "Svn"}),
            r#"Enums.shapes.kubeforge.dev "internal-unknown-tag" is invalid: [spec.internal.type: Unsupported value: "Svn": supported values: "Git", "Bucket", "Empty", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#,
        ),
        case(
            "Enums",
            "adjacent-unknown-kind",
            "/adjacent",
            json!({"kind": "Start"}),
            r#"Enums.shapes.kubeforge.dev "adjacent-unknown-kind" is invalid: [spec.adjacent.kind: Unsupported value: "Start": supported values: "Scale", "Label", "Pair", "Stop", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#,
        ),
        case(
            "Enums",
            "int-or-name-float",
            "/intOrName",
            json!(1.5),
            r#"Enums.shapes.kubeforge.dev "int-or-name-float" is invalid: [spec.intOrName: Invalid value: "number": spec.intOrName in body must be of type integer,string: "number", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#,
        ),
        case(
            "Enums",
            "selector-neither",
            "/selector",
            json!({}),
            r#"Enums.shapes.kubeforge.dev "selector-neither" is invalid: spec.selector: Invalid value: "object": exactly one of `name` or `labels` must be set"#,
        ),
        case(
            "Enums",
            "renamed-foreign",
            "/renamed",
            json!({"source-type": "http", "url.path": "/", "namespace": "x"}),
            r#"Enums.shapes.kubeforge.dev "renamed-foreign" is invalid: spec.renamed: Invalid value: "object": `namespace` is only allowed when source-type is config-map"#,
        ),
        case(
            "Nested",
            "modes-unknown",
            "/maybeModes",
            json!(["Fast", null, "Medium"]),
            r#"Nested.shapes.kubeforge.dev "modes-unknown" is invalid: spec.maybeModes[2]: Invalid value: "string": supported values: "Fast", "Slow""#,
        ),
        case(
            "Nested",
            "internals-missing",
            "/internals",
            json!([{"type": "Empty"}, {"type": "Git"}]),
            r#"Nested.shapes.kubeforge.dev "internals-missing" is invalid: spec.internals[1]: Invalid value: "object": `url` is required when type is Git"#,
        ),
        case(
            "Nested",
            "counts-string",
            "/maybeCounts",
            json!({"a": "one"}),
            r#"Nested.shapes.kubeforge.dev "counts-string" is invalid: [spec.maybeCounts.a: Invalid value: "string": spec.maybeCounts.a in body must be of type integer: "string", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#,
        ),
        case(
            "Recursive",
            "tree-value-number",
            "/tree/value",
            json!(1),
            r#"Recursive.shapes.kubeforge.dev "tree-value-number" is invalid: [spec.tree.value: Invalid value: "integer": spec.tree.value in body must be of type string: "integer", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"#,
        ),
    ]
}
