//! The template values of one API ([`ApiContext`]).

use super::request::{ApiRequest, Target};
use crate::context::ApiContext;
use crate::kubernetes;
use crate::layout::ApiLayout;
use crate::naming;
use crate::project::ProjectFile;

/// The values the `api/**` templates are rendered with.
pub fn api_context(
    project: &ProjectFile,
    request: &ApiRequest,
    layout: &ApiLayout,
    header: String,
) -> ApiContext {
    let (api_group, plural, namespaced, type_path) = match &request.target {
        Target::Own {
            api_group,
            plural,
            namespaced,
        } => (
            api_group.clone(),
            plural.clone(),
            *namespaced,
            String::new(),
        ),
        Target::Builtin(group) => (
            group.api_group.to_owned(),
            naming::plural(&request.kind),
            kubernetes::builtin_namespaced(&request.kind),
            format!(
                "k8s_openapi::api::{}::{}::{}",
                group.module, request.version, request.kind
            ),
        ),
    };
    let api_version = if api_group.is_empty() {
        request.version.clone()
    } else {
        format!("{api_group}/{}", request.version)
    };
    ApiContext {
        header,
        project_name: project.project_name.clone(),
        crate_name: naming::crate_name(&project.project_name),
        domain: project.domain.clone(),
        kind: request.kind.clone(),
        kind_snake: layout.kind_snake.clone(),
        version: request.version.clone(),
        plural,
        example_object: kubernetes::example_object(
            &api_version,
            &request.kind,
            &format!("{}-sample", layout.kind_lower),
        ),
        kind_lower: layout.kind_lower.clone(),
        api_version,
        api_group,
        namespaced,
        type_module: layout.type_module.clone(),
        type_path,
        controller_module: layout.controller_module.clone(),
        controller_leaf: layout.kind_mod.clone(),
        sample_file: layout.sample_file.clone(),
        role_prefix: layout.role_stem.replace('_', "-"),
    }
}
