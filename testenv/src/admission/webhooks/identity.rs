//! The identity (uid and creation time) a create's validating webhooks were shown, handed
//! from the webhook chain to the create handler that stores the object.
//!
//! On the real server, storage fills the uid and creationTimestamp in before validating
//! admission runs, so validating webhooks see the ones that are stored. The chain shows
//! them the result of a dry-run create, then stores the object with a second, real create:
//! that create must keep the dry run's identity. The handlers are synchronous, so the
//! identity travels in a thread-local set around that one call
//! ([`with_assigned`]) and taken by the create handler ([`take_assigned`]).

use std::cell::RefCell;

use serde_json::Value;

use crate::support::meta;

/// A created object's uid and creation time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// `metadata.uid`
    pub uid: String,
    /// `metadata.creationTimestamp`
    pub creation_timestamp: String,
}

impl Identity {
    /// The identity of `object`, when it has both a uid and a creation time.
    pub fn of(object: &Value) -> Option<Identity> {
        let uid = meta::meta_str(object, "uid").filter(|s| !s.is_empty())?;
        let created = meta::meta_str(object, "creationTimestamp").filter(|s| !s.is_empty())?;
        Some(Identity {
            uid: uid.to_string(),
            creation_timestamp: created.to_string(),
        })
    }
}

thread_local! {
    static ASSIGNED: RefCell<Option<Identity>> = const { RefCell::new(None) };
}

/// Clears the assigned identity when the call it was set for ends (also on a panic).
struct Reset;

impl Drop for Reset {
    fn drop(&mut self) {
        ASSIGNED.with(|a| a.borrow_mut().take());
    }
}

/// Runs `f` (a synchronous handler call) with `identity` assigned to the object the first
/// create handler in it stores.
pub fn with_assigned<R>(identity: Identity, f: impl FnOnce() -> R) -> R {
    ASSIGNED.with(|a| *a.borrow_mut() = Some(identity));
    let _reset = Reset;
    f()
}

/// The identity assigned to the object this create stores, if any; taken, so that objects
/// created on the way (by controllers) get their own.
pub fn take_assigned() -> Option<Identity> {
    ASSIGNED.with(|a| a.borrow_mut().take())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn assigned_once_within_the_call() {
        let id = Identity {
            uid: "u".into(),
            creation_timestamp: "2026-01-01T00:00:00Z".into(),
        };
        assert_eq!(take_assigned(), None);
        let (first, second) = with_assigned(id.clone(), || (take_assigned(), take_assigned()));
        assert_eq!(first, Some(id.clone()));
        assert_eq!(second, None);
        // Not taken inside the call: gone after it.
        with_assigned(id, || ());
        assert_eq!(take_assigned(), None);
    }

    #[test]
    fn read_from_an_object() {
        let o = json!({"metadata": {"uid": "u", "creationTimestamp": "t"}});
        assert_eq!(
            Identity::of(&o),
            Some(Identity {
                uid: "u".into(),
                creation_timestamp: "t".into()
            })
        );
        assert_eq!(Identity::of(&json!({"metadata": {"uid": "u"}})), None);
    }
}
