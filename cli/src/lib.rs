//! kubeforge-cli: the `kubeforge` command, kubebuilder for Rust.
//!
//! * [`cli`] — commands and flags (clap).
//! * [`commands`] — one module per command (`init`, `create api`, `create webhook`, `generate`, `dev-server`, `version`, `completion`).
//! * [`project`] — the PROJECT file.
//! * [`scaffold`] — the in-memory plan of writes, marker insertion, the all-or-nothing commit.
//! * [`validate`], [`naming`], [`kubernetes`] — input rules and derived names.
//! * [`source`] — where generated projects get the kubeforge crates from.
//!
//! The templates themselves live in the `kubeforge-templates` crate.

pub mod cli;
pub mod commands;
pub mod context;
pub mod error;
pub mod kubernetes;
pub mod naming;
pub mod project;
pub mod scaffold;
pub mod source;
pub mod validate;

pub use cli::Cli;
pub use error::Error;

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), Error> {
    use cli::{Command, CreateCommand};
    match cli.command {
        Command::Init(args) => commands::init::run(args),
        Command::Create(CreateCommand::Api(args)) => commands::create_api::run(args),
        Command::Create(CreateCommand::Webhook(args)) => commands::create_webhook::run(args),
        Command::Generate(args) => commands::generate::run(args),
        Command::Version => commands::version::run(),
        Command::Completion(args) => commands::completion::run(args.shell),
        #[cfg(feature = "dev-server")]
        Command::DevServer(args) => commands::dev_server::run(args),
    }
}
