//! placeholder
/// Runs it.
pub fn run(_args: crate::cli::AlphaUpdateArgs) -> Result<(), crate::error::Error> {
    Ok(())
}
