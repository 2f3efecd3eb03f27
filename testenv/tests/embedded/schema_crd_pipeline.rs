//! The CRD path end to end, as the server runs it: a CRD as controller-gen and kube-derive
//! write them passes the structural checks, and an object goes through prune, defaults and
//! validation with the real server's messages.

use kube::CustomResource;
use kubeforge_testenv::schema::{
    FieldError, apply_defaults, check_structural, prune, strict_decoding_error, validate,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A CRD shaped like the one `kubebuilder create api` + controller-gen produce for Memcached.
fn memcached_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "memcacheds.cache.example.com", "annotations": {"controller-gen.kubebuilder.io/version": "v0.18.0"}},
        "spec": {
            "group": "cache.example.com",
            "names": {"kind": "Memcached", "listKind": "MemcachedList", "plural": "memcacheds", "singular": "memcached"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1alpha1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
                "schema": {"openAPIV3Schema": {
                    "description": "Memcached is the Schema for the memcacheds API",
                    "type": "object",
                    "properties": {
                        "apiVersion": {"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."},
                        "kind": {"type": "string", "description": "Kind is a string value representing the REST resource this object represents."},
                        "metadata": {"type": "object"},
                        "spec": {
                            "type": "object",
                            "description": "MemcachedSpec defines the desired state of Memcached",
                            "required": ["image"],
                            "properties": {
                                "size": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 5, "default": 1},
                                "image": {"type": "string", "pattern": "^[a-z0-9./:-]+$"},
                                "mode": {"type": "string", "enum": ["Simple", "HA"], "default": "Simple"},
                                "containerPort": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3, "x-kubernetes-list-type": "set"}
                            }
                        },
                        "status": {
                            "type": "object",
                            "properties": {
                                "conditions": {
                                    "type": "array",
                                    "x-kubernetes-list-type": "map",
                                    "x-kubernetes-list-map-keys": ["type"],
                                    "items": {
                                        "type": "object",
                                        "required": ["lastTransitionTime", "message", "reason", "status", "type"],
                                        "properties": {
                                            "lastTransitionTime": {"type": "string", "format": "date-time"},
                                            "message": {"type": "string", "maxLength": 32768},
                                            "observedGeneration": {"type": "integer", "format": "int64", "minimum": 0},
                                            "reason": {"type": "string", "maxLength": 1024, "minLength": 1, "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"},
                                            "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                                            "type": {"type": "string", "maxLength": 316, "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"}
                                        }
                                    }
                                }
                            }
                        }
                    }
                }}
            }]
        }
    })
}

fn schema() -> Value {
    memcached_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"].clone()
}

fn messages(errors: &[FieldError]) -> Vec<String> {
    errors.iter().map(FieldError::to_message).collect()
}

#[test]
fn controller_gen_crd_is_structural() {
    assert_eq!(check_structural(&memcached_crd()), Ok(()));
}

#[test]
fn object_is_pruned_defaulted_and_validated() {
    let mut object = json!({
        "apiVersion": "cache.example.com/v1alpha1", "kind": "Memcached",
        "metadata": {"name": "m", "namespace": "default", "labels": {"app": "m"}},
        "spec": {"image": "memcached:1.6", "extra": true, "tags": ["a"]},
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Ok", "message": "",
            "lastTransitionTime": "2024-01-01T00:00:00Z", "unknown": 1}]}
    });
    let pruned = prune(&mut object, &schema());
    assert_eq!(pruned, [".spec.extra", ".status.conditions[0].unknown"]);
    assert_eq!(
        strict_decoding_error(&pruned),
        r#"strict decoding error: unknown field "spec.extra", unknown field "status.conditions[0].unknown""#
    );
    apply_defaults(&mut object, &schema());
    assert_eq!(object["spec"]["size"], 1);
    assert_eq!(object["spec"]["mode"], "Simple");
    assert_eq!(object["metadata"]["labels"]["app"], "m");
    assert!(validate(&object, &schema()).is_empty());
}

#[test]
fn invalid_objects_get_the_real_messages() {
    let object = json!({
        "apiVersion": "cache.example.com/v1alpha1", "kind": "Memcached", "metadata": {"name": "m"},
        "spec": {"size": 7, "mode": "Cluster", "image": "Bad Image", "tags": ["a", "b", "c", "a"], "containerPort": 1.5},
        "status": {"conditions": [
            {"type": "Ready", "status": "Yes", "reason": "Ok", "message": "", "lastTransitionTime": "yesterday"},
            {"type": "Ready", "status": "True", "reason": "Ok", "message": "", "lastTransitionTime": "2024-01-01T00:00:00Z"}
        ]}
    });
    assert_eq!(
        messages(&validate(&object, &schema())),
        [
            r#"spec.containerPort: Invalid value: "number": spec.containerPort in body must be of type integer,string: "number""#,
            r#"spec.image: Invalid value: "Bad Image": spec.image in body should match '^[a-z0-9./:-]+$'"#,
            r#"spec.mode: Unsupported value: "Cluster": supported values: "Simple", "HA""#,
            "spec.size: Invalid value: 7: spec.size in body should be less than or equal to 5",
            "spec.tags: Too many: 4: must have at most 3 items",
            r#"status.conditions[0].lastTransitionTime: Invalid value: "yesterday": status.conditions[0].lastTransitionTime in body must be of type date-time: "yesterday""#,
            r#"status.conditions[0].status: Unsupported value: "Yes": supported values: "True", "False", "Unknown""#,
            r#"spec.tags[3]: Duplicate value: "a""#,
            r#"status.conditions[1]: Duplicate value: {"type":"Ready"}"#,
        ]
    );
}

#[test]
fn non_structural_crd_is_rejected() {
    let mut crd = memcached_crd();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["free"] =
        json!({"description": "no type"});
    let errors = check_structural(&crd).unwrap_err();
    assert_eq!(
        messages(&errors),
        [
            "spec.validation.openAPIV3Schema.properties[spec].properties[free].type: Required value: must not be empty for specified object fields"
        ]
    );
    assert_eq!(errors[0].reason(), "FieldValueRequired");
}

/// A spec as an operator written in Rust declares it.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Cache",
    namespaced,
    status = "CacheStatus"
)]
pub struct CacheSpec {
    /// Number of replicas.
    pub size: i32,
    /// Optional image override.
    pub image: Option<String>,
    /// Ports to expose.
    #[serde(default)]
    pub ports: Vec<CachePort>,
    /// Free-form labels.
    #[serde(default)]
    pub labels: std::collections::BTreeMap<String, String>,
}

/// One exposed port.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct CachePort {
    /// Port name.
    pub name: String,
    /// Port number.
    pub port: u16,
}

/// Observed state.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct CacheStatus {
    /// Ready replicas.
    pub ready: Option<i32>,
}

#[test]
fn kube_derive_crd_is_structural_and_validates() {
    use kube::CustomResourceExt;
    let crd = serde_json::to_value(Cache::crd()).unwrap();
    assert_eq!(check_structural(&crd), Ok(()));
    let schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"].clone();
    let mut object = serde_json::to_value(Cache::new(
        "c",
        CacheSpec {
            size: 2,
            image: None,
            ports: vec![CachePort {
                name: "http".into(),
                port: 80,
            }],
            labels: [("a".to_string(), "b".to_string())].into(),
        },
    ))
    .unwrap();
    assert!(prune(&mut object, &schema).is_empty(), "{object:#}");
    apply_defaults(&mut object, &schema);
    assert_eq!(messages(&validate(&object, &schema)), Vec::<String>::new());
    object["spec"]["size"] = json!("two");
    assert_eq!(
        messages(&validate(&object, &schema)),
        [
            r#"spec.size: Invalid value: "string": spec.size in body must be of type integer: "string""#
        ]
    );
}
