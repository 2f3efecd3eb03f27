//! Sending one step of the corpus to one server and reading its answer.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use serde_json::Value;

use crate::corpus::Step;

/// What a server answered.
#[derive(Debug, Clone)]
pub struct Answer {
    /// HTTP status.
    pub code: u16,
    /// The JSON body (a watch: the array of its events; text that is not JSON: a string).
    pub body: Value,
    /// The `Warning` headers.
    pub warnings: Vec<String>,
    /// The values of the headers the step compares ([`Step::compare_headers`]).
    pub headers: BTreeMap<String, Vec<String>>,
    /// A YAML answer's text, compared line by line besides its parsed `body`.
    pub yaml: Option<String>,
}

/// Whether a step's `shard_selector` is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    /// With the step's selector (if it has one).
    With,
    /// The same request without it.
    Without,
}

/// A query value: everything but unreserved characters percent-encoded.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// One server under test, with the variables its answers gave.
pub struct Side {
    client: kube::Client,
    /// Variable values (`${name}`).
    pub vars: BTreeMap<String, String>,
}

impl Side {
    /// A side talking through `client`, with the variables every side shares.
    pub fn new(client: kube::Client, shared: &BTreeMap<String, String>) -> Self {
        Side {
            client,
            vars: shared.clone(),
        }
    }

    /// `text` with this side's variables in place of `${name}`.
    pub fn fill(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (k, v) in &self.vars {
            out = out.replace(&format!("${{{k}}}"), v);
        }
        out
    }

    fn fill_value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.fill(s)),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.fill_value(v)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (self.fill(k), self.fill_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Sends `step` (repeating it while `until` asks for another status) and keeps the
    /// variables it saves.
    pub async fn run(&mut self, step: &Step) -> Answer {
        let answer = self.answer(step, Selector::With).await;
        self.save(step, &answer);
        answer
    }

    /// The answer to `step`, repeated while `until` asks for another status; `selector` says
    /// whether its `shard_selector` goes with it.
    pub async fn answer(&self, step: &Step, selector: Selector) -> Answer {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let answer = self.send(step, selector).await;
            match step.until {
                Some(code) if answer.code != code && Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                _ => return answer,
            }
        }
    }

    /// Keeps the variables `step` saves from `answer`.
    pub fn save(&mut self, step: &Step, answer: &Answer) {
        for (name, pointer) in &step.save {
            if let Some(v) = answer.body.pointer(pointer) {
                let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                self.vars.insert(name.clone(), text);
            }
        }
    }

    /// The path and query of `step` on this side, with its `shard_selector` when `selector`
    /// says so.
    fn uri(&self, step: &Step, selector: Selector) -> String {
        let path = self.fill(&step.path);
        match (&step.shard_selector, selector) {
            (Some(shards), Selector::With) => {
                let join = if path.contains('?') { '&' } else { '?' };
                format!("{path}{join}shardSelector={}", encode(shards))
            }
            _ => path,
        }
    }

    async fn send(&self, step: &Step, selector: Selector) -> Answer {
        let body = match (&step.body, &step.raw, &step.raw_base64) {
            (Some(b), _, _) => serde_json::to_vec(&self.fill_value(b)).unwrap_or_default(),
            (None, Some(raw), _) => self.fill(raw).into_bytes(),
            (None, None, Some(encoded)) => {
                use base64::Engine;
                match base64::engine::general_purpose::STANDARD.decode(encoded) {
                    Ok(bytes) => bytes,
                    Err(e) => return failure(format!("bad raw_base64 in the corpus: {e}")),
                }
            }
            (None, None, None) => Vec::new(),
        };
        let mut req = http::Request::builder()
            .method(step.method.as_str())
            .uri(self.uri(step, selector))
            .header(
                "Accept",
                step.accept.as_deref().unwrap_or("application/json"),
            );
        for (name, values) in &step.headers {
            for value in values.values() {
                req = req.header(name.as_str(), self.fill(value));
            }
        }
        if step.body.is_some() || step.raw.is_some() || step.raw_base64.is_some() {
            req = req.header(
                "Content-Type",
                step.content_type.as_deref().unwrap_or("application/json"),
            );
        }
        let req = match req.body(kube::client::Body::from(body)) {
            Ok(r) => r,
            Err(e) => return failure(format!("bad request in the corpus: {e}")),
        };
        let response = match self.client.send(req).await {
            Ok(r) => r,
            Err(e) => return failure(format!("request failed: {e}")),
        };
        let code = response.status().as_u16();
        let warnings = response
            .headers()
            .get_all("warning")
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).to_string())
            .collect();
        let headers = step
            .compare_headers
            .iter()
            .map(|name| {
                let values = response
                    .headers()
                    .get_all(name.as_str())
                    .iter()
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).to_string())
                    .collect();
                (name.clone(), values)
            })
            .collect();
        let protobuf = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/vnd.kubernetes.protobuf"));
        let yaml = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/yaml"));
        let bytes = match response.into_body().collect().await {
            Ok(b) => b.to_bytes(),
            Err(e) => return failure(format!("reading the answer failed: {e}")),
        };
        let yaml = (yaml && !step.watch).then(|| String::from_utf8_lossy(&bytes).to_string());
        let body = if let Some(text) = &yaml {
            serde_saphyr::from_str::<Value>(text).unwrap_or_else(|e| {
                let first = e.to_string().lines().next().unwrap_or_default().to_string();
                Value::String(format!("not YAML to the harness's parser: {first}"))
            })
        } else if protobuf && step.watch {
            crate::protobuf::watch(&bytes)
        } else if protobuf {
            crate::protobuf::answer(&bytes)
        } else if step.watch {
            Value::Array(
                bytes
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .map(|l| serde_json::from_slice(l).unwrap_or(Value::Null))
                    .collect(),
            )
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).to_string()))
        };
        Answer {
            code,
            body,
            warnings,
            headers,
            yaml,
        }
    }
}

fn failure(message: String) -> Answer {
    Answer {
        code: 0,
        body: Value::String(message),
        warnings: Vec::new(),
        headers: BTreeMap::new(),
        yaml: None,
    }
}
