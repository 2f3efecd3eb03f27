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
    /// The Content-Type (default `application/json` when there is a body).
    #[serde(default)]
    pub content_type: Option<String>,
    /// The Accept header (default JSON).
    #[serde(default)]
    pub accept: Option<String>,
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
            let file = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            Ok((file, scenario))
        })
        .collect()
}
