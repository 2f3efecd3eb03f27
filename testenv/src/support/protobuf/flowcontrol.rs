//! `flowcontrol.apiserver.k8s.io/v1`: FlowSchema and PriorityLevelConfiguration, with their
//! statuses (conditions the server's configuration controller puts to `/status`).

use super::meta::OBJECT_META;
use super::schema::{Message, Ty, list, ptr, val};

/// `PriorityLevelConfigurationReference`.
pub(super) static PRIORITY_LEVEL_CONFIGURATION_REFERENCE: Message = Message::new(
    "PriorityLevelConfigurationReference",
    &[val(1, "name", Ty::Str)],
);

/// `FlowDistinguisherMethod`.
pub(super) static FLOW_DISTINGUISHER_METHOD: Message =
    Message::new("FlowDistinguisherMethod", &[val(1, "type", Ty::Str)]);

/// `UserSubject`.
pub(super) static USER_SUBJECT: Message = Message::new("UserSubject", &[val(1, "name", Ty::Str)]);

/// `GroupSubject`.
pub(super) static GROUP_SUBJECT: Message = Message::new("GroupSubject", &[val(1, "name", Ty::Str)]);

/// `ServiceAccountSubject`.
pub(super) static SERVICE_ACCOUNT_SUBJECT: Message = Message::new(
    "ServiceAccountSubject",
    &[val(1, "namespace", Ty::Str), val(2, "name", Ty::Str)],
);

/// `Subject`.
pub(super) static SUBJECT: Message = Message::new(
    "Subject",
    &[
        val(1, "kind", Ty::Str),
        ptr(2, "user", Ty::Msg(&USER_SUBJECT)),
        ptr(3, "group", Ty::Msg(&GROUP_SUBJECT)),
        ptr(4, "serviceAccount", Ty::Msg(&SERVICE_ACCOUNT_SUBJECT)),
    ],
);

/// `ResourcePolicyRule`.
pub(super) static RESOURCE_POLICY_RULE: Message = Message::new(
    "ResourcePolicyRule",
    &[
        list(1, "verbs", Ty::Str),
        list(2, "apiGroups", Ty::Str),
        list(3, "resources", Ty::Str),
        val(4, "clusterScope", Ty::Bool),
        list(5, "namespaces", Ty::Str),
    ],
);

/// `NonResourcePolicyRule`.
pub(super) static NON_RESOURCE_POLICY_RULE: Message = Message::new(
    "NonResourcePolicyRule",
    &[
        list(1, "verbs", Ty::Str),
        list(6, "nonResourceURLs", Ty::Str),
    ],
);

/// `PolicyRulesWithSubjects`.
pub(super) static POLICY_RULES_WITH_SUBJECTS: Message = Message::new(
    "PolicyRulesWithSubjects",
    &[
        list(1, "subjects", Ty::Msg(&SUBJECT)),
        list(2, "resourceRules", Ty::Msg(&RESOURCE_POLICY_RULE)),
        list(3, "nonResourceRules", Ty::Msg(&NON_RESOURCE_POLICY_RULE)),
    ],
);

/// `FlowSchemaSpec`.
pub(super) static FLOW_SCHEMA_SPEC: Message = Message::new(
    "FlowSchemaSpec",
    &[
        val(
            1,
            "priorityLevelConfiguration",
            Ty::Msg(&PRIORITY_LEVEL_CONFIGURATION_REFERENCE),
        ),
        val(2, "matchingPrecedence", Ty::Int),
        ptr(
            3,
            "distinguisherMethod",
            Ty::Msg(&FLOW_DISTINGUISHER_METHOD),
        ),
        list(4, "rules", Ty::Msg(&POLICY_RULES_WITH_SUBJECTS)),
    ],
);

/// `FlowSchemaCondition`.
pub(super) static FLOW_SCHEMA_CONDITION: Message = Message::new(
    "FlowSchemaCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);

/// `FlowSchemaStatus`.
pub(super) static FLOW_SCHEMA_STATUS: Message = Message::new(
    "FlowSchemaStatus",
    &[list(1, "conditions", Ty::Msg(&FLOW_SCHEMA_CONDITION))],
);

/// `FlowSchema`.
pub(super) static FLOW_SCHEMA: Message = Message::new(
    "FlowSchema",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&FLOW_SCHEMA_SPEC)),
        val(3, "status", Ty::Msg(&FLOW_SCHEMA_STATUS)),
    ],
);

/// `QueuingConfiguration`.
pub(super) static QUEUING_CONFIGURATION: Message = Message::new(
    "QueuingConfiguration",
    &[
        val(1, "queues", Ty::Int),
        val(2, "handSize", Ty::Int),
        val(3, "queueLengthLimit", Ty::Int),
    ],
);

/// `LimitResponse`.
pub(super) static LIMIT_RESPONSE: Message = Message::new(
    "LimitResponse",
    &[
        val(1, "type", Ty::Str),
        ptr(2, "queuing", Ty::Msg(&QUEUING_CONFIGURATION)),
    ],
);

/// `LimitedPriorityLevelConfiguration`.
pub(super) static LIMITED_PRIORITY_LEVEL_CONFIGURATION: Message = Message::new(
    "LimitedPriorityLevelConfiguration",
    &[
        ptr(1, "nominalConcurrencyShares", Ty::Int),
        val(2, "limitResponse", Ty::Msg(&LIMIT_RESPONSE)),
        ptr(3, "lendablePercent", Ty::Int),
        ptr(4, "borrowingLimitPercent", Ty::Int),
    ],
);

/// `ExemptPriorityLevelConfiguration`.
pub(super) static EXEMPT_PRIORITY_LEVEL_CONFIGURATION: Message = Message::new(
    "ExemptPriorityLevelConfiguration",
    &[
        ptr(1, "nominalConcurrencyShares", Ty::Int),
        ptr(2, "lendablePercent", Ty::Int),
    ],
);

/// `PriorityLevelConfigurationSpec`.
pub(super) static PRIORITY_LEVEL_CONFIGURATION_SPEC: Message = Message::new(
    "PriorityLevelConfigurationSpec",
    &[
        val(1, "type", Ty::Str),
        ptr(2, "limited", Ty::Msg(&LIMITED_PRIORITY_LEVEL_CONFIGURATION)),
        ptr(3, "exempt", Ty::Msg(&EXEMPT_PRIORITY_LEVEL_CONFIGURATION)),
    ],
);

/// `PriorityLevelConfigurationCondition`.
pub(super) static PRIORITY_LEVEL_CONFIGURATION_CONDITION: Message = Message::new(
    "PriorityLevelConfigurationCondition",
    &[
        val(1, "type", Ty::Str),
        val(2, "status", Ty::Str),
        val(3, "lastTransitionTime", Ty::Time),
        val(4, "reason", Ty::Str),
        val(5, "message", Ty::Str),
    ],
);

/// `PriorityLevelConfigurationStatus`.
pub(super) static PRIORITY_LEVEL_CONFIGURATION_STATUS: Message = Message::new(
    "PriorityLevelConfigurationStatus",
    &[list(
        1,
        "conditions",
        Ty::Msg(&PRIORITY_LEVEL_CONFIGURATION_CONDITION),
    )],
);

/// `PriorityLevelConfiguration`.
pub(super) static PRIORITY_LEVEL_CONFIGURATION: Message = Message::new(
    "PriorityLevelConfiguration",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&PRIORITY_LEVEL_CONFIGURATION_SPEC)),
        val(3, "status", Ty::Msg(&PRIORITY_LEVEL_CONFIGURATION_STATUS)),
    ],
);
