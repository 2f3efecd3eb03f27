//! The endpoints layer: the handlers of a request to an object, a collection or a
//! subresource, one module per verb family, turning it into store operations with the real
//! server's semantics, and the result into a JSON reply or a watch stream.
//!
//! - [`dispatch`]: which handler answers, with the admission webhook chain around writes;
//! - verbs: [`read`] (get, list), [`watch`], [`create`], [`update`], [`patch`] and [`apply`],
//!   [`delete`], [`scale`], [`review`] (TokenReview, SubjectAccessReview); what they share:
//!   [`options`], [`fields`] (managedFields), [`subresource`], [`patch_types`],
//!   [`continue_token`] (pagination);
//! - [`versioned`]: requests to a non-storage version of a CRD converted by webhook;
//! - [`state`]: the server state the handlers share; [`setup`] builds a fresh one;
//! - [`hooks`]: where the controllers plug in, and the in-process [`client`] they act
//!   through;
//! - [`table`]: the Table output kubectl asks for;
//! - [`deprecation`]: the `Warning` of requests to deprecated resources.

pub mod apply;
pub mod apply_types;
pub mod authn;
pub mod authz;
pub mod binding;
pub mod body_type;
pub mod client;
pub mod component_status;
pub mod connect;
pub mod continue_token;
pub mod create;
pub mod deferred;
pub mod delete;
pub mod delete_options;
pub mod deprecation;
pub mod dispatch;
pub mod escalation;
pub mod event_errors;
pub mod eviction;
pub mod fields;
pub mod hooks;
pub mod impersonation;
pub mod list_options;
pub mod manager_versions;
pub mod media_type;
pub mod negotiation;
pub mod options;
pub mod patch;
pub mod patch_types;
pub mod policy;
pub mod rbac;
pub mod read;
pub mod replace;
pub mod restful;
pub mod review;
pub mod scale;
pub mod setup;
pub mod state;
pub mod status_credit;
pub mod subresource;
pub mod table;
pub mod token;
pub mod update;
pub mod versioned;
pub mod watch;

pub use policy::Policy;
pub use state::{Api, ApiOptions};
