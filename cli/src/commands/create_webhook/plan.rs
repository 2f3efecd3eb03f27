//! The plan stage of `create webhook`: the webhook module and test of the kind, the
//! conversions, the registration in the project, the kustomize configuration, and the PROJECT
//! entry.

use std::path::PathBuf;

use kubeforge_templates::Renderer;

use super::super::rust_header;
use super::config;
use super::conversion;
use super::request::{Types, WebhookRequest};
use super::target::Target;
use super::values::Values;
use crate::artifacts::project as init;
use crate::artifacts::webhook;
use crate::error::Error;
use crate::layout::ApiLayout;
use crate::project::{self, PROJECT_FILE, ProjectFile, Resource, WebhookInfo};
use crate::scaffold::rust::merge_use;
use crate::scaffold::{Fragment, IfExists, Plan, Tree};

/// What the plan found out that the report tells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The scope patches of webhooks on a built-in kind, with the namespace they leave out.
    pub scope_patches: Vec<(PathBuf, String)>,
    /// Whether the Makefile got `--webhook-local` (its marker may predate webhooks).
    pub run_flags: bool,
}

/// Plans `request` in the project `project`, whose files `tree` shows.
pub fn plan<'a>(
    project: &ProjectFile,
    request: &WebhookRequest,
    tree: &'a dyn Tree,
    renderer: &'a Renderer,
) -> Result<(Plan<'a>, Outcome), Error> {
    let target = &request.target;
    let layout = ApiLayout::new(
        project.multigroup,
        &target.group,
        &target.version,
        &target.kind,
    );
    let values = Values::new(project, target, &layout, rust_header(tree)?);
    let mut plan = Plan::new(tree, renderer);

    if request.requested.any() {
        webhook_file(&mut plan, request, &layout, &values)?;
    }
    for spoke in request.conversion_spokes() {
        conversion::plan(&mut plan, project, target, &values, spoke, request.force)?;
    }
    test_file(&mut plan, project, request, &layout, &values)?;
    registration(&mut plan, request, &values)?;
    let run_flags = project_wiring(&mut plan, &values)?;
    config::kustomize(
        &mut plan,
        &values,
        request.all,
        request.conversion || request.had.conversion,
        request.force,
    )?;
    let scope_patches = if target.builtin {
        config::scope_patches(&mut plan, target, &layout, &values, request)?
    } else {
        Vec::new()
    };

    let mut project = project.clone();
    project.upsert(resource_entry(request));
    plan.put(
        PROJECT_FILE,
        project::render(&project)?,
        IfExists::Overwrite,
    )?;
    Ok((
        plan,
        Outcome {
            scope_patches,
            run_flags,
        },
    ))
}

/// PROJECT's entry after the command.
fn resource_entry(request: &WebhookRequest) -> Resource {
    let target = &request.target;
    let mut resource = request.existing.clone().unwrap_or_else(|| Resource {
        api: None,
        controller: false,
        domain: "k8s.io".into(),
        group: target.group.clone(),
        kind: target.kind.clone(),
        path: Some(target.type_path.clone()),
        plural: None,
        version: target.version.clone(),
        webhooks: None,
        ..Resource::default()
    });
    resource.webhooks = Some(WebhookInfo {
        conversion: request.had.conversion || request.conversion,
        defaulting: request.all.defaulting,
        spoke: request.all_spokes.clone(),
        validation: request.all.validation,
        webhook_version: "v1".into(),
    });
    resource
}

/// Plans src/webhooks/<module>.rs: the whole file when it is new (or with --force), else the
/// sections of the new webhook types appended and their imports added (through the parser, so
/// the user's code in it stays as it is).
fn webhook_file(
    plan: &mut Plan<'_>,
    request: &WebhookRequest,
    layout: &ApiLayout,
    values: &Values,
) -> Result<(), Error> {
    let artifact = webhook::module(layout);
    let types = if plan.exists(&artifact.path)? && !request.force {
        plan.edit_rust(&artifact.path, "use kubeforge::webhook", |source| {
            let mut text = merge_use(
                source,
                &["kubeforge", "webhook"],
                &webhook_imports(request.requested),
            );
            if !text.ends_with('\n') {
                text.push('\n');
            }
            Ok(text)
        })?;
        request.requested
    } else {
        let imports = imports(&request.target, request.all, values);
        let mut values = values.clone();
        values.imports = imports;
        plan.add(&artifact, &values)?;
        request.all
    };
    if types.defaulting {
        plan.append(&artifact.path, &webhook::DEFAULTER, values)?;
    }
    if types.validation {
        plan.append(&artifact.path, &webhook::VALIDATOR, values)?;
    }
    Ok(())
}

/// The kubeforge::webhook names a webhook file with these types uses.
fn webhook_imports(types: Types) -> Vec<String> {
    let mut names = Vec::new();
    if types.defaulting {
        names.push("Defaulter");
    }
    names.push("Denied");
    if types.validation {
        names.extend(["Validator", "Warnings"]);
    }
    names.into_iter().map(str::to_owned).collect()
}

/// The `use` lines of a new webhook file.
fn imports(target: &Target, types: Types, values: &Values) -> String {
    let webhook = format!(
        "use kubeforge::webhook::{{{}}};",
        webhook_imports(types).join(", ")
    );
    let kind = format!("use {}::{};", target.import_module(), values.kind_import);
    if target.builtin {
        format!("{kind}\n{webhook}")
    } else {
        format!("{webhook}\n\n{kind}")
    }
}

/// Plans the test file of the kind: new (or with --force) with every test, else the tests of
/// what this command adds appended.
fn test_file(
    plan: &mut Plan<'_>,
    project: &ProjectFile,
    request: &WebhookRequest,
    layout: &ApiLayout,
    values: &Values,
) -> Result<(), Error> {
    let artifact = webhook::test(layout);
    let (types, spokes) = if plan.exists(&artifact.path)? && !request.force {
        (request.requested, request.conversion_spokes().to_vec())
    } else {
        let mut spokes = request.conversion_spokes().to_vec();
        if request.force {
            // Every spoke of the kind keeps its test when the file is written anew.
            for spoke in &request.had.spoke {
                if !spokes.contains(spoke) {
                    spokes.push(spoke.clone());
                }
            }
        }
        plan.add(&artifact, values)?;
        (request.all, spokes)
    };
    if types.defaulting {
        plan.append(&artifact.path, &webhook::TEST_DEFAULTING, values)?;
    }
    if types.validation {
        plan.append(&artifact.path, &webhook::TEST_VALIDATION, values)?;
    }
    for spoke in &spokes {
        let (spoke_target, spoke_layout) = conversion::spoke(project, &request.target, spoke)?;
        let mut values = values.for_spoke(&spoke_target, &spoke_layout);
        if plan.exists(PathBuf::from("config/samples").join(&spoke_target.sample_file))? {
            values.spoke_sample = spoke_target.sample_file.clone();
        }
        plan.append(&artifact.path, &webhook::TEST_CONVERSION, &values)?;
    }
    Ok(())
}

/// Plans src/webhooks/mod.rs (created on first use), the webhook module and the registrations
/// of what this command adds.
fn registration(
    plan: &mut Plan<'_>,
    request: &WebhookRequest,
    values: &Values,
) -> Result<(), Error> {
    let registry = webhook::REGISTRY_FILE.artifact(IfExists::Keep);
    plan.add(&registry, values)?;
    let module = &values.webhook_module;
    let ty = &request.target.absolute_type_path();
    let kind = &request.target.kind;
    if request.requested.any() {
        plan.insert(
            &registry.at(webhook::REGISTRY_MODULES),
            Fragment::line(format!("pub mod {module};")),
        )?;
    }
    let mut calls = Vec::new();
    if request.requested.defaulting {
        calls.push(("defaulter", format!("{module}::{kind}Defaulter")));
    }
    if request.requested.validation {
        calls.push(("validator", format!("{module}::{kind}Validator")));
    }
    if request.conversion {
        calls.push(("conversion", String::new()));
    }
    // Calls appended to the builder chain `register` returns; the insertion lays the chain out
    // as rustfmt does (one call on the receiver's line, more one a line).
    plan.insert(
        &registry.at(webhook::REGISTRY_WEBHOOKS),
        Fragment::Lines(
            calls
                .into_iter()
                .map(|(method, argument)| format!(".{method}::<{ty}>({argument})"))
                .collect(),
        ),
    )?;
    Ok(())
}

/// Plans `pub mod webhooks;`, the server in main.rs and `--webhook-local` for `make run`.
/// Returns whether the Makefile got the flag (its marker may predate webhooks).
fn project_wiring(plan: &mut Plan<'_>, values: &Values) -> Result<bool, Error> {
    plan.insert(
        &init::LIB.at(init::LIB_MODULES),
        Fragment::line("pub mod webhooks;"),
    )?;
    plan.insert(
        &init::MAIN.at(init::MAIN_WEBHOOK_BUILDER),
        Fragment::line(format!(
            "let webhooks = ::{}::webhooks::register(webhooks);",
            values.crate_name
        )),
    )?;
    plan.insert(
        &init::MAIN.at(init::MAIN_WEBHOOK_SERVER),
        Fragment::line(
            "kubeforge::webhook::add_to_manager(&mut manager, webhooks, &cli.manager).await?;",
        ),
    )?;
    plan.insert_if_marked(
        &init::MAKEFILE_FILE.at(init::MAKEFILE_RUN_FLAGS),
        Fragment::line("RUN_FLAGS += --webhook-local"),
    )
}
