//! The `paths` of a built-in group-version document, laid out as kube-apiserver's endpoint
//! installer lays them out: per resource the collection, item, all-namespaces and watch paths
//! for the verbs it serves, and per subresource its own path (connect operations for the
//! `*Options` kinds of exec, attach, port-forward and the proxies, whose `/{path}` variants
//! follow); parameters every operation of a path shares are listed once on the path.

use serde_json::{Map, Value, json};

use super::names::{component_prefix, gv_camel, tag};
use crate::support::resource::ResourceDef;

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1";

/// One parameter: name, where it is (`query`, `path`), type, required.
type Param = (&'static str, &'static str, &'static str, bool);

const PRETTY: Param = ("pretty", "query", "string", false);
const NAMESPACE: Param = ("namespace", "path", "string", true);
const NAME: Param = ("name", "path", "string", true);
const FORCE: Param = ("force", "query", "boolean", false);
const LIST: &[Param] = &[
    ("allowWatchBookmarks", "query", "boolean", false),
    ("continue", "query", "string", false),
    ("fieldSelector", "query", "string", false),
    ("labelSelector", "query", "string", false),
    ("limit", "query", "integer", false),
    ("resourceVersion", "query", "string", false),
    ("resourceVersionMatch", "query", "string", false),
    ("sendInitialEvents", "query", "boolean", false),
    ("timeoutSeconds", "query", "integer", false),
    ("watch", "query", "boolean", false),
];
const WRITE: &[Param] = &[
    ("dryRun", "query", "string", false),
    ("fieldManager", "query", "string", false),
    ("fieldValidation", "query", "string", false),
];
const DELETE: &[Param] = &[
    ("dryRun", "query", "string", false),
    ("gracePeriodSeconds", "query", "integer", false),
    (
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "query",
        "boolean",
        false,
    ),
    ("orphanDependents", "query", "boolean", false),
    ("propagationPolicy", "query", "string", false),
];
const LOG: &[Param] = &[
    ("container", "query", "string", false),
    ("follow", "query", "boolean", false),
    ("insecureSkipTLSVerifyBackend", "query", "boolean", false),
    ("limitBytes", "query", "integer", false),
    ("previous", "query", "boolean", false),
    ("sinceSeconds", "query", "integer", false),
    ("stream", "query", "string", false),
    ("tailLines", "query", "integer", false),
    ("timestamps", "query", "boolean", false),
];
const STREAMS: &[Param] = &[
    ("container", "query", "string", false),
    ("stderr", "query", "boolean", false),
    ("stdin", "query", "boolean", false),
    ("stdout", "query", "boolean", false),
    ("tty", "query", "boolean", false),
];
const PATCH_TYPES: &[&str] = &[
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
];
const OBJECT_TYPES: &[&str] = &[
    "application/json",
    "application/vnd.kubernetes.protobuf",
    "application/yaml",
];
const LIST_TYPES: &[&str] = &[
    "application/json",
    "application/json;stream=watch",
    "application/vnd.kubernetes.protobuf",
    "application/vnd.kubernetes.protobuf;stream=watch",
    "application/yaml",
];

fn param(p: &Param) -> Value {
    let mut v = json!({"name": p.0, "in": p.1, "schema": {"type": p.2, "uniqueItems": true}});
    if p.3 {
        v["required"] = json!(true);
    }
    v
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// Responses: each code with `schema` under every content type, then 401.
fn responses(codes: &[&str], schema: &Value, types: &[&str]) -> Value {
    let mut r = Map::new();
    for code in codes {
        let content: Map<String, Value> = types
            .iter()
            .map(|t| (t.to_string(), json!({"schema": schema})))
            .collect();
        let description = match *code {
            "201" => "Created",
            "202" => "Accepted",
            _ => "OK",
        };
        r.insert(
            code.to_string(),
            json!({"description": description, "content": content}),
        );
    }
    r.insert("401".into(), json!({"description": "Unauthorized"}));
    Value::Object(r)
}

fn body(schema: &str, required: bool) -> Value {
    let mut b = json!({"content": {"*/*": {"schema": schema_ref(schema)}}});
    if required {
        b["required"] = json!(true);
    }
    b
}

fn patch_body() -> Value {
    let content: Map<String, Value> = PATCH_TYPES
        .iter()
        .map(|t| {
            (
                t.to_string(),
                json!({"schema": schema_ref(&format!("{META}.Patch"))}),
            )
        })
        .collect();
    json!({"content": content, "required": true})
}

/// One operation before its parameters are split between it and its path.
struct Op {
    method: &'static str,
    id: String,
    action: Option<&'static str>,
    gvk: Option<(String, String, String)>,
    params: Vec<Param>,
    body: Option<Value>,
    responses: Value,
}

/// The operations of a group-version, path by path, in the order they were added.
pub struct Paths {
    tag: String,
    items: Vec<(String, Vec<Op>)>,
}

impl Paths {
    fn add(&mut self, path: String, op: Op) {
        match self.items.iter_mut().find(|(p, _)| *p == path) {
            Some((_, ops)) => ops.push(op),
            None => self.items.push((path, vec![op])),
        }
    }

    /// The `paths` object: parameters shared by every operation of a path go to the path,
    /// sorted by name as the real server sorts them.
    pub fn into_json(self) -> Value {
        let mut out = Map::new();
        for (path, ops) in self.items {
            let shared: Vec<Param> = ops[0]
                .params
                .iter()
                .filter(|p| ops.iter().all(|o| o.params.contains(p)))
                .copied()
                .collect();
            let sorted = |mut ps: Vec<Param>| {
                ps.sort_by(|a, b| a.0.cmp(b.0).then(a.1.cmp(b.1)));
                ps.iter().map(param).collect::<Vec<_>>()
            };
            let mut item = Map::new();
            for op in ops {
                let own: Vec<Param> = op
                    .params
                    .iter()
                    .filter(|p| !shared.contains(p))
                    .copied()
                    .collect();
                let mut o = json!({"tags": [self.tag], "operationId": op.id});
                if !own.is_empty() {
                    o["parameters"] = json!(sorted(own));
                }
                if let Some(b) = op.body {
                    o["requestBody"] = b;
                }
                o["responses"] = op.responses;
                if let Some(a) = op.action {
                    o["x-kubernetes-action"] = json!(a);
                }
                if let Some((g, v, k)) = op.gvk {
                    o["x-kubernetes-group-version-kind"] =
                        json!({"group": g, "version": v, "kind": k});
                }
                item.insert(op.method.to_ascii_lowercase(), o);
            }
            if !shared.is_empty() {
                item.insert("parameters".into(), json!(sorted(shared)));
            }
            out.insert(path, Value::Object(item));
        }
        Value::Object(out)
    }
}

/// The path of a group version: `/api/v1`, `/apis/apps/v1`.
fn base(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The paths of one built-in group-version serving `resources`.
pub fn group_version_paths(group: &str, version: &str, resources: &[&ResourceDef]) -> Paths {
    let base = base(group, version);
    let gv = gv_camel(group, version);
    let mut paths = Paths {
        tag: tag(group, Some(version)),
        items: Vec::new(),
    };
    paths.add(
        format!("{base}/"),
        Op {
            method: "GET",
            id: format!("get{gv}APIResources"),
            action: None,
            gvk: None,
            params: Vec::new(),
            body: None,
            responses: responses(
                &["200"],
                &schema_ref(&format!("{META}.APIResourceList")),
                OBJECT_TYPES,
            ),
        },
    );
    for def in resources {
        resource_paths(&mut paths, &base, &gv, def);
    }
    paths
}

fn resource_paths(paths: &mut Paths, base: &str, gv: &str, def: &ResourceDef) {
    let kind = def.kind.as_str();
    let plural = def.plural.as_str();
    let prefix = component_prefix(&def.group, &def.version);
    let object = format!("{prefix}.{kind}");
    let list = format!("{object}List");
    let gvk = || Some((def.group.clone(), def.version.clone(), def.kind.clone()));
    let (scope, collection, scope_params): (&str, String, Vec<Param>) = if def.namespaced {
        (
            "Namespaced",
            format!("{base}/namespaces/{{namespace}}/{plural}"),
            vec![NAMESPACE],
        )
    } else {
        ("", format!("{base}/{plural}"), Vec::new())
    };
    let with = |extra: &[Param]| -> Vec<Param> {
        let mut v = scope_params.clone();
        v.push(PRETTY);
        v.extend_from_slice(extra);
        v
    };
    let item_with = |extra: &[Param]| -> Vec<Param> {
        let mut v = scope_params.clone();
        v.extend([NAME, PRETTY]);
        v.extend_from_slice(extra);
        v
    };
    let op = |method, id: String, action, params, body, responses| Op {
        method,
        id,
        action: Some(action),
        gvk: gvk(),
        params,
        body,
        responses,
    };
    let obj = schema_ref(&object);
    let status = schema_ref(&format!("{META}.Status"));
    if def.allows("list") {
        let r = responses(&["200"], &schema_ref(&list), LIST_TYPES);
        let id = format!("list{gv}{scope}{kind}");
        paths.add(
            collection.clone(),
            op("GET", id, "list", with(LIST), None, r),
        );
    }
    if def.allows("create") {
        let r = responses(&["200", "201", "202"], &obj, OBJECT_TYPES);
        let id = format!("create{gv}{scope}{kind}");
        let b = Some(body(&object, true));
        paths.add(
            collection.clone(),
            op("POST", id, "post", with(WRITE), b, r),
        );
    }
    if def.allows("deletecollection") {
        let mut ps: Vec<Param> = DELETE.to_vec();
        ps.extend(
            LIST.iter()
                .filter(|p| !matches!(p.0, "allowWatchBookmarks" | "watch")),
        );
        let r = responses(&["200"], &status, OBJECT_TYPES);
        let id = format!("delete{gv}Collection{scope}{kind}");
        let b = Some(body(&format!("{META}.DeleteOptions"), false));
        let o = op("DELETE", id, "deletecollection", with(&ps), b, r);
        paths.add(collection.clone(), o);
    }
    let item = format!("{collection}/{{name}}");
    if def.allows("get") {
        let r = responses(&["200"], &obj, OBJECT_TYPES);
        let id = format!("read{gv}{scope}{kind}");
        paths.add(item.clone(), op("GET", id, "get", item_with(&[]), None, r));
    }
    if def.allows("update") {
        let r = responses(&["200", "201"], &obj, OBJECT_TYPES);
        let id = format!("replace{gv}{scope}{kind}");
        let b = Some(body(&object, true));
        paths.add(item.clone(), op("PUT", id, "put", item_with(WRITE), b, r));
    }
    if def.allows("delete") {
        let deleted = if def.returns_deleted_object {
            &obj
        } else {
            &status
        };
        let r = responses(&["200", "202"], deleted, OBJECT_TYPES);
        let id = format!("delete{gv}{scope}{kind}");
        let b = Some(body(&format!("{META}.DeleteOptions"), false));
        paths.add(
            item.clone(),
            op("DELETE", id, "delete", item_with(DELETE), b, r),
        );
    }
    if def.allows("patch") {
        let r = responses(&["200", "201"], &obj, OBJECT_TYPES);
        let id = format!("patch{gv}{scope}{kind}");
        let mut ps = WRITE.to_vec();
        ps.push(FORCE);
        let o = op("PATCH", id, "patch", item_with(&ps), Some(patch_body()), r);
        paths.add(item.clone(), o);
    }
    if def.namespaced && def.allows("list") {
        let r = responses(&["200"], &schema_ref(&list), LIST_TYPES);
        let id = format!("list{gv}{kind}ForAllNamespaces");
        let mut ps = vec![PRETTY];
        ps.extend_from_slice(LIST);
        paths.add(
            format!("{base}/{plural}"),
            op("GET", id, "list", ps, None, r),
        );
    }
    if def.allows("watch") {
        let event = schema_ref(&format!("{META}.WatchEvent"));
        let r = || responses(&["200"], &event, LIST_TYPES);
        let watch = if def.namespaced {
            format!("{base}/watch/namespaces/{{namespace}}/{plural}")
        } else {
            format!("{base}/watch/{plural}")
        };
        let id = format!("watch{gv}{scope}{kind}List");
        paths.add(
            watch.clone(),
            op("GET", id, "watchlist", with(LIST), None, r()),
        );
        let id = format!("watch{gv}{scope}{kind}");
        let o = op("GET", id, "watch", item_with(LIST), None, r());
        paths.add(format!("{watch}/{{name}}"), o);
        if def.namespaced {
            let id = format!("watch{gv}{kind}ListForAllNamespaces");
            let mut ps = vec![PRETTY];
            ps.extend_from_slice(LIST);
            let o = op("GET", id, "watchlist", ps, None, r());
            paths.add(format!("{base}/watch/{plural}"), o);
        }
    }
    for sub in &def.subresources {
        let (sg, sv) = if sub.group.is_empty() {
            (def.group.as_str(), def.version.as_str())
        } else {
            (sub.group.as_str(), sub.version.as_str())
        };
        let sub_gvk = Some((sg.to_string(), sv.to_string(), sub.kind.clone()));
        let sub_object = format!("{}.{}", component_prefix(sg, sv), sub.kind);
        let sub_obj = schema_ref(&sub_object);
        let path = format!("{item}/{}", sub.name);
        let name = format!("{kind}{}", capitalized(&sub.name));
        let sop = |method, id: String, action, params, body, responses| Op {
            method,
            id,
            action: Some(action),
            gvk: sub_gvk.clone(),
            params,
            body,
            responses,
        };
        let string = json!({"type": "string"});
        if sub.kind.ends_with("Options") {
            // exec, attach, port-forward and the proxies: connect operations.
            let (methods, extra): (&[&str], &[Param]) = match sub.name.as_str() {
                "exec" => (
                    &["GET", "POST"],
                    &[
                        ("command", "query", "string", false),
                        STREAMS[0],
                        STREAMS[1],
                        STREAMS[2],
                        STREAMS[3],
                        STREAMS[4],
                    ],
                ),
                "attach" => (&["GET", "POST"], STREAMS),
                "portforward" => (&["GET", "POST"], &[("ports", "query", "integer", false)]),
                _ => (
                    &["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"],
                    &[("path", "query", "string", false)],
                ),
            };
            let mut ps = scope_params.clone();
            ps.push(NAME);
            ps.extend_from_slice(extra);
            let variants: &[(&str, &str)] = if sub.name == "proxy" {
                &[("", ""), ("/{path}", "WithPath")]
            } else {
                &[("", "")]
            };
            for (suffix, id_suffix) in variants {
                let mut ps = ps.clone();
                if !suffix.is_empty() {
                    ps.push(("path", "path", "string", true));
                }
                for m in methods {
                    let id = format!(
                        "connect{gv}{}{scope}{name}{id_suffix}",
                        capitalized(&m.to_ascii_lowercase())
                    );
                    let r = responses(&["200"], &string, &["*/*"]);
                    paths.add(
                        format!("{path}{suffix}"),
                        sop(m, id, "connect", ps.clone(), None, r),
                    );
                }
            }
            continue;
        }
        if sub.name == "log" {
            let types = [
                "application/json",
                "application/vnd.kubernetes.protobuf",
                "application/yaml",
                "text/plain",
            ];
            let r = responses(&["200"], &string, &types);
            let id = format!("read{gv}{scope}{name}");
            paths.add(path, sop("GET", id, "get", item_with(LOG), None, r));
            continue;
        }
        if sub.verbs.contains(&"get") {
            let r = responses(&["200"], &sub_obj, OBJECT_TYPES);
            let id = format!("read{gv}{scope}{name}");
            paths.add(path.clone(), sop("GET", id, "get", item_with(&[]), None, r));
        }
        if sub.verbs.contains(&"update") {
            let r = responses(&["200", "201"], &sub_obj, OBJECT_TYPES);
            let id = format!("replace{gv}{scope}{name}");
            let b = Some(body(&sub_object, true));
            paths.add(path.clone(), sop("PUT", id, "put", item_with(WRITE), b, r));
        }
        if sub.verbs.contains(&"patch") {
            let r = responses(&["200", "201"], &sub_obj, OBJECT_TYPES);
            let id = format!("patch{gv}{scope}{name}");
            let mut ps = WRITE.to_vec();
            ps.push(FORCE);
            let o = sop("PATCH", id, "patch", item_with(&ps), Some(patch_body()), r);
            paths.add(path.clone(), o);
        }
        if sub.verbs.contains(&"create") {
            let r = responses(&["200", "201", "202"], &sub_obj, OBJECT_TYPES);
            let id = format!("create{gv}{scope}{name}");
            let b = Some(body(&sub_object, true));
            paths.add(
                path.clone(),
                sop("POST", id, "post", item_with(WRITE), b, r),
            );
        }
    }
}

/// A single GET operation (the group, root and well-known documents).
pub fn single_get(tag: &str, path: &str, id: &str, schema: Value, types: &[&str]) -> Value {
    let mut paths = Paths {
        tag: tag.to_string(),
        items: Vec::new(),
    };
    paths.add(
        path.to_string(),
        Op {
            method: "GET",
            id: id.to_string(),
            action: None,
            gvk: None,
            params: Vec::new(),
            body: None,
            responses: responses(&["200"], &schema, types),
        },
    );
    paths.into_json()
}
