//! The `paths` of a CRD group-version OpenAPI v3 document: list/create/deletecollection on
//! the collection, get/replace/patch/delete on an item, and get/replace/patch on `/status`,
//! each tagged with `x-kubernetes-action` and `x-kubernetes-group-version-kind` and listing
//! the query parameters the server accepts (kubectl looks for `fieldValidation` there to
//! decide whether the server validates fields itself).

use serde_json::{Map, Value, json};

/// What the paths of one custom resource kind are built from.
pub struct Resource<'a> {
    /// API group, e.g. `cache.example.com`.
    pub group: &'a str,
    /// Version, e.g. `v1alpha1`.
    pub version: &'a str,
    /// Kind, e.g. `Memcached`.
    pub kind: &'a str,
    /// Plural resource name, e.g. `memcacheds`.
    pub plural: &'a str,
    /// Whether the kind is namespaced.
    pub namespaced: bool,
    /// Whether the version has the status subresource.
    pub status: bool,
    /// Whether the version has the scale subresource.
    pub scale: bool,
    /// Component name of the kind's schema.
    pub schema_name: &'a str,
    /// Component name of the list kind's schema.
    pub list_schema_name: &'a str,
}

/// The tag of a group-version's operations: the group in lower camel case, `_`, the
/// version (`myCorpExampleIo_v1beta1`).
fn tag(group: &str, version: &str) -> String {
    let group = camel(group);
    let mut chars = group.chars();
    let lower = chars.next().map_or_else(
        || "core".to_string(),
        |f| f.to_lowercase().collect::<String>() + chars.as_str(),
    );
    format!("{lower}_{version}")
}

fn camel(s: &str) -> String {
    s.split(['.', '-'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn query(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "query", "description": description, "schema": {"type": "string", "uniqueItems": true}})
}

fn query_typed(name: &str, ty: &str, description: &str) -> Value {
    json!({"name": name, "in": "query", "description": description, "schema": {"type": ty, "uniqueItems": true}})
}

fn path_param(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "path", "description": description, "required": true, "schema": {"type": "string", "uniqueItems": true}})
}

fn write_params() -> Vec<Value> {
    vec![
        query(
            "dryRun",
            "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed",
        ),
        query(
            "fieldManager",
            "fieldManager is a name associated with the actor or entity that is making these changes.",
        ),
        query(
            "fieldValidation",
            "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict",
        ),
    ]
}

fn list_params() -> Vec<Value> {
    vec![
        query_typed(
            "allowWatchBookmarks",
            "boolean",
            "allowWatchBookmarks requests watch events with type \"BOOKMARK\".",
        ),
        query(
            "continue",
            "The continue option should be set when retrieving more results from the server.",
        ),
        query(
            "fieldSelector",
            "A selector to restrict the list of returned objects by their fields. Defaults to everything.",
        ),
        query(
            "labelSelector",
            "A selector to restrict the list of returned objects by their labels. Defaults to everything.",
        ),
        query_typed(
            "limit",
            "integer",
            "limit is a maximum number of responses to return for a list call.",
        ),
        query(
            "resourceVersion",
            "resourceVersion sets a constraint on what resource versions a request may be served from.",
        ),
        query(
            "resourceVersionMatch",
            "resourceVersionMatch determines how resourceVersion is applied to list calls.",
        ),
        query_typed(
            "sendInitialEvents",
            "boolean",
            "`sendInitialEvents=true` may be set together with `watch=true`.",
        ),
        query_typed(
            "timeoutSeconds",
            "integer",
            "Timeout for the list/watch call.",
        ),
        query_typed(
            "watch",
            "boolean",
            "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
        ),
    ]
}

fn delete_params() -> Vec<Value> {
    vec![
        query(
            "dryRun",
            "When present, indicates that modifications should not be persisted.",
        ),
        query_typed(
            "gracePeriodSeconds",
            "integer",
            "The duration in seconds before the object should be deleted.",
        ),
        query_typed(
            "ignoreStoreReadErrorWithClusterBreakingPotential",
            "boolean",
            "if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error.",
        ),
        query_typed(
            "orphanDependents",
            "boolean",
            "Deprecated: please use the PropagationPolicy.",
        ),
        query(
            "propagationPolicy",
            "Whether and how garbage collection will be performed.",
        ),
    ]
}

/// The parameters of the path that lists a namespaced kind in all namespaces.
fn all_namespaces_params() -> Vec<Value> {
    let mut params = list_params();
    params.push(query(
        "pretty",
        "If 'true', then the output is pretty printed.",
    ));
    params.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    params
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn content(name: &str) -> Value {
    json!({
        "application/json": {"schema": schema_ref(name)},
        "application/yaml": {"schema": schema_ref(name)},
    })
}

fn ok(name: &str, codes: &[&str]) -> Value {
    let mut r = Map::new();
    for code in codes {
        let description = match *code {
            "201" => "Created",
            "202" => "Accepted",
            _ => "OK",
        };
        r.insert(
            code.to_string(),
            json!({"description": description, "content": content(name)}),
        );
    }
    r.insert("401".into(), json!({"description": "Unauthorized"}));
    Value::Object(r)
}

fn body(name: &str) -> Value {
    json!({"content": content(name), "required": true})
}

fn patch_body() -> Value {
    let patch = schema_ref("io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
    json!({"content": {
        "application/apply-patch+yaml": {"schema": patch},
        "application/json-patch+json": {"schema": patch},
        "application/merge-patch+json": {"schema": patch},
    }, "required": true})
}

/// Builds the path items of one resource (and its status subresource) into `paths`.
pub fn insert_paths(r: &Resource<'_>, paths: &mut Map<String, Value>) {
    let gvk = json!({"group": r.group, "version": r.version, "kind": r.kind});
    let (base, gv) = if r.group.is_empty() {
        (
            format!("/api/{}", r.version),
            format!("Core{}", camel(r.version)),
        )
    } else {
        (
            format!("/apis/{}/{}", r.group, r.version),
            format!("{}{}", camel(r.group), camel(r.version)),
        )
    };
    let (collection, scope) = if r.namespaced {
        (
            format!("{base}/namespaces/{{namespace}}/{}", r.plural),
            "Namespaced",
        )
    } else {
        (format!("{base}/{}", r.plural), "")
    };
    let tag = tag(r.group, r.version);
    let op = |verb: &str, suffix: &str, action: &str| {
        json!({
            "tags": [tag.clone()],
            "description": format!("{verb} {}{suffix}", r.kind),
            "operationId": format!("{verb}{gv}{scope}{}{suffix}", r.kind),
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": gvk,
        })
    };
    let with = |mut o: Value, extra: &[(&str, Value)]| {
        for (k, v) in extra {
            o[*k] = v.clone();
        }
        o
    };
    let mut common = vec![query(
        "pretty",
        "If 'true', then the output is pretty printed.",
    )];
    if r.namespaced {
        common.insert(
            0,
            path_param(
                "namespace",
                "object name and auth scope, such as for teams and projects",
            ),
        );
    }
    paths.insert(
        collection.clone(),
        json!({
            "get": with(op("list", "", "list"), &[("parameters", Value::Array(list_params())), ("responses", ok(r.list_schema_name, &["200"]))]),
            "post": with(op("create", "", "post"), &[("parameters", Value::Array(write_params())), ("requestBody", body(r.schema_name)), ("responses", ok(r.schema_name, &["200", "201", "202"]))]),
            "delete": with(
                json!({
                    "tags": [tag.clone()],
                    "description": format!("delete collection of {}", r.kind),
                    "operationId": format!("delete{gv}Collection{scope}{}", r.kind),
                    "x-kubernetes-action": "deletecollection",
                    "x-kubernetes-group-version-kind": gvk,
                }),
                &[("parameters", Value::Array(list_params())), ("responses", ok("io.k8s.apimachinery.pkg.apis.meta.v1.Status", &["200"]))],
            ),
            "parameters": common.clone(),
        }),
    );
    if r.namespaced {
        paths.insert(
            format!("{base}/{}", r.plural),
            json!({
                "get": with(
                    json!({
                        "tags": [tag.clone()],
                        "description": format!("list objects of kind {}", r.kind),
                        "operationId": format!("list{gv}{}ForAllNamespaces", r.kind),
                        "x-kubernetes-action": "list",
                        "x-kubernetes-group-version-kind": gvk,
                    }),
                    &[("responses", ok(r.list_schema_name, &["200"]))],
                ),
                // The list options are the path's own here, with `pretty`, in name order.
                "parameters": all_namespaces_params(),
            }),
        );
    }
    let mut item_common = common.clone();
    item_common.insert(0, path_param("name", &format!("name of the {}", r.kind)));
    let item = format!("{collection}/{{name}}");
    paths.insert(
        item.clone(),
        json!({
            "get": with(op("read", "", "get"), &[("parameters", json!([query("resourceVersion", "resourceVersion sets a constraint on what resource versions a request may be served from.")])), ("responses", ok(r.schema_name, &["200"]))]),
            "put": with(op("replace", "", "put"), &[("parameters", Value::Array(write_params())), ("requestBody", body(r.schema_name)), ("responses", ok(r.schema_name, &["200", "201"]))]),
            "patch": with(op("patch", "", "patch"), &[("parameters", Value::Array([write_params(), vec![query_typed("force", "boolean", "Force is going to \"force\" Apply requests.")]].concat())), ("requestBody", patch_body()), ("responses", ok(r.schema_name, &["200"]))]),
            "delete": with(op("delete", "", "delete"), &[("parameters", Value::Array(delete_params())), ("requestBody", json!({"content": content("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions")})), ("responses", ok("io.k8s.apimachinery.pkg.apis.meta.v1.Status", &["200", "202"]))]),
            "parameters": item_common.clone(),
        }),
    );
    if r.scale {
        let scale = "io.k8s.api.autoscaling.v1.Scale";
        paths.insert(
            format!("{item}/scale"),
            json!({
                "get": with(op("read", "Scale", "get"), &[("parameters", json!([query("resourceVersion", "resourceVersion sets a constraint on what resource versions a request may be served from.")])), ("responses", ok(scale, &["200"]))]),
                "put": with(op("replace", "Scale", "put"), &[("parameters", Value::Array(write_params())), ("requestBody", body(scale)), ("responses", ok(scale, &["200", "201"]))]),
                "patch": with(op("patch", "Scale", "patch"), &[("parameters", Value::Array([write_params(), vec![query_typed("force", "boolean", "Force is going to \"force\" Apply requests.")]].concat())), ("requestBody", patch_body()), ("responses", ok(scale, &["200"]))]),
                "parameters": item_common.clone(),
            }),
        );
    }
    if r.status {
        paths.insert(
            format!("{item}/status"),
            json!({
                "get": with(op("read", "Status", "get"), &[("parameters", json!([query("resourceVersion", "resourceVersion sets a constraint on what resource versions a request may be served from.")])), ("responses", ok(r.schema_name, &["200"]))]),
                "put": with(op("replace", "Status", "put"), &[("parameters", Value::Array(write_params())), ("requestBody", body(r.schema_name)), ("responses", ok(r.schema_name, &["200", "201"]))]),
                "patch": with(op("patch", "Status", "patch"), &[("parameters", Value::Array([write_params(), vec![query_typed("force", "boolean", "Force is going to \"force\" Apply requests.")]].concat())), ("requestBody", patch_body()), ("responses", ok(r.schema_name, &["200"]))]),
                "parameters": item_common,
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::camel;

    #[test]
    fn camel_case_of_groups_and_versions() {
        assert_eq!(camel("cache.example.com"), "CacheExampleCom");
        assert_eq!(camel("v1alpha1"), "V1alpha1");
        assert_eq!(camel("my-group.io"), "MyGroupIo");
    }
}
