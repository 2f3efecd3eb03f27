//! Label, field and shard selectors of list and watch requests.

pub mod field;
pub mod label;
pub mod lexer;
pub mod shard;
pub mod text;

pub use field::FieldSelector;
pub use label::LabelSelector;
pub use shard::ShardSelector;
