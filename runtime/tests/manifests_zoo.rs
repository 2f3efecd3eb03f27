//! A zoo of tricky Rust shapes turned into CRDs: golden YAML, structural checks, determinism,
//! `--check` drift detection and installation into the embedded API server.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use kubeforge::manifests::{self, ManifestsArgs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A widget: every CRD-level setting and most validation attributes.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "zoo.example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus",
    shortname = "wd",
    shortname = "wdg",
    category = "zoo",
    plural = "widgets",
    singular = "widget",
    printcolumn(
        name = "Size",
        type_ = "integer",
        json_path = ".spec.size",
        description = "Desired size",
        priority = 0
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp",
        format = "date-time"
    ),
    scale(
        spec_replicas_path = ".spec.size",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    ),
    selectable = ".spec.mode",
    label("app.kubernetes.io/part-of", "zoo"),
    annotation("zoo.example.com/owner", "team-a")
)]
#[serde(rename_all = "camelCase")]
#[kubeforge(
    exactly_one_of(config_map, secret_name),
    rule(
        rule = "self.size <= 10 || has(self.mode)",
        message = "big widgets need a mode"
    )
)]
pub struct WidgetSpec {
    /// How many widgets.
    #[kubeforge(
        minimum = 1,
        maximum = 100,
        exclusive_maximum,
        multiple_of = 1,
        default = 1
    )]
    pub size: i32,
    /// An optional unit enum.
    pub mode: Option<Mode>,
    /// A data-carrying (externally tagged) enum.
    pub source: Option<Source>,
    /// Ports are IntOrString.
    #[kubeforge(immutable)]
    pub port: IntOrString,
    /// An optional quantity.
    pub memory: Option<Quantity>,
    /// An optional IntOrString with a pattern for its string form.
    #[kubeforge(pattern = "^[a-z0-9-]+$")]
    pub target_port: Option<IntOrString>,
    /// A map of structs.
    #[kubeforge(values(min_properties = 1))]
    pub selectors: BTreeMap<String, Port>,
    /// Fields flattened from a shared struct.
    #[serde(flatten)]
    pub common: Common,
    /// Plain string map.
    #[kubeforge(max_properties = 8, map_type = "atomic", values(max_length = 63))]
    pub labels: BTreeMap<String, String>,
    /// Map of quantities.
    pub limits: HashMap<String, Quantity>,
    /// A set of tags.
    #[kubeforge(
        unique_items,
        max_items = 5,
        items(pattern = "^[a-z]+$", min_length = 1)
    )]
    pub tags: Option<Vec<String>>,
    /// Ports keyed by name.
    #[kubeforge(list_map_keys = ["name"])]
    pub ports: Vec<Port>,
    /// Renamed on the wire.
    #[serde(rename = "cm", skip_serializing_if = "Option::is_none")]
    #[kubeforge(min_length = 1)]
    pub config_map: Option<String>,
    /// Another source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_name: Option<String>,
    /// Not serialized at all.
    #[serde(skip)]
    pub cache: u8,
    /// Anything goes.
    #[kubeforge(preserve_unknown_fields)]
    pub raw: Option<serde_json::Value>,
    /// An embedded Kubernetes object.
    #[kubeforge(embedded_resource)]
    pub template: Option<serde_json::Value>,
    /// A recursive tree, schemaless.
    pub tree: Option<Tree>,
    /// Quoted format and enum constraints.
    #[kubeforge(format = "date-time", enum_values = ["2024-01-01T00:00:00Z"], title = "Start", example = "2024-01-01T00:00:00Z")]
    pub start: Option<String>,
    /// Defaults given as JSON.
    #[kubeforge(default_json = r#"{"level": 2}"#)]
    pub tuning: Option<Tuning>,
    /// Nested flatten.
    pub extra: Extra,
    /// Externally controlled, required though optional in Rust.
    #[kubeforge(required, nullable)]
    pub owner: Option<String>,
}

/// A unit enum, variants documented (schemars renders it as `oneOf`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub enum Mode {
    /// Quick.
    Fast,
    /// Careful.
    Slow,
}

/// Fields shared by several specs, flattened into them.
#[kubeforge::schema]
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Common {
    /// A shared field.
    #[kubeforge(max_length = 253)]
    pub service_account: Option<String>,
}

/// A data-carrying enum.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(
    missing_docs,
    reason = "variants stay undocumented: a doc comment would become the schema description this test pins"
)]
pub enum Source {
    Git {
        url: String,
        revision: Option<String>,
    },
    Bucket {
        name: String,
    },
}

/// An item of a map list.
#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Port {
    /// The key.
    #[kubeforge(max_length = 15)]
    pub name: String,
    /// The port.
    #[kubeforge(minimum = 1, maximum = 65535)]
    pub container_port: i32,
    /// The protocol.
    #[kubeforge(enum_values = ["TCP", "UDP"], default = "TCP")]
    pub protocol: Option<String>,
}

/// A recursive type: its recursive field is schemaless.
#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Tree {
    /// The value.
    pub value: String,
    /// Children, kept as arbitrary JSON.
    #[kubeforge(schemaless, preserve_unknown_fields)]
    #[schemars(with = "serde_json::Value")]
    pub children: Vec<Tree>,
}

/// Nested type-level validations.
#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kubeforge(struct_type = "atomic", min_properties = 1, rule = "self.level < 10")]
pub struct Tuning {
    /// Level.
    #[kubeforge(minimum = 0)]
    pub level: Option<i64>,
    /// Ratio.
    #[kubeforge(maximum = 1.5, exclusive_minimum, minimum = 0.0)]
    pub ratio: Option<f64>,
}

/// A struct with a flattened map: unknown fields are preserved.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Extra {
    /// Known field.
    pub known: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub rest: BTreeMap<String, serde_json::Value>,
}

/// Status of a widget.
#[kubeforge::schema]
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct WidgetStatus {
    /// Observed replicas.
    pub replicas: Option<i32>,
    /// Label selector for the scale subresource.
    pub selector: Option<String>,
    /// Conditions.
    #[kubeforge(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>>,
}

/// The fixture kinds of `v1beta1`.
pub mod v1beta1 {
    use super::*;

    /// The old version of Gadget: served, deprecated, not stored.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "zoo.example.com",
        version = "v1beta1",
        kind = "Gadget",
        storage = false,
        deprecated = "zoo.example.com/v1beta1 Gadget is deprecated; use v1"
    )]
    pub struct GadgetSpec {
        /// Old name.
        pub name: String,
    }
}

/// The fixture kinds of `v1`.
pub mod v1 {
    use super::*;

    /// The current version of Gadget (cluster-scoped).
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(group = "zoo.example.com", version = "v1", kind = "Gadget")]
    pub struct GadgetSpec {
        /// New name.
        #[kubeforge(min_length = 1)]
        pub display_name: String,
    }
}

/// The fixture kinds of `v2alpha1`.
pub mod v2alpha1 {
    use super::*;

    /// An unserved future version of Gadget.
    #[kubeforge::api]
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
    #[kube(
        group = "zoo.example.com",
        version = "v2alpha1",
        kind = "Gadget",
        storage = false,
        served = false
    )]
    pub struct GadgetSpec {
        /// Newer name.
        pub title: String,
    }
}

fn generated() -> manifests::Generated {
    manifests::generate(&ManifestsArgs::default()).expect("the zoo generates")
}

fn file<'a>(g: &'a manifests::Generated, name: &str) -> &'a str {
    &g.files
        .iter()
        .find(|(p, _)| p.to_str() == Some(name))
        .unwrap_or_else(|| {
            panic!(
                "{name} generated: {:?}",
                g.files.iter().map(|f| &f.0).collect::<Vec<_>>()
            )
        })
        .1
}

#[test]
fn zoo_crds_match_golden_files() {
    let g = generated();
    let names: Vec<_> = g
        .files
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "crd/bases/zoo.example.com_gadgets.yaml",
            "crd/bases/zoo.example.com_widgets.yaml",
            "rbac/role.yaml"
        ]
    );
    insta::assert_snapshot!(
        "widgets",
        file(&g, "crd/bases/zoo.example.com_widgets.yaml")
    );
    insta::assert_snapshot!(
        "gadgets",
        file(&g, "crd/bases/zoo.example.com_gadgets.yaml")
    );
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
}

#[test]
fn output_is_deterministic_and_structural() {
    let first = generated();
    for _ in 0..3 {
        assert_eq!(generated(), first);
    }
    for crd in kubeforge::scheme::crds().unwrap() {
        for v in &crd.spec.versions {
            let schema = serde_json::to_value(
                v.schema
                    .as_ref()
                    .unwrap()
                    .open_api_v3_schema
                    .as_ref()
                    .unwrap(),
            )
            .unwrap();
            assert_eq!(
                manifests::structural::check(&schema),
                vec![],
                "{} {}",
                crd.metadata.name.as_deref().unwrap_or(""),
                v.name
            );
        }
    }
}

#[test]
fn the_scheme_knows_every_zoo_kind() {
    use kube::core::GroupVersionKind;
    let types: Vec<String> = kubeforge::scheme::api_types()
        .iter()
        .map(|t| format!("{}/{} {}", t.group(), t.version(), t.kind()))
        .collect();
    assert_eq!(
        types,
        [
            "zoo.example.com/v1 Gadget",
            "zoo.example.com/v1beta1 Gadget",
            "zoo.example.com/v2alpha1 Gadget",
            "zoo.example.com/v1 Widget"
        ]
    );
    let t = kubeforge::scheme::lookup(&GroupVersionKind::gvk(
        "zoo.example.com",
        "v1beta1",
        "Gadget",
    ))
    .unwrap();
    assert_eq!(t.rust_type(), "manifests_zoo::v1beta1::Gadget");
    assert!(
        kubeforge::scheme::lookup(&GroupVersionKind::gvk("zoo.example.com", "v3", "Gadget"))
            .is_none()
    );
    assert_eq!(
        kubeforge::scheme::versions_of("zoo.example.com", "Gadget").len(),
        3
    );
}

#[test]
fn check_reports_drift_and_write_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let args = ManifestsArgs {
        output_dir: dir.path().to_path_buf(),
        check: true,
        ..Default::default()
    };
    let err = manifests::run(args.clone()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("zoo.example.com_widgets.yaml") && text.contains("role.yaml"),
        "{text}"
    );

    manifests::run(ManifestsArgs {
        check: false,
        ..args.clone()
    })
    .unwrap();
    manifests::run(args.clone()).expect("no drift right after generating");
    let widgets = dir.path().join("crd/bases/zoo.example.com_widgets.yaml");
    let before = std::fs::metadata(&widgets).unwrap().modified().unwrap();
    manifests::run(ManifestsArgs {
        check: false,
        ..args.clone()
    })
    .unwrap();
    assert_eq!(
        std::fs::metadata(&widgets).unwrap().modified().unwrap(),
        before,
        "unchanged files are not rewritten"
    );

    std::fs::write(&widgets, "---\n").unwrap();
    match manifests::run(args).unwrap_err() {
        manifests::Error::Drift { files } => assert_eq!(files, vec![widgets]),
        other => panic!("expected drift, got {other}"),
    }
}

#[test]
fn no_descriptions_drops_every_schema_description() {
    let g = manifests::generate(&ManifestsArgs {
        no_descriptions: true,
        ..Default::default()
    })
    .unwrap();
    let widgets = file(&g, "crd/bases/zoo.example.com_widgets.yaml");
    // Only the printer column's description is left: it is not part of the schema.
    assert_eq!(widgets.matches("description:").count(), 1, "{widgets}");
    assert!(widgets.contains("description: Desired size"), "{widgets}");
    let with = file(&generated(), "crd/bases/zoo.example.com_widgets.yaml").len();
    assert!(widgets.len() + 5000 < with, "{} vs {with}", widgets.len());
}

#[test]
fn typed_helpers_exist_per_kind() {
    // Compile-time: the helper signatures generated for namespaced, cluster-scoped and status kinds.
    let _: fn(kube::Client, &str) -> kube::Api<Widget> = Widget::api;
    let _: fn(kube::Client) -> kube::Api<Widget> = Widget::api_all;
    let _: fn(kube::Client) -> kube::Api<v1::Gadget> = v1::Gadget::api;
    let w = Widget::new("w", serde_json::from_value(serde_json::json!({
        "size": 1, "port": 80, "labels": {}, "limits": {}, "ports": [], "extra": {}, "owner": null, "selectors": {}
    })).unwrap());
    // The Rust counterpart of DeepCopy: Clone, and a serde round trip keeps the object.
    let copy = w.clone();
    assert_eq!(
        serde_json::to_value(&copy).unwrap(),
        serde_json::to_value(&w).unwrap()
    );
    assert_eq!(
        serde_json::to_value(&w).unwrap()["apiVersion"],
        "zoo.example.com/v1"
    );
}

#[tokio::test]
async fn every_zoo_crd_installs_into_the_embedded_api_server() {
    use kube::api::{Api, PostParams};
    let mut builder = kubeforge_testenv::TestEnv::builder();
    for crd in kubeforge::scheme::crds().unwrap() {
        builder = builder.crd(crd);
    }
    // Also through the written YAML, as `make install` does.
    let dir = tempfile::tempdir().unwrap();
    manifests::run(ManifestsArgs {
        output_dir: dir.path().to_path_buf(),
        ..Default::default()
    })
    .unwrap();
    let env = kubeforge_testenv::TestEnv::builder()
        .crds_from_dir(dir.path().join("crd/bases"))
        .start()
        .await
        .expect("the generated YAML installs");
    drop(env);
    let env = builder.start().await.expect("every zoo CRD is accepted");
    let client = env.client();
    let widgets: Api<Widget> = Widget::api(client.clone(), env.namespace());
    let good = serde_json::json!({
        "apiVersion": "zoo.example.com/v1", "kind": "Widget", "metadata": {"name": "good"},
        "spec": {"size": 3, "port": 80, "labels": {}, "limits": {}, "ports": [{"name": "http", "containerPort": 80}],
                 "extra": {"known": "k", "unknown": 1}, "owner": null, "cm": "cfg", "selectors": {}, "serviceAccount": "sa", "targetPort": "http"}
    });
    let created = widgets
        .create(
            &PostParams::default(),
            &serde_json::from_value(good.clone()).unwrap(),
        )
        .await
        .expect("a valid widget is accepted");
    assert_eq!(created.spec.size, 3);
    let mut bad = good.clone();
    bad["metadata"]["name"] = "bad".into();
    bad["spec"]["size"] = 0.into();
    let err = widgets
        .create(
            &PostParams::default(),
            &serde_json::from_value(bad).unwrap(),
        )
        .await
        .expect_err("size below minimum is rejected");
    assert!(err.to_string().contains("spec.size"), "{err}");

    // The typed status helper writes through the status subresource.
    let mut observed = created.clone();
    observed.status = Some(WidgetStatus {
        replicas: Some(3),
        selector: Some("app=w".into()),
        conditions: None,
    });
    let patched = observed
        .patch_status(client.clone())
        .await
        .expect("status patch");
    assert_eq!(patched.status.as_ref().and_then(|s| s.replicas), Some(3));
    let fetched = created.api_for(client.clone()).get("good").await.unwrap();
    assert_eq!(
        fetched.status.and_then(|s| s.selector).as_deref(),
        Some("app=w")
    );

    // CEL rules from the attributes are enforced: exactly one source.
    let mut both = good.clone();
    both["metadata"]["name"] = "both".into();
    both["spec"]["secretName"] = "s".into();
    let err = widgets
        .create(
            &PostParams::default(),
            &serde_json::from_value(both).unwrap(),
        )
        .await
        .expect_err("two sources are rejected");
    assert!(
        err.to_string()
            .contains("exactly one of the fields in [cm secretName] must be set"),
        "{err}"
    );
}
