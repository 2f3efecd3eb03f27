//! Content negotiation of object metadata: a client asking for
//! `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (kube-rs's metadata
//! watchers, controller-runtime's metadata client) gets each object as a
//! `PartialObjectMetadata` — `kind`, `apiVersion: meta.k8s.io/v1` and the object's
//! `metadata` — on get, create, update, patch and watch; `PartialObjectMetadataList` on list.
//! Asking for the one where the other is answered is 406, as on the real server.

use bytes::Bytes;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::support::request::{Reply, WatchStream};
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// What a request asks for in place of the full objects.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataOnly {
    /// `PartialObjectMetadataList` (a list) rather than `PartialObjectMetadata`.
    pub list: bool,
    /// `v1` or `v1beta1` of `meta.k8s.io`.
    pub version: String,
}

/// The metadata form the `Accept` header asks for first, if any.
pub fn requested(accept: &str) -> Option<MetadataOnly> {
    for part in accept.split(',') {
        let params: Vec<(&str, &str)> = part
            .split(';')
            .skip(1)
            .filter_map(|p| p.trim().split_once('='))
            .collect();
        let get = |k: &str| params.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
        match (get("as"), get("g"), get("v")) {
            (
                Some(kind @ ("PartialObjectMetadata" | "PartialObjectMetadataList")),
                Some("meta.k8s.io"),
                Some(v @ ("v1" | "v1beta1")),
            ) => {
                return Some(MetadataOnly {
                    list: kind.ends_with("List"),
                    version: v.to_string(),
                });
            }
            (Some(_), _, _) => continue,
            // A plain media type comes first: full objects.
            _ if !part.trim().is_empty() => return None,
            _ => continue,
        }
    }
    None
}

/// The Go type the real server names in its 406 message (`*core.ConfigMapList`).
fn go_type(def: &ResourceDef, list: bool) -> String {
    if def.custom.is_some() {
        return format!(
            "*unstructured.Unstructured{}",
            if list { "List" } else { "" }
        );
    }
    let package = if def.group.is_empty() {
        "core"
    } else {
        def.group.split('.').next().unwrap_or(&def.group)
    };
    format!("*{package}.{}{}", def.kind, if list { "List" } else { "" })
}

fn partial(object: &Value, version: &str) -> Value {
    json!({"kind": "PartialObjectMetadata", "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": object["metadata"]})
}

fn not_acceptable(message: String) -> Reply {
    Reply::error(ApiError::new(406, "NotAcceptable", message))
}

/// `reply` in the metadata form `want` asks for.
pub fn apply(reply: Reply, def: &ResourceDef, want: &MetadataOnly) -> Reply {
    match reply {
        Reply::Json {
            code,
            body,
            content_type,
            warnings,
        } if code < 300 && body.get("metadata").is_some() && body["kind"] != "Status" => {
            let is_list = body.get("items").is_some_and(Value::is_array);
            let body = match (is_list, want.list) {
                (true, true) => {
                    let items: Vec<Value> = body["items"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|o| partial(o, &want.version))
                        .collect();
                    json!({"kind": "PartialObjectMetadataList",
                        "apiVersion": format!("meta.k8s.io/{}", want.version),
                        "metadata": body["metadata"], "items": items})
                }
                (false, false) => partial(&body, &want.version),
                (true, false) => {
                    return not_acceptable(format!(
                        "you requested PartialObjectMetadata, but the requested object is a list ({})",
                        go_type(def, true)
                    ));
                }
                (false, true) => {
                    return not_acceptable(format!(
                        "you requested PartialObjectMetadataList, but the requested object is not a list ({})",
                        go_type(def, false)
                    ));
                }
            };
            Reply::Json {
                code,
                body,
                content_type,
                warnings,
            }
        }
        Reply::Watch(WatchStream(stream)) if !want.list => {
            let version = want.version.clone();
            let events = stream.map(move |line| {
                let Ok(mut event) = serde_json::from_slice::<Value>(&line) else {
                    return line;
                };
                if event["type"] != "ERROR" {
                    event["object"] = partial(&event["object"], &version);
                }
                let mut out = crate::support::json_order::to_vec(&event);
                out.push(b'\n');
                Bytes::from(out)
            });
            Reply::Watch(WatchStream(Box::pin(events)))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_acceptable_media_type_decides() {
        let m = requested(
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
        );
        assert_eq!(
            m,
            Some(MetadataOnly {
                list: false,
                version: "v1".into()
            })
        );
        let l = requested("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1");
        assert!(l.is_some_and(|l| l.list && l.version == "v1beta1"));
        assert_eq!(requested("application/json"), None);
        assert_eq!(
            requested(
                "application/json, application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
            ),
            None
        );
        let def = ResourceDef::named("", "v1", "ConfigMap", "configmaps");
        let list = Reply::json(
            200,
            json!({"kind": "ConfigMapList", "metadata": {}, "items": []}),
        );
        let Reply::Json { code, body, .. } = apply(
            list,
            &def,
            &MetadataOnly {
                list: false,
                version: "v1".into(),
            },
        ) else {
            panic!("a JSON reply");
        };
        assert_eq!(code, 406);
        assert_eq!(
            body["message"],
            "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)"
        );
    }
}
