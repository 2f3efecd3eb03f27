//! The plan stage of `create api --external`: per kind and version the generated types and the
//! modules that declare them, the CRD's copy, a controller and its test (with `--controller`),
//! and PROJECT's entries.

use kubeforge_templates::Renderer;

use std::collections::BTreeMap;

use super::super::rust_header;
use super::request::{ExternalKind, ExternalRequest};
use super::values::{ExternalContext, external_context};
use crate::artifacts::api;
use crate::artifacts::external;
use crate::artifacts::project as init;
use crate::error::Error;
use crate::external::ExternalLayout;
use crate::project::{self, PROJECT_FILE, ProjectFile, Resource};
use crate::scaffold::{Artifact, Fragment, IfExists, Plan, Tree, rust};

/// Plans `request` in `project`, whose files `tree` shows.
pub fn plan<'a>(
    project: &ProjectFile,
    request: &ExternalRequest,
    tree: &'a dyn Tree,
    renderer: &'a Renderer,
) -> Result<Plan<'a>, Error> {
    let header = rust_header(tree)?;
    let mut plan = Plan::new(tree, renderer);
    let mut updated = project.clone();
    for kind in &request.kinds {
        plan_kind(&mut plan, project, request, kind, &header)?;
        for (version, _) in &kind.versions {
            let existing = project.find(
                crate::external::layout::split_group(&kind.crd.group).0,
                version,
                &kind.crd.kind,
            );
            updated.upsert(entry(project, request, kind, version, existing));
        }
    }
    plan.put(
        PROJECT_FILE,
        project::render(&updated)?,
        IfExists::Overwrite,
    )?;
    Ok(plan)
}

fn plan_kind(
    plan: &mut Plan<'_>,
    project: &ProjectFile,
    request: &ExternalRequest,
    kind: &ExternalKind,
    header: &str,
) -> Result<(), Error> {
    let crd = &kind.crd;
    let types_if_exists = IfExists::refuse_unless(request.force);
    // One layout per version, in the order of the CRD's versions.
    let layouts: Vec<(&str, ExternalLayout)> = kind
        .versions
        .iter()
        .map(|(version, _)| {
            let layout = ExternalLayout::of_crd(project.multigroup, crd, version);
            (version.as_str(), layout)
        })
        .collect();
    let controller_layout = layouts
        .iter()
        .find(|(version, _)| kind.controller_version.as_deref() == Some(*version))
        .map(|(_, layout)| layout);
    for ((_, generated), (version, layout)) in kind.versions.iter().zip(&layouts) {
        let ctx = external_context(project, crd, layout, header, &generated.source);
        plan_types(plan, &ctx, layout, types_if_exists)?;
        if kind.controller_version.as_deref() == Some(*version) {
            plan_controller(plan, &ctx, layout, request.force)?;
        }
    }
    // Types deeper than rustc's default recursion limit allows: the crates that use them (the
    // library, the binary, the controller's test) get the limit they need.
    if let Some(limit) = kind
        .versions
        .iter()
        .filter_map(|(_, g)| g.recursion_limit)
        .max()
    {
        let mut roots = vec![
            std::path::PathBuf::from(init::LIB.path),
            std::path::PathBuf::from(init::MAIN.path),
        ];
        if let Some(layout) = controller_layout {
            roots.push(layout.api.controller_test_file.clone());
        }
        for root in roots {
            if plan.exists(&root)? {
                plan.edit_rust(&root, "#![recursion_limit]", |source| {
                    Ok(rust::raise_recursion_limit(source, limit)
                        .unwrap_or_else(|| source.text().to_owned()))
                })?;
            }
        }
    }
    if let Some((_, layout)) = layouts.first() {
        plan_crd_copy(plan, layout, &crd.text, request.force)?;
    }
    Ok(())
}

/// Plans the types of one kind at one version, and the modules that declare them (`pub mod
/// external;` in lib.rs, the group's and the version's `mod.rs`). `update external` plans
/// through here too.
pub fn plan_types(
    plan: &mut Plan<'_>,
    ctx: &ExternalContext,
    layout: &ExternalLayout,
    if_exists: IfExists,
) -> Result<(), Error> {
    plan.add(&external::types(layout, if_exists), ctx)?;
    let root = external::root_module();
    module_file(
        plan,
        &ctx.header,
        &root,
        "The Rust types of the kinds this operator uses but does not own, generated from their CRDs by `kubeforge create api --external` (`kubeforge update external` writes them again).".into(),
    )?;
    plan.insert(
        &init::LIB.at(init::LIB_MODULES),
        Fragment::line("pub mod external;"),
    )?;
    let group = external::group_module(layout);
    module_file(
        plan,
        &ctx.header,
        &group,
        format!("The {} API group: one module per version.", layout.group),
    )?;
    plan.insert(
        &root.at(api::MODULES),
        Fragment::line(format!("pub mod {};", layout.group_mod)),
    )?;
    let version = external::version_module(layout);
    module_file(
        plan,
        &ctx.header,
        &version,
        format!(
            "The {} types of {}: one module per kind.",
            layout.version, layout.group
        ),
    )?;
    plan.insert(
        &group.at(api::MODULES),
        Fragment::line(format!("pub mod {};", layout.version_mod)),
    )?;
    plan.insert(
        &version.at(api::MODULES),
        Fragment::Lines(vec![
            format!("pub mod {};", layout.kind_mod),
            format!("pub use {}::*;", layout.kind_mod),
        ]),
    )
}

/// Plans the CRD's copy: written when missing or the same; a different one is in the way
/// unless `force` (`update external` is how a changed CRD comes in).
pub fn plan_crd_copy(
    plan: &mut Plan<'_>,
    layout: &ExternalLayout,
    text: &str,
    force: bool,
) -> Result<(), Error> {
    let same = plan.current(&layout.crd_file)?.as_deref() == Some(text);
    let if_exists = if same || force {
        IfExists::Overwrite
    } else {
        IfExists::Refuse
    };
    plan.put(&layout.crd_file, text.to_owned(), if_exists)
}

/// Plans the controller, its module, its registration in main.rs and its test.
fn plan_controller(
    plan: &mut Plan<'_>,
    ctx: &ExternalContext,
    layout: &ExternalLayout,
    force: bool,
) -> Result<(), Error> {
    plan.add(&external::controller(layout, force), ctx)?;
    let api_layout = &layout.api;
    let controllers = init::CONTROLLERS_MOD.at(init::CONTROLLERS_MODULES);
    if api_layout.multigroup {
        let group = api::controller_group_module(api_layout);
        module_file(
            plan,
            &ctx.header,
            &group,
            format!("The controllers of the {} group.", layout.group),
        )?;
        plan.insert(
            &group.at(api::MODULES),
            Fragment::line(format!("pub mod {};", api_layout.kind_mod)),
        )?;
        plan.insert(
            &controllers,
            Fragment::line(format!("pub mod {};", api_layout.group_mod)),
        )?;
    } else {
        plan.insert(
            &controllers,
            Fragment::line(format!("pub mod {};", api_layout.kind_mod)),
        )?;
    }
    plan.insert(
        &init::MAIN.at(init::MAIN_IMPORTS),
        Fragment::line(format!("use ::{}::controllers;", ctx.crate_name)),
    )?;
    plan.insert(
        &init::MAIN.at(init::MAIN_BUILDER),
        Fragment::line(format!(
            "{}::add_to_manager(&mut manager);",
            ctx.controller_module
        )),
    )?;
    plan.add(&external::controller_test(layout, force), ctx)
}

/// Plans a module file (`api/module.rs`: its doc line and a `modules` marker) unless it exists.
fn module_file(
    plan: &mut Plan<'_>,
    header: &str,
    artifact: &Artifact,
    doc: String,
) -> Result<(), Error> {
    let data: BTreeMap<&str, String> = [("header", header.to_owned()), ("doc", doc)].into();
    plan.add(artifact, &data)
}

/// PROJECT's entry of `kind` at `version` after the command.
fn entry(
    project: &ProjectFile,
    request: &ExternalRequest,
    kind: &ExternalKind,
    version: &str,
    existing: Option<&Resource>,
) -> Resource {
    let crd = &kind.crd;
    let layout = ExternalLayout::of_crd(project.multigroup, crd, version);
    let crate_name = crate::naming::crate_ident(&project.project_name);
    Resource {
        controller: kind.controller_version.as_deref() == Some(version)
            || existing.is_some_and(|r| r.controller),
        domain: layout.domain.clone(),
        external: true,
        group: layout.group_label.clone(),
        kind: crd.kind.clone(),
        module: Some(request.origin.recorded.clone()),
        path: Some(format!(
            "{crate_name}::{}::{}",
            layout.type_module, crd.kind
        )),
        plural: Some(crd.plural.clone()),
        version: version.to_owned(),
        webhooks: existing.and_then(|r| r.webhooks.clone()),
        ..Resource::default()
    }
}
