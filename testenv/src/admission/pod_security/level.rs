//! The policy a namespace's `pod-security.kubernetes.io/*` labels set: a level
//! (`privileged`, `baseline`, `restricted`) and a version (`latest` or `v1.x`) for each mode
//! (enforce, audit, warn), with the 422 causes of labels that do not parse. Unset modes are
//! `privileged:latest` (kube-apiserver's default configuration, no exemptions).

use std::fmt;

use serde_json::Value;

use crate::support::go_quote::go_quote;
use crate::support::status::Cause;

/// The label setting the enforced level.
pub const ENFORCE: &str = "pod-security.kubernetes.io/enforce";
/// The label setting the enforced level's version.
pub const ENFORCE_VERSION: &str = "pod-security.kubernetes.io/enforce-version";
/// The label setting the audited level.
pub const AUDIT: &str = "pod-security.kubernetes.io/audit";
/// The label setting the audited level's version.
pub const AUDIT_VERSION: &str = "pod-security.kubernetes.io/audit-version";
/// The label setting the level warned about.
pub const WARN: &str = "pod-security.kubernetes.io/warn";
/// The label setting the warned level's version.
pub const WARN_VERSION: &str = "pod-security.kubernetes.io/warn-version";

/// A Pod Security Standards level, from the least to the most restrictive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Anything goes.
    Privileged,
    /// Known privilege escalations are refused.
    Baseline,
    /// Pod hardening best practices are required.
    Restricted,
}

impl Level {
    /// The level a label value names (`restricted` when it names none, as the plugin fails
    /// closed), with the 422 detail of a bad value.
    fn parse(value: &str) -> Result<Level, &'static str> {
        match value {
            "privileged" => Ok(Level::Privileged),
            "baseline" => Ok(Level::Baseline),
            "restricted" => Ok(Level::Restricted),
            _ => Err("must be one of privileged, baseline, restricted"),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Level::Privileged => "privileged",
            Level::Baseline => "baseline",
            Level::Restricted => "restricted",
        }
    }
}

/// The version of the standards a level is pinned to: `v1.x`, or `latest` (newer than
/// any).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// `v1.<minor>`.
    Minor(i64),
    /// `latest`.
    Latest,
}

impl Version {
    /// The version a label value names (`latest` when it names none), with the 422 detail
    /// of a bad value.
    fn parse(value: &str) -> Result<Version, &'static str> {
        const BAD: &str = "must be \"latest\" or \"v1.x\"";
        if value == "latest" {
            return Ok(Version::Latest);
        }
        let minor = value.strip_prefix("v1.").ok_or(BAD)?;
        let digits = !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit());
        if !digits || (minor.len() > 1 && minor.starts_with('0')) {
            return Err(BAD);
        }
        minor.parse().map(Version::Minor).map_err(|_| BAD)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Version::Minor(minor) => write!(f, "v1.{minor}"),
            Version::Latest => f.write_str("latest"),
        }
    }
}

/// A level at a version, written `restricted:latest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LevelVersion {
    /// The level.
    pub level: Level,
    /// The version of its rules.
    pub version: Version,
}

impl fmt::Display for LevelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.level.as_str(), self.version)
    }
}

/// The default of every mode: `privileged:latest`.
const PRIVILEGED: LevelVersion = LevelVersion {
    level: Level::Privileged,
    version: Version::Latest,
};

/// What a namespace's labels ask for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// Pods violating it are refused.
    pub enforce: LevelVersion,
    /// Violations are recorded in the audit log (nothing a client sees).
    pub audit: LevelVersion,
    /// Violations earn a warning.
    pub warn: LevelVersion,
}

/// A label's value, when the namespace has it.
fn label<'a>(labels: &'a Value, key: &str) -> Option<&'a str> {
    labels.get(key).and_then(Value::as_str)
}

/// The 422 cause of a label that does not parse.
fn bad_label(key: &str, value: &str, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {}: {why}", go_quote(value)),
        field: format!("metadata.labels[{key}]"),
    }
}

/// The level label `key` sets (`fails_to` when it names none, with its cause), and whether
/// it parsed.
fn level_label(
    labels: &Value,
    key: &str,
    fails_to: Level,
    causes: &mut Vec<Cause>,
) -> Option<(Level, bool)> {
    let value = label(labels, key)?;
    Some(match Level::parse(value) {
        Ok(level) => (level, true),
        Err(why) => {
            causes.push(bad_label(key, value, why));
            (fails_to, false)
        }
    })
}

/// The version label `key` sets (`latest` when it names none, with its cause).
fn version_label(labels: &Value, key: &str, causes: &mut Vec<Cause>) -> Option<Version> {
    let value = label(labels, key)?;
    Some(Version::parse(value).unwrap_or_else(|why| {
        causes.push(bad_label(key, value, why));
        Version::Latest
    }))
}

/// The policy the labels of a namespace set, and the causes of the labels that do not
/// parse, in the real server's order (enforce, audit, warn; each level before its version).
/// A bad enforce level fails closed (restricted), bad audit and warn levels fail open
/// (privileged). Without a `warn` label, warnings follow a stricter enforced level (and
/// its version).
pub fn policy(labels: &Value) -> (Policy, Vec<Cause>) {
    let mut p = Policy {
        enforce: PRIVILEGED,
        audit: PRIVILEGED,
        warn: PRIVILEGED,
    };
    let mut causes = Vec::new();
    let enforce = level_label(labels, ENFORCE, Level::Restricted, &mut causes);
    if let Some((level, _)) = enforce {
        p.enforce.level = level;
    }
    if let Some(version) = version_label(labels, ENFORCE_VERSION, &mut causes) {
        p.enforce.version = version;
    }
    if let Some((level, _)) = level_label(labels, AUDIT, Level::Privileged, &mut causes) {
        p.audit.level = level;
    }
    if let Some(version) = version_label(labels, AUDIT_VERSION, &mut causes) {
        p.audit.version = version;
    }
    let warn = level_label(labels, WARN, Level::Privileged, &mut causes);
    if let Some((level, _)) = warn {
        p.warn.level = level;
    }
    let warn_version = version_label(labels, WARN_VERSION, &mut causes);
    if let Some(version) = warn_version {
        p.warn.version = version;
    }
    let enforce_parsed = enforce.is_some_and(|(_, parsed)| parsed);
    if warn.is_none() && enforce_parsed && p.enforce.level > p.warn.level {
        p.warn.level = p.enforce.level;
        if warn_version.is_none() {
            p.warn.version = p.enforce.version;
        }
    }
    (p, causes)
}
