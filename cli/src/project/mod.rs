//! The PROJECT file: what kubeforge scaffolded in a project, read by every later command.
//!
//! Same shape as kubebuilder's PROJECT (config version 3), so its readers feel at home.

mod file;

pub use file::{
    ApiInfo, LAYOUT, PROJECT_FILE, ProjectFile, Resource, WebhookInfo, load, parse, render,
};
