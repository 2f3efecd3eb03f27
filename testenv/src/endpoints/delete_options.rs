//! The options of a DELETE (`DeleteOptions` in the body, or the query) read and checked as
//! the real server does, the finalizers a deletion leaves on an object, and what became of it.

use std::sync::Arc;

use serde_json::Value;

use super::options::options_invalid;
use crate::support::meta;
use crate::support::request::Req;
use crate::support::resource::ResourceDef;
use crate::support::status::{ApiError, Cause};

/// The `orphan` finalizer: the owner waits until its dependents lost their references.
pub const ORPHAN: &str = "orphan";
/// The `foregroundDeletion` finalizer: the owner waits for its blocking dependents.
pub const FOREGROUND: &str = "foregroundDeletion";

/// The warning of a Job deletion that names no propagation policy.
const JOB_PODS_PRESERVED: &str = "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning";

/// `DeleteOptions` fields the server honours.
#[derive(Debug, Default, Clone)]
pub struct DeleteOptions {
    /// `preconditions.uid`
    pub uid: Option<String>,
    /// `preconditions.resourceVersion`
    pub resource_version: Option<String>,
    /// `propagationPolicy`: Orphan, Background or Foreground.
    pub propagation: Option<String>,
    /// The legacy `orphanDependents` (true is Orphan, false Background).
    pub orphan_dependents: Option<bool>,
    /// `gracePeriodSeconds` (honoured for pods bound to a node; other kinds go at once).
    pub grace_period: Option<i64>,
    /// `dryRun: ["All"]` in the body or `?dryRun=All`.
    pub dry_run: bool,
}

impl DeleteOptions {
    /// Reads the options from the body (if any) and the query, and validates them as the
    /// real server does.
    pub fn from_request(req: &Req) -> Result<Self, ApiError> {
        let mut o = DeleteOptions {
            dry_run: req.query.dry_run(),
            propagation: req.query.get("propagationPolicy").map(str::to_string),
            orphan_dependents: req.query.get("orphanDependents").map(|v| v == "true"),
            grace_period: match req.query.get("gracePeriodSeconds") {
                Some(g) => Some(g.parse().map_err(|_| {
                    ApiError::bad_request(format!(
                        "invalid gracePeriodSeconds {g:?}: must be an integer"
                    ))
                })?),
                None => None,
            },
            ..Default::default()
        };
        let body: Option<Value> = if req.content_type.contains("protobuf") {
            // A client-go delete configured for protobuf sends its DeleteOptions so.
            Some(crate::support::request::json_body(req)?)
        } else if req.body.iter().any(|b| !b.is_ascii_whitespace()) {
            Some(
                serde_json::from_slice(&req.body)
                    .map_err(|e| ApiError::bad_request(format!("invalid DeleteOptions: {e}")))?,
            )
        } else {
            None
        };
        if let Some(body) = &body {
            o.uid = body["preconditions"]["uid"].as_str().map(str::to_string);
            o.resource_version = body["preconditions"]["resourceVersion"]
                .as_str()
                .map(str::to_string);
            if let Some(p) = body["propagationPolicy"].as_str() {
                o.propagation = Some(p.to_string());
            }
            if let Some(b) = body["orphanDependents"].as_bool() {
                o.orphan_dependents = Some(b);
            }
            if let Some(g) = body["gracePeriodSeconds"].as_i64() {
                o.grace_period = Some(g);
            }
            if body["dryRun"]
                .as_array()
                .is_some_and(|a| a.iter().any(|v| v == "All"))
            {
                o.dry_run = true;
            }
        }
        let mut causes = Vec::new();
        if let Some(p) = &o.propagation {
            if o.orphan_dependents.is_some() {
                causes.push(Cause {
                    reason: "FieldValueInvalid".into(),
                    message: format!(
                        "Invalid value: \"{p}\": orphanDependents and deletionPropagation cannot be both set"
                    ),
                    field: "propagationPolicy".into(),
                });
            }
            if !matches!(p.as_str(), "Orphan" | "Background" | "Foreground") {
                causes.push(Cause {
                    reason: "FieldValueNotSupported".into(),
                    message: format!(
                        "Unsupported value: \"{p}\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
                    ),
                    field: "propagationPolicy".into(),
                });
            }
        }
        let dry_run = dry_run_values(req, body.as_ref());
        if dry_run.iter().any(|v| v != "All") {
            // One cause naming the whole list, written as JSON.
            causes.push(Cause {
                reason: "FieldValueNotSupported".into(),
                message: format!(
                    "Unsupported value: {}: supported values: \"All\"",
                    Value::from(dry_run)
                ),
                field: "dryRun".into(),
            });
        }
        if !causes.is_empty() {
            return Err(options_invalid("DeleteOptions", causes));
        }
        Ok(o)
    }

    /// The warnings a DELETE of `def`'s objects earns before anything is looked up: a Job's
    /// deletion that names no policy keeps its pods (batch/v1 Jobs still orphan by default),
    /// so the real server's Job registry warns, also on a collection and on a 404.
    pub fn warnings(&self, def: &ResourceDef) -> Vec<String> {
        if def.group == "batch" && def.plural == "jobs" && !self.explicit_policy() {
            return vec![JOB_PODS_PRESERVED.to_string()];
        }
        Vec::new()
    }

    /// Whether the request names a policy (a policy named on a second DELETE of an object
    /// already being deleted replaces the garbage-collection finalizers).
    pub fn explicit_policy(&self) -> bool {
        self.propagation.is_some() || self.orphan_dependents.is_some()
    }

    /// The finalizers of `current` once this deletion is applied, as the real server's
    /// `deletionFinalizersForGarbageCollection` computes them: the user's ones, then
    /// `orphan` or `foregroundDeletion` as the policy (explicit, then already present, then
    /// the resource's default) asks.
    pub fn finalizers_for(&self, def: &ResourceDef, current: &Value) -> Vec<String> {
        let existing = meta::finalizers(current);
        let had_orphan = existing.iter().any(|f| f == ORPHAN);
        let had_foreground = existing.iter().any(|f| f == FOREGROUND);
        let orphan = match (self.orphan_dependents, self.propagation.as_deref()) {
            (Some(b), _) => b,
            (None, Some(p)) => p == "Orphan",
            (None, None) => had_orphan || (!had_foreground && orphans_by_default(def)),
        };
        let foreground = match (self.orphan_dependents, self.propagation.as_deref()) {
            (Some(_), _) => false,
            (None, Some(p)) => p == "Foreground",
            (None, None) => had_foreground,
        };
        let mut out: Vec<String> = existing
            .into_iter()
            .filter(|f| f != ORPHAN && f != FOREGROUND)
            .collect();
        if orphan {
            out.push(ORPHAN.to_string());
        }
        if foreground {
            out.push(FOREGROUND.to_string());
        }
        out
    }
}

/// The `dryRun` values of the query and the body.
fn dry_run_values(req: &Req, body: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = req
        .query
        .values("dryRun")
        .into_iter()
        .map(str::to_string)
        .collect();
    if let Some(values) = body.and_then(|b| b["dryRun"].as_array()) {
        out.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
    }
    out
}

/// Resources whose default policy is still Orphan, kept so for backward compatibility by the
/// real server: core/v1 ReplicationControllers and batch/v1 Jobs (whose deletion warns of
/// it); every other resource defaults to Background.
fn orphans_by_default(def: &ResourceDef) -> bool {
    def.group.is_empty() && def.plural == "replicationcontrollers"
        || def.group == "batch" && def.plural == "jobs"
}

/// Whether the object was removed or is now waiting for finalizers.
pub enum Deleted {
    /// Gone from the store; the last state.
    Removed(Arc<Value>),
    /// Marked with deletionTimestamp; finalizers pending. The state right after marking
    /// (the garbage collector may already have finished the deletion).
    Pending(Arc<Value>),
}
