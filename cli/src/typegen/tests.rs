//! The generator on small CRDs written for one rule each, and on the vendored real CRDs.
//! (That the output compiles and round-trips objects is shown end to end by
//! `tests/tests/external`, which builds it.)

use serde_json::{Value, json};

use super::*;

/// A CRD of kind Widget with `schema` as its v1 schema.
fn crd_with(schema: Value, subresources: Value) -> Crd {
    parse_crds(&crd_document(schema, subresources).to_string())
        .unwrap()
        .remove(0)
}

/// The document of [`crd_with`].
fn crd_document(schema: Value, subresources: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.io"},
        "spec": {
            "group": "example.io",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "schema": {"openAPIV3Schema": schema},
                "subresources": subresources,
            }],
        },
    })
}

/// The source generated for a Widget whose spec has `properties` (and `required`).
fn spec_source(properties: Value, required: &[&str]) -> String {
    let schema = json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": properties, "required": required},
        },
    });
    generate(&crd_with(schema, json!({})), "v1").unwrap().source
}

#[track_caller]
fn assert_has(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

#[test]
fn optional_fields_are_options_and_required_ones_are_not() {
    let text = spec_source(
        json!({
            "replicas": {"type": "integer", "format": "int32"},
            "size": {"type": "integer"},
            "ratio": {"type": "number", "format": "float"},
            "name": {"type": "string"},
            "when": {"type": "string", "format": "date-time"},
            "on": {"type": "boolean"},
        }),
        &["name"],
    );
    assert_has(
        &text,
        "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub replicas: Option<i32>,\n",
    );
    assert_has(&text, "    pub size: Option<i64>,\n");
    assert_has(&text, "    pub ratio: Option<f64>,\n");
    assert_has(&text, "    pub name: String,\n");
    assert_has(&text, "    pub when: Option<String>,\n");
    assert_has(&text, "    pub on: Option<bool>,\n");
}

#[test]
fn int_or_string_is_k8s_openapis_type() {
    let text = spec_source(
        json!({"port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}}),
        &["port"],
    );
    assert_has(
        &text,
        "use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;\n",
    );
    assert_has(&text, "    pub port: IntOrString,\n");
}

#[test]
fn preserved_unknown_fields_are_kept() {
    let text = spec_source(
        json!({
            "anything": {"x-kubernetes-preserve-unknown-fields": true},
            "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "partly": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": true,
                "properties": {"name": {"type": "string"}},
            },
        }),
        &[],
    );
    // Untyped: any JSON value, with its schema stated as the CRD states it.
    assert_has(
        &text,
        "    #[schemars(schema_with = \"anything_schema\")]\n    pub anything: Option<serde_json::Value>,\n",
    );
    assert_has(
        &text,
        "fn anything_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {\n    schemars::json_schema!({\"x-kubernetes-preserve-unknown-fields\": true})\n}\n",
    );
    assert_has(
        &text,
        "    pub config: Option<BTreeMap<String, serde_json::Value>>,\n",
    );
    // Known properties and the rest.
    assert_has(
        &text,
        "#[schemars(extend(\"x-kubernetes-preserve-unknown-fields\" = true))]\npub struct WidgetSpecPartly {",
    );
    assert_has(
        &text,
        "    #[serde(flatten)]\n    pub unknown_fields: BTreeMap<String, serde_json::Value>,\n",
    );
}

#[test]
fn embedded_resources_keep_their_metadata() {
    let text = spec_source(
        json!({
            "template": {
                "type": "object",
                "x-kubernetes-embedded-resource": true,
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                },
            },
            "raw": {
                "type": "object",
                "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true,
            },
        }),
        &[],
    );
    assert_has(
        &text,
        "#[schemars(extend(\"x-kubernetes-embedded-resource\" = true))]\npub struct WidgetSpecTemplate {",
    );
    assert_has(
        &text,
        "    pub metadata: Option<BTreeMap<String, serde_json::Value>>,\n",
    );
    assert_has(
        &text,
        "schemars::json_schema!({\"type\": \"object\", \"x-kubernetes-embedded-resource\": true, \"x-kubernetes-preserve-unknown-fields\": true})",
    );
}

#[test]
fn enums_read_values_they_do_not_list() {
    let text = spec_source(
        json!({"algorithm": {"type": "string", "enum": ["RSA", "ECDSA", "Other", ""]}}),
        &[],
    );
    assert_has(
        &text,
        "#[serde(from = \"String\")]\npub enum WidgetSpecAlgorithm {\n    #[default]\n    Rsa,\n    Ecdsa,\n    OtherValue,\n    Empty,\n",
    );
    assert_has(&text, "    Other(String),\n}\n");
    assert_has(&text, "            \"ECDSA\" => Self::Ecdsa,\n");
    assert_has(&text, "            _ => Self::Other(value),\n");
    assert_has(&text, "            Self::Other(other) => other,\n");
    assert_has(
        &text,
        "schemars::json_schema!({\"enum\": [\"RSA\", \"ECDSA\", \"Other\", \"\"], \"type\": \"string\"})",
    );
    assert_has(&text, "    pub algorithm: Option<WidgetSpecAlgorithm>,\n");
}

#[test]
fn nullable_fields_keep_null_apart_from_absent() {
    let text = spec_source(
        json!({
            "maybe": {"type": "string", "nullable": true},
            "must": {"type": "integer", "nullable": true},
            "items": {"type": "array", "items": {"type": "string", "nullable": true}},
        }),
        &["must"],
    );
    assert_has(
        &text,
        "    #[serde(\n        default,\n        skip_serializing_if = \"Option::is_none\",\n        deserialize_with = \"nullable\"\n    )]\n    pub maybe: Option<Option<String>>,\n",
    );
    assert_has(
        &text,
        "    #[schemars(required)]\n    #[schemars(extend(\"nullable\" = true))]\n    pub must: Option<i64>,\n",
    );
    assert_has(&text, "    pub items: Option<Vec<Option<String>>>,\n");
    assert_has(
        &text,
        "fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>",
    );
}

#[test]
fn field_names_become_identifiers_and_are_renamed_back() {
    let text = spec_source(
        json!({
            "type": {"type": "string"},
            "self": {"type": "string"},
            "value": {"type": "string"},
            "Value": {"type": "string"},
            "issuerRef": {"type": "string"},
            "x-foo": {"type": "string"},
            "1st": {"type": "string"},
        }),
        &[],
    );
    assert_has(&text, "    pub r#type: Option<String>,\n");
    assert_has(
        &text,
        "    #[serde(rename = \"self\", default, skip_serializing_if = \"Option::is_none\")]\n    pub self_: Option<String>,\n",
    );
    assert_has(&text, "    pub value: Option<String>,\n");
    assert_has(
        &text,
        "    #[serde(rename = \"Value\", default, skip_serializing_if = \"Option::is_none\")]\n    pub value_2: Option<String>,\n",
    );
    assert_has(&text, "    pub issuer_ref: Option<String>,\n");
    assert_has(&text, "    pub x_foo: Option<String>,\n");
    assert_has(&text, "    pub _1st: Option<String>,\n");
}

#[test]
fn maps_lists_defaults_and_list_types() {
    let text = spec_source(
        json!({
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "groups": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
            },
            "mode": {"type": "string", "default": "auto"},
            "ports": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
            },
        }),
        &[],
    );
    assert_has(&text, "    pub labels: Option<BTreeMap<String, String>>,\n");
    assert_has(
        &text,
        "    pub groups: Option<BTreeMap<String, Vec<WidgetSpecGroups>>>,\n",
    );
    assert_has(
        &text,
        "    #[schemars(extend(\"default\" = \"auto\"))]\n    pub mode: Option<String>,\n",
    );
    assert_has(
        &text,
        "    #[schemars(extend(\"x-kubernetes-list-type\" = \"map\", \"x-kubernetes-list-map-keys\" = [\"name\"]))]\n    pub ports: Option<Vec<WidgetSpecPorts>>,\n",
    );
    assert_has(
        &text,
        "pub struct WidgetSpecPorts {\n    pub name: String,\n}\n",
    );
}

/// A schema nested `depth` objects deep, built without recursion.
fn deep_schema(depth: usize) -> Value {
    let mut node = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    for _ in 0..depth {
        node = json!({"type": "object", "properties": {"child": node}});
    }
    json!({"type": "object", "properties": {"spec": node}})
}

#[test]
fn very_deep_schemas_need_no_deep_stack() {
    let mut crd = crd_with(json!({"type": "object"}), json!({}));
    crd.versions[0].schema = deep_schema(300);
    // 300 levels on a small stack: the analysis walks a queue, not the call stack.
    let generated = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn_scoped(scope, || generate(&crd, "v1").unwrap())
            .unwrap()
            .join()
            .unwrap()
    });
    assert_eq!(generated.structs, 301);
    assert!(generated.source.contains("pub leaf: Option<String>,"));
}

#[test]
fn types_deeper_than_rustcs_default_limit_say_what_they_need() {
    let mut crd = crd_with(json!({"type": "object"}), json!({}));
    // spec and 40 levels of child: within the default.
    crd.versions[0].schema = deep_schema(40);
    let generated = generate(&crd, "v1").unwrap();
    assert_eq!(generated.recursion_limit, None);
    assert!(
        !generated
            .notes
            .iter()
            .any(|n| n.contains("recursion_limit"))
    );
    // 200 levels: proving the root `Send` alone takes two levels of rustc's recursion each.
    crd.versions[0].schema = deep_schema(200);
    let generated = generate(&crd, "v1").unwrap();
    assert_eq!(generated.recursion_limit, Some(512));
    let note = "the types nest 201 levels deep, past what rustc's default recursion_limit (128) handles: every crate that uses them (src/lib.rs, and each test or binary that does) needs `#![recursion_limit = \"512\"]` at its top (`create api --external` writes it into src/lib.rs, src/main.rs and the controller's test)";
    assert!(
        generated.notes.iter().any(|n| n == note),
        "{:?}",
        generated.notes
    );
    // Lists and maps count as levels too (`Vec<T>: Send` needs `T: Send`).
    let mut deep = deep_schema(40);
    let mut node = &mut deep["properties"]["spec"];
    for _ in 0..20 {
        node = &mut node["properties"]["child"];
        *node = json!({"type": "array", "items": node.clone()});
        node = &mut node["items"];
    }
    crd.versions[0].schema = deep;
    assert_eq!(generate(&crd, "v1").unwrap().recursion_limit, Some(256));
}

#[test]
fn deep_json_reads_as_deep_as_yaml() {
    // `kubectl get crd -o json` gives JSON, whose braces are YAML flow collections: they may
    // nest as deeply as block YAML (512 levels), past serde-saphyr's default of 255.
    // The reader recurses per level: on the stack `kubeforge` gives its commands (main.rs).
    std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(|| {
            let text = |depth: usize| crd_document(deep_schema(depth), json!({})).to_string();
            let crd = parse_crds(&text(200)).unwrap().remove(0);
            assert_eq!(generate(&crd, "v1").unwrap().structs, 201);
            match parse_crds(&text(300)) {
                Err(TypegenError::Parse { source })
                    if source.to_string().contains("recursion limit exceeded") => {}
                other => panic!("a CRD nested 600 JSON levels deep read: {other:?}"),
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn root_shapes() {
    // spec and a status subresource: kube's default shape.
    let schema = json!({
        "type": "object",
        "required": ["spec"],
        "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"}}},
            "status": {"type": "object", "properties": {"b": {"type": "string"}}},
        },
    });
    let text = generate(&crd_with(schema.clone(), json!({"status": {}})), "v1")
        .unwrap()
        .source;
    assert_has(&text, "    status = \"WidgetStatus\"\n)]\n");
    assert_has(&text, "pub struct WidgetSpec {");
    assert!(!text.contains("no_spec"), "{text}");
    // The same status without the subresource is an ordinary field: flattened root.
    let text = generate(&crd_with(schema, json!({})), "v1").unwrap().source;
    assert_has(&text, "    no_spec\n");
    assert_has(&text, "pub struct WidgetFields {");
    assert_has(
        &text,
        "    #[serde(rename = \"status\", default, skip_serializing_if = \"Option::is_none\")]\n    pub status_: Option<WidgetStatus>,\n",
    );
    assert_has(&text, "    pub spec: WidgetSpec,\n");
    // Properties besides spec and status.
    let text = generate(
        &crd_with(
            json!({"type": "object", "properties": {"data": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            json!({}),
        ),
        "v1",
    )
    .unwrap();
    assert_eq!(text.input, "WidgetFields");
    assert_has(
        &text.source,
        "    pub data: Option<BTreeMap<String, String>>,\n",
    );
}

#[test]
fn an_optional_spec_reads_as_the_default() {
    let spec = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    // Required: serde's derive, nothing more.
    let required = json!({"type": "object", "required": ["spec"], "properties": {"spec": spec}});
    let generated = generate(&crd_with(required, json!({})), "v1").unwrap();
    assert!(!generated.source.contains("remote"), "{}", generated.source);
    assert!(generated.notes.is_empty(), "{:?}", generated.notes);
    // Optional: the derived code becomes inherent functions, and the traits go through them,
    // reading a missing or null spec (serde asks a missing field's type for an option) as the
    // default.
    let optional = json!({"type": "object", "properties": {"spec": spec}});
    let generated = generate(&crd_with(optional, json!({})), "v1").unwrap();
    let text = &generated.source;
    assert_has(
        text,
        "    plural = \"widgets\",\n    singular = \"widget\",\n    namespaced\n)]\n#[serde(remote = \"WidgetSpec\")]\npub struct WidgetSpec {\n",
    );
    assert_has(
        text,
        "impl<'de> Deserialize<'de> for WidgetSpec {\n    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {\n",
    );
    assert_has(
        text,
        "        struct Present(#[serde(deserialize_with = \"WidgetSpec::deserialize\")] WidgetSpec);\n\n        let spec = Option::<Present>::deserialize(deserializer)?;\n        Ok(spec.map(|present| present.0).unwrap_or_default())\n",
    );
    assert_has(
        text,
        "impl Serialize for WidgetSpec {\n    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {\n        WidgetSpec::serialize(self, serializer)\n    }\n}\n",
    );
    assert_eq!(generated.notes.len(), 1);
    assert!(
        generated.notes[0].starts_with("spec is optional in the CRD: an object without spec"),
        "{:?}",
        generated.notes
    );
    // Longer kinds' helpers are laid out as rustfmt lays them out.
    let mut crd = crd_with(
        json!({"type": "object", "properties": {"spec": spec}}),
        json!({}),
    );
    crd.kind = "CompositionSpecificallyLong".into();
    assert_has(
        &generate(&crd, "v1").unwrap().source,
        "        struct Present(\n            #[serde(deserialize_with = \"CompositionSpecificallyLongSpec::deserialize\")]\n            CompositionSpecificallyLongSpec,\n        );\n",
    );
    crd.kind = "AVeryLongKindNameThatMakesTheLineTooLong".into();
    assert_has(
        &generate(&crd, "v1").unwrap().source,
        "        struct Present(\n            #[serde(\n                deserialize_with = \"AVeryLongKindNameThatMakesTheLineTooLongSpec::deserialize\"\n            )]\n            AVeryLongKindNameThatMakesTheLineTooLongSpec,\n        );\n",
    );
}

#[test]
fn crd_metadata_goes_into_the_kube_attribute() {
    let text = parse_crds(
        &std::fs::read_to_string(fixture("kubeforge/typegen.kubeforge.dev_crds.yaml")).unwrap(),
    )
    .unwrap()
    .into_iter()
    .map(|crd| generate(&crd, "v1").unwrap().source)
    .collect::<String>();
    assert_has(
        &text,
        "    scale(\n        spec_replicas_path = \".spec.replicas\",\n        status_replicas_path = \".status.replicas\"\n    ),\n",
    );
    assert_has(&text, "    shortname = \"ex\",\n");
    assert_has(
        &text,
        "    printcolumn(\n        name = \"Color\",\n        type_ = \"string\",\n        json_path = \".spec.color\",\n        priority = 1\n    )\n",
    );
    // Bare: cluster-scoped, no spec.
    assert_has(
        &text,
        "#[kube(\n    group = \"typegen.kubeforge.dev\",\n    version = \"v1\",\n    kind = \"Bare\",\n    plural = \"bares\",\n    singular = \"bare\",\n    no_spec\n)]\n",
    );
}

#[test]
fn reads_yaml_json_lists_and_refuses_what_is_no_v1_crd() {
    let one = |name: &str| {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{name}s.example.io")},
            "spec": {
                "group": "example.io",
                "names": {"kind": name, "plural": format!("{name}s")},
                "scope": "Cluster",
                "versions": [{"name": "v1", "served": true, "storage": true}],
            },
        })
    };
    let yaml = format!(
        "# comment\n---\n{}\n---\nkind: ConfigMap\napiVersion: v1\n---\n{}",
        serde_saphyr::to_string(&one("a")).unwrap(),
        serde_saphyr::to_string(&one("b")).unwrap()
    );
    let crds = parse_crds(&yaml).unwrap();
    assert_eq!(
        crds.iter().map(|c| c.kind.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert!(!crds[0].namespaced);
    assert!(
        crds[1]
            .text
            .starts_with("apiVersion: apiextensions.k8s.io/v1")
    );
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [one("c")]});
    assert_eq!(parse_crds(&list.to_string()).unwrap()[0].kind, "c");
    let err = parse_crds("kind: ConfigMap\napiVersion: v1\n").unwrap_err();
    assert!(
        err.to_string()
            .contains("no CustomResourceDefinition (only ConfigMap)"),
        "{err}"
    );
    let mut old = one("d");
    old["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
    let err = parse_crds(&old.to_string()).unwrap_err();
    assert!(matches!(err, TypegenError::OldCrdVersion { .. }), "{err}");
    let err = generate(&crds[0], "v9").unwrap_err();
    assert_eq!(
        err.to_string(),
        "the CustomResourceDefinition as.example.io has no version v9 (it has v1)"
    );
    let err = generate(&crds[0], "v1").unwrap_err();
    assert!(matches!(err, TypegenError::NoSchema { .. }), "{err}");
}

#[test]
fn example_objects_fill_required_fields() {
    let crd = crd_with(
        json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["secretName", "issuerRef", "kind", "count", "items"],
                    "properties": {
                        "secretName": {"type": "string", "minLength": 10},
                        "issuerRef": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "group": {"type": "string"}}},
                        "kind": {"type": "string", "enum": ["Issuer", "ClusterIssuer"]},
                        "count": {"type": "integer", "minimum": 3},
                        "items": {"type": "array", "minItems": 1, "items": {"type": "string", "default": "x"}},
                        "optional": {"type": "string"},
                    },
                },
            },
        }),
        json!({}),
    );
    let object = example_object(&crd, &crd.versions[0], "sample");
    assert_eq!(
        object,
        json!({
            "apiVersion": "example.io/v1",
            "kind": "Widget",
            "metadata": {"name": "sample"},
            "spec": {
                "secretName": "examplexxx",
                "issuerRef": {"name": "example"},
                "kind": "Issuer",
                "count": 3,
                "items": ["x"],
            },
        })
    );
}

fn fixture(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/crds")
        .join(rel)
}

/// Every vendored CRD file of `tests/fixtures/crds`.
fn fixtures() -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for project in std::fs::read_dir(fixture("")).unwrap() {
        let project = project.unwrap().path();
        if !project.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&project).unwrap() {
            let file = file.unwrap().path();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".yaml") && !name.starts_with("examples") {
                out.push(file);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_vendored_crd_generates_the_same_source_twice() {
    let mut kinds = Vec::new();
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        for crd in parse_crds(&text).unwrap() {
            for version in &crd.versions {
                let once = generate(&crd, &version.name).unwrap();
                assert_eq!(once, generate(&crd, &version.name).unwrap());
                assert!(once.structs > 0);
                assert!(once.source.contains("#[derive(CustomResource, "));
                // Written out for a look: TYPEGEN_DUMP=<dir>.
                if let Some(dir) = std::env::var_os("TYPEGEN_DUMP") {
                    let name = format!("{}_{}.rs", crd.kind.to_lowercase(), version.name);
                    std::fs::write(std::path::Path::new(&dir).join(name), &once.source).unwrap();
                }
            }
            kinds.push(crd.kind);
        }
    }
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "Application",
            "Bare",
            "Certificate",
            "Composition",
            "Exotic",
            "Gateway",
            "HTTPRoute",
            "Issuer",
            "PrometheusRule",
            "ServiceMonitor"
        ]
    );
}
