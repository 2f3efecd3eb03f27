// Copyright 2026.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The CronJob API (batch.tutorial.kubebuilder.io/v1): its desired state (spec) and observed state (status).

use kubeforge::prelude::*;

// This file is yours: give the spec and the status the fields your API needs.
// After changing a type, run `make manifests` to regenerate the CRD in config/crd/bases.

/// CronJobSpec defines the desired state of a CronJob, as its users declare it.
///
/// `#[kubeforge::api]` registers the type, so `make manifests` writes its CRD; validation
/// attributes such as `#[kubeforge(minimum = 1)]` go on its fields.
#[kubeforge::api]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "batch.tutorial.kubebuilder.io",
    version = "v1",
    kind = "CronJob",
    plural = "cronjobs",
    namespaced,
    status = "CronJobStatus",
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].status"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// An example field of CronJob: edit or remove it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// CronJobStatus is the observed state of a CronJob, as its controller reports it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// The `metadata.generation` of the CronJob that the controller last reconciled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// The latest observations of the CronJob's state. `Ready` is `True` once the controller
    /// has converged the cluster to the spec.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}
