//! placeholder
/// Runs it.
pub fn run(_args: crate::cli::UpdateExternalArgs) -> Result<(), crate::error::Error> {
    Ok(())
}
