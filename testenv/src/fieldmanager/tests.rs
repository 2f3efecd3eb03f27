//! Unit tests of the field manager on plain JSON (custom-resource schema and built-in rules).
