//! `admissionregistration.k8s.io/v1`: the webhook configurations, ValidatingAdmissionPolicy (with its
//! status, as the type checker puts it to `/status`) and ValidatingAdmissionPolicyBinding.

use super::meta::{LABEL_SELECTOR, OBJECT_META};
use super::meta_more::CONDITION;
use super::schema::{Message, Ty, inline, list, ptr, val};

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

/// `Rule`.
pub(super) static RULE: Message = Message::new(
    "Rule",
    &[
        list(1, "apiGroups", Ty::Str),
        list(2, "apiVersions", Ty::Str),
        list(3, "resources", Ty::Str),
        ptr(4, "scope", Ty::Str),
    ],
);

/// `RuleWithOperations`.
pub(super) static RULE_WITH_OPERATIONS: Message = Message::new(
    "RuleWithOperations",
    &[list(1, "operations", Ty::Str), inline(2, &RULE)],
);

/// `MatchCondition`.
pub(super) static MATCH_CONDITION: Message = Message::new(
    "MatchCondition",
    &[val(1, "name", Ty::Str), val(2, "expression", Ty::Str)],
);

/// `MutatingWebhook`.
pub(super) static MUTATING_WEBHOOK: Message = Message::new(
    "MutatingWebhook",
    &[
        val(1, "name", Ty::Str),
        val(2, "clientConfig", Ty::Msg(&WEBHOOK_CLIENT_CONFIG)),
        list(3, "rules", Ty::Msg(&RULE_WITH_OPERATIONS)),
        ptr(4, "failurePolicy", Ty::Str),
        ptr(9, "matchPolicy", Ty::Str),
        ptr(5, "namespaceSelector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(11, "objectSelector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(6, "sideEffects", Ty::Str),
        ptr(7, "timeoutSeconds", Ty::Int),
        list(8, "admissionReviewVersions", Ty::Str),
        ptr(10, "reinvocationPolicy", Ty::Str),
        list(12, "matchConditions", Ty::Msg(&MATCH_CONDITION)),
    ],
);

/// `MutatingWebhookConfiguration`.
pub(super) static MUTATING_WEBHOOK_CONFIGURATION: Message = Message::new(
    "MutatingWebhookConfiguration",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        list(2, "webhooks", Ty::Msg(&MUTATING_WEBHOOK)),
    ],
);

/// `ValidatingWebhook`.
pub(super) static VALIDATING_WEBHOOK: Message = Message::new(
    "ValidatingWebhook",
    &[
        val(1, "name", Ty::Str),
        val(2, "clientConfig", Ty::Msg(&WEBHOOK_CLIENT_CONFIG)),
        list(3, "rules", Ty::Msg(&RULE_WITH_OPERATIONS)),
        ptr(4, "failurePolicy", Ty::Str),
        ptr(9, "matchPolicy", Ty::Str),
        ptr(5, "namespaceSelector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(10, "objectSelector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(6, "sideEffects", Ty::Str),
        ptr(7, "timeoutSeconds", Ty::Int),
        list(8, "admissionReviewVersions", Ty::Str),
        list(11, "matchConditions", Ty::Msg(&MATCH_CONDITION)),
    ],
);

/// `ValidatingWebhookConfiguration`.
pub(super) static VALIDATING_WEBHOOK_CONFIGURATION: Message = Message::new(
    "ValidatingWebhookConfiguration",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        list(2, "webhooks", Ty::Msg(&VALIDATING_WEBHOOK)),
    ],
);

/// `ParamKind`.
pub(super) static PARAM_KIND: Message = Message::new(
    "ParamKind",
    &[val(1, "apiVersion", Ty::Str), val(2, "kind", Ty::Str)],
);

/// `NamedRuleWithOperations`.
pub(super) static NAMED_RULE_WITH_OPERATIONS: Message = Message::new(
    "NamedRuleWithOperations",
    &[
        list(1, "resourceNames", Ty::Str),
        inline(2, &RULE_WITH_OPERATIONS),
    ],
);

/// `MatchResources`.
pub(super) static MATCH_RESOURCES: Message = Message::new(
    "MatchResources",
    &[
        ptr(1, "namespaceSelector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(2, "objectSelector", Ty::Msg(&LABEL_SELECTOR)),
        list(3, "resourceRules", Ty::Msg(&NAMED_RULE_WITH_OPERATIONS)),
        list(
            4,
            "excludeResourceRules",
            Ty::Msg(&NAMED_RULE_WITH_OPERATIONS),
        ),
        ptr(7, "matchPolicy", Ty::Str),
    ],
);

/// `Validation`.
pub(super) static VALIDATION: Message = Message::new(
    "Validation",
    &[
        val(1, "expression", Ty::Str),
        val(2, "message", Ty::Str),
        ptr(3, "reason", Ty::Str),
        val(4, "messageExpression", Ty::Str),
    ],
);

/// `AuditAnnotation`.
pub(super) static AUDIT_ANNOTATION: Message = Message::new(
    "AuditAnnotation",
    &[val(1, "key", Ty::Str), val(2, "valueExpression", Ty::Str)],
);

/// `Variable`.
pub(super) static VARIABLE: Message = Message::new(
    "Variable",
    &[val(1, "name", Ty::Str), val(2, "expression", Ty::Str)],
);

/// `ValidatingAdmissionPolicySpec`.
pub(super) static VALIDATING_ADMISSION_POLICY_SPEC: Message = Message::new(
    "ValidatingAdmissionPolicySpec",
    &[
        ptr(1, "paramKind", Ty::Msg(&PARAM_KIND)),
        ptr(2, "matchConstraints", Ty::Msg(&MATCH_RESOURCES)),
        list(3, "validations", Ty::Msg(&VALIDATION)),
        ptr(4, "failurePolicy", Ty::Str),
        list(5, "auditAnnotations", Ty::Msg(&AUDIT_ANNOTATION)),
        list(6, "matchConditions", Ty::Msg(&MATCH_CONDITION)),
        list(7, "variables", Ty::Msg(&VARIABLE)),
    ],
);

/// `ExpressionWarning`.
pub(super) static EXPRESSION_WARNING: Message = Message::new(
    "ExpressionWarning",
    &[val(2, "fieldRef", Ty::Str), val(3, "warning", Ty::Str)],
);

/// `TypeChecking`.
pub(super) static TYPE_CHECKING: Message = Message::new(
    "TypeChecking",
    &[list(1, "expressionWarnings", Ty::Msg(&EXPRESSION_WARNING))],
);

/// `ValidatingAdmissionPolicyStatus`.
pub(super) static VALIDATING_ADMISSION_POLICY_STATUS: Message = Message::new(
    "ValidatingAdmissionPolicyStatus",
    &[
        val(1, "observedGeneration", Ty::Int),
        ptr(2, "typeChecking", Ty::Msg(&TYPE_CHECKING)),
        list(3, "conditions", Ty::Msg(&CONDITION)),
    ],
);

/// `ValidatingAdmissionPolicy`.
pub(super) static VALIDATING_ADMISSION_POLICY: Message = Message::new(
    "ValidatingAdmissionPolicy",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&VALIDATING_ADMISSION_POLICY_SPEC)),
        val(3, "status", Ty::Msg(&VALIDATING_ADMISSION_POLICY_STATUS)),
    ],
);

/// `ParamRef`.
pub(super) static PARAM_REF: Message = Message::new(
    "ParamRef",
    &[
        val(1, "name", Ty::Str),
        val(2, "namespace", Ty::Str),
        ptr(3, "selector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(4, "parameterNotFoundAction", Ty::Str),
    ],
);

/// `ValidatingAdmissionPolicyBindingSpec`.
pub(super) static VALIDATING_ADMISSION_POLICY_BINDING_SPEC: Message = Message::new(
    "ValidatingAdmissionPolicyBindingSpec",
    &[
        val(1, "policyName", Ty::Str),
        ptr(2, "paramRef", Ty::Msg(&PARAM_REF)),
        ptr(3, "matchResources", Ty::Msg(&MATCH_RESOURCES)),
        list(4, "validationActions", Ty::Str),
    ],
);

/// `ValidatingAdmissionPolicyBinding`.
pub(super) static VALIDATING_ADMISSION_POLICY_BINDING: Message = Message::new(
    "ValidatingAdmissionPolicyBinding",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(
            2,
            "spec",
            Ty::Msg(&VALIDATING_ADMISSION_POLICY_BINDING_SPEC),
        ),
    ],
);
