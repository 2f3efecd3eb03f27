//! Status conditions with `meta.SetStatusCondition` semantics: `lastTransitionTime` changes
//! only when the status changes.

use k8s_openapi::{
    apimachinery::pkg::apis::meta::v1::{Condition, Time},
    jiff::Timestamp,
};

/// Sets `new` in `conditions` (matched by type); returns whether anything changed.
///
/// A new condition gets `lastTransitionTime` = now unless one is given. An existing one keeps
/// its `lastTransitionTime` unless the status changes; reason, message and
/// `observedGeneration` are updated in place.
pub fn set(conditions: &mut Vec<Condition>, new: Condition) -> bool {
    let stamp = |t: &Time| {
        if t.0 == Timestamp::UNIX_EPOCH {
            Time(Timestamp::now())
        } else {
            t.clone()
        }
    };
    let Some(existing) = conditions.iter_mut().find(|c| c.type_ == new.type_) else {
        let last_transition_time = stamp(&new.last_transition_time);
        conditions.push(Condition {
            last_transition_time,
            ..new
        });
        return true;
    };
    let mut changed = false;
    if existing.status != new.status {
        existing.status = new.status;
        existing.last_transition_time = stamp(&new.last_transition_time);
        changed = true;
    }
    if existing.reason != new.reason {
        existing.reason = new.reason;
        changed = true;
    }
    if existing.message != new.message {
        existing.message = new.message;
        changed = true;
    }
    if existing.observed_generation != new.observed_generation {
        existing.observed_generation = new.observed_generation;
        changed = true;
    }
    changed
}

/// The condition of type `type_`, if present.
pub fn find<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Removes the condition of type `type_`; returns whether it was present.
pub fn remove(conditions: &mut Vec<Condition>, type_: &str) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.type_ != type_);
    conditions.len() != before
}

/// Whether the condition of type `type_` is present with status `"True"`.
pub fn is_true(conditions: &[Condition], type_: &str) -> bool {
    find(conditions, type_).is_some_and(|c| c.status == "True")
}

/// A condition with the given fields and no `lastTransitionTime` yet ([`set`] stamps it).
pub fn new(
    type_: &str,
    status: bool,
    reason: &str,
    message: impl Into<String>,
    observed_generation: Option<i64>,
) -> Condition {
    Condition {
        type_: type_.to_string(),
        status: if status { "True" } else { "False" }.to_string(),
        reason: reason.to_string(),
        message: message.into(),
        observed_generation,
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transition_time_changes_only_with_status() {
        let mut conditions = Vec::new();
        assert!(set(
            &mut conditions,
            new("Ready", false, "Progressing", "starting", Some(1))
        ));
        let first = find(&conditions, "Ready").unwrap().clone();
        assert_ne!(first.last_transition_time.0, Timestamp::UNIX_EPOCH);

        // Same status, new message and generation: updated, time kept.
        let old_time = Time(Timestamp::from_second(1_000).unwrap());
        conditions[0].last_transition_time = old_time.clone();
        assert!(set(
            &mut conditions,
            new("Ready", false, "Progressing", "still starting", Some(2))
        ));
        let c = find(&conditions, "Ready").unwrap();
        assert_eq!(c.last_transition_time, old_time);
        assert_eq!(c.message, "still starting");
        assert_eq!(c.observed_generation, Some(2));

        // Nothing differs: no change.
        assert!(!set(
            &mut conditions,
            new("Ready", false, "Progressing", "still starting", Some(2))
        ));

        // Status flips: time moves.
        assert!(set(
            &mut conditions,
            new("Ready", true, "Available", "up", Some(2))
        ));
        assert_ne!(
            find(&conditions, "Ready").unwrap().last_transition_time,
            old_time
        );
        assert!(is_true(&conditions, "Ready"));
        assert!(find(&conditions, "Degraded").is_none());
        assert!(remove(&mut conditions, "Ready"));
        assert!(conditions.is_empty());
    }
}
