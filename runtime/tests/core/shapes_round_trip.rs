//! Every common Rust shape, written as a user would (no kubeforge attribute on nested types),
//! becomes a CRD the API server accepts; objects a Rust client writes come back from a GET equal
//! to what was sent; objects the schema must refuse are refused with kube-apiserver's message.
//!
//! Runs against the server `KUBEFORGE_TEST_CLUSTER` selects: the embedded one by default, a real
//! one with `existing` (and `KUBECONFIG`). The expected refusal messages are kube-apiserver
//! v1.34's, so both servers must give them word for word. With `--nocapture` the test prints
//! the table of derive/README.md (shape, schema, what the server did).

use crate::shape_types;

use std::fmt::Debug;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use kube::core::object::HasSpec;
use kube::{CustomResourceExt, Resource};
use kubeforge::manifests;
use kubeforge_testenv::TestEnv;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use shape_types::refusals::Refusal;
use shape_types::samples;
use shape_types::*;

const KINDS: [&str; 5] = ["Scalars", "Enums", "FreeForm", "Nested", "Recursive"];

/// Every field of every kind: (kind, field, Rust type as written).
const SHAPES: &[(&str, &str, &str)] = &[
    ("Scalars", "int8", "i8"),
    ("Scalars", "uint8", "u8"),
    ("Scalars", "uint16", "u16"),
    ("Scalars", "uint32", "u32"),
    ("Scalars", "uint64", "u64"),
    ("Scalars", "int64", "i64"),
    ("Scalars", "size", "usize"),
    ("Scalars", "float32", "f32"),
    ("Scalars", "float64", "f64"),
    ("Scalars", "flag", "bool"),
    ("Scalars", "letter", "char"),
    ("Scalars", "text", "String"),
    ("Scalars", "nonzero", "NonZeroU32"),
    ("Scalars", "maybeInt", "Option<i32>"),
    ("Scalars", "boxed", "Box<String>"),
    ("Scalars", "tags", "BTreeSet<String>"),
    ("Scalars", "ports", "HashSet<u16>"),
    ("Scalars", "pair", "(i32, i32)"),
    ("Scalars", "triple", "(String, i32, bool)"),
    ("Scalars", "array", "[u8; 3]"),
    ("Scalars", "bytes", "Vec<u8>"),
    ("Scalars", "byNumber", "BTreeMap<u32, String>"),
    ("Scalars", "timeout", "std::time::Duration"),
    ("Scalars", "address", "std::net::IpAddr"),
    ("Scalars", "port", "struct Port(u16)"),
    ("Scalars", "name", "#[serde(transparent)] struct"),
    ("Scalars", "intOrString", "IntOrString"),
    ("Scalars", "memory", "Option<Quantity>"),
    ("Enums", "mode", "unit enum"),
    ("Enums", "level", "unit enum, documented variants, renamed"),
    ("Enums", "maybeMode", "Option<unit enum>"),
    ("Enums", "only", "single-variant enum"),
    ("Enums", "maybeOnly", "Option<single-variant enum>"),
    ("Enums", "source", "externally tagged enum, struct variants"),
    (
        "Enums",
        "bound",
        "externally tagged enum, newtype and tuple variants",
    ),
    ("Enums", "sizing", "enum mixing unit and struct variants"),
    (
        "Enums",
        "internal",
        "#[serde(tag)] enum: struct, newtype, unit variants",
    ),
    (
        "Enums",
        "adjacent",
        "#[serde(tag, content)] enum: struct, newtype, tuple, unit variants",
    ),
    (
        "Enums",
        "intOrName",
        "#[serde(untagged)] enum { Int(i32), Name(String) }",
    ),
    ("Enums", "selector", "#[serde(untagged)] enum of structs"),
    (
        "Enums",
        "loose",
        "#[serde(untagged)] enum { bool, Vec<String>, struct }",
    ),
    (
        "Enums",
        "renamed",
        "#[serde(tag = \"source-type\")], renamed variants and fields",
    ),
    (
        "Enums",
        "shared",
        "#[serde(tag)] enum, variants sharing a field of different types",
    ),
    ("Enums", "maybeInternal", "Option<#[serde(tag)] enum>"),
    ("FreeForm", "value", "serde_json::Value"),
    ("FreeForm", "maybeValue", "Option<Value>"),
    ("FreeForm", "values", "BTreeMap<String, Value>"),
    ("FreeForm", "list", "Vec<Value>"),
    ("FreeForm", "object", "serde_json::Map<String, Value>"),
    ("FreeForm", "maybeValues", "Vec<Option<Value>>"),
    (
        "FreeForm",
        "open",
        "struct with #[serde(flatten)] BTreeMap<String, Value>",
    ),
    (
        "FreeForm",
        "labelled",
        "struct with #[serde(flatten)] BTreeMap<String, String>",
    ),
    ("FreeForm", "raw", "RawExtension"),
    ("Nested", "internals", "Vec<#[serde(tag)] enum>"),
    (
        "Nested",
        "internalByName",
        "BTreeMap<String, #[serde(tag)] enum>",
    ),
    ("Nested", "maybeModes", "Option<Vec<Option<unit enum>>>"),
    ("Nested", "maybeCounts", "BTreeMap<String, Option<i32>>"),
    (
        "Nested",
        "adjacentGrid",
        "Vec<Vec<#[serde(tag, content)] enum>>",
    ),
    (
        "Nested",
        "sourcesByTeam",
        "BTreeMap<String, Vec<externally tagged enum>>",
    ),
    ("Nested", "boxedInternal", "Option<Box<#[serde(tag)] enum>>"),
    ("Nested", "intOrNames", "Vec<untagged int | string>"),
    ("Nested", "sizings", "BTreeMap<String, mixed enum>"),
    (
        "Nested",
        "items",
        "Vec<struct with Option<unit enum> fields>",
    ),
    (
        "Nested",
        "selectors",
        "Option<Vec<untagged enum of structs>>",
    ),
    (
        "Nested",
        "bounds",
        "Vec<externally tagged newtype/tuple enum>",
    ),
    ("Recursive", "tree", "struct Tree { children: Vec<Tree> }"),
    (
        "Recursive",
        "expr",
        "enum Expr { Lit(i64), Add(Box<Expr>, Box<Expr>), Neg(Box<Expr>) }",
    ),
    (
        "Recursive",
        "folder",
        "mutually recursive structs through Option<Box<_>>",
    ),
];

fn crd(kind: &str) -> CustomResourceDefinition {
    manifests::crd(GROUP, kind).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// The schema of `spec.<field>` in a kind's CRD, without descriptions.
fn field_schema(kind: &str, field: &str) -> Value {
    let crd = crd(kind);
    let mut schema = serde_json::to_value(&crd.spec.versions[0].schema).expect("schemas serialize");
    let mut field = schema["openAPIV3Schema"]["properties"]["spec"]["properties"][field].take();
    manifests::strip_descriptions(&mut field);
    field
}

/// What went wrong, per kind and field (`""` for the whole object).
#[derive(Default)]
struct Outcome {
    mismatches: Vec<String>,
    /// (kind, field) of every shape whose values did not come back intact.
    broken: Vec<(String, String)>,
    /// (kind, field, message) of every refusal seen.
    refused: Vec<(String, String, String)>,
}

impl Outcome {
    fn fail(&mut self, kind: &str, field: &str, what: String) {
        self.mismatches.push(format!("{kind}.{field}: {what}"));
        self.broken.push((kind.into(), field.into()));
    }
}

/// Creates every sample, reads it back, and compares it with what was sent.
async fn round_trip<K, S>(
    env: &TestEnv,
    kind: &str,
    specs: Vec<S>,
    new: impl Fn(&str, S) -> K,
    outcome: &mut Outcome,
) where
    K: Resource<DynamicType = (), Scope = kube::core::NamespaceResourceScope>
        + HasSpec<Spec = S>
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned,
    S: Clone + Debug + PartialEq + Serialize,
{
    let api: Api<K> = Api::namespaced(env.client(), env.namespace());
    for (i, spec) in specs.into_iter().enumerate() {
        let name = format!("{}-{i}", kind.to_lowercase());
        let sent = new(&name, spec.clone());
        if let Err(e) = api.create(&PostParams::default(), &sent).await {
            outcome.fail(kind, "", format!("sample {i} refused: {e}"));
            continue;
        }
        let got = match api.get(&name).await {
            Ok(got) => got,
            Err(e) => {
                outcome.fail(kind, "", format!("sample {i} unreadable: {e}"));
                continue;
            }
        };
        if got.spec() == &spec {
            continue;
        }
        let (sent_json, got_json) = (
            serde_json::to_value(&spec).expect("specs serialize"),
            serde_json::to_value(got.spec()).expect("specs serialize"),
        );
        let mut named = false;
        if let (Value::Object(a), Value::Object(b)) = (&sent_json, &got_json) {
            for (field, value) in a {
                if b.get(field) != Some(value) {
                    named = true;
                    outcome.fail(
                        kind,
                        field,
                        format!(
                            "sample {i}: sent {value}, got back {}",
                            b.get(field).unwrap_or(&Value::Null)
                        ),
                    );
                }
            }
        }
        if !named {
            outcome.fail(
                kind,
                "",
                format!("sample {i}: sent {spec:?}, got back {:?}", got.spec()),
            );
        }
    }
}

/// Writes the status of every Enums sample that has one, reads it back, compares.
async fn status_round_trip(env: &TestEnv, outcome: &mut Outcome) {
    let api: Api<Enums> = Api::namespaced(env.client(), env.namespace());
    for (i, (_, status)) in samples::enums().into_iter().enumerate() {
        let Some(status) = status else { continue };
        let name = format!("enums-{i}");
        let mut object = match api.get(&name).await {
            Ok(o) => o,
            Err(e) => return outcome.fail("Enums", "status", format!("sample {i}: {e}")),
        };
        object.status = Some(status.clone());
        if let Err(e) = object.patch_status(env.client()).await {
            outcome.fail("Enums", "status", format!("sample {i} status refused: {e}"));
            continue;
        }
        match api.get(&name).await {
            Ok(got) if got.status.as_ref() == Some(&status) => {}
            Ok(got) => outcome.fail(
                "Enums",
                "status",
                format!("sample {i}: sent {status:?}, got back {:?}", got.status),
            ),
            Err(e) => outcome.fail("Enums", "status", format!("sample {i}: {e}")),
        }
    }
}

/// Sends every object the schemas must refuse and compares the answers with kube-apiserver's.
async fn refusals(env: &TestEnv, cases: Vec<Refusal>, outcome: &mut Outcome) {
    for case in cases {
        let resource =
            ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(GROUP, "v1", case.kind));
        let api: Api<DynamicObject> =
            Api::namespaced_with(env.client(), env.namespace(), &resource);
        let mut spec = samples::base(case.kind);
        match spec.pointer_mut(case.pointer) {
            Some(slot) => *slot = case.value.clone(),
            None => panic!("{}: no {} in the sample", case.name, case.pointer),
        }
        let object: DynamicObject = serde_json::from_value(json!({
            "apiVersion": format!("{GROUP}/v1"), "kind": case.kind,
            "metadata": {"name": case.name}, "spec": spec,
        }))
        .expect("a dynamic object");
        let field = case
            .pointer
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or_default();
        match api.create(&PostParams::default(), &object).await {
            Ok(_) => outcome.fail(
                case.kind,
                field,
                format!(
                    "{}: accepted, expected refusal: {}",
                    case.name, case.message
                ),
            ),
            Err(kube::Error::Api(status)) if status.message == case.message => {
                outcome
                    .refused
                    .push((case.kind.into(), field.into(), case.message.into()));
            }
            Err(kube::Error::Api(status)) => outcome.fail(
                case.kind,
                field,
                format!(
                    "{}: refused with another message\n      expected: {}\n      got:      {}",
                    case.name, case.message, status.message
                ),
            ),
            Err(e) => outcome.fail(case.kind, field, format!("{}: {e}", case.name)),
        }
    }
}

/// The longest schema the table shows in full (`manifests` writes the rest).
const SCHEMA_CELL: usize = 220;

/// The table of derive/README.md: shape, schema, what the server did.
fn table(outcome: &Outcome) -> String {
    let mut out = String::from(
        "| Rust shape | schema (descriptions left out) | API server |\n|---|---|---|\n",
    );
    for (kind, field, rust) in SHAPES {
        let mut schema = field_schema(kind, field).to_string();
        if let Some((cut, _)) = schema.char_indices().nth(SCHEMA_CELL) {
            schema.truncate(cut);
            schema.push('…');
        }
        let schema = schema.replace('|', "\\|");
        let broken = outcome
            .broken
            .iter()
            .any(|(k, f)| k == kind && (f == field || f.is_empty()));
        let mut verdict = if broken {
            "**values changed**".to_string()
        } else {
            "accepts every sample; GET returns it unchanged".to_string()
        };
        for (_, _, message) in outcome
            .refused
            .iter()
            .filter(|(k, f, _)| k == kind && f == field)
        {
            let short = message.split(" is invalid: ").nth(1).unwrap_or(message);
            verdict.push_str(&format!("; refuses: `{}`", short.replace('|', "\\|")));
        }
        let rust = rust.replace('|', "\\|");
        out.push_str(&format!("| `{rust}` | `{schema}` | {verdict} |\n"));
    }
    out
}

#[test]
fn every_field_is_listed() {
    for kind in KINDS {
        let crd = serde_json::to_value(crd(kind)).expect("CRDs serialize");
        let fields = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
            ["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{kind} has spec properties"))
            .keys()
            .cloned()
            .collect::<Vec<_>>();
        let listed: Vec<String> = SHAPES
            .iter()
            .filter(|(k, _, _)| *k == kind)
            .map(|(_, f, _)| f.to_string())
            .collect();
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(fields, sorted, "{kind}: SHAPES must list every field");
    }
    assert!(SHAPES.len() >= 40);
}

#[test]
fn the_crds_are_structural_and_identical_through_kube() {
    for kind in KINDS {
        // What `manifests` writes is what `Kind::crd()` returns: the rewrite is in kube's path.
        let via_kube = match kind {
            "Scalars" => Scalars::crd(),
            "Enums" => Enums::crd(),
            "FreeForm" => FreeForm::crd(),
            "Nested" => Nested::crd(),
            _ => Recursive::crd(),
        };
        assert_eq!(via_kube, crd(kind), "{kind}");
    }
}

#[tokio::test]
async fn every_shape_keeps_its_data_and_refusals_match_kube_apiserver() {
    let mut builder = TestEnv::builder();
    for kind in KINDS {
        builder = builder.crd(crd(kind));
    }
    let env = builder
        .start()
        .await
        .unwrap_or_else(|e| panic!("the CRDs are accepted: {e}"));
    if !env.is_existing_cluster() {
        println!(
            "note: against the embedded API server; run with KUBEFORGE_TEST_CLUSTER=existing and KUBECONFIG \
             (e.g. from /work/shared/realk8s/start.sh) to check the same against kube-apiserver"
        );
    }
    let mut outcome = Outcome::default();
    round_trip(
        &env,
        "Scalars",
        samples::scalars(),
        Scalars::new,
        &mut outcome,
    )
    .await;
    let enums = samples::enums().into_iter().map(|(s, _)| s).collect();
    round_trip(&env, "Enums", enums, Enums::new, &mut outcome).await;
    status_round_trip(&env, &mut outcome).await;
    round_trip(
        &env,
        "FreeForm",
        samples::free_form(),
        FreeForm::new,
        &mut outcome,
    )
    .await;
    round_trip(&env, "Nested", samples::nested(), Nested::new, &mut outcome).await;
    round_trip(
        &env,
        "Recursive",
        samples::recursive(),
        Recursive::new,
        &mut outcome,
    )
    .await;
    let cases = shape_types::refusals::cases();
    refusals(&env, cases, &mut outcome).await;
    println!("{}", table(&outcome));
    assert!(
        outcome.mismatches.is_empty(),
        "{} mismatches against the {} API server:\n  {}",
        outcome.mismatches.len(),
        if env.is_existing_cluster() {
            "real"
        } else {
            "embedded"
        },
        outcome.mismatches.join("\n  ")
    );
}
