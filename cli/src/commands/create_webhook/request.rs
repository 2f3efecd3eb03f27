//! The validate stage of `create webhook`: the flags checked against kubebuilder's rules and
//! the project, as a [`WebhookRequest`] that knows the kind and what exists already.

use super::target::{self, Target};
use crate::cli::CreateWebhookArgs;
use crate::error::Error;
use crate::project::{ProjectFile, Resource, WebhookInfo};
use crate::validate;

/// The admission webhook types of one command, or of one kind at one version.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Types {
    /// A defaulting (mutating) webhook.
    pub defaulting: bool,
    /// A validating webhook.
    pub validation: bool,
}

impl Types {
    /// Whether any admission webhook is among them.
    pub fn any(self) -> bool {
        self.defaulting || self.validation
    }
}

/// A valid `create webhook`.
#[derive(Debug, Clone)]
pub struct WebhookRequest {
    /// The kind the webhooks are for.
    pub target: Target,
    /// PROJECT's entry of the kind at this version, if any.
    pub existing: Option<Resource>,
    /// The webhooks the kind had before the command.
    pub had: WebhookInfo,
    /// The admission webhooks this command adds.
    pub requested: Types,
    /// The admission webhooks the kind has after the command.
    pub all: Types,
    /// `--conversion`.
    pub conversion: bool,
    /// Spokes that get conversion code now: new ones, or all named ones with `--force`.
    pub new_spokes: Vec<String>,
    /// Every spoke of the kind after the command, sorted.
    pub all_spokes: Vec<String>,
    /// Overwrite the webhook files.
    pub force: bool,
}

impl WebhookRequest {
    /// The spokes whose conversion this command writes.
    pub fn conversion_spokes(&self) -> &[String] {
        if self.conversion {
            &self.new_spokes
        } else {
            &[]
        }
    }
}

/// Checks `args` against the rules and `project`.
pub fn validate(args: &CreateWebhookArgs, project: &ProjectFile) -> Result<WebhookRequest, Error> {
    check_flags(args)?;
    let target = target::resolve(project, &args.group, &args.version, &args.kind)?;
    let existing = project
        .find(&args.group, &args.version, &args.kind)
        .cloned();
    let had = existing
        .as_ref()
        .and_then(|r| r.webhooks.clone())
        .unwrap_or_default();
    let spokes = check_spokes(args, project, &target)?;
    check_existing(args, &had, &spokes)?;

    let new_spokes: Vec<String> = spokes
        .iter()
        .filter(|s| args.force || !had.spoke.contains(s))
        .cloned()
        .collect();
    let mut all_spokes = had.spoke.clone();
    all_spokes.extend(new_spokes.iter().cloned());
    all_spokes.sort();
    all_spokes.dedup();
    Ok(WebhookRequest {
        requested: Types {
            defaulting: args.defaulting,
            validation: args.programmatic_validation,
        },
        all: Types {
            defaulting: had.defaulting || args.defaulting,
            validation: had.validation || args.programmatic_validation,
        },
        conversion: args.conversion,
        target,
        existing,
        had,
        new_spokes,
        all_spokes,
        force: args.force,
    })
}

/// Refuses flag combinations that ask for nothing or make no sense.
fn check_flags(args: &CreateWebhookArgs) -> Result<(), Error> {
    if !args.conversion && !args.spokes.is_empty() {
        return Err(Error::SpokeWithoutConversion {
            spokes: args.spokes.join(","),
        });
    }
    if !args.defaulting && !args.programmatic_validation && !args.conversion {
        return Err(Error::NoWebhookType {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
        });
    }
    validate::dns1123_label(&args.version).map_err(|v| Error::InvalidInput {
        flag: "--version",
        value: args.version.clone(),
        subject: format!("the version {:?}", args.version),
        rule: v.rule,
        fix: "pass the version of an existing API, e.g. --version v1".into(),
    })?;
    validate::kind(&args.kind).map_err(|v| Error::InvalidInput {
        flag: "--kind",
        value: args.kind.clone(),
        subject: format!("the kind {:?}", args.kind),
        rule: v.rule,
        fix: "pass the CamelCase kind of an existing API, e.g. --kind Memcached".into(),
    })?;
    Ok(())
}

/// The spokes of a conversion webhook, each an existing other version of the kind.
fn check_spokes(
    args: &CreateWebhookArgs,
    project: &ProjectFile,
    target: &Target,
) -> Result<Vec<String>, Error> {
    if !args.conversion {
        return Ok(Vec::new());
    }
    if target.builtin {
        return Err(Error::ConversionForBuiltin {
            kind: args.kind.clone(),
        });
    }
    if args.spokes.is_empty() {
        return Err(Error::NoSpokes {
            group: args.group.clone(),
            version: args.version.clone(),
            kind: args.kind.clone(),
            known: target::known_versions(project, &args.group, &args.kind),
        });
    }
    let versions = target::api_versions(project, &args.group, &args.kind);
    let mut spokes = Vec::new();
    for spoke in &args.spokes {
        let spoke = spoke.trim();
        if spoke == args.version {
            return Err(Error::SpokeIsHub {
                version: spoke.to_owned(),
            });
        }
        if !versions.iter().any(|v| v == spoke) {
            return Err(Error::UnknownSpoke {
                group: args.group.clone(),
                kind: args.kind.clone(),
                spoke: spoke.to_owned(),
                known: target::known_versions(project, &args.group, &args.kind),
            });
        }
        if !spokes.iter().any(|s| s == spoke) {
            spokes.push(spoke.to_owned());
        }
    }
    Ok(spokes)
}

/// Refuses to scaffold a webhook type again without --force. A conversion webhook exists
/// when every named spoke has its conversion already; new spokes are simply added.
fn check_existing(
    args: &CreateWebhookArgs,
    had: &WebhookInfo,
    spokes: &[String],
) -> Result<(), Error> {
    if args.force {
        return Ok(());
    }
    let exists = |which, flag| Error::WebhookExists {
        group: args.group.clone(),
        version: args.version.clone(),
        kind: args.kind.clone(),
        which,
        flag,
    };
    if args.defaulting && had.defaulting {
        return Err(exists("defaulting", "--defaulting"));
    }
    if args.programmatic_validation && had.validation {
        return Err(exists("validating", "--programmatic-validation"));
    }
    if args.conversion && had.conversion && spokes.iter().all(|s| had.spoke.contains(s)) {
        return Err(exists("conversion", "--conversion"));
    }
    Ok(())
}
