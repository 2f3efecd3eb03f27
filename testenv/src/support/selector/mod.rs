//! Label and field selectors of list and watch requests.

pub mod field;
pub mod label;
pub mod lexer;

pub use field::FieldSelector;
pub use label::LabelSelector;
