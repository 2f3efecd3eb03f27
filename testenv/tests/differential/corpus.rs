//! The corpus: scenarios of scripted requests, read from `corpus/*.yaml`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// One file of the corpus: requests that build on each other, run in order.
#[derive(Debug, Deserialize)]
pub struct Scenario {
    /// What the scenario exercises.
    pub name: String,
    /// The requests.
    pub steps: Vec<Step>,
}

impl Scenario {
    /// Whether a step has a `shardSelector`: then every step also runs on the embedded server
    /// without the feature gate, which must hold the same objects.
    pub fn sharded(&self) -> bool {
        self.steps.iter().any(|s| s.shard_selector.is_some())
    }
}

/// One request and how to compare its answers.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// GET, POST, PUT, PATCH or DELETE.
    pub method: String,
    /// The path and query; `${name}` is replaced by a variable (see [`Step::save`]), `${ns}`
    /// by the corpus namespace, `${webhook}` by the test webhook's base URL and `${ca}` by
    /// its caBundle.
    pub path: String,
    /// A JSON body (variables are replaced inside its strings).
    #[serde(default)]
    pub body: Option<Value>,
    /// A body sent as it is (for malformed input).
    #[serde(default)]
    pub raw: Option<String>,
    /// A binary body in standard base64, sent decoded (a protobuf body).
    #[serde(default)]
    pub raw_base64: Option<String>,
    /// The Content-Type (default `application/json` when there is a body).
    #[serde(default)]
    pub content_type: Option<String>,
    /// The Accept header (default JSON).
    #[serde(default)]
    pub accept: Option<String>,
    /// More headers, sent alike to both servers (variables are replaced in the values): a
    /// name with one value, or with a list of values sent as repeated headers
    /// (`Impersonate-Group`).
    #[serde(default)]
    pub headers: BTreeMap<String, HeaderValues>,
    /// Response headers compared besides `Warning` (lower-case names, such as
    /// `x-content-type-options`): their values, or their absence.
    #[serde(default)]
    pub compare_headers: Vec<String>,
    /// Variables to take from the response body: name → JSON pointer. Each server keeps its
    /// own values.
    #[serde(default)]
    pub save: BTreeMap<String, String>,
    /// Repeat the request (up to 30 s) until it answers this status: for what a real server
    /// does asynchronously (a CRD being served, a webhook configuration taking effect, the
    /// garbage collector).
    #[serde(default)]
    pub until: Option<u16>,
    /// Compare only these parts of the body (JSON pointers).
    #[serde(default)]
    pub pick: Vec<String>,
    /// Leave these parts of the body out of the comparison (JSON pointers).
    #[serde(default)]
    pub ignore: Vec<String>,
    /// A watch: the answer is the list of events the server sent before closing the stream
    /// (use `timeoutSeconds` in the path).
    #[serde(default)]
    pub watch: bool,
    /// A difference that is known and explained in the testenv README: it is reported but
    /// does not fail the run.
    #[serde(default)]
    pub known: Option<String>,
    /// A `shardSelector` (KEP-5866, alpha in v1.36), added URL-encoded to the query of `path`.
    /// The real v1.34 server predates the feature, so the embedded server with the
    /// `ShardedListAndWatch` gate is checked against [`Step::expect`] instead of being compared;
    /// the real server is checked to ignore the parameter (the same answer as without it); and
    /// an embedded server without the gate is compared with the real one as usual.
    #[serde(default)]
    pub shard_selector: Option<String>,
    /// What the embedded server with the gate must answer to a `shard_selector` step.
    #[serde(default)]
    pub expect: Option<Expect>,
    /// What the step is, printed with its request (the sweep's steps name the field they
    /// change).
    #[serde(default)]
    pub note: Option<String>,
    /// The real server must accept the request (a 2xx): a refusal is reported as a difference
    /// (the sweep's valid objects, whose changes would otherwise test nothing but the refusal).
    #[serde(default)]
    pub must_succeed: bool,
}

/// The values of one header of a [`Step`].
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum HeaderValues {
    /// One value.
    One(String),
    /// Several, each sent as its own header line.
    Many(Vec<String>),
}

impl HeaderValues {
    /// The values, in order.
    pub fn values(&self) -> &[String] {
        match self {
            HeaderValues::One(v) => std::slice::from_ref(v),
            HeaderValues::Many(v) => v,
        }
    }
}

/// The field a shard selector hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ShardField {
    /// `object.metadata.uid`
    #[serde(rename = "object.metadata.uid")]
    Uid,
    /// `object.metadata.namespace`
    #[serde(rename = "object.metadata.namespace")]
    Namespace,
}

/// The answer of a server with the `ShardedListAndWatch` gate to a `shard_selector` step, as
/// the v1.36 API documents it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The status code (200 unless said).
    #[serde(default = "ok")]
    pub code: u16,
    /// A refusal's exact `message`.
    #[serde(default)]
    pub message: Option<String>,
    /// How a refusal's `message` begins (where the words are the CEL parser's own).
    #[serde(default)]
    pub message_prefix: Option<String>,
    /// The field the selector hashes (with a 200).
    #[serde(default)]
    pub field: Option<ShardField>,
    /// The selector's `[start, end)` ranges by their hex bounds (with a 200): the answer is the
    /// answer without the selector less the objects (a watch: events) whose FNV-1a-64 hash of
    /// `field` lies in none of them.
    #[serde(default)]
    pub ranges: Vec<(String, String)>,
    /// How many objects (a watch: events) come back.
    #[serde(default)]
    pub count: Option<usize>,
    /// A name under which the returned objects are kept for a later `partition`.
    #[serde(default)]
    pub keep: Option<String>,
    /// Kept answers that together hold every object (event) of this step's answer without the
    /// selector exactly once.
    #[serde(default)]
    pub partition: Vec<String>,
}

fn ok() -> u16 {
    200
}

impl Expect {
    /// The ranges as numbers (`end` up to 2^64).
    pub fn bounds(&self) -> Result<Vec<(u128, u128)>, String> {
        let number = |s: &str| {
            s.strip_prefix("0x")
                .and_then(|hex| u128::from_str_radix(hex, 16).ok())
                .filter(|v| *v <= 1 << 64)
                .ok_or_else(|| format!("range bound {s:?} is not 0x and at most 2^64 in hex"))
        };
        self.ranges
            .iter()
            .map(|(start, end)| Ok((number(start)?, number(end)?)))
            .collect()
    }

    /// Whether the expectation says what it must (a 200 names the field and its ranges, a
    /// refusal its message and nothing about objects).
    fn check(&self) -> Result<(), String> {
        self.bounds()?;
        if self.code == 200 {
            if self.field.is_none() || self.ranges.is_empty() {
                return Err("a 200 needs field and ranges".into());
            }
            if self.message.is_some() || self.message_prefix.is_some() {
                return Err("a 200 has no message".into());
            }
        } else {
            if self.message.is_none() == self.message_prefix.is_none() {
                return Err("a refusal needs message or message_prefix".into());
            }
            if self.field.is_some()
                || !self.ranges.is_empty()
                || self.count.is_some()
                || self.keep.is_some()
                || !self.partition.is_empty()
            {
                return Err("a refusal returns no objects".into());
            }
        }
        Ok(())
    }
}

/// Whether a step's shard fields go together.
fn check(step: &Step) -> Result<(), String> {
    match (&step.shard_selector, &step.expect) {
        (Some(_), Some(expect)) => expect.check(),
        (None, None) => Ok(()),
        (Some(_), None) => Err("a shard_selector needs expect".into()),
        (None, Some(_)) => Err("expect is for a shard_selector".into()),
    }
}

/// Every scenario of the directory, in file name order.
pub fn load(dir: &Path) -> Result<Vec<(String, Scenario)>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let scenario: Scenario =
                serde_saphyr::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            for (i, step) in scenario.steps.iter().enumerate() {
                check(step).map_err(|e| format!("{} step {i}: {e}", path.display()))?;
            }
            let file = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            Ok((file, scenario))
        })
        .collect()
}
