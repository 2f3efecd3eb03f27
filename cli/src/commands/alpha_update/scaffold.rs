//! The two scaffolds `alpha update` merges from, written into directories: the one of the
//! project's kubeforge version (the ancestor) and this version's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::super::alpha_generate::files;
use super::super::alpha_generate::inputs::ReplayInputs;
use super::super::alpha_generate::replay::{self, Step};
use super::ancestor::Ancestor;
use crate::alpha_error::AlphaError;
use crate::error::Error;
use crate::scaffold::MemoryTree;
use crate::source::{self, Source};
use crate::template_set::{self, TemplateSet};

/// Writes into `dir` what the templates of `set` scaffold for `steps`.
pub fn with_templates(
    set: &TemplateSet,
    steps: &[Step],
    inputs: &ReplayInputs,
    dir: &Path,
) -> Result<Vec<String>, Error> {
    let replayed = replay::replay(steps, inputs, &set.renderer()?, set.version())?;
    write_tree(&replayed.tree, dir)?;
    Ok(replayed.commands)
}

fn write_tree(tree: &MemoryTree, dir: &Path) -> Result<(), Error> {
    let files: BTreeMap<PathBuf, Vec<u8>> = tree
        .paths()
        .map(|p| {
            (
                p.to_owned(),
                tree.get(p).unwrap_or_default().as_bytes().to_vec(),
            )
        })
        .collect();
    files::write(dir, &files)?;
    Ok(())
}

/// Writes into `dir` what `ancestor` scaffolds for `steps`.
pub fn ancestor(
    ancestor: &Ancestor,
    steps: &[Step],
    inputs: &ReplayInputs,
    dir: &Path,
) -> Result<Vec<String>, Error> {
    match ancestor {
        Ancestor::Templates(set) => with_templates(set, steps, inputs, dir),
        Ancestor::Binary { path, .. } => with_binary(path, steps, inputs, dir),
    }
}

/// Runs `steps` with the kubeforge binary `binary` in `dir`, with the environment the project
/// was scaffolded in (the copyright year, where the kubeforge crates come from).
fn with_binary(
    binary: &Path,
    steps: &[Step],
    inputs: &ReplayInputs,
    dir: &Path,
) -> Result<Vec<String>, Error> {
    let crds = tempfile::tempdir().map_err(|source| Error::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let source = match &inputs.source {
        Source::Checkout(checkout) => checkout.display().to_string(),
        Source::CratesIo => "crates-io".to_owned(),
    };
    let mut commands = Vec::new();
    for step in steps {
        let mut args = step.args.clone();
        if let (Some(crd), Some(text)) = (
            &step.crd,
            step.crd.as_ref().and_then(|c| inputs.crds.get(c)),
        ) {
            let copy = crds.path().join(crd.file_name().unwrap_or_default());
            std::fs::write(&copy, text).map_err(|source| Error::Write {
                path: copy.clone(),
                source,
            })?;
            if let Some(arg) = args
                .iter_mut()
                .find(|a| Path::new(a.as_str()) == crd.as_path())
            {
                *arg = copy.display().to_string();
            }
        }
        let output = Command::new(binary)
            .args(&args)
            .arg("--dir")
            .arg(dir)
            .env(source::ENV, &source)
            .env("SOURCE_DATE_EPOCH", new_year(inputs.year).to_string())
            .env_remove(template_set::ENV)
            .output()
            .map_err(|source| AlphaError::OldBinarySpawn {
                binary: binary.to_owned(),
                command: step.command_line(),
                source,
            })?;
        if !output.status.success() {
            return Err(AlphaError::OldBinary {
                binary: binary.to_owned(),
                command: step.command_line(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            }
            .into());
        }
        commands.push(step.command_line());
    }
    Ok(commands)
}

/// Seconds from 1970 to January 1st of `year` (Howard Hinnant's days-from-civil).
fn new_year(year: i64) -> i64 {
    let y = year - 1; // January and February count in the previous year
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * 10 + 2) / 5; // March-based day of year of January 1st
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) * 86_400
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_years() {
        assert_eq!(new_year(1970), 0);
        assert_eq!(new_year(2026), 1_767_225_600);
        assert_eq!(new_year(2024), 1_704_067_200);
    }
}
