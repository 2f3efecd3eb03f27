//! kubeforge-cli: the `kubeforge` command, kubebuilder for Rust.
//!
//! Layers, top to bottom (a module imports only its own layer or lower ones, and no two files
//! import each other):
//!
//! 1. [`run`] — dispatches a parsed command line.
//! 2. [`commands`] — one module per command; the scaffolding ones in stages: validate → plan →
//!    commit → report.
//! 3. [`cli`] — commands and flags (clap).
//! 4. [`artifacts`] — the catalogue of generated files and their markers.
//! 5. [`scaffold`] — the machinery: read-only trees, the in-memory plan, marker insertion, Rust
//!    edits through syn, the all-or-nothing commit.
//! 6. [`project`], [`layout`], [`context`], [`source`], [`validate`], [`naming`], [`plural`],
//!    [`kubernetes`], [`builtin_kinds`], [`kinds`], [`error`] — the PROJECT file, paths and
//!    names, template values, input rules, errors; [`typegen`] — Rust types from a CRD's schema
//!    (a pure function); [`external`] — paths and CRD sources of kinds the project does not own;
//!    [`template_set`] — which templates (of which kubeforge version) a command renders with;
//!    [`git`] — git for `alpha generate --in-place` and `alpha update`.
//!
//! The templates themselves live in the `kubeforge-templates` crate.

pub mod alpha_error;
pub mod artifacts;
pub mod builtin_kinds;
pub mod cli;
pub mod commands;
pub mod context;
pub mod error;
pub mod external;
pub mod git;
pub mod kinds;
pub mod kubernetes;
pub mod layout;
pub mod naming;
pub mod plural;
pub mod project;
pub mod scaffold;
pub mod source;
pub mod template_set;
pub mod typegen;
pub mod validate;

pub use cli::Cli;
pub use error::Error;

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), Error> {
    use cli::{AlphaCommand, Command, CreateCommand, UpdateCommand};
    match cli.command {
        Command::Init(args) => commands::init::run(args),
        Command::Create(CreateCommand::Api(args)) if args.external => {
            commands::create_external::run(args)
        }
        Command::Create(CreateCommand::Api(args)) => commands::create_api::run(args),
        Command::Update(UpdateCommand::External(args)) => commands::update_external::run(args),
        Command::Alpha(AlphaCommand::Generate(args)) => commands::alpha_generate::run(args),
        Command::Alpha(AlphaCommand::Update(args)) => commands::alpha_update::run(args),
        Command::Create(CreateCommand::Webhook(args)) => commands::create_webhook::run(args),
        Command::Generate(args) => commands::generate::run(args),
        Command::Version => commands::version::run(),
        Command::Completion(args) => commands::completion::run(args.shell),
        #[cfg(feature = "dev-server")]
        Command::DevServer(args) => commands::dev_server::run(args),
    }
}
