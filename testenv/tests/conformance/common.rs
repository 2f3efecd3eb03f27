//! Shared fixtures: a custom kind and helpers.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResource;
use kube::core::CustomResourceExt;
use kubeforge_testenv::TestEnv;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A small custom kind with status and scale subresources.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(
    group = "conformance.kubeforge.dev",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas"
    ),
    printcolumn(name = "Color", type_ = "string", json_path = ".spec.color"),
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas"),
    selectable = ".spec.color"
)]
pub struct WidgetSpec {
    pub color: String,
    #[serde(default)]
    pub replicas: i32,
}

/// Status of a Widget.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
pub struct WidgetStatus {
    pub ready: bool,
    #[serde(default)]
    pub replicas: i32,
}

/// The Widget CRD.
pub fn widget_crd() -> CustomResourceDefinition {
    Widget::crd()
}

/// A started environment with the Widget CRD.
pub async fn env() -> TestEnv {
    TestEnv::builder()
        .crd(widget_crd())
        .start()
        .await
        .expect("test environment starts")
}

/// A Widget named `name`.
pub fn widget(name: &str, color: &str) -> Widget {
    Widget::new(
        name,
        WidgetSpec {
            color: color.into(),
            replicas: 1,
        },
    )
}

/// The `Status` of a failed call.
pub fn api_error<T: std::fmt::Debug>(r: Result<T, kube::Error>) -> kube::core::Status {
    match r {
        Err(kube::Error::Api(s)) => *s,
        other => panic!("expected an API error, got {other:?}"),
    }
}
