//! `apiextensions.k8s.io/v1`: CustomResourceDefinition, with its status (the accepted names and
//! conditions the server's controllers put to `/status`) and the whole JSONSchemaProps tree: `double`
//! bounds, JSON values (`default`, `enum`, `example`) and the custom JSON of the schema-or-bool,
//! schema-or-array and schema-or-string-list types.

use serde_json::{Map, Value};

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, map, ptr, val};

/// `CustomResourceSubresourceStatus`: no fields.
pub(super) static CUSTOM_RESOURCE_SUBRESOURCE_STATUS: Message =
    Message::new("CustomResourceSubresourceStatus", &[]);

/// `JSONSchemaPropsOrArray`'s JSON: the list of schemas when it has any, else the schema.
fn schema_or_array(mut m: Map<String, Value>) -> Value {
    match m.remove("jSONSchemas") {
        Some(Value::Array(a)) if !a.is_empty() => Value::Array(a),
        _ => m.remove("schema").unwrap_or(Value::Null),
    }
}

/// `JSONSchemaPropsOrBool`'s JSON: the schema when there is one, else `allows`.
fn schema_or_bool(mut m: Map<String, Value>) -> Value {
    m.remove("schema")
        .unwrap_or_else(|| m.remove("allows").unwrap_or(Value::Bool(false)))
}

/// `JSONSchemaPropsOrStringArray`'s JSON: the property names when there are any, else the
/// schema.
fn schema_or_strings(mut m: Map<String, Value>) -> Value {
    match m.remove("property") {
        Some(Value::Array(a)) if !a.is_empty() => Value::Array(a),
        _ => m.remove("schema").unwrap_or(Value::Null),
    }
}

/// `CustomResourceDefinitionNames`.
pub(super) static CUSTOM_RESOURCE_DEFINITION_NAMES: Message = Message::new(
    "CustomResourceDefinitionNames",
    &[
        val(1, "plural", Ty::Str),
        val(2, "singular", Ty::Str),
        list(3, "shortNames", Ty::Str),
        val(4, "kind", Ty::Str),
        val(5, "listKind", Ty::Str),
        list(6, "categories", Ty::Str),
    ],
);

/// `JSONSchemaPropsOrArray`.
pub(super) static JSON_SCHEMA_PROPS_OR_ARRAY: Message = Message::new(
    "JSONSchemaPropsOrArray",
    &[
        ptr(1, "schema", Ty::Msg(&JSON_SCHEMA_PROPS)),
        list(2, "jSONSchemas", Ty::Msg(&JSON_SCHEMA_PROPS)),
    ],
);

/// `JSONSchemaPropsOrBool`.
pub(super) static JSON_SCHEMA_PROPS_OR_BOOL: Message = Message::new(
    "JSONSchemaPropsOrBool",
    &[
        val(1, "allows", Ty::Bool),
        ptr(2, "schema", Ty::Msg(&JSON_SCHEMA_PROPS)),
    ],
);

/// `ExternalDocumentation`.
pub(super) static EXTERNAL_DOCUMENTATION: Message = Message::new(
    "ExternalDocumentation",
    &[val(1, "description", Ty::Str), val(2, "url", Ty::Str)],
);

/// `ValidationRule`.
pub(super) static VALIDATION_RULE: Message = Message::new(
    "ValidationRule",
    &[
        val(1, "rule", Ty::Str),
        val(2, "message", Ty::Str),
        val(3, "messageExpression", Ty::Str),
        ptr(4, "reason", Ty::Str),
        val(5, "fieldPath", Ty::Str),
        ptr(6, "optionalOldSelf", Ty::Bool),
    ],
);

/// `JSONSchemaProps`.
pub(super) static JSON_SCHEMA_PROPS: Message = Message::new(
    "JSONSchemaProps",
    &[
        val(1, "id", Ty::Str),
        val(2, "$schema", Ty::Str),
        ptr(3, "$ref", Ty::Str),
        val(4, "description", Ty::Str),
        val(5, "type", Ty::Str),
        val(6, "format", Ty::Str),
        val(7, "title", Ty::Str),
        ptr(8, "default", Ty::FieldsV1),
        ptr(9, "maximum", Ty::Double),
        val(10, "exclusiveMaximum", Ty::Bool),
        ptr(11, "minimum", Ty::Double),
        val(12, "exclusiveMinimum", Ty::Bool),
        ptr(13, "maxLength", Ty::Int),
        ptr(14, "minLength", Ty::Int),
        val(15, "pattern", Ty::Str),
        ptr(16, "maxItems", Ty::Int),
        ptr(17, "minItems", Ty::Int),
        val(18, "uniqueItems", Ty::Bool),
        ptr(19, "multipleOf", Ty::Double),
        list(20, "enum", Ty::FieldsV1),
        ptr(21, "maxProperties", Ty::Int),
        ptr(22, "minProperties", Ty::Int),
        list(23, "required", Ty::Str),
        ptr(
            24,
            "items",
            Ty::Shaped(&JSON_SCHEMA_PROPS_OR_ARRAY, schema_or_array),
        ),
        list(25, "allOf", Ty::Msg(&JSON_SCHEMA_PROPS)),
        list(26, "oneOf", Ty::Msg(&JSON_SCHEMA_PROPS)),
        list(27, "anyOf", Ty::Msg(&JSON_SCHEMA_PROPS)),
        ptr(28, "not", Ty::Msg(&JSON_SCHEMA_PROPS)),
        map(29, "properties", Ty::Msg(&JSON_SCHEMA_PROPS)),
        ptr(
            30,
            "additionalProperties",
            Ty::Shaped(&JSON_SCHEMA_PROPS_OR_BOOL, schema_or_bool),
        ),
        map(31, "patternProperties", Ty::Msg(&JSON_SCHEMA_PROPS)),
        map(
            32,
            "dependencies",
            Ty::Shaped(&JSON_SCHEMA_PROPS_OR_STRING_ARRAY, schema_or_strings),
        ),
        ptr(
            33,
            "additionalItems",
            Ty::Shaped(&JSON_SCHEMA_PROPS_OR_BOOL, schema_or_bool),
        ),
        map(34, "definitions", Ty::Msg(&JSON_SCHEMA_PROPS)),
        ptr(35, "externalDocs", Ty::Msg(&EXTERNAL_DOCUMENTATION)),
        ptr(36, "example", Ty::FieldsV1),
        val(37, "nullable", Ty::Bool),
        ptr(38, "x-kubernetes-preserve-unknown-fields", Ty::Bool),
        val(39, "x-kubernetes-embedded-resource", Ty::Bool),
        val(40, "x-kubernetes-int-or-string", Ty::Bool),
        list(41, "x-kubernetes-list-map-keys", Ty::Str),
        ptr(42, "x-kubernetes-list-type", Ty::Str),
        ptr(43, "x-kubernetes-map-type", Ty::Str),
        list(44, "x-kubernetes-validations", Ty::Msg(&VALIDATION_RULE)),
    ],
);

/// `CustomResourceValidation`.
pub(super) static CUSTOM_RESOURCE_VALIDATION: Message = Message::new(
    "CustomResourceValidation",
    &[ptr(1, "openAPIV3Schema", Ty::Msg(&JSON_SCHEMA_PROPS))],
);

/// `CustomResourceSubresourceScale`.
pub(super) static CUSTOM_RESOURCE_SUBRESOURCE_SCALE: Message = Message::new(
    "CustomResourceSubresourceScale",
    &[
        val(1, "specReplicasPath", Ty::Str),
        val(2, "statusReplicasPath", Ty::Str),
        ptr(3, "labelSelectorPath", Ty::Str),
    ],
);

/// `CustomResourceSubresources`.
pub(super) static CUSTOM_RESOURCE_SUBRESOURCES: Message = Message::new(
    "CustomResourceSubresources",
    &[
        ptr(1, "status", Ty::Msg(&CUSTOM_RESOURCE_SUBRESOURCE_STATUS)),
        ptr(2, "scale", Ty::Msg(&CUSTOM_RESOURCE_SUBRESOURCE_SCALE)),
    ],
);

/// `CustomResourceColumnDefinition`.
pub(super) static CUSTOM_RESOURCE_COLUMN_DEFINITION: Message = Message::new(
    "CustomResourceColumnDefinition",
    &[
        val(1, "name", Ty::Str),
        val(2, "type", Ty::Str),
        val(3, "format", Ty::Str),
        val(4, "description", Ty::Str),
        val(5, "priority", Ty::Int),
        val(6, "jsonPath", Ty::Str),
    ],
);

/// `SelectableField`.
pub(super) static SELECTABLE_FIELD: Message =
    Message::new("SelectableField", &[val(1, "jsonPath", Ty::Str)]);

/// `CustomResourceDefinitionVersion`.
pub(super) static CUSTOM_RESOURCE_DEFINITION_VERSION: Message = Message::new(
    "CustomResourceDefinitionVersion",
    &[
        val(1, "name", Ty::Str),
        val(2, "served", Ty::Bool),
        val(3, "storage", Ty::Bool),
        val(7, "deprecated", Ty::Bool),
        ptr(8, "deprecationWarning", Ty::Str),
        ptr(4, "schema", Ty::Msg(&CUSTOM_RESOURCE_VALIDATION)),
        ptr(5, "subresources", Ty::Msg(&CUSTOM_RESOURCE_SUBRESOURCES)),
        list(
            6,
            "additionalPrinterColumns",
            Ty::Msg(&CUSTOM_RESOURCE_COLUMN_DEFINITION),
        ),
        list(9, "selectableFields", Ty::Msg(&SELECTABLE_FIELD)),
    ],
);

/// `ServiceReference`.
pub(super) static SERVICE_REFERENCE: Message = Message::new(
    "ServiceReference",
    &[
        val(1, "namespace", Ty::Str),
        val(2, "name", Ty::Str),
        ptr(3, "path", Ty::Str),
        ptr(4, "port", Ty::Int),
    ],
);

/// `WebhookClientConfig`.
pub(super) static WEBHOOK_CLIENT_CONFIG: Message = Message::new(
    "WebhookClientConfig",
    &[
        ptr(3, "url", Ty::Str),
        ptr(1, "service", Ty::Msg(&SERVICE_REFERENCE)),
        val(2, "caBundle", Ty::Bytes),
    ],
);

/// `WebhookConversion`.
pub(super) static WEBHOOK_CONVERSION: Message = Message::new(
    "WebhookConversion",
    &[
        ptr(2, "clientConfig", Ty::Msg(&WEBHOOK_CLIENT_CONFIG)),
        list(3, "conversionReviewVersions", Ty::Str),
    ],
);

/// `CustomResourceConversion`.
pub(super) static CUSTOM_RESOURCE_CONVERSION: Message = Message::new(
    "CustomResourceConversion",
    &[
        val(1, "strategy", Ty::Str),
        ptr(2, "webhook", Ty::Msg(&WEBHOOK_CONVERSION)),
    ],
);

/// `CustomResourceDefinitionSpec`.
pub(super) static CUSTOM_RESOURCE_DEFINITION_SPEC: Message = Message::new(
    "CustomResourceDefinitionSpec",
    &[
        val(1, "group", Ty::Str),
        val(3, "names", Ty::Msg(&CUSTOM_RESOURCE_DEFINITION_NAMES)),
        val(4, "scope", Ty::Str),
        list(7, "versions", Ty::Msg(&CUSTOM_RESOURCE_DEFINITION_VERSION)),
        ptr(9, "conversion", Ty::Msg(&CUSTOM_RESOURCE_CONVERSION)),
        val(10, "preserveUnknownFields", Ty::Bool),
    ],
);

/// `CustomResourceDefinitionCondition`.
pub(super) static CUSTOM_RESOURCE_DEFINITION_CONDITION: Message = Message::new(
    "CustomResourceDefinitionCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);

/// `CustomResourceDefinitionStatus`.
pub(super) static CUSTOM_RESOURCE_DEFINITION_STATUS: Message = Message::new(
    "CustomResourceDefinitionStatus",
    &[
        list(
            1,
            "conditions",
            Ty::Msg(&CUSTOM_RESOURCE_DEFINITION_CONDITION),
        ),
        val(
            2,
            "acceptedNames",
            Ty::Msg(&CUSTOM_RESOURCE_DEFINITION_NAMES),
        ),
        list(3, "storedVersions", Ty::Str),
    ],
);

/// `CustomResourceDefinition`.
pub(super) static CUSTOM_RESOURCE_DEFINITION: Message = Message::new(
    "CustomResourceDefinition",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&CUSTOM_RESOURCE_DEFINITION_SPEC)),
        val(3, "status", Ty::Msg(&CUSTOM_RESOURCE_DEFINITION_STATUS)),
    ],
);

/// `JSONSchemaPropsOrStringArray`.
pub(super) static JSON_SCHEMA_PROPS_OR_STRING_ARRAY: Message = Message::new(
    "JSONSchemaPropsOrStringArray",
    &[
        ptr(1, "schema", Ty::Msg(&JSON_SCHEMA_PROPS)),
        list(2, "property", Ty::Str),
    ],
);
