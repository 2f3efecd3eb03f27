//! The bottom layer: leaf utilities every other layer shares, importing nothing above them.
//!
//! - the vocabulary of one API call: [`request`] (request, route, reply), [`query`] (query
//!   options), [`status`] (`Status` errors), [`resource`] (what a served resource is),
//!   [`meta`] (object metadata helpers);
//! - algorithms on JSON objects: [`selector`], [`jsonpath`], [`patch`], [`fieldmanager`]
//!   (managed field sets and server-side apply merges), [`protobuf`] (kubectl's bodies),
//!   [`quantity`] (resource quantities added and written canonically), [`go_decode`] (what
//!   Go's decoder sees in a body: document order, duplicate fields), [`go_merge`] (a body with
//!   repeated members as Go's decoder fills its value), [`go_encode`] (JSON as
//!   Go writes it), [`go_time`] (Go's `time.Parse` of `metav1.Time` and `MicroTime`),
//!   [`go_types`] (the recorded Go types of the built-in API: field order, tags, shapes),
//!   [`json_order`] (objects written as kube-apiserver writes them);
//! - [`openapi_schemas`]: the recorded component schemas of the built-in API;
//! - [`scratch`]: private temporary directories (kubeconfig, CA and control-plane files);
//! - the wire: [`tls`] (the server's certificates), [`kubeconfig`], [`webhook_client`] (the
//!   HTTPS calls to admission and conversion webhooks) over a [`webhook_conn`] (HTTP/2 or
//!   HTTP/1.1, as ALPN chose), [`h2_body`] (an HTTP/2 body read whole);
//! - [`features`]: the server's feature gates;
//! - [`error`]: the crate's public `Error`.

pub mod error;
pub mod features;
pub mod fieldmanager;
pub mod go_decode;
pub mod go_encode;
pub mod go_ip;
pub mod go_json;
pub mod go_merge;
pub mod go_quote;
pub mod go_time;
pub mod go_types;
pub mod go_url;
pub mod h2_body;
pub mod json_order;
pub mod jsonpath;
pub mod kubeconfig;
pub mod meta;
pub mod openapi_schemas;
pub mod patch;
pub mod protobuf;
pub mod quantity;
pub mod query;
pub mod request;
pub mod resource;
pub mod scratch;
pub mod selector;
pub mod status;
pub mod status_metadata;
pub mod tls;
pub mod tokens;
pub mod user;
pub mod webhook_client;
pub mod webhook_conn;
pub mod yaml_v2;
