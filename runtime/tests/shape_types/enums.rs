//! The enum shapes of the round trip: every serde representation, documented or not, renamed,
//! recursive, and mixed.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A unit enum without doc comments (schemars: one string `enum`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Mode {
    Fast,
    Slow,
}

/// A unit enum whose variants are documented (schemars: a `oneOf` of single values).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Only errors.
    Error,
    /// Everything.
    Debug,
}

/// A single-variant enum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Only {
    /// The one value.
    One,
}

/// Externally tagged, data variants only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// From git.
    Git {
        url: String,
        revision: Option<String>,
    },
    /// From a bucket.
    Bucket { name: String },
}

/// Externally tagged newtype and tuple variants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Bound {
    Exactly(i64),
    Named(String),
    Range(i32, i32),
}

/// Unit and data variants mixed (a string or an object on the wire).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Sizing {
    Auto,
    Fixed { size: u32 },
}

/// Internally tagged: struct, unit and newtype-of-struct variants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Internal {
    /// Git.
    Git { url: String, depth: Option<u32> },
    /// A bucket.
    Bucket(BucketRef),
    /// Nothing.
    Empty,
}

/// A struct held by a newtype variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BucketRef {
    pub name: String,
    pub region: Option<String>,
}

/// Adjacently tagged: struct, newtype, tuple and unit variants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", content = "spec")]
pub enum Adjacent {
    Scale { replicas: i32 },
    Label(String),
    Pair(String, String),
    Stop,
}

/// Untagged integer or string.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum IntOrName {
    Int(i32),
    Name(String),
}

/// Untagged objects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Selector {
    ByName { name: String },
    ByLabels { labels: BTreeMap<String, String> },
}

/// Untagged values of unrelated JSON types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Loose {
    Flag(bool),
    Many(Vec<String>),
    Object { key: String },
}

/// Renamed variants and a tag with characters CEL must escape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "source-type", rename_all = "kebab-case")]
pub enum Renamed {
    #[serde(rename = "http")]
    HttpGet {
        #[serde(rename = "url.path")]
        path: String,
    },
    ConfigMap {
        namespace: String,
    },
}

/// Variants sharing a field of one type and a field of different types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Shared {
    A { name: String, value: i32 },
    B { name: String, value: Vec<String> },
}

/// A recursive expression (externally tagged, tuple variants).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Expr {
    Lit(i64),
    Add(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
}
