//! The templates `kubeforge` scaffolds projects from.
//!
//! Every template is a [handlebars](https://handlebarsjs.com) file under `templates/templates/`,
//! embedded into the binary at compile time, so the CLI needs no files at run time. Rendering is
//! strict: a template that names a value the caller did not supply is an error, never an empty
//! string in a generated file.
//!
//! * `project/**` — what `kubeforge init` writes (one template per generated file).
//! * `api/**` — what `kubeforge create api` writes (type, controller, test, sample, roles).
//! * `external/**` — what `kubeforge create api --external` writes (the generated types of a
//!   kind from its CRD, a controller of it and the controller's test).
//! * `webhook/**` — what `kubeforge create webhook` writes (webhook modules, conversions,
//!   tests, config/webhook, config/certmanager and the CRD conversion patch).
//!
//! Which file a template becomes, and with which values, is the CLI's decision (see
//! `kubeforge-cli`'s `scaffold` module); this crate only knows the texts.

mod catalog;
mod render;
pub mod versions;

pub use catalog::{TEMPLATES, Template};
pub use render::{Error, Renderer};
