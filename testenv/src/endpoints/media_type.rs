//! The media type of an answer, negotiated from `Accept` as kube-apiserver negotiates it
//! (`negotiation.NegotiateOutputMediaType`): the clauses by quality (a wildcard after a
//! specific type of the same quality), the first one the endpoint can write wins. An object
//! endpoint writes JSON, YAML and protobuf (`application/vnd.kubernetes.protobuf`), but a custom
//! resource only JSON and YAML, and a `Table` only JSON and YAML; `PartialObjectMetadata(List)`
//! in any of them. A request no clause of which the endpoint can write is refused before
//! anything is done (406). Errors are negotiated apart, with no transformation allowed: a
//! client asking for protobuf gets its `Status` in protobuf, even from a custom resource's
//! endpoint, and one whose clauses all ask for a transformation gets it in JSON.
//!
//! A clause names a written type by `application/<subtype>` or a wildcard (`*/*`, `application/*`:
//! goautoneg's matching; go-restful's own check before, `super::restful`, is stricter for the
//! built-in routes). What is decided here is JSON, YAML (written from the JSON as the real
//! server converts it, `crate::support::yaml_v2`), protobuf or a 406; YAML has no stream
//! serializer, so a YAML clause asking for `stream=watch` names nothing, and a watch whose
//! negotiated type is YAML is refused (406, once the watch is set up, as the real watch handler
//! refuses it).

use bytes::Bytes;
use futures::StreamExt;
use serde_json::Value;

use crate::support::protobuf;
use crate::support::request::{Reply, WatchStream};
use crate::support::status::ApiError;

/// The protobuf media type.
pub const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// The YAML media type.
pub const YAML: &str = "application/yaml";

/// One clause of an `Accept` header.
struct Clause<'a> {
    kind: &'a str,
    subtype: &'a str,
    q: f64,
    params: Vec<(&'a str, &'a str)>,
}

impl Clause<'_> {
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| *v)
    }
}

/// The clauses of `accept`, best first (`goautoneg.ParseAccept`'s order).
fn clauses(accept: &str) -> Vec<Clause<'_>> {
    let mut out: Vec<Clause<'_>> = accept
        .split(',')
        .filter_map(|part| {
            let mut pieces = part.split(';');
            let media = pieces.next()?.trim();
            let (kind, subtype) = media.split_once('/').unwrap_or((media, "*"));
            let mut clause = Clause {
                kind: kind.trim(),
                subtype: subtype.trim(),
                q: 1.0,
                params: Vec::new(),
            };
            for p in pieces {
                let Some((k, v)) = p.split_once('=') else {
                    continue;
                };
                let (k, v) = (k.trim(), v.trim());
                if k == "q" {
                    clause.q = v.parse().unwrap_or(1.0);
                } else {
                    clause.params.push((k, v));
                }
            }
            (!clause.kind.is_empty()).then_some(clause)
        })
        .collect();
    // Higher quality first; at the same quality a specific type before a wildcard.
    out.sort_by(|a, b| {
        b.q.partial_cmp(&a.q)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then((a.kind == "*").cmp(&(b.kind == "*")))
            .then((a.subtype == "*").cmp(&(b.subtype == "*")))
    });
    out
}

/// The media types an endpoint writes, in the order it prefers them.
const WRITTEN: [&str; 3] = ["json", "yaml", "vnd.kubernetes.protobuf"];

/// What an answer is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// JSON.
    Json,
    /// YAML.
    Yaml,
    /// Protobuf.
    Protobuf,
}

/// What may be written for a clause: an object endpoint's answer (of a custom resource or not)
/// or an error, which allows no transformation.
#[derive(Clone, Copy)]
enum Endpoint {
    Object { custom: bool },
    Error,
}

/// Whether `endpoint` may write `subtype` with the clause's transformation, if any.
fn allows(endpoint: Endpoint, subtype: &str, clause: &Clause<'_>) -> bool {
    // Only a type with a stream serializer takes `stream=watch` (YAML has none).
    if clause
        .param("stream")
        .is_some_and(|s| !s.is_empty() && (s != "watch" || subtype == "yaml"))
    {
        return false;
    }
    let convert = clause.param("as");
    let meta_group = clause.param("g") == Some("meta.k8s.io")
        && matches!(clause.param("v"), Some("v1" | "v1beta1"));
    match (endpoint, convert) {
        (Endpoint::Error, None) => true,
        (Endpoint::Error, Some(_)) => false,
        (Endpoint::Object { custom }, None) => !(custom && subtype == "vnd.kubernetes.protobuf"),
        (Endpoint::Object { .. }, Some("Table")) => {
            meta_group && subtype != "vnd.kubernetes.protobuf"
        }
        (Endpoint::Object { .. }, Some("PartialObjectMetadata" | "PartialObjectMetadataList")) => {
            meta_group
        }
        (Endpoint::Object { .. }, Some(_)) => false,
    }
}

/// Whether `clause` names the written media type `application/<sub>`.
fn names(clause: &Clause<'_>, sub: &str) -> bool {
    matches!(clause.kind, "*" | "application") && (clause.subtype == "*" || clause.subtype == sub)
}

/// The negotiated output, `None` when no clause names a media type the endpoint can write
/// (with the clause's transformation, if any): kube-apiserver's 406.
fn negotiate(accept: &str, endpoint: Endpoint) -> Option<Output> {
    if accept.trim().is_empty() {
        return Some(Output::Json);
    }
    for clause in clauses(accept) {
        for sub in WRITTEN.iter().filter(|sub| names(&clause, sub)) {
            if allows(endpoint, sub, &clause) {
                return Some(output(sub));
            }
        }
    }
    None
}

/// The media type aggregated discovery is asked for in: the first clause (by quality) naming
/// `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2` in a media type the server writes, as
/// kube-apiserver's discovery endpoint restrictions take no other clause; `None` when no
/// clause does (the legacy documents answer).
pub fn aggregated(accept: &str) -> Option<Output> {
    clauses(accept).into_iter().find_map(|clause| {
        let asked = clause.param("as") == Some("APIGroupDiscoveryList")
            && clause.param("g") == Some("apidiscovery.k8s.io")
            && clause.param("v") == Some("v2");
        let sub = WRITTEN.iter().find(|sub| asked && names(&clause, sub))?;
        Some(output(sub))
    })
}

/// The output of a written subtype.
fn output(sub: &str) -> Output {
    match sub {
        "vnd.kubernetes.protobuf" => Output::Protobuf,
        "yaml" => Output::Yaml,
        _ => Output::Json,
    }
}

/// The 406 of a request whose `Accept` the endpoint can answer in no media type, before it is
/// served; `None` when it can be answered.
pub fn refusal(accept: &str, custom: bool) -> Option<Reply> {
    if negotiate(accept, Endpoint::Object { custom }).is_some() {
        return None;
    }
    Some(not_acceptable())
}

/// The 406 of the handlers' negotiation (`negotiation.NewNotAcceptableError`).
fn not_acceptable() -> Reply {
    let reply = Reply::error(ApiError::new(
        406,
        "NotAcceptable",
        format!(
            "only the following media types are accepted: application/json, application/yaml, {PROTOBUF}"
        ),
    ));
    strip_details(reply)
}

/// The real server's 406 Status has no `details`.
fn strip_details(reply: Reply) -> Reply {
    reply.edit_json(|_, body, _, _| {
        if let Value::Object(o) = body {
            o.remove("details");
        }
    })
}

/// Whether a reply is an error `Status`.
fn is_error(code: u16, body: &Value) -> bool {
    code >= 400 && body["kind"] == "Status"
}

/// `reply` in the media type `accept` negotiates: protobuf where the real server writes
/// protobuf (an object, list or watch event of a kind with a protobuf encoding; an error
/// `Status`), YAML where it writes YAML (any JSON answer but a watch's), as it is otherwise. A
/// watch negotiated in YAML is refused, as YAML has no stream serializer.
pub fn answer(reply: Reply, accept: &str, custom: bool) -> Reply {
    let negotiated = negotiate(accept, Endpoint::Object { custom });
    match reply {
        json @ Reply::Json { .. } => json.edit_json(|code, body, content_type, _| {
            let output = if is_error(code, body) {
                negotiate(accept, Endpoint::Error)
            } else if content_type == "application/json" {
                negotiated
            } else {
                None
            };
            written_in(output, body, content_type);
        }),
        Reply::Watch(_) if negotiated == Some(Output::Yaml) => {
            answer(no_stream_serializer(), accept, custom)
        }
        Reply::Watch(WatchStream(stream)) if negotiated == Some(Output::Protobuf) => {
            let frames = stream.map(|line| {
                let frame = serde_json::from_slice::<Value>(&line)
                    .ok()
                    .and_then(|event| protobuf::watch_frame(&event).ok());
                frame.map_or(line, Bytes::from)
            });
            Reply::ProtobufWatch(WatchStream(Box::pin(frames)))
        }
        other => other,
    }
}

/// Names the media type of a JSON answer `output` asks for: protobuf when the body has a
/// protobuf encoding, YAML (converted when the answer is written).
fn written_in(output: Option<Output>, body: &Value, content_type: &mut String) {
    match output {
        Some(Output::Protobuf) if protobuf::encodable(body) => *content_type = PROTOBUF.to_string(),
        Some(Output::Yaml) => *content_type = YAML.to_string(),
        _ => {}
    }
}

/// The watch handler's 406 for a media type without a stream serializer
/// (`NegotiateOutputMediaTypeStream`): the stream types are listed, with no `details`.
fn no_stream_serializer() -> Reply {
    strip_details(Reply::error(ApiError::new(
        406,
        "NotAcceptable",
        format!(
            "only the following media types are accepted: application/json;stream=watch, {PROTOBUF};stream=watch"
        ),
    )))
}

/// A discovery document (`/api`, `/apis`, `/apis/<group>`, a group version's resources) in the
/// media type `accept` negotiates, with no transformation (the discovery handlers write with
/// the default endpoint restrictions), or their 406 (in JSON) when `accept` names none;
/// aggregated discovery, negotiated on its own, is left as it is.
pub fn answer_document(reply: Reply, accept: &str) -> Reply {
    if let Reply::Json { code, body, .. } = &reply
        && *code < 300
        && body["kind"] != "APIGroupDiscoveryList"
        && negotiate(accept, Endpoint::Error).is_none()
    {
        return not_acceptable();
    }
    reply.edit_json(|_, body, content_type, _| {
        if content_type == "application/json" {
            written_in(negotiate(accept, Endpoint::Error), body, content_type);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(accept: &str, custom: bool) -> Option<Output> {
        negotiate(accept, Endpoint::Object { custom })
    }

    #[test]
    fn clauses_are_taken_by_quality_then_in_order() {
        assert_eq!(object(PROTOBUF, false), Some(Output::Protobuf));
        let both = format!("{PROTOBUF}, application/json");
        assert_eq!(object(&both, false), Some(Output::Protobuf));
        let lower = format!("application/json;q=0.5, {PROTOBUF}");
        assert_eq!(object(&lower, false), Some(Output::Protobuf));
        let json_first = format!("application/json, {PROTOBUF};q=0.9");
        assert_eq!(object(&json_first, false), Some(Output::Json));
        assert_eq!(object("*/*", false), Some(Output::Json));
        assert_eq!(object("", false), Some(Output::Json));
        let stream = format!("{PROTOBUF};stream=watch");
        assert_eq!(object(&stream, false), Some(Output::Protobuf));
    }

    #[test]
    fn yaml_is_written_when_asked_for_but_never_streamed() {
        assert_eq!(object("application/yaml", false), Some(Output::Yaml));
        assert_eq!(object("application/yaml", true), Some(Output::Yaml));
        let yaml_first = "application/json;q=0.5, application/yaml";
        assert_eq!(object(yaml_first, false), Some(Output::Yaml));
        assert_eq!(object("application/yaml;stream=watch", false), None);
        let table = "application/yaml;as=Table;g=meta.k8s.io;v=v1";
        assert_eq!(object(table, true), Some(Output::Yaml));
        assert_eq!(
            negotiate("application/yaml", Endpoint::Error),
            Some(Output::Yaml)
        );
        let watch = Reply::Watch(WatchStream(Box::pin(futures::stream::empty())));
        match answer(watch, "application/yaml", false) {
            Reply::Json {
                code,
                body,
                content_type,
                ..
            } => {
                assert_eq!((code, content_type.as_str()), (406, YAML));
                assert!(body.get("details").is_none());
            }
            _ => panic!("a watch in YAML is refused"),
        }
    }

    #[test]
    fn aggregated_discovery_takes_the_first_clause_asking_for_it() {
        let json = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        let pb = format!("{PROTOBUF};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
        assert_eq!(
            aggregated(&format!("{pb},{json},application/json")),
            Some(Output::Protobuf)
        );
        assert_eq!(
            aggregated(&format!("{PROTOBUF}, {json}")),
            Some(Output::Json)
        );
        assert_eq!(aggregated("application/json"), None);
        assert_eq!(
            aggregated("text/plain;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"),
            None
        );
        assert_eq!(
            aggregated("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"),
            None
        );
    }

    #[test]
    fn a_custom_resource_and_a_table_are_not_written_in_protobuf() {
        assert_eq!(object(PROTOBUF, true), None);
        let both = format!("{PROTOBUF}, application/json");
        assert_eq!(object(&both, true), Some(Output::Json));
        assert_eq!(negotiate(&both, Endpoint::Error), Some(Output::Protobuf));
        let table = format!("{PROTOBUF};as=Table;v=v1;g=meta.k8s.io");
        assert_eq!(object(&table, false), None);
        assert_eq!(negotiate(&table, Endpoint::Error), None);
        let partial = format!("{PROTOBUF};as=PartialObjectMetadata;v=v1;g=meta.k8s.io");
        assert_eq!(object(&partial, true), Some(Output::Protobuf));
        assert!(refusal(PROTOBUF, true).is_some());
        // Nothing the server writes: 406, wildcards of the application type included.
        assert!(refusal("text/plain", true).is_some());
        assert!(refusal("text/html, application/json;as=Foo", false).is_some());
        assert_eq!(object("application/*", true), Some(Output::Json));
        assert_eq!(object("text/html, */*", false), Some(Output::Json));
    }
}
