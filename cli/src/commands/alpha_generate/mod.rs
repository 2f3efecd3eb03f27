//! placeholder
/// Runs it.
pub fn run(_args: crate::cli::AlphaGenerateArgs) -> Result<(), crate::error::Error> {
    Ok(())
}
