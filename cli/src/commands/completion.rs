//! `kubeforge completion bash|zsh|fish`.

use clap::CommandFactory;

use crate::cli::{Cli, Shell};
use crate::error::Error;

/// Writes the completion script of `shell` to stdout.
pub fn run(shell: Shell) -> Result<(), Error> {
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(
        shell,
        &mut Cli::command(),
        "kubeforge",
        &mut std::io::stdout(),
    );
    Ok(())
}
