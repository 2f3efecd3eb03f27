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

//! cronjob: the API types and controllers of the operator.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

pub mod api;
pub mod clock;
pub mod controllers;
pub mod schedule;
pub mod webhooks;
// +kubeforge:scaffold:modules

/// The CustomResourceDefinitions of every API this operator defines, each in the version it
/// was created with (tests install them into the embedded API server);
/// `kubeforge::scheme::crds()` has every version of each kind merged.
pub fn crds() -> Vec<CustomResourceDefinition> {
    vec![
        <crate::api::v1::CronJob as ::kube::CustomResourceExt>::crd(),
        // +kubeforge:scaffold:crds
    ]
}
