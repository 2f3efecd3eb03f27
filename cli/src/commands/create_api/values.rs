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
    let crate_name = naming::crate_ident(&project.project_name);
    let kind_ident = naming::kind_ident(&request.kind);
    let (api_group, plural, namespaced, type_import, test_type_import, storage_version) =
        match &request.target {
            Target::Own {
                api_group,
                plural,
                namespaced,
                storage_version,
            } => (
                api_group.clone(),
                plural.clone(),
                *namespaced,
                format!("crate::{}::{kind_ident}", layout.type_module),
                format!("::{crate_name}::{}::{kind_ident}", layout.type_module),
                storage_version.clone(),
            ),
            Target::Builtin(builtin) => {
                let module = format!("k8s_openapi::api::{}::{}", builtin.module, builtin.version);
                let kind_import = naming::kind_import(&request.kind);
                (
                    builtin.api_group.to_owned(),
                    builtin.plural.to_owned(),
                    builtin.namespaced(),
                    format!("{module}::{kind_import}"),
                    format!("{module}::{kind_import}"),
                    request.version.clone(),
                )
            }
        };
    let api_version = if api_group.is_empty() {
        request.version.clone()
    } else {
        format!("{api_group}/{}", request.version)
    };
    ApiContext {
        header,
        project_name: project.project_name.clone(),
        crate_name,
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
        renamed: kind_ident != request.kind,
        kind_ident,
        type_import,
        test_type_import,
        controller_module: layout.controller_module.clone(),
        controller_name: layout.controller_name.clone(),
        stored: storage_version == request.version,
        storage_version,
        api_approved: project.api_approved.clone().unwrap_or_default(),
        sample_file: layout.sample_file.clone(),
        role_prefix: layout.role_stem.replace('_', "-"),
    }
}
