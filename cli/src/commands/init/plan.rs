//! The plan stage of `init`: every file of a new project.

use std::collections::BTreeMap;

use kubeforge_templates::Renderer;

use super::request::{Environment, InitRequest};
use crate::artifacts::project::{BOILERPLATE, BOILERPLATE_TXT, FILES};
use crate::context::{self, ProjectContext};
use crate::error::Error;
use crate::naming;
use crate::project::{self, LAYOUT, PROJECT_FILE, ProjectFile};
use crate::scaffold::{IfExists, Plan, Tree};

/// Plans the project `request` describes, in `tree` (which must hold none of its files).
pub fn plan<'a>(
    request: &InitRequest,
    environment: &Environment,
    tree: &'a dyn Tree,
    renderer: &'a Renderer,
) -> Result<Plan<'a>, Error> {
    let mut plan = Plan::new(tree, renderer);
    let boilerplate = if request.apache2 {
        let values: BTreeMap<&str, String> = [
            ("year", environment.year.to_string()),
            ("owner", request.owner.clone()),
        ]
        .into();
        Some(plan.render(&BOILERPLATE, &values)?)
    } else {
        None
    };
    let values = ProjectContext {
        crate_name: naming::crate_ident(&request.project_name),
        project_name: request.project_name.clone(),
        domain: request.domain.clone(),
        owner: request.owner.clone(),
        apache2: request.apache2,
        year: environment.year,
        header: context::rust_header(boilerplate.as_deref()),
        multigroup: request.multigroup,
        namespaced: request.namespaced,
        k8s_version: request.k8s_version.clone(),
        k8s_feature: request.k8s_feature.clone(),
        rust_version: env!("CARGO_PKG_RUST_VERSION"),
        versions: context::versions(),
        kubeforge_source: [
            ("runtime", environment.source.dependency("runtime")),
            ("testenv", environment.source.dependency("testenv")),
        ]
        .into_iter()
        .collect(),
    };

    for file in FILES {
        plan.add(&file.artifact(IfExists::Refuse), &values)?;
    }
    if let Some(text) = boilerplate {
        plan.add_with(&BOILERPLATE_TXT.artifact(IfExists::Refuse), |_| Ok(text))?;
    }
    let project = ProjectFile {
        api_approved: request.api_approved.clone(),
        cli_version: Some(environment.cli_version.clone()),
        domain: request.domain.clone(),
        layout: vec![LAYOUT.into()],
        multigroup: request.multigroup,
        namespaced: request.namespaced,
        project_name: request.project_name.clone(),
        resources: Vec::new(),
        version: "3".into(),
    };
    plan.put(PROJECT_FILE, project::render(&project)?, IfExists::Refuse)?;
    Ok(plan)
}
