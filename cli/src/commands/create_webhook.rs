//! `kubeforge create webhook`: defaulting, validating and conversion webhooks for an API of the
//! project or a built-in kind, registered at the scaffold markers, with their kustomize
//! configuration (config/webhook, config/certmanager, the CRD conversion patch) and tests.

mod fields;
mod kustomize;
mod target;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::CreateWebhookArgs;
use crate::context;
use crate::error::Error;
use crate::kubernetes;
use crate::naming;
use crate::project::{self, PROJECT_FILE, ProjectFile, Resource, WebhookInfo};
use crate::scaffold::{Marker, Plan};
use crate::validate;

use fields::Mapping;
use target::Target;

/// The webhook types of one command, or of one kind at one version.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Types {
    defaulting: bool,
    validation: bool,
}

impl Types {
    fn any(self) -> bool {
        self.defaulting || self.validation
    }
}

/// Runs `kubeforge create webhook`.
pub fn run(args: CreateWebhookArgs) -> Result<(), Error> {
    let root = super::project_dir(args.dir.as_deref())?;
    let mut project = project::load(&root)?;
    check_flags(&args)?;
    let target = target::resolve(&project, &args.group, &args.version, &args.kind)?;
    let existing = project
        .find(&args.group, &args.version, &args.kind)
        .cloned();
    let had = existing
        .as_ref()
        .and_then(|r| r.webhooks.clone())
        .unwrap_or_default();
    let spokes = check_spokes(&args, &project, &target)?;
    check_existing(&args, &had, &spokes)?;

    let requested = Types {
        defaulting: args.defaulting,
        validation: args.programmatic_validation,
    };
    let all = Types {
        defaulting: had.defaulting || args.defaulting,
        validation: had.validation || args.programmatic_validation,
    };
    // Spokes that get conversion code now: new ones, or all named ones with --force.
    let new_spokes: Vec<String> = spokes
        .iter()
        .filter(|s| args.force || !had.spoke.contains(s))
        .cloned()
        .collect();
    let mut all_spokes = had.spoke.clone();
    all_spokes.extend(new_spokes.iter().cloned());
    all_spokes.sort();
    all_spokes.dedup();

    let boilerplate = context::read_boilerplate(&root)?;
    let values = Values::new(
        &project,
        &target,
        context::rust_header(boilerplate.as_deref()),
    );
    let renderer = kubeforge_templates::Renderer::new()?;
    let mut plan = Plan::new(&root);
    let scaffold = Scaffold {
        project: &project,
        target: &target,
        values: &values,
        renderer: &renderer,
        force: args.force,
    };

    if requested.any() {
        scaffold.webhook_file(&mut plan, requested, all)?;
    }
    let conversion_spokes = if args.conversion {
        new_spokes.clone()
    } else {
        Vec::new()
    };
    for spoke in &conversion_spokes {
        scaffold.conversion(&mut plan, spoke)?;
    }
    scaffold.test_file(&mut plan, requested, all, &conversion_spokes)?;
    scaffold.registration(&mut plan, requested, args.conversion)?;
    let run_flags_added = scaffold.project_wiring(&mut plan)?;
    scaffold.kustomize(&mut plan, all, args.conversion || had.conversion)?;
    let scope_patches = if target.builtin {
        scaffold.scope_patches(&mut plan, requested)?
    } else {
        Vec::new()
    };

    let mut resource = existing.unwrap_or_else(|| Resource {
        api: None,
        controller: false,
        domain: "k8s.io".into(),
        group: target.group.clone(),
        kind: target.kind.clone(),
        path: Some(target.type_path.clone()),
        plural: None,
        version: target.version.clone(),
        webhooks: None,
    });
    resource.webhooks = Some(WebhookInfo {
        conversion: had.conversion || args.conversion,
        defaulting: all.defaulting,
        spoke: all_spokes,
        validation: all.validation,
        webhook_version: "v1".into(),
    });
    project.upsert(resource);
    plan.create(PROJECT_FILE, project::render(&project)?, true)?;

    println!("Writing scaffold for you to edit...");
    let changes = plan.commit()?;
    super::print_changes(&changes);
    if target.builtin {
        eprintln!("{}", bootstrap_warning(&target, &scope_patches));
    }
    if !run_flags_added {
        eprintln!(
            "warning: the Makefile has no `# +kubeforge:scaffold:run-flags` marker, so `make run` does not pass --webhook-local yet: run the manager with `cargo run -- --webhook-local` to serve the webhooks locally"
        );
    }
    print_next_steps(&values, requested, &conversion_spokes);
    Ok(())
}

/// Refuses flag combinations that ask for nothing or make no sense.
fn check_flags(args: &CreateWebhookArgs) -> Result<(), Error> {
    if !args.conversion && !args.spokes.is_empty() {
        return Err(Error::SpokeWithoutConversion {
            spokes: args.spokes.join(","),
        });
    }
    if !args.defaulting && !args.programmatic_validation && !args.conversion {
        return Err(Error::NoWebhookType {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
        });
    }
    validate::dns1123_label(&args.version).map_err(|v| Error::InvalidInput {
        flag: "--version",
        value: args.version.clone(),
        subject: format!("the version {:?}", args.version),
        rule: v.rule,
        fix: "pass the version of an existing API, e.g. --version v1".into(),
    })?;
    validate::kind(&args.kind).map_err(|v| Error::InvalidInput {
        flag: "--kind",
        value: args.kind.clone(),
        subject: format!("the kind {:?}", args.kind),
        rule: v.rule,
        fix: "pass the CamelCase kind of an existing API, e.g. --kind Memcached".into(),
    })?;
    Ok(())
}

/// The spokes of a conversion webhook, each an existing other version of the kind.
fn check_spokes(
    args: &CreateWebhookArgs,
    project: &ProjectFile,
    target: &Target,
) -> Result<Vec<String>, Error> {
    if !args.conversion {
        return Ok(Vec::new());
    }
    if target.builtin {
        return Err(Error::ConversionForBuiltin {
            kind: args.kind.clone(),
        });
    }
    if args.spokes.is_empty() {
        return Err(Error::NoSpokes {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
            known: target::known_versions(project, &args.group, &args.kind),
        });
    }
    let versions = target::api_versions(project, &args.group, &args.kind);
    let mut spokes = Vec::new();
    for spoke in &args.spokes {
        let spoke = spoke.trim();
        if spoke == args.version {
            return Err(Error::SpokeIsHub {
                version: spoke.to_owned(),
            });
        }
        if !versions.iter().any(|v| v == spoke) {
            return Err(Error::UnknownSpoke {
                group: args.group.clone(),
                kind: args.kind.clone(),
                spoke: spoke.to_owned(),
                known: target::known_versions(project, &args.group, &args.kind),
            });
        }
        if !spokes.iter().any(|s| s == spoke) {
            spokes.push(spoke.to_owned());
        }
    }
    Ok(spokes)
}

/// Refuses to scaffold a webhook type again without --force. A conversion webhook exists
/// when every named spoke has its conversion already; new spokes are simply added.
fn check_existing(
    args: &CreateWebhookArgs,
    had: &WebhookInfo,
    spokes: &[String],
) -> Result<(), Error> {
    if args.force {
        return Ok(());
    }
    let exists = |which, flag| Error::WebhookExists {
        group: args.group.clone(),
        version: args.version.clone(),
        kind: args.kind.clone(),
        which,
        flag,
    };
    if args.defaulting && had.defaulting {
        return Err(exists("defaulting", "--defaulting"));
    }
    if args.programmatic_validation && had.validation {
        return Err(exists("validating", "--programmatic-validation"));
    }
    if args.conversion && had.conversion && spokes.iter().all(|s| had.spoke.contains(s)) {
        return Err(exists("conversion", "--conversion"));
    }
    Ok(())
}

/// Every value the webhook templates use (strict rendering: each template finds all of its
/// names here).
#[derive(Debug, Clone, Serialize)]
struct Values {
    header: String,
    project_name: String,
    crate_name: String,
    domain: String,
    kind: String,
    kind_lower: String,
    kind_mod: String,
    api_group: String,
    api_version: String,
    plural: String,
    namespaced: bool,
    builtin: bool,
    /// `use` lines of the webhook file.
    imports: String,
    /// The webhook module under src/webhooks (`memcached_v1`).
    webhook_module: String,
    /// The type's path as tests name it.
    type_path: String,
    /// A JSON object of a built-in kind for the tests.
    example_object: String,
    sample_file: String,
    /// Whether `validate_update`'s signature is too long for one line (rustfmt wraps it).
    wrap_update: bool,
    /// The `use` lines at the top of a defaulting or validation test, sorted as rustfmt sorts.
    test_uses: String,
    /// Prefix of the test functions (`memcached_v1`).
    fn_prefix: String,
    /// The test file (`tests/memcached_webhook.rs`).
    test_file: String,
    // Conversion only.
    hub_version: String,
    hub_version_ident: String,
    hub_api_version: String,
    hub_module: String,
    spoke_version: String,
    spoke_api_version: String,
    spoke_module: String,
    spoke_sample: String,
    spec_to_hub: Mapping,
    spec_from_hub: Mapping,
    status_to_hub: Mapping,
    status_from_hub: Mapping,
}

impl Values {
    fn new(project: &ProjectFile, target: &Target, header: String) -> Self {
        let kind_snake = naming::snake_case(&target.kind);
        let kind_file = naming::file_stem(&kind_snake);
        let version_file = naming::file_stem(&target.version);
        let (webhook_module, test_stem) = if project.multigroup {
            let group_file = naming::file_stem(&target.group);
            (
                format!("{group_file}_{kind_file}_{version_file}"),
                format!("{group_file}_{kind_file}"),
            )
        } else {
            (format!("{kind_file}_{version_file}"), kind_file.clone())
        };
        let kind_lower = target.kind.to_ascii_lowercase();
        let empty = Mapping::default();
        Values {
            header,
            project_name: project.project_name.clone(),
            crate_name: naming::crate_name(&project.project_name),
            domain: project.domain.clone(),
            kind: target.kind.clone(),
            kind_mod: naming::module_ident(&kind_snake),
            api_group: target.api_group.clone(),
            api_version: target.api_version.clone(),
            plural: target.plural.clone(),
            namespaced: target.namespaced,
            builtin: target.builtin,
            imports: String::new(),
            wrap_update: format!(
                "    async fn validate_update(&self, old: &{k}, new: &{k}) -> Result<Warnings, Denied> {{",
                k = target.kind
            )
            .len()
                > 100,
            test_uses: {
                let crate_name = naming::crate_name(&project.project_name);
                let mut uses = [
                    format!(
                        "use {};",
                        target.test_type_path(&crate_name)
                    ),
                    format!(
                        "use {crate_name}::webhooks::{} as webhook;",
                        naming::module_ident(&webhook_module)
                    ),
                ];
                uses.sort();
                uses.iter().map(|u| format!("    {u}\n")).collect()
            },
            fn_prefix: format!("{kind_snake}_{version_file}"),
            webhook_module: naming::module_ident(&webhook_module),
            type_path: target.test_type_path(&naming::crate_name(&project.project_name)),
            example_object: kubernetes::example_object(
                &target.api_version,
                &target.kind,
                &format!("{kind_lower}-sample"),
            ),
            kind_lower,
            sample_file: target.sample_file.clone(),
            test_file: format!("tests/{test_stem}_webhook.rs"),
            hub_version: target.version.clone(),
            hub_version_ident: version_file,
            hub_api_version: target.api_version.clone(),
            hub_module: target.type_module.clone(),
            spoke_version: String::new(),
            spoke_api_version: String::new(),
            spoke_module: String::new(),
            spoke_sample: String::new(),
            spec_to_hub: empty.clone(),
            spec_from_hub: empty.clone(),
            status_to_hub: empty.clone(),
            status_from_hub: empty,
        }
    }

    fn webhook_file(&self) -> PathBuf {
        PathBuf::from(format!(
            "src/webhooks/{}.rs",
            self.webhook_module.trim_start_matches("r#")
        ))
    }
}

/// What every planning step needs.
struct Scaffold<'a> {
    project: &'a ProjectFile,
    target: &'a Target,
    values: &'a Values,
    renderer: &'a kubeforge_templates::Renderer,
    force: bool,
}

impl Scaffold<'_> {
    fn render(&self, name: &str, values: &Values) -> Result<String, Error> {
        Ok(self.renderer.render(name, values)?)
    }

    /// Plans src/webhooks/<module>.rs: the whole file when it is new (or with --force), else
    /// the sections of the new webhook types appended and their imports added, so the user's
    /// code in it stays as it is.
    fn webhook_file(&self, plan: &mut Plan, requested: Types, all: Types) -> Result<(), Error> {
        let path = self.values.webhook_file();
        let current = plan.current(&path)?;
        let sections = |types: Types| -> Result<String, Error> {
            let mut out = String::new();
            if types.defaulting {
                out.push_str(&self.render("webhook/defaulter.rs", self.values)?);
            }
            if types.validation {
                out.push_str(&self.render("webhook/validator.rs", self.values)?);
            }
            Ok(out)
        };
        match current {
            Some(text) if !self.force => {
                let mut text = merge_imports(&text, &webhook_imports(requested));
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&sections(requested)?);
                plan.create(&path, text, true)
            }
            _ => {
                let mut values = self.values.clone();
                values.imports = self.imports(all);
                let mut text = self.render("webhook/webhook.rs", &values)?;
                text.push_str(&sections(all)?);
                plan.create(&path, text, true)
            }
        }
    }

    /// The `use` lines of a new webhook file.
    fn imports(&self, types: Types) -> String {
        let webhook = format!(
            "use kubeforge::webhook::{{{}}};",
            webhook_imports(types).join(", ")
        );
        if self.target.builtin {
            format!("use {};\n{webhook}", self.target.type_path)
        } else {
            format!("{webhook}\n\nuse {};", self.target.type_path)
        }
    }

    /// Plans the conversion of `spoke` to and from the hub: the conversion file beside the
    /// spoke's type, its module, and `storage = false` on the spoke's type.
    fn conversion(&self, plan: &mut Plan, spoke: &str) -> Result<(), Error> {
        let hub_file = self.target.type_file.clone().unwrap_or_default();
        let spoke_resource = self
            .project
            .find(&self.target.group, spoke, &self.target.kind)
            .ok_or_else(|| Error::Internal(format!("spoke {spoke} vanished from PROJECT")))?;
        let spoke_target = Target::own(self.project, spoke_resource, self.target.namespaced);
        let spoke_file = spoke_target.type_file.clone().unwrap_or_default();
        let spoke_dir = spoke_target.api_dir.clone().unwrap_or_default();
        let hub_source = read_type(plan, &hub_file)?;
        let spoke_source = read_type(plan, &spoke_file)?;
        let kind = &self.target.kind;
        let fields_of = |source: &str, path: &Path, name: String| {
            fields::struct_fields(source, &name).ok_or_else(|| Error::TypeNotFound {
                path: path.to_owned(),
                name,
            })
        };
        let hub_spec = fields_of(&hub_source, &hub_file, format!("{kind}Spec"))?;
        let spoke_spec = fields_of(&spoke_source, &spoke_file, format!("{kind}Spec"))?;
        let hub_status = fields_of(&hub_source, &hub_file, format!("{kind}Status"))?;
        let spoke_status = fields_of(&spoke_source, &spoke_file, format!("{kind}Status"))?;

        let mut values = self.values.clone();
        values.spoke_version = spoke.to_owned();
        values.spoke_api_version = spoke_target.api_version.clone();
        values.spoke_module = spoke_target.type_module.clone();
        values.hub_module = format!("crate::{}", self.target.type_module);
        values.fn_prefix = format!("{}_{}", naming::snake_case(kind), naming::file_stem(spoke));
        let hub = values.hub_version.clone();
        let spec = (format!("hub::{kind}Spec"), format!("{kind}Spec"));
        let status = (format!("hub::{kind}Status"), format!("{kind}Status"));
        values.spec_to_hub =
            fields::mapping("spec", &spec.0, (&spoke_spec, spoke), (&hub_spec, &hub));
        values.spec_from_hub =
            fields::mapping("spec", &spec.1, (&hub_spec, &hub), (&spoke_spec, spoke));
        values.status_to_hub = fields::mapping(
            "status",
            &status.0,
            (&spoke_status, spoke),
            (&hub_status, &hub),
        );
        values.status_from_hub = fields::mapping(
            "status",
            &status.1,
            (&hub_status, &hub),
            (&spoke_status, spoke),
        );
        let conversion_mod = format!("{}_conversion", naming::snake_case(kind));
        let path = spoke_dir.join(format!("{}.rs", naming::file_stem(&conversion_mod)));
        plan.create(
            &path,
            self.render("webhook/conversion.rs", &values)?,
            self.force,
        )?;
        plan.insert(
            spoke_dir.join("mod.rs"),
            Marker("modules"),
            &[format!("mod {};", naming::module_ident(&conversion_mod))],
        )?;
        plan.edit(&spoke_file, "#[kube(", |text| {
            Ok(mark_not_storage(text, kind).unwrap_or_else(|| text.to_owned()))
        })?;
        Ok(())
    }

    /// Plans the test file of the kind: new (or with --force) with every test, else the tests
    /// of what this command adds appended.
    fn test_file(
        &self,
        plan: &mut Plan,
        requested: Types,
        all: Types,
        spokes: &[String],
    ) -> Result<(), Error> {
        let path = PathBuf::from(&self.values.test_file);
        let current = plan.current(&path)?;
        let (mut text, types, spokes) = match current {
            Some(text) if !self.force => (text, requested, spokes.to_vec()),
            _ => {
                let mut all_spokes = spokes.to_vec();
                if self.force {
                    // Every spoke of the kind keeps its test when the file is written anew.
                    let had = self
                        .project
                        .find(&self.target.group, &self.target.version, &self.target.kind)
                        .and_then(|r| r.webhooks.as_ref())
                        .map(|w| w.spoke.clone())
                        .unwrap_or_default();
                    for s in had {
                        if !all_spokes.contains(&s) {
                            all_spokes.push(s);
                        }
                    }
                }
                (
                    self.render("webhook/test.rs", self.values)?,
                    all,
                    all_spokes,
                )
            }
        };
        if types.defaulting {
            text.push_str(&self.render("webhook/test_defaulting.rs", self.values)?);
        }
        if types.validation {
            text.push_str(&self.render("webhook/test_validation.rs", self.values)?);
        }
        for spoke in &spokes {
            let resource = self
                .project
                .find(&self.target.group, spoke, &self.target.kind)
                .ok_or_else(|| Error::Internal(format!("spoke {spoke} vanished from PROJECT")))?;
            let spoke_target = Target::own(self.project, resource, self.target.namespaced);
            let mut values = self.values.clone();
            values.spoke_version = spoke.clone();
            values.spoke_api_version = spoke_target.api_version.clone();
            values.spoke_module = spoke_target.type_module.clone();
            values.fn_prefix = format!(
                "{}_{}",
                naming::snake_case(&self.target.kind),
                naming::file_stem(spoke)
            );
            let sample = PathBuf::from("config/samples").join(&spoke_target.sample_file);
            if plan.current(&sample)?.is_some() {
                values.spoke_sample = spoke_target.sample_file.clone();
            }
            text.push_str(&self.render("webhook/test_conversion.rs", &values)?);
        }
        plan.create(&path, text, true)
    }

    /// Plans src/webhooks/mod.rs (created on first use), the webhook module and the
    /// registrations of what this command adds.
    fn registration(
        &self,
        plan: &mut Plan,
        requested: Types,
        conversion: bool,
    ) -> Result<(), Error> {
        plan.ensure("src/webhooks/mod.rs", || {
            self.render("webhook/mod.rs", self.values)
        })?;
        let module = &self.values.webhook_module;
        let ty = &self.target.type_path;
        let kind = &self.target.kind;
        if requested.any() {
            plan.insert(
                "src/webhooks/mod.rs",
                Marker("webhook-modules"),
                &[format!("pub mod {module};")],
            )?;
        }
        let mut calls = Vec::new();
        if requested.defaulting {
            calls.push(("defaulter", format!("{module}::{kind}Defaulter")));
        }
        if requested.validation {
            calls.push(("validator", format!("{module}::{kind}Validator")));
        }
        if conversion {
            calls.push(("conversion", String::new()));
        }
        for (method, argument) in calls {
            plan.insert_block(
                "src/webhooks/mod.rs",
                Marker("webhooks"),
                &chained_call(method, ty, &argument),
            )?;
        }
        Ok(())
    }

    /// Plans `pub mod webhooks;`, the server in main.rs and `--webhook-local` for `make run`.
    /// Returns whether the Makefile got the flag (its marker may predate webhooks).
    fn project_wiring(&self, plan: &mut Plan) -> Result<bool, Error> {
        plan.insert(
            "src/lib.rs",
            Marker("modules"),
            &["pub mod webhooks;".into()],
        )?;
        let crate_name = &self.values.crate_name;
        plan.insert(
            "src/main.rs",
            Marker("webhook-builder"),
            &[format!(
                "let webhooks = {crate_name}::webhooks::register(webhooks);"
            )],
        )?;
        plan.insert(
            "src/main.rs",
            Marker("webhook-server"),
            &[
                "kubeforge::webhook::add_to_manager(&mut manager, webhooks, &cli.manager).await?;"
                    .into(),
            ],
        )?;
        let marker = Marker("run-flags").line_for(Path::new("Makefile"));
        let has_marker = plan
            .current(Path::new("Makefile"))?
            .is_some_and(|text| text.lines().any(|l| l.trim() == marker));
        if has_marker {
            plan.insert(
                "Makefile",
                Marker("run-flags"),
                &["RUN_FLAGS += --webhook-local".into()],
            )?;
        }
        Ok(has_marker)
    }

    /// Plans, for a webhook on a built-in kind, a patch per requested type that gives the
    /// webhook a namespaceSelector leaving out the operator's namespace and kube-system, listed
    /// in config/webhook/kustomization.yaml. Returns the patch files with the namespace left
    /// out.
    fn scope_patches(
        &self,
        plan: &mut Plan,
        requested: Types,
    ) -> Result<Vec<(PathBuf, String)>, Error> {
        let namespace = plan
            .current(Path::new("config/default/kustomization.yaml"))?
            .and_then(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("namespace:").map(|n| n.trim().to_owned()))
            })
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| format!("{}-system", self.values.project_name));
        let mut written = Vec::new();
        for (wanted, prefix, configuration_kind, configuration_name, suffix) in [
            (
                requested.defaulting,
                'm',
                "MutatingWebhookConfiguration",
                "mutating-webhook-configuration",
                "mutating",
            ),
            (
                requested.validation,
                'v',
                "ValidatingWebhookConfiguration",
                "validating-webhook-configuration",
                "validating",
            ),
        ] {
            if !wanted {
                continue;
            }
            let values = ScopeValues {
                webhook_name: webhook_name(prefix, self.target),
                configuration_kind,
                configuration_name,
                namespace: namespace.clone(),
                kind: &self.target.kind,
                plural: &self.target.plural,
                domain: &self.values.domain,
            };
            let file = format!(
                "{}_{}_{suffix}_scope.yaml",
                self.values.kind_lower,
                naming::file_stem(&self.target.version)
            );
            let path = PathBuf::from("config/webhook").join(&file);
            let contents = self
                .renderer
                .render("webhook/config/scope_patch.yaml", &values)?;
            if self.force {
                plan.create(&path, contents, true)?;
            } else {
                plan.ensure(&path, || Ok(contents))?;
            }
            plan.edit("config/webhook/kustomization.yaml", "resources:", |text| {
                Ok(kustomize::ensure_entry(
                    text,
                    "patches:",
                    &format!("- path: {file}"),
                    "# Narrow the webhooks on built-in kinds to the objects they are for.\n",
                ))
            })?;
            written.push((path, namespace.clone()));
        }
        Ok(written)
    }

    /// Plans config/webhook, config/certmanager, the manager patch, the default
    /// kustomization's webhook entries and CA injection, and the CRD conversion patch.
    fn kustomize(&self, plan: &mut Plan, all: Types, conversion: bool) -> Result<(), Error> {
        let v = self.values;
        for (file, template) in [
            (
                "config/webhook/kustomization.yaml",
                "webhook/config/webhook_kustomization.yaml",
            ),
            ("config/webhook/service.yaml", "webhook/config/service.yaml"),
            (
                "config/webhook/kustomizeconfig.yaml",
                "webhook/config/webhook_kustomizeconfig.yaml",
            ),
            (
                "config/certmanager/kustomization.yaml",
                "webhook/config/certmanager_kustomization.yaml",
            ),
            (
                "config/certmanager/kustomizeconfig.yaml",
                "webhook/config/certmanager_kustomizeconfig.yaml",
            ),
            (
                "config/certmanager/issuer.yaml",
                "webhook/config/issuer.yaml",
            ),
            (
                "config/certmanager/certificate.yaml",
                "webhook/config/certificate.yaml",
            ),
            (
                "config/default/manager_webhook_patch.yaml",
                "webhook/config/manager_webhook_patch.yaml",
            ),
        ] {
            plan.ensure(file, || self.render(template, v))?;
        }

        let default = "config/default/kustomization.yaml";
        let replacements = self.render("webhook/config/default_replacements.yaml", v)?;
        plan.edit(default, "resources:", |text| {
            let missing = |what: &str| Error::MarkerMissing {
                path: PathBuf::from(default),
                marker: what.to_owned(),
            };
            let text = kustomize::switch_on(text, "resources:", "- ../webhook")
                .ok_or_else(|| missing("resources:"))?;
            let text = kustomize::switch_on(&text, "resources:", "- ../certmanager")
                .ok_or_else(|| missing("resources:"))?;
            let mut text = kustomize::ensure_entry(
                &text,
                "patches:",
                "- path: manager_webhook_patch.yaml",
                "",
            );
            let marker = Marker("cainjection-namespace").line_for(Path::new(default));
            if !text.lines().any(|l| l.trim() == marker) {
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&replacements);
            }
            Ok(text)
        })?;
        let mut targets: Vec<(String, Option<String>)> = Vec::new();
        if all.defaulting {
            targets.push(("MutatingWebhookConfiguration".into(), None));
        }
        if all.validation {
            targets.push(("ValidatingWebhookConfiguration".into(), None));
        }
        if conversion {
            targets.push((
                "CustomResourceDefinition".into(),
                Some(format!("{}.{}", v.plural, v.api_group)),
            ));
        }
        for (index, marker) in [(0, "cainjection-namespace"), (1, "cainjection-name")] {
            for (kind, name) in &targets {
                plan.insert_block(
                    default,
                    Marker(marker),
                    &injection_target(kind, name.as_deref(), index),
                )?;
            }
        }

        if conversion {
            let patch = format!("patches/webhook_in_{}.yaml", v.plural);
            let path = PathBuf::from("config/crd").join(&patch);
            let contents = self.render("webhook/config/crd_conversion_patch.yaml", v)?;
            if self.force {
                plan.create(&path, contents, true)?;
            } else {
                plan.ensure(&path, || Ok(contents))?;
            }
            plan.ensure("config/crd/kustomizeconfig.yaml", || {
                self.render("webhook/config/crd_kustomizeconfig.yaml", v)
            })?;
            plan.edit("config/crd/kustomization.yaml", "resources:", |text| {
                let text = kustomize::ensure_entry(
                    text,
                    "patches:",
                    &format!("- path: {patch}"),
                    "# Patches of the CRDs in bases/: `kubeforge create webhook --conversion` adds the\n# conversion webhook of each kind.\n",
                );
                Ok(kustomize::ensure_entry(
                    &text,
                    "configurations:",
                    "- kustomizeconfig.yaml",
                    "# Where CRDs name the webhook Service, so namePrefix and namespace reach it.\n",
                ))
            })?;
        }
        Ok(())
    }
}

/// `.method::<ty>(argument)` as a line of the builder chain in `register` (the marker stands 4
/// spaces deep, the chain 8), wrapped as rustfmt wraps a call that does not fit in 100 columns.
fn chained_call(method: &str, ty: &str, argument: &str) -> Vec<String> {
    let line = format!("    .{method}::<{ty}>({argument})");
    if line.len() + 4 <= 100 || argument.is_empty() {
        vec![line]
    } else {
        vec![
            format!("    .{method}::<{ty}>("),
            format!("        {argument},"),
            "    )".to_owned(),
        ]
    }
}

/// The values of a scope patch.
#[derive(Serialize)]
struct ScopeValues<'a> {
    webhook_name: String,
    configuration_kind: &'static str,
    configuration_name: &'static str,
    namespace: String,
    kind: &'a str,
    plural: &'a str,
    domain: &'a str,
}

/// The name the runtime gives a webhook in its configuration (kubebuilder's style):
/// `m<kind>-<version>.<group>`, with `kb.io` for the core group and after a group without a
/// dot (`mpod-v1.kb.io`, `mdeployment-v1.apps.kb.io`).
fn webhook_name(prefix: char, target: &Target) -> String {
    let domain = match target.api_group.as_str() {
        "" => "kb.io".to_owned(),
        g if g.contains('.') => g.to_owned(),
        g => format!("{g}.kb.io"),
    };
    format!(
        "{prefix}{}-{}.{domain}",
        target.kind.to_lowercase(),
        target.version
    )
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

/// Adds `names` to the file's `use kubeforge::webhook::{...};` line (sorted as rustfmt sorts
/// them), or adds such a line after the last top-level `use` when the file has none.
fn merge_imports(text: &str, names: &[String]) -> String {
    const PREFIX: &str = "use kubeforge::webhook::{";
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    if let Some(line) = lines
        .iter_mut()
        .find(|l| l.starts_with(PREFIX) && l.trim_end().ends_with("};"))
    {
        let inner = &line.trim_end()[PREFIX.len()..line.trim_end().len() - 2];
        let mut all: Vec<String> = inner
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        for name in names {
            if !all.contains(name) {
                all.push(name.clone());
            }
        }
        all.sort();
        *line = format!("{PREFIX}{}}};\n", all.join(", "));
        return lines.concat();
    }
    let new = format!("use kubeforge::webhook::{{{}}};\n", names.join(", "));
    let at = lines
        .iter()
        .rposition(|l| l.starts_with("use "))
        .map_or_else(
            || lines.iter().take_while(|l| l.starts_with("//")).count(),
            |i| i + 1,
        );
    lines.insert(at, new);
    lines.concat()
}

/// Adds `storage = false,` to the `#[kube(...)]` attribute of `kind` (after its `kind = ".."`
/// line), unless the attribute says something about storage already. `None` when the line is
/// not found (the type was restructured; manifests then name the problem).
fn mark_not_storage(text: &str, kind: &str) -> Option<String> {
    let kind_line = format!("kind = \"{kind}\",");
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    let at = lines.iter().position(|l| l.trim() == kind_line)?;
    let attribute_end = lines[at..].iter().position(|l| l.trim() == ")]")? + at;
    if lines[..attribute_end]
        .iter()
        .any(|l| l.trim().starts_with("storage"))
    {
        return Some(text.to_owned());
    }
    let indent: String = lines[at].chars().take_while(|c| *c == ' ').collect();
    lines.insert(
        at + 1,
        format!("{indent}// The hub version of the conversion webhook is the storage version.\n{indent}storage = false,\n"),
    );
    Some(lines.concat())
}

/// One target of the cert-manager CA-injection replacements (`index` 0: the Certificate's
/// namespace, 1: its name).
fn injection_target(kind: &str, name: Option<&str>, index: u8) -> Vec<String> {
    let mut block = vec!["- select:".to_owned(), format!("    kind: {kind}")];
    if let Some(name) = name {
        block.push(format!("    name: {name}"));
    }
    block.extend([
        "  fieldPaths:".to_owned(),
        "  - .metadata.annotations.[cert-manager.io/inject-ca-from]".to_owned(),
        "  options:".to_owned(),
        "    delimiter: '/'".to_owned(),
        format!("    index: {index}"),
        "    create: true".to_owned(),
    ]);
    block
}

/// Reads a type file the conversion maps.
fn read_type(plan: &Plan, path: &Path) -> Result<String, Error> {
    plan.current(path)?.ok_or_else(|| Error::Read {
        path: plan.root().join(path),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the API's type file is missing (restore it, or run `kubeforge create api` for it again with --force)",
        ),
    })
}

/// The warning for webhooks on built-in kinds: they see the operator's own objects too.
fn bootstrap_warning(target: &Target, scope_patches: &[(PathBuf, String)]) -> String {
    let kind = &target.kind;
    let plural = &target.plural;
    let mut text = format!(
        "warning: a webhook on {kind} ({}) is called for every {kind} of the cluster, the operator's own included. \
With failurePolicy Fail, while the operator is down the API server refuses those writes, so the operator's own {plural} \
(and those of the cluster's system components) might not come back up.",
        target.api_version
    );
    for (path, namespace) in scope_patches {
        text.push_str(&format!(
            "\n  {} gives it a namespaceSelector that leaves out {namespace} (the operator's namespace) and kube-system.",
            path.display()
        ));
    }
    text.push_str(&format!(
        "\n  fix: scope the webhook to the {plural} it is for: keep a namespaceSelector (matchExpressions on the label \
kubernetes.io/metadata.name, operator NotIn, the operator's namespace and kube-system) in the scope patch under \
config/webhook, and add an objectSelector on a label only those {plural} carry, e.g. \
objectSelector: {{matchLabels: {{example.com/webhook: enabled}}}}."
    ));
    text
}

/// What to do next, numbered.
fn print_next_steps(values: &Values, requested: Types, spokes: &[String]) {
    let mut steps = Vec::new();
    if requested.any() {
        steps.push(format!(
            "Write the rules of {} in {}.",
            values.kind,
            values.webhook_file().display()
        ));
    }
    for spoke in spokes {
        steps.push(format!(
            "Check the field mapping of {} {spoke} <-> {} in its {}_conversion.rs.",
            values.kind,
            values.hub_version,
            naming::snake_case(&values.kind)
        ));
    }
    steps.push(
        "make manifests   # writes config/webhook/manifests.yaml (and the CRD conversion)".into(),
    );
    steps.push(format!(
        "make test        # {} runs the webhooks against the embedded API server",
        values.test_file
    ));
    steps.push("make run         # serves the webhooks locally (--webhook-local); deploying needs cert-manager in the cluster".into());
    println!("\nNext steps:");
    for (number, step) in steps.iter().enumerate() {
        println!("  {}. {step}", number + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_merge_sorted_and_once() {
        let text =
            "//! Doc\n\nuse kubeforge::webhook::{Defaulter, Denied};\n\nuse crate::api::v1::M;\n";
        let names = webhook_imports(Types {
            defaulting: false,
            validation: true,
        });
        let merged = merge_imports(text, &names);
        assert!(
            merged.contains("use kubeforge::webhook::{Defaulter, Denied, Validator, Warnings};\n"),
            "{merged}"
        );
        assert_eq!(merge_imports(&merged, &names), merged);
        let without = merge_imports("//! Doc\nuse a::b;\nfn x() {}\n", &names);
        assert_eq!(
            without,
            "//! Doc\nuse a::b;\nuse kubeforge::webhook::{Denied, Validator, Warnings};\nfn x() {}\n"
        );
    }

    #[test]
    fn spokes_are_marked_as_not_stored_once() {
        let text = "#[kube(\n    group = \"g\",\n    kind = \"M\",\n    plural = \"ms\",\n)]\npub struct MSpec {}\n";
        let once = mark_not_storage(text, "M").unwrap();
        assert!(once.contains("    kind = \"M\",\n    // The hub"), "{once}");
        assert!(once.contains("    storage = false,\n    plural"), "{once}");
        assert_eq!(mark_not_storage(&once, "M").unwrap(), once);
        assert_eq!(mark_not_storage(text, "Other"), None);
    }
}
