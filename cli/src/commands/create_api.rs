//! `kubeforge create api`: an API type and/or its controller, registered at the scaffold markers.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::cli::CreateApiArgs;
use crate::context::{self, ApiContext};
use crate::error::Error;
use crate::kubernetes::{self, BuiltinGroup};
use crate::project::{self, ApiInfo, PROJECT_FILE, ProjectFile, Resource};
use crate::scaffold::{Marker, Plan};
use crate::{naming, validate};

/// How the scaffolded controller reconciles (`--reconcile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ReconcileMode {
    /// One object at a time: `Controller::<Kind>` calls the reconcile with each changed object.
    #[default]
    PerObject,
    /// The whole world at once: a `WorldController` calls one reconcile with a snapshot of
    /// every watched object and the changes since the previous call.
    StateOfWorld,
}

/// What type the controller (and API) is about.
enum Target {
    /// A type of this project (a CRD).
    Own {
        api_group: String,
        plural: String,
        namespaced: bool,
    },
    /// A built-in Kubernetes kind from k8s-openapi.
    Builtin(BuiltinGroup),
}

/// Runs `kubeforge create api`.
pub fn run(args: CreateApiArgs) -> Result<(), Error> {
    let root = super::project_dir(args.dir.as_deref())?;
    let mut project = project::load(&root)?;
    if !args.resource && !args.controller {
        return Err(Error::NothingToDo);
    }
    check_names(&args)?;
    let existing = project
        .find(&args.group, &args.version, &args.kind)
        .cloned();
    let target = resolve_target(&args, &project, existing.as_ref())?;
    check_reconcile_mode(&args, &target)?;
    if args.controller && !args.force && existing.as_ref().is_some_and(|r| r.controller) {
        return Err(Error::ControllerExists {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
        });
    }

    let boilerplate = context::read_boilerplate(&root)?;
    let layout = Layout::new(&project, &args);
    let ctx = api_context(
        &project,
        &args,
        &target,
        &layout,
        context::rust_header(boilerplate.as_deref()),
    );
    let renderer = kubeforge_templates::Renderer::new()?;
    let mut plan = Plan::new(&root);

    if args.resource {
        plan_resource(
            &mut plan,
            &renderer,
            &ctx,
            &layout,
            args.force,
            project.multigroup,
        )?;
    }
    if args.controller {
        plan_controller(
            &mut plan,
            &renderer,
            &ctx,
            &layout,
            (&target, args.reconcile),
            args.force,
            project.multigroup,
        )?;
    }

    let resource = Resource {
        api: if args.resource {
            Some(ApiInfo {
                crd_version: "v1".into(),
                namespaced: ctx.namespaced,
            })
        } else {
            existing.as_ref().and_then(|r| r.api.clone())
        },
        controller: args.controller || existing.as_ref().is_some_and(|r| r.controller),
        domain: match target {
            Target::Own { .. } => project.domain.clone(),
            Target::Builtin(_) => "k8s.io".into(),
        },
        group: args.group.clone(),
        kind: args.kind.clone(),
        path: Some(match target {
            Target::Own { .. } => format!("{}::{}::{}", ctx.crate_name, ctx.type_module, args.kind),
            Target::Builtin(_) => ctx.type_path.clone(),
        }),
        plural: (ctx.plural != naming::plural(&args.kind) && matches!(target, Target::Own { .. }))
            .then(|| ctx.plural.clone()),
        version: args.version.clone(),
        webhooks: existing.as_ref().and_then(|r| r.webhooks.clone()),
    };
    project.upsert(resource);
    plan.create(PROJECT_FILE, project::render(&project)?, true)?;

    println!("Writing scaffold for you to edit...");
    let changes = plan.commit()?;
    super::print_changes(&changes);
    print_next_steps(&args, &layout);
    Ok(())
}

/// Checks version, kind and group against kubebuilder's rules (the group's full form is checked
/// once the domain is known).
fn check_names(args: &CreateApiArgs) -> Result<(), Error> {
    validate::dns1123_label(&args.version).map_err(|v| Error::InvalidInput {
        flag: "--version",
        value: args.version.clone(),
        subject: format!("the version {:?}", args.version),
        rule: v.rule,
        fix: "pass a version such as --version v1alpha1, v1beta1 or v1".into(),
    })?;
    if !validate::is_kube_version(&args.version) {
        eprintln!(
            "warning: version {:?} is not of the form v1, v1beta1 or v2alpha3, so Kubernetes sorts it after every such version (alphabetically) when choosing the preferred version",
            args.version
        );
    }
    validate::kind(&args.kind).map_err(|v| Error::InvalidInput {
        flag: "--kind",
        value: args.kind.clone(),
        subject: format!("the kind {:?}", args.kind),
        rule: v.rule,
        fix: "pass a CamelCase kind such as --kind Memcached".into(),
    })?;
    if args.group.is_empty() {
        return Err(Error::InvalidInput {
            flag: "--group",
            value: String::new(),
            subject: "the group".into(),
            rule: "non-empty".into(),
            fix: "pass a group such as --group cache".into(),
        });
    }
    Ok(())
}

/// `--reconcile state-of-world` scaffolds a controller of this project's own kind (built-in
/// kinds join its world with `.watches::<K>()`).
fn check_reconcile_mode(args: &CreateApiArgs, target: &Target) -> Result<(), Error> {
    if args.reconcile != ReconcileMode::StateOfWorld {
        return Ok(());
    }
    let invalid = |subject: &str, rule: &str, fix: &str| Error::InvalidInput {
        flag: "--reconcile",
        value: "state-of-world".into(),
        subject: subject.into(),
        rule: rule.into(),
        fix: fix.into(),
    };
    if !args.controller {
        return Err(invalid(
            "the reconcile mode",
            "used with a controller",
            "drop --controller=false, or drop --reconcile",
        ));
    }
    if let Target::Builtin(_) = target {
        return Err(invalid(
            &format!(
                "a state-of-world controller of the built-in kind {}",
                args.kind
            ),
            "about a kind of this project",
            "scaffold your own kind with --reconcile state-of-world and add .watches::<K>() for the built-in kinds it relates, or use --reconcile per-object",
        ));
    }
    Ok(())
}

/// Decides what the command scaffolds for: a new or existing type of this project, or a
/// built-in kind; applies the existing-resource and single-group rules.
fn resolve_target(
    args: &CreateApiArgs,
    project: &ProjectFile,
    existing: Option<&Resource>,
) -> Result<Target, Error> {
    if args.resource {
        let api_group = format!("{}.{}", args.group, project.domain);
        validate::dns1123_subdomain(&api_group).map_err(|v| Error::InvalidInput {
            flag: "--group",
            value: args.group.clone(),
            subject: format!("the API group {api_group:?} (<group>.<domain>)"),
            rule: v.rule,
            fix: "pass a lower-case group such as --group cache".into(),
        })?;
        let plural = args
            .plural
            .clone()
            .unwrap_or_else(|| naming::plural(&args.kind));
        validate::dns1035_label(&plural).map_err(|v| Error::InvalidInput {
            flag: "--plural",
            value: plural.clone(),
            subject: format!("the resource name {plural:?}"),
            rule: v.rule,
            fix: "pass a lower-case plural such as --plural memcacheds".into(),
        })?;
        if !args.force && existing.is_some_and(|r| r.api.is_some()) {
            return Err(Error::ResourceExists {
                group: args.group.clone(),
                version: args.version.clone(),
                kind: args.kind.clone(),
            });
        }
        if !project.multigroup
            && let Some(other) = project.groups().into_iter().find(|g| *g != args.group)
        {
            return Err(Error::SecondGroup {
                existing: other.to_owned(),
                new: args.group.clone(),
            });
        }
        return Ok(Target::Own {
            api_group,
            plural,
            namespaced: args.namespaced,
        });
    }
    if let Some(resource) = existing
        && let Some(api) = &resource.api
    {
        return Ok(Target::Own {
            api_group: format!("{}.{}", resource.group, project.domain),
            plural: resource
                .plural
                .clone()
                .unwrap_or_else(|| naming::plural(&resource.kind)),
            namespaced: api.namespaced,
        });
    }
    kubernetes::builtin_group(&args.group)
        .map(Target::Builtin)
        .ok_or_else(|| Error::UnknownKind {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
        })
}

/// Where the files of one API go.
struct Layout {
    group_mod: String,
    version_mod: String,
    kind_mod: String,
    api_dir: PathBuf,
    type_file: PathBuf,
    controller_file: PathBuf,
    test_file: PathBuf,
    role_stem: String,
}

impl Layout {
    fn new(project: &ProjectFile, args: &CreateApiArgs) -> Self {
        let kind_snake = naming::snake_case(&args.kind);
        let kind_file = naming::file_stem(&kind_snake);
        let group_file = naming::file_stem(&args.group);
        let version_file = naming::file_stem(&args.version);
        let kind_lower = args.kind.to_ascii_lowercase();
        let (api_dir, controller_dir, test_file, role_stem) = if project.multigroup {
            (
                PathBuf::from(format!("src/api/{group_file}/{version_file}")),
                PathBuf::from(format!("src/controllers/{group_file}")),
                PathBuf::from(format!("tests/{group_file}_{kind_file}_controller.rs")),
                format!("{}_{kind_lower}", args.group),
            )
        } else {
            (
                PathBuf::from(format!("src/api/{version_file}")),
                PathBuf::from("src/controllers"),
                PathBuf::from(format!("tests/{kind_file}_controller.rs")),
                kind_lower,
            )
        };
        Layout {
            group_mod: naming::module_ident(&args.group),
            version_mod: naming::module_ident(&args.version),
            kind_mod: naming::module_ident(&kind_snake),
            type_file: api_dir.join(format!("{kind_file}.rs")),
            controller_file: controller_dir.join(format!("{kind_file}.rs")),
            api_dir,
            test_file,
            role_stem,
        }
    }
}

/// The template values of one API.
fn api_context(
    project: &ProjectFile,
    args: &CreateApiArgs,
    target: &Target,
    layout: &Layout,
    header: String,
) -> ApiContext {
    let kind_lower = args.kind.to_ascii_lowercase();
    let group_path = if project.multigroup {
        format!("{}::", layout.group_mod)
    } else {
        String::new()
    };
    let (api_group, plural, namespaced, type_path) = match target {
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
            naming::plural(&args.kind),
            kubernetes::builtin_namespaced(&args.kind),
            format!(
                "k8s_openapi::api::{}::{}::{}",
                group.module, args.version, args.kind
            ),
        ),
    };
    let api_version = if api_group.is_empty() {
        args.version.clone()
    } else {
        format!("{api_group}/{}", args.version)
    };
    let role_prefix = layout.role_stem.replace('_', "-");
    ApiContext {
        header,
        project_name: project.project_name.clone(),
        crate_name: naming::crate_name(&project.project_name),
        domain: project.domain.clone(),
        kind: args.kind.clone(),
        kind_snake: naming::snake_case(&args.kind),
        version: args.version.clone(),
        plural,
        example_object: kubernetes::example_object(
            &api_version,
            &args.kind,
            &format!("{kind_lower}-sample"),
        ),
        kind_lower,
        api_version,
        api_group,
        namespaced,
        type_module: format!("api::{group_path}{}", layout.version_mod),
        type_path,
        controller_module: format!("controllers::{group_path}{}", layout.kind_mod),
        controller_leaf: layout.kind_mod.clone(),
        sample_file: format!(
            "{}_{}_{}.yaml",
            args.group,
            args.version,
            args.kind.to_ascii_lowercase()
        ),
        role_prefix,
    }
}

/// Plans a `mod.rs` (from `api/module.rs`, with its doc line) unless it exists.
fn module_file(
    plan: &mut Plan,
    renderer: &kubeforge_templates::Renderer,
    ctx: &ApiContext,
    path: PathBuf,
    doc: String,
) -> Result<(), Error> {
    plan.ensure(&path, || {
        let data: BTreeMap<&str, String> = [("header", ctx.header.clone()), ("doc", doc)].into();
        Ok(renderer.render("api/module.rs", &data)?)
    })
}

/// Plans the API type and everything that registers it: modules, CRD list, sample, kustomize
/// entries and the admin/editor/viewer roles.
fn plan_resource(
    plan: &mut Plan,
    renderer: &kubeforge_templates::Renderer,
    ctx: &ApiContext,
    layout: &Layout,
    force: bool,
    multigroup: bool,
) -> Result<(), Error> {
    plan.create(
        &layout.type_file,
        renderer.render("api/type.rs", ctx)?,
        force,
    )?;

    let version_mod = layout.api_dir.join("mod.rs");
    module_file(
        plan,
        renderer,
        ctx,
        version_mod.clone(),
        format!(
            "The {} API types ({}): one module per kind.",
            ctx.version, ctx.api_group
        ),
    )?;
    let kind = &ctx.kind;
    plan.insert(
        &version_mod,
        Marker("modules"),
        &[
            format!("pub mod {};", layout.kind_mod),
            format!("pub use {}::*;", layout.kind_mod),
        ],
    )?;
    let api_group_dir = layout.api_dir.parent().unwrap_or(&layout.api_dir);
    declare_module(
        plan,
        renderer,
        ctx,
        "src/api/mod.rs",
        multigroup.then(|| {
            (
                api_group_dir,
                format!("The {} API group: one module per version.", ctx.api_group),
            )
        }),
        &layout.group_mod,
        &layout.version_mod,
    )?;
    plan.insert(
        "src/lib.rs",
        Marker("crds"),
        &[format!(
            "<{}::{kind} as kube::CustomResourceExt>::crd(),",
            ctx.type_module
        )],
    )?;

    let sample = PathBuf::from("config/samples").join(&ctx.sample_file);
    plan.create(&sample, renderer.render("api/sample.yaml", ctx)?, force)?;
    plan.ensure("config/samples/kustomization.yaml", || {
        Ok(renderer.render("api/samples_kustomization.yaml", ctx)?)
    })?;
    plan.insert(
        "config/samples/kustomization.yaml",
        Marker("manifestskustomizesamples"),
        &[format!("- {}", ctx.sample_file)],
    )?;

    plan.ensure("config/crd/kustomization.yaml", || {
        Ok(renderer.render("api/crd_kustomization.yaml", ctx)?)
    })?;
    plan.insert(
        "config/crd/kustomization.yaml",
        Marker("crdkustomizeresource"),
        &[format!("- bases/{}_{}.yaml", ctx.api_group, ctx.plural)],
    )?;

    let mut role_entries = Vec::new();
    for role in ["admin", "editor", "viewer"] {
        let file = format!("{}_{role}_role.yaml", layout.role_stem);
        // The roles are about the resource, whatever its version: a second version keeps them.
        let path = PathBuf::from("config/rbac").join(&file);
        let render = || Ok(renderer.render(&format!("api/{role}_role.yaml"), ctx)?);
        if force {
            plan.create(&path, render()?, true)?;
        } else {
            plan.ensure(&path, render)?;
        }
        role_entries.push(format!("- {file}"));
    }
    plan.insert(
        "config/rbac/kustomization.yaml",
        Marker("rbac"),
        &role_entries,
    )?;
    Ok(())
}

/// Declares module `leaf` under `root` (`src/api/mod.rs` or `src/controllers/mod.rs`). In a
/// multigroup project, `group` gives the group's folder and the doc of its `mod.rs` (created if
/// missing): `leaf` is declared there, and the group module `group_mod` in `root`.
fn declare_module(
    plan: &mut Plan,
    renderer: &kubeforge_templates::Renderer,
    ctx: &ApiContext,
    root: &str,
    group: Option<(&std::path::Path, String)>,
    group_mod: &str,
    leaf: &str,
) -> Result<(), Error> {
    let Some((group_dir, doc)) = group else {
        return plan.insert(root, Marker("modules"), &[format!("pub mod {leaf};")]);
    };
    let group_file = group_dir.join("mod.rs");
    module_file(plan, renderer, ctx, group_file.clone(), doc)?;
    plan.insert(
        &group_file,
        Marker("modules"),
        &[format!("pub mod {leaf};")],
    )?;
    plan.insert(root, Marker("modules"), &[format!("pub mod {group_mod};")])
}

/// Plans the controller, its registration in main.rs and modules, and its test.
fn plan_controller(
    plan: &mut Plan,
    renderer: &kubeforge_templates::Renderer,
    ctx: &ApiContext,
    layout: &Layout,
    (target, mode): (&Target, ReconcileMode),
    force: bool,
    multigroup: bool,
) -> Result<(), Error> {
    let (controller_template, test_template) = match (target, mode) {
        (Target::Own { .. }, ReconcileMode::StateOfWorld) => {
            ("api/controller_world.rs", "api/controller_world_test.rs")
        }
        (Target::Own { .. }, ReconcileMode::PerObject) => {
            ("api/controller.rs", "api/controller_test.rs")
        }
        (Target::Builtin(_), _) => (
            "api/controller_builtin.rs",
            "api/controller_builtin_test.rs",
        ),
    };
    plan.create(
        &layout.controller_file,
        renderer.render(controller_template, ctx)?,
        force,
    )?;
    let group_name = if ctx.api_group.is_empty() {
        "core"
    } else {
        &ctx.api_group
    };
    let controller_group_dir = layout
        .controller_file
        .parent()
        .unwrap_or(&layout.controller_file);
    declare_module(
        plan,
        renderer,
        ctx,
        "src/controllers/mod.rs",
        multigroup.then(|| {
            (
                controller_group_dir,
                format!("The controllers of the {group_name} group."),
            )
        }),
        &layout.group_mod,
        &layout.kind_mod,
    )?;
    plan.insert(
        "src/main.rs",
        Marker("imports"),
        &[format!("use {}::controllers;", ctx.crate_name)],
    )?;
    let registration = ctx.controller_module.clone();
    plan.insert(
        "src/main.rs",
        Marker("builder"),
        &[format!("{registration}::add_to_manager(&mut manager);")],
    )?;
    plan.create(
        &layout.test_file,
        renderer.render(test_template, ctx)?,
        force,
    )?;
    Ok(())
}

/// What to do next, numbered.
fn print_next_steps(args: &CreateApiArgs, layout: &Layout) {
    let mut steps = Vec::new();
    if args.resource {
        steps.push(format!(
            "Define the spec and status of {} in {}.",
            args.kind,
            layout.type_file.display()
        ));
    }
    if args.controller {
        steps.push(format!(
            "Write its reconcile in {}.",
            layout.controller_file.display()
        ));
    }
    steps.push("make manifests   # the CRD into config/crd/bases, the manager role into config/rbac/role.yaml".into());
    if args.controller {
        steps.push(format!(
            "make test        # {} runs against the embedded API server",
            layout.test_file.display()
        ));
    } else {
        steps
            .push("make test        # the project's tests, against the embedded API server".into());
    }
    println!("\nNext steps:");
    for (number, step) in steps.iter().enumerate() {
        println!("  {}. {step}", number + 1);
    }
}
