//! Running git for `alpha generate --in-place` and `alpha update`: the repository's state, its
//! files, and commits made from a directory without touching the user's index or work tree.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::alpha_error::AlphaError;

/// A git repository whose top level is a project's root.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
    /// `-c user.name=... -c user.email=...` when the repository has no identity configured.
    identity: Vec<String>,
}

impl Git {
    /// The repository at `dir`, which must be its top level; `what` names the command for
    /// messages.
    pub fn open(dir: &Path, what: &'static str) -> Result<Self, AlphaError> {
        let probe = Self {
            dir: dir.to_owned(),
            identity: Vec::new(),
        };
        let top = probe.output(&["rev-parse", "--show-toplevel"]).ok();
        let top = top
            .filter(|o| o.status.success())
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_owned()));
        let same = |a: &Path, b: &Path| {
            std::fs::canonicalize(a).ok().is_some()
                && std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
        };
        match top {
            Some(top) if same(&top, dir) => {}
            Some(top) => {
                return Err(AlphaError::GitState {
                    what,
                    reason: format!(
                        "the project at the top of its git repository (this one's is {})",
                        top.display()
                    ),
                    fix: "run it on a project that is a repository of its own".into(),
                });
            }
            None => {
                return Err(AlphaError::GitState {
                    what,
                    reason: "a git repository (git keeps what it replaces)".into(),
                    fix: "git init && git add -A && git commit -m 'Scaffold', then run it again"
                        .into(),
                });
            }
        }
        let email = probe.run(&["config", "user.email"]).unwrap_or_default();
        let identity = if email.trim().is_empty() {
            vec![
                "-c".into(),
                "user.name=kubeforge alpha update".into(),
                "-c".into(),
                "user.email=kubeforge@localhost".into(),
            ]
        } else {
            Vec::new()
        };
        Ok(Self {
            dir: dir.to_owned(),
            identity,
        })
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command
            .current_dir(&self.dir)
            .args(&self.identity)
            .args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
            // `git status` may otherwise refresh the index: a refused command writes nothing.
            .env("GIT_OPTIONAL_LOCKS", "0");
        command
    }

    fn output(&self, args: &[&str]) -> Result<Output, AlphaError> {
        self.command(args)
            .output()
            .map_err(|source| AlphaError::GitSpawn {
                args: args.join(" "),
                dir: self.dir.clone(),
                source,
            })
    }

    /// Runs `git <args>`; its stdout, or an error with its stderr.
    pub fn run(&self, args: &[&str]) -> Result<String, AlphaError> {
        self.run_with(args, &[])
    }

    /// Runs `git <args>` with extra environment variables.
    pub fn run_with(&self, args: &[&str], env: &[(&str, OsString)]) -> Result<String, AlphaError> {
        let mut command = self.command(args);
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().map_err(|source| AlphaError::GitSpawn {
            args: args.join(" "),
            dir: self.dir.clone(),
            source,
        })?;
        if !output.status.success() {
            return Err(AlphaError::Git {
                args: args.join(" "),
                dir: self.dir.clone(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Runs `git <args>` and returns whether it succeeded, with its stdout and stderr (for
    /// commands whose failure is an outcome, like a merge with conflicts).
    pub fn try_run(&self, args: &[&str]) -> Result<(bool, String, String), AlphaError> {
        let output = self.output(args)?;
        Ok((
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ))
    }

    /// Refuses unless git has every file as it is: no uncommitted changes, and no file it
    /// does not track (which a command could replace with nothing to restore it from). Files
    /// the repository ignores do not count.
    pub fn require_clean(&self, what: &'static str) -> Result<(), AlphaError> {
        let status = self.run(&["status", "--porcelain", "--untracked-files=all"])?;
        if status.trim().is_empty() {
            return Ok(());
        }
        Err(AlphaError::GitState {
            what,
            reason: format!(
                "a clean git tree, and these files differ from the last commit (?? marks those git does not track):\n{}",
                status.trim_end()
            ),
            fix: "commit them (git add -A && git commit) or stash them (git stash -u), then run it again".into(),
        })
    }

    /// Every file git tracks or would track (not the ignored ones), relative to the top.
    pub fn files(&self) -> Result<Vec<PathBuf>, AlphaError> {
        let listed = self.run(&[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])?;
        let mut files: Vec<PathBuf> = listed
            .split('\0')
            .filter(|f| !f.is_empty())
            .map(PathBuf::from)
            .filter(|f| self.dir.join(f).is_file())
            .collect();
        files.sort();
        files.dedup();
        Ok(files)
    }

    /// A commit of every file under `dir` (which is not the work tree), with `parents`,
    /// made through a temporary index: the user's index and work tree are not touched.
    pub fn commit_directory(
        &self,
        dir: &Path,
        parents: &[&str],
        message: &str,
    ) -> Result<String, AlphaError> {
        let git_dir = self.run(&["rev-parse", "--absolute-git-dir"])?;
        let git_dir = PathBuf::from(git_dir.trim());
        let index = git_dir.join(format!("kubeforge-index-{}", std::process::id()));
        let add = |args: &[&str]| -> Result<String, AlphaError> {
            let output = Command::new("git")
                .current_dir(dir)
                .arg(format!("--git-dir={}", git_dir.display()))
                .arg(format!("--work-tree={}", dir.display()))
                .args(args)
                .env("GIT_INDEX_FILE", &index)
                .output()
                .map_err(|source| AlphaError::GitSpawn {
                    args: args.join(" "),
                    dir: dir.to_owned(),
                    source,
                })?;
            if !output.status.success() {
                return Err(AlphaError::Git {
                    args: args.join(" "),
                    dir: dir.to_owned(),
                    stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
                });
            }
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        };
        let result = (|| {
            add(&["add", "--all", "--force", "."])?;
            let tree = add(&["write-tree"])?;
            let mut args = vec!["commit-tree", tree.trim(), "-m", message];
            for parent in parents {
                args.extend(["-p", parent]);
            }
            self.run(&args).map(|sha| sha.trim().to_owned())
        })();
        let _ = std::fs::remove_file(&index);
        result
    }
}
