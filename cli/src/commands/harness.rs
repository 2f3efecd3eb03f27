//! Runs the scaffolding commands' stages on an in-memory project, as the binary runs them on
//! disk (no process, no file system), and checks every plan's marker insertions on the way.

use std::path::PathBuf;

use clap::Parser;
use kubeforge_templates::Renderer;

use super::{
    WRITING, create_api, create_external, create_webhook, init, load_project, update_external,
};
use crate::cli::{Cli, Command, CreateCommand, UpdateCommand};
use crate::error::Error;
use crate::external::CrdSource;
use crate::scaffold::{Anchor, Changeset, MemoryTree, Plan, Template, Tree};
use crate::source::Source;

/// What one command did.
#[derive(Debug)]
pub struct Ran {
    /// The files it changed.
    pub changes: Changeset,
    /// What it printed to stdout.
    pub stdout: String,
    /// What it printed to stderr.
    pub stderr: String,
}

/// A project in memory.
pub struct Harness {
    /// Its files.
    pub tree: MemoryTree,
    renderer: Renderer,
    /// Every marker insertion of every command so far: (command, file, marker line).
    pub insertions: Vec<(String, PathBuf, String)>,
}

impl Harness {
    /// An empty directory.
    pub fn empty() -> Self {
        Self {
            tree: MemoryTree::new(),
            renderer: Renderer::new().unwrap(),
            insertions: Vec::new(),
        }
    }

    /// A project made by `kubeforge init --domain example.com --project-name demo <extra>`.
    pub fn init(extra: &str) -> Self {
        let mut harness = Self::empty();
        harness
            .run(&format!(
                "init --domain example.com --project-name demo {extra}"
            ))
            .unwrap();
        harness
    }

    /// Runs `kubeforge <command_line>` (split on spaces) on the tree; the tree changes only
    /// when the command succeeds.
    pub fn run(&mut self, command_line: &str) -> Result<Ran, Error> {
        let argv = std::iter::once("kubeforge").chain(command_line.split_whitespace());
        let cli = Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{command_line}: {e}"));
        let ran = match cli.command {
            Command::Init(args) => {
                let request = init::request::validate(args, self.tree.root(), &self.tree)?;
                let environment = init::request::Environment {
                    cwd: self.tree.root().to_owned(),
                    source: Source::CratesIo,
                    year: 2026,
                    cli_version: crate::template_set::CURRENT_VERSION.into(),
                };
                let plan = init::plan::plan(&request, &environment, &self.tree, &self.renderer)?;
                let (changes, insertions) = finish(plan);
                let stdout = init::report::report(&request, &environment, &changes.summary());
                (changes, insertions, stdout, String::new())
            }
            Command::Create(CreateCommand::Api(args)) if args.external => {
                let project = load_project(&self.tree)?;
                let crd = args.crd.clone().unwrap_or_default();
                let text = self.crd_text(&crd);
                let origin = create_external::request::Origin {
                    recorded: crd.clone(),
                    described: crd,
                };
                let request = create_external::request::validate(&args, &project, &origin, &text)?;
                let plan =
                    create_external::plan::plan(&project, &request, &self.tree, &self.renderer)?;
                let (changes, insertions) = finish(plan);
                let report =
                    create_external::report::report(&request, &project, &changes.summary());
                (changes, insertions, report.stdout, report.stderr)
            }
            Command::Update(UpdateCommand::External(args)) => {
                let project = load_project(&self.tree)?;
                let root = self.tree.root().to_owned();
                let sources = update_external::request::sources(&project, &args, &root, &root)?;
                let fetched: Vec<_> = sources
                    .into_iter()
                    .map(|fetch| {
                        let text = match &fetch.source {
                            CrdSource::File(path) => self.crd_text(
                                &path.strip_prefix(&root).unwrap_or(path).to_string_lossy(),
                            ),
                            other => panic!("the harness reads files only, not {other:?}"),
                        };
                        (fetch, text)
                    })
                    .collect();
                let request = update_external::request::validate(&args, &project, &fetched)?;
                let plan =
                    update_external::plan::plan(&project, &request, &self.tree, &self.renderer)?;
                let (changes, insertions) = finish(plan);
                let diff = update_external::diff::diff(&self.tree, &changes)?;
                let stderr = update_external::report::warnings(&request);
                if args.dry_run {
                    let stdout = format!(
                        "{}{}",
                        diff.text,
                        update_external::report::dry_run(&request, &diff)
                    );
                    (Changeset::default(), insertions, stdout, stderr)
                } else {
                    let stdout = format!(
                        "{}{}",
                        diff.text,
                        update_external::report::report(&request, &diff, &changes.summary())
                    );
                    (changes, insertions, stdout, stderr)
                }
            }
            Command::Create(CreateCommand::Api(args)) => {
                let project = load_project(&self.tree)?;
                let request = create_api::request::validate(&args, &project)?;
                let stderr: String = request
                    .warnings
                    .iter()
                    .map(|w| format!("warning: {w}\n"))
                    .collect();
                let plan = create_api::plan::plan(&project, &request, &self.tree, &self.renderer)?;
                let (changes, insertions) = finish(plan);
                let stdout = create_api::report::report(&request, &project, &changes.summary());
                (changes, insertions, stdout, stderr)
            }
            Command::Create(CreateCommand::Webhook(args)) => {
                let project = load_project(&self.tree)?;
                let request = create_webhook::request::validate(&args, &project)?;
                let (plan, outcome) =
                    create_webhook::plan::plan(&project, &request, &self.tree, &self.renderer)?;
                let (changes, insertions) = finish(plan);
                let report = create_webhook::report::report(
                    &request,
                    &project,
                    &outcome,
                    &changes.summary(),
                );
                (changes, insertions, report.stdout, report.stderr)
            }
            other => panic!("not a scaffolding command: {other:?}"),
        };
        let (changes, insertions, stdout, stderr) = ran;
        for (path, marker) in insertions {
            self.insertions
                .push((command_line.to_owned(), path, marker));
        }
        self.tree.apply(&changes);
        Ok(Ran {
            changes,
            stdout: format!("{WRITING}\n{stdout}"),
            stderr,
        })
    }

    /// A CRD's text: a file of the tree, else of the disk (the vendored fixtures).
    pub fn crd_text(&self, path: &str) -> String {
        match self.tree.get(path) {
            Some(text) => text.to_owned(),
            None => std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}")),
        }
    }

    /// The contents of a file (panics when it is missing).
    pub fn read(&self, rel: &str) -> &str {
        self.tree
            .get(rel)
            .unwrap_or_else(|| panic!("{rel} is missing"))
    }

    /// Whether the project has the file.
    pub fn has(&self, rel: &str) -> bool {
        self.tree.get(rel).is_some()
    }
}

/// Finishes a plan after checking its insertions: every marker it inserted at is defined by a
/// template that wrote the file (before or in this plan), and that template's text holds the
/// marker line. Returns the changes and the insertions.
fn finish(plan: Plan<'_>) -> (Changeset, Vec<(PathBuf, String)>) {
    let mut insertions = Vec::new();
    for anchor in plan.insertions() {
        check_anchor(anchor, &plan.templates(&anchor.path));
        insertions.push((anchor.path.clone(), anchor.marker.line()));
    }
    (plan.finish(), insertions)
}

/// Checks an insertion at `anchor` in a file written from `written_by`: the marker is defined
/// by one of those templates, and that template's text holds the marker line.
///
/// # Panics
/// When either does not hold.
pub fn check_anchor(anchor: &Anchor, written_by: &[&'static Template]) {
    let marker = anchor.marker;
    assert!(
        written_by.contains(&marker.template()),
        "{} is inserted at {} in {}, which was written from {:?}, not from {}",
        marker.name(),
        marker.line(),
        anchor.path.display(),
        written_by.iter().map(|t| t.name).collect::<Vec<_>>(),
        marker.template().name
    );
    let source = marker.template().source().expect("an embedded template");
    assert!(
        source.lines().any(|l| l.trim() == marker.line()),
        "{} lacks {}",
        marker.template().name,
        marker.line()
    );
}
