//! PROJECT's commands, run again: `init`, every `create api` (own, built-in and external
//! kinds) in PROJECT's order, then every `create webhook`, each through its stages on an
//! in-memory tree, as the commands would run on disk. [`steps`] gives the command lines (an
//! older kubeforge binary can run them too, see `alpha update --from-binary`); [`replay`] runs
//! them with a renderer, which decides which kubeforge version's templates are used.

use std::path::{Path, PathBuf};

use clap::Parser;
use kubeforge_templates::Renderer;

use super::super::{create_api, create_external, create_webhook, init, load_project};
use super::inputs::{ReplayInputs, external_layout};
use crate::alpha_error::AlphaError;
use crate::cli::{Cli, Command, CreateCommand};
use crate::error::Error;
use crate::project::ProjectFile;
use crate::scaffold::{MemoryTree, Tree};

/// One command of the replay: its arguments (after `kubeforge`), and for an external kind the
/// CRD copy its `--crd` names (relative to the project).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The arguments.
    pub args: Vec<String>,
    /// The CRD file `--crd` reads (`config/crd/external/...`), for `create api --external`.
    pub crd: Option<PathBuf>,
    /// The source PROJECT records for an external kind (kept through the replay).
    pub module: Option<String>,
}

impl Step {
    fn new(args: &[&str]) -> Self {
        Self {
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            crd: None,
            module: None,
        }
    }

    /// `kubeforge <args>`, for messages.
    pub fn command_line(&self) -> String {
        self.args.join(" ")
    }
}

/// The commands that scaffold `project` again.
pub fn steps(project: &ProjectFile, inputs: &ReplayInputs) -> Vec<Step> {
    let mut init = Step::new(&[
        "init",
        "--domain",
        &project.domain,
        "--project-name",
        &project.project_name,
        "--license",
        if inputs.apache2 { "apache2" } else { "none" },
        "--k8s-version",
        &inputs.k8s_version,
    ]);
    if let Some(owner) = &inputs.owner {
        init.args.extend(["--owner".to_owned(), owner.clone()]);
    }
    if project.multigroup {
        init.args.push("--multigroup".into());
    }
    if project.namespaced {
        init.args.push("--namespaced".into());
    }
    if let Some(approved) = &project.api_approved {
        init.args
            .extend(["--api-approved".to_owned(), approved.clone()]);
    }
    let mut steps = vec![init];
    for resource in &project.resources {
        let gvk = [
            "--group",
            resource.group.as_str(),
            "--version",
            resource.version.as_str(),
            "--kind",
            resource.kind.as_str(),
        ];
        if resource.external {
            let layout = external_layout(project, resource);
            let crd = layout.crd_file.to_string_lossy().replace('\\', "/");
            let mut step = Step::new(&["create", "api", "--external", "--crd", &crd]);
            step.args.extend(
                [
                    "--group",
                    &layout.group,
                    "--version",
                    &resource.version,
                    "--kind",
                    &resource.kind,
                ]
                .map(str::to_owned),
            );
            if !resource.controller {
                step.args.push("--controller=false".into());
            }
            step.crd = Some(layout.crd_file);
            step.module = resource.module.clone();
            steps.push(step);
        } else if let Some(api) = &resource.api {
            let mut step = Step::new(&["create", "api"]);
            step.args.extend(gvk.map(str::to_owned));
            if let Some(plural) = &resource.plural {
                step.args.extend(["--plural".to_owned(), plural.clone()]);
            }
            if !api.namespaced {
                step.args.push("--namespaced=false".into());
            }
            if !resource.controller {
                step.args.push("--controller=false".into());
            }
            let key = (
                resource.group.clone(),
                resource.version.clone(),
                resource.kind.clone(),
            );
            if inputs.world_controllers.contains(&key) {
                step.args
                    .extend(["--reconcile".to_owned(), "state-of-world".to_owned()]);
            }
            steps.push(step);
        } else if resource.controller {
            let mut step = Step::new(&["create", "api"]);
            step.args.extend(gvk.map(str::to_owned));
            step.args.push("--resource=false".into());
            steps.push(step);
        }
    }
    for resource in &project.resources {
        let Some(webhooks) = &resource.webhooks else {
            continue;
        };
        let mut step = Step::new(&[
            "create",
            "webhook",
            "--group",
            &resource.group,
            "--version",
            &resource.version,
            "--kind",
            &resource.kind,
        ]);
        if webhooks.defaulting {
            step.args.push("--defaulting".into());
        }
        if webhooks.validation {
            step.args.push("--programmatic-validation".into());
        }
        if webhooks.conversion {
            step.args.push("--conversion".into());
            if !webhooks.spoke.is_empty() {
                step.args
                    .extend(["--spoke".to_owned(), webhooks.spoke.join(",")]);
            }
        }
        steps.push(step);
    }
    steps
}

/// A project scaffolded again in memory.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// Its files (each remembering the templates it was written from).
    pub tree: MemoryTree,
    /// The commands run, as command lines.
    pub commands: Vec<String>,
}

/// Runs `steps` on an empty in-memory tree with `renderer`; `init` records `cli_version`.
pub fn replay(
    steps: &[Step],
    inputs: &ReplayInputs,
    renderer: &Renderer,
    cli_version: &str,
) -> Result<Replayed, Error> {
    let mut tree = MemoryTree::new();
    let mut commands = Vec::new();
    for step in steps {
        run_step(&mut tree, step, inputs, renderer, cli_version).map_err(|e| {
            AlphaError::Replay {
                command: step.command_line(),
                source: Box::new(e),
            }
        })?;
        commands.push(step.command_line());
    }
    Ok(Replayed { tree, commands })
}

fn run_step(
    tree: &mut MemoryTree,
    step: &Step,
    inputs: &ReplayInputs,
    renderer: &Renderer,
    cli_version: &str,
) -> Result<(), Error> {
    let argv = std::iter::once("kubeforge").chain(step.args.iter().map(String::as_str));
    let cli = Cli::try_parse_from(argv).map_err(|e| Error::Internal(e.to_string()))?;
    let changes = match cli.command {
        Command::Init(args) => {
            let root = tree.root().to_owned();
            let request = init::request::validate(args, &root, tree)?;
            let environment = init::request::Environment {
                cwd: root,
                source: inputs.source.clone(),
                year: inputs.year,
                cli_version: cli_version.to_owned(),
            };
            init::plan::plan(&request, &environment, tree, renderer)?.finish()
        }
        Command::Create(CreateCommand::Api(args)) if args.external => {
            let project = load_project(tree)?;
            let crd = step.crd.as_deref().unwrap_or(Path::new(""));
            let text = inputs.crds.get(crd).ok_or_else(|| {
                Error::Internal(format!(
                    "the CRD copy {} is missing: restore it (git), or run `kubeforge update external` to read the CRD again",
                    crd.display()
                ))
            })?;
            let origin = create_external::request::Origin {
                recorded: step
                    .module
                    .clone()
                    .unwrap_or_else(|| crd.display().to_string()),
                described: crd.display().to_string(),
            };
            let request = create_external::request::validate(&args, &project, &origin, text)?;
            create_external::plan::plan(&project, &request, tree, renderer)?.finish()
        }
        Command::Create(CreateCommand::Api(args)) => {
            let project = load_project(tree)?;
            let request = create_api::request::validate(&args, &project)?;
            create_api::plan::plan(&project, &request, tree, renderer)?.finish()
        }
        Command::Create(CreateCommand::Webhook(args)) => {
            let project = load_project(tree)?;
            let request = create_webhook::request::validate(&args, &project)?;
            create_webhook::plan::plan(&project, &request, tree, renderer)?
                .0
                .finish()
        }
        other => {
            return Err(Error::Internal(format!(
                "not a scaffolding command: {other:?}"
            )));
        }
    };
    tree.apply(&changes);
    Ok(())
}
