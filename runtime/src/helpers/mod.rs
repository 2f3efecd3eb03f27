//! The helpers every operator needs: finalizers, owner references, create-or-update and
//! server-side apply, status conditions, and an event recorder.

pub mod apply;
pub mod conditions;
pub mod events;
pub mod finalizer;
pub mod owner;
