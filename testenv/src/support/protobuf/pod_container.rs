//! The core `v1` `Container` and `EphemeralContainer`, with their ports, environment, resources,
//! mounts, devices, resize policy and restart rules.

use super::pod_probes::{LIFECYCLE, PROBE};
use super::pod_security::SECURITY_CONTEXT;
use super::pod_volumes::{LOCAL_OBJECT_REFERENCE, OBJECT_FIELD_SELECTOR, RESOURCE_FIELD_SELECTOR};
use super::schema::{Field, Message, Ty, inline, list, map, ptr, val};

/// `ContainerPort`.
pub(super) static CONTAINER_PORT: Message = Message::new(
    "ContainerPort",
    &[
        val(1, "name", Ty::Str),
        val(2, "hostPort", Ty::Int),
        val(3, "containerPort", Ty::Int),
        val(4, "protocol", Ty::Str),
        val(5, "hostIP", Ty::Str),
    ],
);

/// `ConfigMapEnvSource`.
pub(super) static CONFIG_MAP_ENV_SOURCE: Message = Message::new(
    "ConfigMapEnvSource",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        ptr(2, "optional", Ty::Bool),
    ],
);

/// `SecretEnvSource`.
pub(super) static SECRET_ENV_SOURCE: Message = Message::new(
    "SecretEnvSource",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        ptr(2, "optional", Ty::Bool),
    ],
);

/// `EnvFromSource`.
pub(super) static ENV_FROM_SOURCE: Message = Message::new(
    "EnvFromSource",
    &[
        val(1, "prefix", Ty::Str),
        ptr(2, "configMapRef", Ty::Msg(&CONFIG_MAP_ENV_SOURCE)),
        ptr(3, "secretRef", Ty::Msg(&SECRET_ENV_SOURCE)),
    ],
);

/// `ConfigMapKeySelector`.
pub(super) static CONFIG_MAP_KEY_SELECTOR: Message = Message::new(
    "ConfigMapKeySelector",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        val(2, "key", Ty::Str),
        ptr(3, "optional", Ty::Bool),
    ],
);

/// `SecretKeySelector`.
pub(super) static SECRET_KEY_SELECTOR: Message = Message::new(
    "SecretKeySelector",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        val(2, "key", Ty::Str),
        ptr(3, "optional", Ty::Bool),
    ],
);

/// `FileKeySelector`.
pub(super) static FILE_KEY_SELECTOR: Message = Message::new(
    "FileKeySelector",
    &[
        val(1, "volumeName", Ty::Str),
        val(2, "path", Ty::Str),
        val(3, "key", Ty::Str),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `EnvVarSource`.
pub(super) static ENV_VAR_SOURCE: Message = Message::new(
    "EnvVarSource",
    &[
        ptr(1, "fieldRef", Ty::Msg(&OBJECT_FIELD_SELECTOR)),
        ptr(2, "resourceFieldRef", Ty::Msg(&RESOURCE_FIELD_SELECTOR)),
        ptr(3, "configMapKeyRef", Ty::Msg(&CONFIG_MAP_KEY_SELECTOR)),
        ptr(4, "secretKeyRef", Ty::Msg(&SECRET_KEY_SELECTOR)),
        ptr(5, "fileKeyRef", Ty::Msg(&FILE_KEY_SELECTOR)),
    ],
);

/// `EnvVar`.
pub(super) static ENV_VAR: Message = Message::new(
    "EnvVar",
    &[
        val(1, "name", Ty::Str),
        val(2, "value", Ty::Str),
        ptr(3, "valueFrom", Ty::Msg(&ENV_VAR_SOURCE)),
    ],
);

/// `ResourceClaim`.
pub(super) static RESOURCE_CLAIM: Message = Message::new(
    "ResourceClaim",
    &[val(1, "name", Ty::Str), val(2, "request", Ty::Str)],
);

/// `ResourceRequirements`.
pub(super) static RESOURCE_REQUIREMENTS: Message = Message::new(
    "ResourceRequirements",
    &[
        map(1, "limits", Ty::Quantity),
        map(2, "requests", Ty::Quantity),
        list(3, "claims", Ty::Msg(&RESOURCE_CLAIM)),
    ],
);

/// `ContainerResizePolicy`.
pub(super) static CONTAINER_RESIZE_POLICY: Message = Message::new(
    "ContainerResizePolicy",
    &[
        val(1, "resourceName", Ty::Str),
        val(2, "restartPolicy", Ty::Str),
    ],
);

/// `ContainerRestartRuleOnExitCodes`.
pub(super) static CONTAINER_RESTART_RULE_ON_EXIT_CODES: Message = Message::new(
    "ContainerRestartRuleOnExitCodes",
    &[val(1, "operator", Ty::Str), list(2, "values", Ty::Int)],
);

/// `ContainerRestartRule`.
pub(super) static CONTAINER_RESTART_RULE: Message = Message::new(
    "ContainerRestartRule",
    &[
        val(1, "action", Ty::Str),
        ptr(
            2,
            "exitCodes",
            Ty::Msg(&CONTAINER_RESTART_RULE_ON_EXIT_CODES),
        ),
    ],
);

/// `VolumeMount`.
pub(super) static VOLUME_MOUNT: Message = Message::new(
    "VolumeMount",
    &[
        val(1, "name", Ty::Str),
        val(2, "readOnly", Ty::Bool),
        ptr(7, "recursiveReadOnly", Ty::Str),
        val(3, "mountPath", Ty::Str),
        val(4, "subPath", Ty::Str),
        ptr(5, "mountPropagation", Ty::Str),
        val(6, "subPathExpr", Ty::Str),
    ],
);

/// `VolumeDevice`.
pub(super) static VOLUME_DEVICE: Message = Message::new(
    "VolumeDevice",
    &[val(1, "name", Ty::Str), val(2, "devicePath", Ty::Str)],
);

/// The fields of a `Container`, which an `EphemeralContainerCommon` repeats (the Go types
/// keep them alike on purpose).
static CONTAINER_FIELDS: [Field; 25] = [
    val(1, "name", Ty::Str),
    val(2, "image", Ty::Str),
    list(3, "command", Ty::Str),
    list(4, "args", Ty::Str),
    val(5, "workingDir", Ty::Str),
    list(6, "ports", Ty::Msg(&CONTAINER_PORT)),
    list(19, "envFrom", Ty::Msg(&ENV_FROM_SOURCE)),
    list(7, "env", Ty::Msg(&ENV_VAR)),
    val(8, "resources", Ty::Msg(&RESOURCE_REQUIREMENTS)),
    list(23, "resizePolicy", Ty::Msg(&CONTAINER_RESIZE_POLICY)),
    ptr(24, "restartPolicy", Ty::Str),
    list(25, "restartPolicyRules", Ty::Msg(&CONTAINER_RESTART_RULE)),
    list(9, "volumeMounts", Ty::Msg(&VOLUME_MOUNT)),
    list(21, "volumeDevices", Ty::Msg(&VOLUME_DEVICE)),
    ptr(10, "livenessProbe", Ty::Msg(&PROBE)),
    ptr(11, "readinessProbe", Ty::Msg(&PROBE)),
    ptr(22, "startupProbe", Ty::Msg(&PROBE)),
    ptr(12, "lifecycle", Ty::Msg(&LIFECYCLE)),
    val(13, "terminationMessagePath", Ty::Str),
    val(20, "terminationMessagePolicy", Ty::Str),
    val(14, "imagePullPolicy", Ty::Str),
    ptr(15, "securityContext", Ty::Msg(&SECURITY_CONTEXT)),
    val(16, "stdin", Ty::Bool),
    val(17, "stdinOnce", Ty::Bool),
    val(18, "tty", Ty::Bool),
];

/// `Container`.
pub(super) static CONTAINER: Message = Message::new("Container", &CONTAINER_FIELDS);

/// `EphemeralContainerCommon`: a `Container`'s fields.
pub(super) static EPHEMERAL_CONTAINER_COMMON: Message =
    Message::new("EphemeralContainerCommon", &CONTAINER_FIELDS);

/// `EphemeralContainer`.
pub(super) static EPHEMERAL_CONTAINER: Message = Message::new(
    "EphemeralContainer",
    &[
        inline(1, &EPHEMERAL_CONTAINER_COMMON),
        val(2, "targetContainerName", Ty::Str),
    ],
);
