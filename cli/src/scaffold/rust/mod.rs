//! Edits of the user's Rust files through a parser: parse (syn), locate the place by the spans
//! of the syntax tree, splice text in. The file is never re-printed, so comments and formatting
//! outside the edited span stay byte for byte; a file that does not parse refuses the command.

mod append;
mod attributes;
mod chain;
mod crate_attributes;
mod fields;
mod imports;
mod insert;
mod items;
mod marker;
mod source;

pub use append::append_items;
pub use attributes::{KubeArgument, add_kube_argument, remove_kube_argument};
pub use crate_attributes::raise_recursion_limit;
pub use fields::struct_fields;
pub use imports::merge_use;
pub use insert::insert_at_marker;
pub use items::module_declarations;
pub use source::{RustSource, Splice};
