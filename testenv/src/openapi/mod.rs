//! OpenAPI v3 for custom resources, as the apiserver publishes it under `/openapi/v3`:
//! an index of group-versions with content hashes, and one document per group-version with
//! the kinds' schemas (`x-kubernetes-group-version-kind`, `apiVersion`/`kind`/`metadata`
//! added), their list kinds, the meta/v1 schemas they refer to, and the REST paths.
//!
//! This is what `kubectl explain <plural>` reads, and what kubectl checks to learn that the
//! server validates fields itself (`fieldValidation` on PATCH) before `kubectl apply`.
//!
//! The built-in documents (`api/v1`, `apis/apps/v1`, `apis/apps`, `version`, ...) are the
//! real server's, see [`builtin`].

pub mod builtin;
mod embedded;
mod hash;
mod meta;
mod paths;
pub mod v2;

use embedded::{Form, add_embedded_properties};
pub use hash::document_hash;
use meta::{META, METADATA_DOC, insert_meta_schemas, ref_to, ref_without_default};
use paths::{Resource, insert_paths};
use serde_json::{Map, Value, json};

const API_VERSION_DOC: &str = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const KIND_DOC: &str = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
const LIST_METADATA_DOC: &str = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// The `/openapi/v3` index: `{"paths": {"apis/<g>/<v>": {"serverRelativeURL":
/// "/openapi/v3/apis/<g>/<v>?hash=<HEX>"}}}` for every served version of the CRDs given,
/// plus the built-in documents (`api/v1`, `apis/apps/v1`, `apis/apps`, `version`, ...).
///
/// The hash is a hex digest of the document, so it changes whenever a CRD of that
/// group-version changes (clients cache documents by it).
pub fn openapi_v3_paths(crds: &[Value]) -> Value {
    let mut paths = Map::new();
    for crd in crds {
        let group = str_at(crd, &["spec", "group"]);
        for v in versions(crd) {
            let name = v.get("name").and_then(Value::as_str).unwrap_or("");
            let key = builtin::index_key(group, name);
            if v.get("served").and_then(Value::as_bool) != Some(true)
                || name.is_empty()
                || paths.contains_key(&key)
            {
                continue;
            }
            if let Some(doc) = openapi_v3_group_version(crds, group, name) {
                let hash = document_hash(&doc);
                paths.insert(
                    key.clone(),
                    json!({"serverRelativeURL": format!("/openapi/v3/{key}?hash={hash}")}),
                );
            }
        }
    }
    for d in builtin::documents() {
        paths.entry(d.key.clone()).or_insert_with(
            || json!({"serverRelativeURL": format!("/openapi/v3/{}?hash={}", d.key, d.hash)}),
        );
    }
    json!({ "paths": paths })
}

/// The document of an index key (`api/v1`, `apis/<g>/<v>`, `apis/<g>`, `version`, ...):
/// a CRD group-version's, else a built-in one; `None` when nothing serves it.
pub fn openapi_v3_document(crds: &[Value], key: &str) -> Option<Value> {
    if let Some(["apis", g, v]) = Some(key.split('/').collect::<Vec<_>>().as_slice())
        && let Some(doc) = openapi_v3_group_version(crds, g, v)
    {
        return Some(doc);
    }
    builtin::find(key).map(|d| d.doc.clone())
}

/// The OpenAPI v3 document for one group/version of CRDs, or `None` when no CRD serves it.
///
/// Schemas are keyed as the real server keys them: the group's labels reversed, the version
/// and the kind (`com.example.cache.v1alpha1.Memcached`, `...MemcachedList`).
pub fn openapi_v3_group_version(crds: &[Value], group: &str, version: &str) -> Option<Value> {
    group_version_document(crds, group, version, Form::V3)
}

/// The document of a custom group-version; the embedded-resource properties are added to
/// the kinds' schemas in the v3 form, and left for the v2 builder to add after its
/// conversion with [`Form::V2`].
fn group_version_document(crds: &[Value], group: &str, version: &str, form: Form) -> Option<Value> {
    let mut schemas = Map::new();
    let mut paths = Map::new();
    let mut found = false;
    for crd in crds {
        if str_at(crd, &["spec", "group"]) != group {
            continue;
        }
        let Some(v) = versions(crd).iter().find(|v| {
            v.get("name").and_then(Value::as_str) == Some(version)
                && v.get("served").and_then(Value::as_bool) == Some(true)
        }) else {
            continue;
        };
        found = true;
        let kind = str_at(crd, &["spec", "names", "kind"]);
        let list_kind = match str_at(crd, &["spec", "names", "listKind"]) {
            "" => format!("{kind}List"),
            lk => lk.to_string(),
        };
        let plural = str_at(crd, &["spec", "names", "plural"]);
        let prefix = format!("{}.{version}", reverse_group(group));
        let name = format!("{prefix}.{kind}");
        let list_name = format!("{prefix}.{list_kind}");
        let schema = v
            .get("schema")
            .and_then(|s| s.get("openAPIV3Schema"))
            .cloned()
            .unwrap_or_else(
                || json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            );
        let mut schema = kind_schema(schema, group, version, kind);
        if form == Form::V3 {
            add_embedded_properties(&mut schema, Form::V3);
        }
        schemas.insert(name.clone(), schema);
        schemas.insert(
            list_name.clone(),
            list_schema(&name, group, version, kind, &list_kind, plural),
        );
        let status = v
            .get("subresources")
            .and_then(|s| s.get("status"))
            .is_some_and(|s| !s.is_null());
        let scale = v
            .get("subresources")
            .and_then(|s| s.get("scale"))
            .is_some_and(|s| !s.is_null());
        insert_paths(
            &Resource {
                group,
                version,
                kind,
                plural,
                namespaced: str_at(crd, &["spec", "scope"]) == "Namespaced",
                status,
                scale,
                schema_name: &name,
                list_schema_name: &list_name,
            },
            &mut paths,
        );
    }
    if !found {
        return None;
    }
    insert_meta_schemas(&mut schemas);
    insert_reached_builtin_schemas(&paths, &mut schemas);
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }))
}

/// Adds the built-in schemas the document refers to but does not carry (the scale
/// subresource's `io.k8s.api.autoscaling.v1.Scale` and what it reaches).
fn insert_reached_builtin_schemas(paths: &Map<String, Value>, schemas: &mut Map<String, Value>) {
    const PREFIX: &str = "#/components/schemas/";
    loop {
        let text = format!(
            "{}{}",
            Value::Object(paths.clone()),
            Value::Object(schemas.clone())
        );
        let missing: Vec<String> = text
            .split(PREFIX)
            .skip(1)
            .filter_map(|part| part.split('"').next())
            .filter(|name| !schemas.contains_key(*name))
            .map(str::to_string)
            .collect();
        let mut added = false;
        for name in missing {
            if let Some(s) = builtin::schemas().get(&name) {
                schemas.insert(name, s.clone());
                added = true;
            }
        }
        if !added {
            return;
        }
    }
}

/// `cache.example.com` becomes `com.example.cache`, as in the real component names.
pub fn reverse_group(group: &str) -> String {
    group.split('.').rev().collect::<Vec<_>>().join(".")
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    let mut cur = v;
    for p in path {
        match cur.get(p) {
            Some(n) => cur = n,
            None => return "",
        }
    }
    cur.as_str().unwrap_or("")
}

fn versions(crd: &Value) -> &[Value] {
    crd.get("spec")
        .and_then(|s| s.get("versions"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn gvk(group: &str, version: &str, kind: &str) -> Value {
    json!([{"group": group, "kind": kind, "version": version}])
}

fn kind_schema(mut schema: Value, group: &str, version: &str, kind: &str) -> Value {
    if !schema.is_object() {
        schema = json!({"type": "object"});
    }
    let obj = schema.as_object_mut().expect("object schema");
    obj.entry("type").or_insert_with(|| json!("object"));
    let props = obj
        .entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    if let Some(props) = props {
        props
            .entry("apiVersion")
            .or_insert_with(|| json!({"type": "string", "description": API_VERSION_DOC}));
        props
            .entry("kind")
            .or_insert_with(|| json!({"type": "string", "description": KIND_DOC}));
        let mut m = ref_to(&format!("{META}.ObjectMeta"), METADATA_DOC);
        m.as_object_mut().map(|m| m.remove("default"));
        props.insert("metadata".into(), m);
    }
    obj.insert(
        "x-kubernetes-group-version-kind".into(),
        gvk(group, version, kind),
    );
    schema
}

fn list_schema(
    item_name: &str,
    group: &str,
    version: &str,
    kind: &str,
    list_kind: &str,
    plural: &str,
) -> Value {
    json!({
        "description": format!("{list_kind} is a list of {kind}"),
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": {"type": "string", "description": API_VERSION_DOC},
            "items": {
                "type": "array",
                "description": format!("List of {plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"),
                "items": {"$ref": format!("#/components/schemas/{item_name}")},
            },
            "kind": {"type": "string", "description": KIND_DOC},
            "metadata": ref_without_default(&format!("{META}.ListMeta"), LIST_METADATA_DOC),
        },
        "x-kubernetes-group-version-kind": gvk(group, version, list_kind),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Value {
        json!({
            "metadata": {"name": "memcacheds.cache.example.com"},
            "spec": {"group": "cache.example.com", "scope": "Namespaced",
                "names": {"plural": "memcacheds", "kind": "Memcached", "listKind": "MemcachedList"},
                "versions": [
                    {"name": "v1alpha1", "served": true, "storage": true, "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.size"}},
                     "schema": {"openAPIV3Schema": {"type": "object", "description": "Memcached is the Schema for the memcacheds API",
                        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer", "description": "Size of the cluster"}}},
                                       "metadata": {"type": "object"}}}}},
                    {"name": "v1beta1", "served": false, "storage": false}
                ]}
        })
    }

    #[test]
    fn index_lists_served_group_versions_with_a_content_hash() {
        let index = openapi_v3_paths(&[crd()]);
        let paths = index["paths"].as_object().unwrap();
        assert!(paths.contains_key("api/v1"));
        assert!(paths.contains_key("apis/apps/v1"));
        assert!(paths.contains_key("apis/apiextensions.k8s.io/v1"));
        let url = paths["apis/cache.example.com/v1alpha1"]["serverRelativeURL"]
            .as_str()
            .unwrap();
        let doc = openapi_v3_group_version(&[crd()], "cache.example.com", "v1alpha1").unwrap();
        let apps = openapi_v3_document(&[], "apis/apps/v1").unwrap();
        assert_eq!(
            paths["apis/apps/v1"]["serverRelativeURL"],
            format!("/openapi/v3/apis/apps/v1?hash={}", document_hash(&apps))
        );
        assert_eq!(
            url,
            format!(
                "/openapi/v3/apis/cache.example.com/v1alpha1?hash={}",
                document_hash(&doc)
            )
        );
        let mut changed = crd();
        changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = json!("x");
        assert_ne!(openapi_v3_paths(&[changed]), index);
        assert!(openapi_v3_group_version(&[crd()], "cache.example.com", "v1beta1").is_none());
        assert!(!paths.contains_key("apis/cache.example.com/v1beta1"));
    }

    #[test]
    fn built_in_documents_let_kubectl_find_field_validation() {
        let doc = openapi_v3_document(&[], "apis/apps/v1").unwrap();
        let schemas = &doc["components"]["schemas"];
        assert_eq!(
            schemas["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"][0]["kind"],
            "Deployment"
        );
        let patch =
            &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
        assert_eq!(
            patch["x-kubernetes-group-version-kind"]["kind"],
            "Deployment"
        );
        assert!(
            patch["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "fieldValidation")
        );
        // Listed as the real server lists it: the schemas carry the merge keys kubectl needs.
        assert!(
            patch["requestBody"]["content"]
                .get("application/strategic-merge-patch+json")
                .is_some()
        );
        assert_eq!(
            schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]["x-kubernetes-patch-merge-key"],
            "name"
        );
        let core = openapi_v3_document(&[], "api/v1").unwrap();
        assert_eq!(
            core["paths"]["/api/v1/namespaces/{namespace}/pods"]["post"]["operationId"],
            "createCoreV1NamespacedPod"
        );
        assert!(core["paths"]["/api/v1/namespaces/{name}"]["put"].is_object());
        assert!(openapi_v3_document(&[], "apis/nope.example.com/v1").is_none());
    }

    #[test]
    fn group_version_document_has_kind_list_and_meta_schemas_and_paths() {
        let doc = openapi_v3_group_version(&[crd()], "cache.example.com", "v1alpha1").unwrap();
        let schemas = &doc["components"]["schemas"];
        let kind = &schemas["com.example.cache.v1alpha1.Memcached"];
        assert_eq!(
            kind["x-kubernetes-group-version-kind"],
            json!([{"group": "cache.example.com", "kind": "Memcached", "version": "v1alpha1"}])
        );
        assert_eq!(
            kind["properties"]["spec"]["properties"]["size"]["type"],
            "integer"
        );
        assert_eq!(kind["properties"]["apiVersion"]["type"], "string");
        assert_eq!(
            kind["properties"]["metadata"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        );
        let list = &schemas["com.example.cache.v1alpha1.MemcachedList"];
        assert_eq!(
            list["properties"]["items"]["items"]["$ref"],
            "#/components/schemas/com.example.cache.v1alpha1.Memcached"
        );
        assert_eq!(
            list["x-kubernetes-group-version-kind"][0]["kind"],
            "MemcachedList"
        );
        assert!(
            schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["labels"]
                .is_object()
        );
        // every $ref resolves
        let text = doc.to_string();
        for part in text.split("#/components/schemas/").skip(1) {
            let name = &part[..part.find('"').unwrap()];
            assert!(schemas.get(name).is_some(), "dangling $ref {name}");
        }
        let item = &doc["paths"]["/apis/cache.example.com/v1alpha1/namespaces/{namespace}/memcacheds/{name}"];
        assert_eq!(item["patch"]["x-kubernetes-action"], "patch");
        assert_eq!(
            item["patch"]["x-kubernetes-group-version-kind"]["kind"],
            "Memcached"
        );
        assert!(
            item["patch"]["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "fieldValidation")
        );
        assert!(doc["paths"]["/apis/cache.example.com/v1alpha1/namespaces/{namespace}/memcacheds/{name}/status"].is_object());
        assert!(doc["paths"]["/apis/cache.example.com/v1alpha1/memcacheds"]["get"].is_object());
        let scale = &doc["paths"]["/apis/cache.example.com/v1alpha1/namespaces/{namespace}/memcacheds/{name}/scale"];
        assert_eq!(
            scale["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"
        );
        assert!(schemas["io.k8s.api.autoscaling.v1.ScaleSpec"].is_object());
    }
}
