//! The CLI's tests, in one test binary (one link instead of one per file): each module is one
//! command or one kind of check, run through the CLI's library entry point.
//!
//! - `builtin_kinds`: the table of built-in kinds is k8s-openapi's;
//! - `commands`: `--help` on every command, `version`, `completion`;
//! - `init`, `create_api`, `create_api_world`, `create_webhook`: every flag, every refusal;
//! - `external`: `create api --external` from a file, a URL and a cluster, `update external`;
//! - `alpha`: `alpha generate` and `alpha update` on git repositories; `alpha_git`: what they
//!   ask of git (clean, tracked trees) and `alpha update --from-binary` with another binary;
//! - `snapshots`, `create_webhook_snapshots`: whole generated trees, reviewed as insta snapshots
//!   (`snapshots/cli__<module>__<name>.snap`).

mod common;

mod alpha;
mod alpha_git;
mod builtin_kinds;
mod commands;
mod create_api;
mod create_api_world;
mod create_webhook;
mod create_webhook_snapshots;
mod external;
mod init;
mod snapshots;
