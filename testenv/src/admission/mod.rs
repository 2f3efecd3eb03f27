//! The admission layer: what happens to a written object before the registry stores it.
//!
//! - [`defaults`]: the real server's defaulting of built-in kinds;
//! - [`admit`]: the built-in admission of every write, in the real server's order (defaults,
//!   pruning and schema defaulting of custom resources, then the registry's validation);
//! - [`chain`]: the default admission plugins of a create or an update, in the real server's
//!   order;
//! - [`limit_ranger`]: LimitRanges' default and bounded container resources;
//! - [`quota`]: ResourceQuota usage and the refusal of writes a quota does not allow;
//! - [`pvc_resize`]: PersistentVolumeClaimResize (only bound claims of an expandable class grow);
//! - [`plugins`]: the default plugins that fill objects in from others (Priority,
//!   DefaultTolerationSeconds, DefaultIngressClass, DefaultStorageClass);
//! - [`pod_security`]: PodSecurity (a namespace's `pod-security.kubernetes.io/*` levels
//!   refuse or warn of pods and pod templates);
//! - [`policies`]: ValidatingAdmissionPolicies and their bindings, checked with CEL on every
//!   write they cover;
//! - [`service_account`]: the ServiceAccount admission plugin (a Pod's account must exist;
//!   its token volume is mounted);
//! - [`webhooks`]: the admission webhook chain (mutating, then validating
//!   `*WebhookConfiguration`s) around a write handler the endpoints hand in.

pub mod admit;
pub mod chain;
pub mod defaults;
pub mod limit_ranger;
pub mod plugins;
pub mod pod_security;
pub mod policies;
pub mod pvc_resize;
pub mod quota;
pub mod runtime_class;
pub mod service_account;
pub mod webhooks;
