//! Enum representations: internally, adjacently and externally tagged, untagged objects.

use kube::CustomResource;
use kubeforge::manifests;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Internally tagged.
#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
#[allow(
    missing_docs,
    reason = "variant fields stay undocumented: a doc comment would become the schema description this test pins"
)]
pub enum Internal {
    /// Git.
    Git { url: String },
    /// Bucket.
    Bucket {
        name: String,
        region: Option<String>,
    },
    /// Nothing.
    Empty,
}

/// Adjacently tagged.
#[kubeforge::schema]
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", content = "spec")]
#[allow(
    missing_docs,
    reason = "variant fields stay undocumented: a doc comment would become the schema description this test pins"
)]
pub enum Adjacent {
    /// A.
    A { x: i32 },
    /// B.
    B { x: i32 },
}

/// Untagged objects.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(
    missing_docs,
    reason = "variant fields stay undocumented: a doc comment would become the schema description this test pins"
)]
pub enum Untagged {
    /// By name.
    Named { name: String },
    /// By selector.
    Selected { selector: String },
}

/// Spec.
#[kubeforge::api]
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "enums.example.com", version = "v1", kind = "Enums")]
pub struct EnumsSpec {
    /// Internally tagged.
    pub internal: Internal,
    /// Optional internally tagged.
    pub maybe_internal: Option<Internal>,
    /// Adjacently tagged.
    pub adjacent: Adjacent,
    /// Untagged objects.
    pub untagged: Option<Untagged>,
    /// List of internally tagged.
    pub many: Vec<Internal>,
}

#[test]
fn tagged_and_untagged_enums_render_structurally() {
    let crd = manifests::crd("enums.example.com", "Enums").unwrap_or_else(|e| panic!("{e}"));
    let yaml = manifests::yaml_documents(&[manifests::crd_value(&crd, false)]).unwrap();
    insta::assert_snapshot!("enums", yaml);
}

#[tokio::test]
async fn the_api_server_accepts_the_crd_and_enforces_variant_fields() {
    use kube::api::{Api, PostParams};
    let crd = manifests::crd("enums.example.com", "Enums").unwrap();
    let env = kubeforge_testenv::TestEnv::builder()
        .crd(crd)
        .start()
        .await
        .expect("CRD accepted");
    let api: Api<Enums> = Enums::api(env.client());
    let good = EnumsSpec {
        internal: Internal::Git {
            url: "https://example.com".into(),
        },
        maybe_internal: Some(Internal::Empty),
        adjacent: Adjacent::B { x: 1 },
        untagged: Some(Untagged::Selected {
            selector: "a=b".into(),
        }),
        many: vec![Internal::Bucket {
            name: "b".into(),
            region: None,
        }],
    };
    let created = api
        .create(&PostParams::default(), &Enums::new("good", good))
        .await
        .expect("valid object");
    assert!(matches!(created.spec.internal, Internal::Git { .. }));
    assert!(matches!(created.spec.many[0], Internal::Bucket { .. }));

    let bad: Enums = serde_json::from_value(serde_json::json!({
        "apiVersion": "enums.example.com/v1", "kind": "Enums", "metadata": {"name": "bad"},
        "spec": {"internal": {"type": "git", "url": "u"}, "adjacent": {"kind": "A", "spec": {"x": 1}}, "many": []}
    }))
    .unwrap();
    let mut raw = serde_json::to_value(&bad).unwrap();
    raw["spec"]["internal"] = serde_json::json!({"type": "bucket"});
    let dynamic: Api<kube::api::DynamicObject> =
        Api::all_with(env.client(), &kube::api::ApiResource::erase::<Enums>(&()));
    let err = dynamic
        .create(
            &PostParams::default(),
            &serde_json::from_value(raw).unwrap(),
        )
        .await
        .expect_err("a bucket without a name is rejected");
    assert!(
        err.to_string()
            .contains("`name` is required when type is bucket"),
        "{err}"
    );
}
