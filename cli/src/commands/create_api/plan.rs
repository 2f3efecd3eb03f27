//! The plan stage of `create api`: the type and everything that registers it, the controller
//! and its registration, and the PROJECT entry.

use std::collections::BTreeMap;

use kubeforge_templates::Renderer;

use super::super::rust_header;
use super::request::{ApiRequest, Target};
use super::values::api_context;
use crate::artifacts::api::{self, ControllerKind};
use crate::artifacts::project as init;
use crate::cli::ReconcileMode;
use crate::context::ApiContext;
use crate::error::Error;
use crate::layout::ApiLayout;
use crate::naming;
use crate::project::{self, ApiInfo, PROJECT_FILE, ProjectFile, Resource};
use crate::scaffold::{Anchor, Artifact, Fragment, IfExists, Plan, Tree};

/// Plans `request` in the project `project`, whose files `tree` shows.
pub fn plan<'a>(
    project: &ProjectFile,
    request: &ApiRequest,
    tree: &'a dyn Tree,
    renderer: &'a Renderer,
) -> Result<Plan<'a>, Error> {
    let layout = ApiLayout::new(
        project.multigroup,
        &request.group,
        &request.version,
        &request.kind,
    );
    let ctx = api_context(project, request, &layout, rust_header(tree)?);
    let mut plan = Plan::new(tree, renderer);
    if request.resource {
        plan_resource(&mut plan, &ctx, &layout, request.force)?;
    }
    if request.controller {
        plan_controller(&mut plan, &ctx, &layout, request)?;
    }
    let mut project = project.clone();
    project.upsert(resource_entry(&project, request, &ctx));
    if request.controller {
        // One controller per kind: scaffolding it for this version (--force) moves it here.
        for other in project.resources.iter_mut().filter(|r| {
            r.group == request.group && r.kind == request.kind && r.version != request.version
        }) {
            other.controller = false;
        }
    }
    plan.put(
        PROJECT_FILE,
        project::render(&project)?,
        IfExists::Overwrite,
    )?;
    Ok(plan)
}

/// PROJECT's entry after the command.
fn resource_entry(project: &ProjectFile, request: &ApiRequest, ctx: &ApiContext) -> Resource {
    let existing = request.existing.as_ref();
    let own = matches!(request.target, Target::Own { .. });
    Resource {
        api: if request.resource {
            Some(ApiInfo {
                crd_version: "v1".into(),
                namespaced: ctx.namespaced,
            })
        } else {
            existing.and_then(|r| r.api.clone())
        },
        controller: request.controller || existing.is_some_and(|r| r.controller),
        domain: if own {
            project.domain.clone()
        } else {
            "k8s.io".into()
        },
        group: request.group.clone(),
        kind: request.kind.clone(),
        path: Some(match &request.target {
            Target::Own { .. } => {
                format!(
                    "{}::{}::{}",
                    ctx.crate_name, ctx.type_module, ctx.kind_ident
                )
            }
            Target::Builtin(builtin) => builtin.type_path(),
        }),
        plural: (ctx.plural != naming::plural(&request.kind) && own).then(|| ctx.plural.clone()),
        version: request.version.clone(),
        webhooks: existing.and_then(|r| r.webhooks.clone()),
        ..Resource::default()
    }
}

/// Plans a `mod.rs` of the API or controller tree (with its doc line) unless it exists.
fn module_file(
    plan: &mut Plan<'_>,
    ctx: &ApiContext,
    artifact: &Artifact,
    doc: String,
) -> Result<(), Error> {
    let data: BTreeMap<&str, String> = [("header", ctx.header.clone()), ("doc", doc)].into();
    plan.add(artifact, &data)
}

/// Declares the module `leaf` in the module file of `root`. In a multigroup project, `group`
/// gives the group's `mod.rs` and its doc (written if missing): `leaf` is declared there, and
/// the group module `group_mod` in `root`.
fn declare_module(
    plan: &mut Plan<'_>,
    ctx: &ApiContext,
    root: &Anchor,
    group: Option<(Artifact, String)>,
    group_mod: &str,
    leaf: &str,
) -> Result<(), Error> {
    let Some((group_file, doc)) = group else {
        return plan.insert(root, Fragment::line(format!("pub mod {leaf};")));
    };
    module_file(plan, ctx, &group_file, doc)?;
    plan.insert(
        &group_file.at(api::MODULES),
        Fragment::line(format!("pub mod {leaf};")),
    )?;
    plan.insert(root, Fragment::line(format!("pub mod {group_mod};")))
}

/// Plans the API type and everything that registers it: modules, CRD list, sample, kustomize
/// entries and the admin/editor/viewer roles.
fn plan_resource(
    plan: &mut Plan<'_>,
    ctx: &ApiContext,
    layout: &ApiLayout,
    force: bool,
) -> Result<(), Error> {
    plan.add(&api::type_file(layout, force), ctx)?;

    let version_module = api::version_module(layout);
    module_file(
        plan,
        ctx,
        &version_module,
        format!(
            "The {} API types ({}): one module per kind.",
            ctx.version, ctx.api_group
        ),
    )?;
    plan.insert(
        &version_module.at(api::MODULES),
        Fragment::Lines(vec![
            format!("pub mod {};", layout.kind_mod),
            format!("pub use self::{}::*;", layout.kind_mod),
        ]),
    )?;
    declare_module(
        plan,
        ctx,
        &init::API_MOD.at(init::API_MODULES),
        layout.multigroup.then(|| {
            (
                api::api_group_module(layout),
                format!("The {} API group: one module per version.", ctx.api_group),
            )
        }),
        &layout.group_mod,
        &layout.version_mod,
    )?;
    if ctx.stored {
        // One CRD per kind: its first version's (`kubeforge::scheme::crds()` merges them all).
        plan.insert(
            &init::LIB.at(init::LIB_CRDS),
            Fragment::line(format!(
                "<crate::{}::{} as ::kube::CustomResourceExt>::crd(),",
                ctx.type_module, ctx.kind_ident
            )),
        )?;
    }

    plan.add(&api::sample(layout, force), ctx)?;
    let samples = api::SAMPLES_KUSTOMIZATION_FILE.artifact(IfExists::Keep);
    plan.add(&samples, ctx)?;
    plan.insert(
        &samples.at(api::SAMPLES),
        Fragment::line(format!("- {}", ctx.sample_file)),
    )?;

    let crds = api::CRD_KUSTOMIZATION_FILE.artifact(IfExists::Keep);
    plan.add(&crds, ctx)?;
    plan.insert(
        &crds.at(api::CRD_RESOURCES),
        Fragment::line(format!("- bases/{}_{}.yaml", ctx.api_group, ctx.plural)),
    )?;

    let mut role_entries = Vec::new();
    for role in api::roles(layout, force) {
        plan.add(&role, ctx)?;
        let file = role.path.file_name().unwrap_or_default().to_string_lossy();
        role_entries.push(format!("- {file}"));
    }
    plan.insert(
        &init::RBAC_KUSTOMIZATION_FILE.at(init::RBAC_RESOURCES),
        Fragment::Lines(role_entries),
    )?;
    Ok(())
}

/// Plans the controller, its registration in main.rs and modules, and its test.
fn plan_controller(
    plan: &mut Plan<'_>,
    ctx: &ApiContext,
    layout: &ApiLayout,
    request: &ApiRequest,
) -> Result<(), Error> {
    let kind = match (&request.target, request.reconcile) {
        (Target::Own { .. }, ReconcileMode::StateOfWorld) => ControllerKind::World,
        (Target::Own { .. }, ReconcileMode::PerObject) => ControllerKind::Own,
        (Target::Builtin(_), _) => ControllerKind::Builtin,
    };
    plan.add(&api::controller(layout, kind, request.force), ctx)?;
    let group_name = if ctx.api_group.is_empty() {
        "core"
    } else {
        &ctx.api_group
    };
    declare_module(
        plan,
        ctx,
        &init::CONTROLLERS_MOD.at(init::CONTROLLERS_MODULES),
        layout.multigroup.then(|| {
            (
                api::controller_group_module(layout),
                format!("The controllers of the {group_name} group."),
            )
        }),
        &layout.group_mod,
        &layout.kind_mod,
    )?;
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
    plan.add(&api::controller_test(layout, kind, request.force), ctx)?;
    Ok(())
}
