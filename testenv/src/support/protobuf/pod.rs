//! The core `v1` PodSpec with its containers, volumes and security contexts: what a Deployment's,
//! Job's or CronJob's template and a Pod copied by `kubectl debug --copy-to` carry. Rarer parts
//! (probes, lifecycle hooks, affinity, cloud volume sources, ...) are not described: a body
//! with them is refused.

use super::schema::{Message, Ty, inline, list, map, ptr, val};

/// `HostPathVolumeSource`.
pub(super) static HOST_PATH_VOLUME_SOURCE: Message = Message::new(
    "HostPathVolumeSource",
    &[val(1, "path", Ty::Str), ptr(2, "type", Ty::Str)],
);

/// `EmptyDirVolumeSource`.
pub(super) static EMPTY_DIR_VOLUME_SOURCE: Message = Message::new(
    "EmptyDirVolumeSource",
    &[val(1, "medium", Ty::Str), ptr(2, "sizeLimit", Ty::Quantity)],
);

/// `KeyToPath`.
pub(super) static KEY_TO_PATH: Message = Message::new(
    "KeyToPath",
    &[
        val(1, "key", Ty::Str),
        val(2, "path", Ty::Str),
        ptr(3, "mode", Ty::Int),
    ],
);

/// `SecretVolumeSource`.
pub(super) static SECRET_VOLUME_SOURCE: Message = Message::new(
    "SecretVolumeSource",
    &[
        val(1, "secretName", Ty::Str),
        list(2, "items", Ty::Msg(&KEY_TO_PATH)),
        ptr(3, "defaultMode", Ty::Int),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `PersistentVolumeClaimVolumeSource`.
pub(super) static PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE: Message = Message::new(
    "PersistentVolumeClaimVolumeSource",
    &[val(1, "claimName", Ty::Str), val(2, "readOnly", Ty::Bool)],
);

/// `ObjectFieldSelector`.
pub(super) static OBJECT_FIELD_SELECTOR: Message = Message::new(
    "ObjectFieldSelector",
    &[val(1, "apiVersion", Ty::Str), val(2, "fieldPath", Ty::Str)],
);

/// `ResourceFieldSelector`.
pub(super) static RESOURCE_FIELD_SELECTOR: Message = Message::new(
    "ResourceFieldSelector",
    &[
        val(1, "containerName", Ty::Str),
        val(2, "resource", Ty::Str),
        val(3, "divisor", Ty::Quantity),
    ],
);

/// `DownwardAPIVolumeFile`.
pub(super) static DOWNWARD_API_VOLUME_FILE: Message = Message::new(
    "DownwardAPIVolumeFile",
    &[
        val(1, "path", Ty::Str),
        ptr(2, "fieldRef", Ty::Msg(&OBJECT_FIELD_SELECTOR)),
        ptr(3, "resourceFieldRef", Ty::Msg(&RESOURCE_FIELD_SELECTOR)),
        ptr(4, "mode", Ty::Int),
    ],
);

/// `DownwardAPIVolumeSource`.
pub(super) static DOWNWARD_API_VOLUME_SOURCE: Message = Message::new(
    "DownwardAPIVolumeSource",
    &[
        list(1, "items", Ty::Msg(&DOWNWARD_API_VOLUME_FILE)),
        ptr(2, "defaultMode", Ty::Int),
    ],
);

/// `LocalObjectReference`.
pub(super) static LOCAL_OBJECT_REFERENCE: Message =
    Message::new("LocalObjectReference", &[val(1, "name", Ty::Str)]);

/// `ConfigMapVolumeSource`.
pub(super) static CONFIG_MAP_VOLUME_SOURCE: Message = Message::new(
    "ConfigMapVolumeSource",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Msg(&KEY_TO_PATH)),
        ptr(3, "defaultMode", Ty::Int),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `SecretProjection`.
pub(super) static SECRET_PROJECTION: Message = Message::new(
    "SecretProjection",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Msg(&KEY_TO_PATH)),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `DownwardAPIProjection`.
pub(super) static DOWNWARD_API_PROJECTION: Message = Message::new(
    "DownwardAPIProjection",
    &[list(1, "items", Ty::Msg(&DOWNWARD_API_VOLUME_FILE))],
);

/// `ConfigMapProjection`.
pub(super) static CONFIG_MAP_PROJECTION: Message = Message::new(
    "ConfigMapProjection",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Msg(&KEY_TO_PATH)),
        ptr(4, "optional", Ty::Bool),
    ],
);

/// `ServiceAccountTokenProjection`.
pub(super) static SERVICE_ACCOUNT_TOKEN_PROJECTION: Message = Message::new(
    "ServiceAccountTokenProjection",
    &[
        val(1, "audience", Ty::Str),
        ptr(2, "expirationSeconds", Ty::Int),
        val(3, "path", Ty::Str),
    ],
);

/// `VolumeProjection`; not described (refused when sent): `clusterTrustBundle`, `podCertificate`.
pub(super) static VOLUME_PROJECTION: Message = Message::new(
    "VolumeProjection",
    &[
        ptr(1, "secret", Ty::Msg(&SECRET_PROJECTION)),
        ptr(2, "downwardAPI", Ty::Msg(&DOWNWARD_API_PROJECTION)),
        ptr(3, "configMap", Ty::Msg(&CONFIG_MAP_PROJECTION)),
        ptr(
            4,
            "serviceAccountToken",
            Ty::Msg(&SERVICE_ACCOUNT_TOKEN_PROJECTION),
        ),
    ],
);

/// `ProjectedVolumeSource`.
pub(super) static PROJECTED_VOLUME_SOURCE: Message = Message::new(
    "ProjectedVolumeSource",
    &[
        list(1, "sources", Ty::Msg(&VOLUME_PROJECTION)),
        ptr(2, "defaultMode", Ty::Int),
    ],
);

/// `VolumeSource`; not described (refused when sent): `gcePersistentDisk`, `awsElasticBlockStore`,
/// `gitRepo`, `nfs`, `iscsi`, `glusterfs`, `rbd`, `flexVolume`, `cinder`, `cephfs`, `flocker`,
/// `fc`, `azureFile`, `vsphereVolume`, `quobyte`, `azureDisk`, `photonPersistentDisk`,
/// `portworxVolume`, `scaleIO`, `storageos`, `csi`, `ephemeral`, `image`.
pub(super) static VOLUME_SOURCE: Message = Message::new(
    "VolumeSource",
    &[
        ptr(1, "hostPath", Ty::Msg(&HOST_PATH_VOLUME_SOURCE)),
        ptr(2, "emptyDir", Ty::Msg(&EMPTY_DIR_VOLUME_SOURCE)),
        ptr(6, "secret", Ty::Msg(&SECRET_VOLUME_SOURCE)),
        ptr(
            10,
            "persistentVolumeClaim",
            Ty::Msg(&PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE),
        ),
        ptr(16, "downwardAPI", Ty::Msg(&DOWNWARD_API_VOLUME_SOURCE)),
        ptr(19, "configMap", Ty::Msg(&CONFIG_MAP_VOLUME_SOURCE)),
        ptr(26, "projected", Ty::Msg(&PROJECTED_VOLUME_SOURCE)),
    ],
);

/// `Volume`.
pub(super) static VOLUME: Message = Message::new(
    "Volume",
    &[val(1, "name", Ty::Str), inline(2, &VOLUME_SOURCE)],
);

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

/// `EnvVarSource`; not described (refused when sent): `fileKeyRef`.
pub(super) static ENV_VAR_SOURCE: Message = Message::new(
    "EnvVarSource",
    &[
        ptr(1, "fieldRef", Ty::Msg(&OBJECT_FIELD_SELECTOR)),
        ptr(2, "resourceFieldRef", Ty::Msg(&RESOURCE_FIELD_SELECTOR)),
        ptr(3, "configMapKeyRef", Ty::Msg(&CONFIG_MAP_KEY_SELECTOR)),
        ptr(4, "secretKeyRef", Ty::Msg(&SECRET_KEY_SELECTOR)),
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

/// `ResourceRequirements`; not described (refused when sent): `claims`.
pub(super) static RESOURCE_REQUIREMENTS: Message = Message::new(
    "ResourceRequirements",
    &[
        map(1, "limits", Ty::Quantity),
        map(2, "requests", Ty::Quantity),
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

/// `Capabilities`.
pub(super) static CAPABILITIES: Message = Message::new(
    "Capabilities",
    &[list(1, "add", Ty::Str), list(2, "drop", Ty::Str)],
);

/// `SELinuxOptions`.
pub(super) static SE_LINUX_OPTIONS: Message = Message::new(
    "SELinuxOptions",
    &[
        val(1, "user", Ty::Str),
        val(2, "role", Ty::Str),
        val(3, "type", Ty::Str),
        val(4, "level", Ty::Str),
    ],
);

/// `WindowsSecurityContextOptions`.
pub(super) static WINDOWS_SECURITY_CONTEXT_OPTIONS: Message = Message::new(
    "WindowsSecurityContextOptions",
    &[
        ptr(1, "gmsaCredentialSpecName", Ty::Str),
        ptr(2, "gmsaCredentialSpec", Ty::Str),
        ptr(3, "runAsUserName", Ty::Str),
        ptr(4, "hostProcess", Ty::Bool),
    ],
);

/// `SeccompProfile`.
pub(super) static SECCOMP_PROFILE: Message = Message::new(
    "SeccompProfile",
    &[val(1, "type", Ty::Str), ptr(2, "localhostProfile", Ty::Str)],
);

/// `AppArmorProfile`.
pub(super) static APP_ARMOR_PROFILE: Message = Message::new(
    "AppArmorProfile",
    &[val(1, "type", Ty::Str), ptr(2, "localhostProfile", Ty::Str)],
);

/// `SecurityContext`.
pub(super) static SECURITY_CONTEXT: Message = Message::new(
    "SecurityContext",
    &[
        ptr(1, "capabilities", Ty::Msg(&CAPABILITIES)),
        ptr(2, "privileged", Ty::Bool),
        ptr(3, "seLinuxOptions", Ty::Msg(&SE_LINUX_OPTIONS)),
        ptr(
            10,
            "windowsOptions",
            Ty::Msg(&WINDOWS_SECURITY_CONTEXT_OPTIONS),
        ),
        ptr(4, "runAsUser", Ty::Int),
        ptr(8, "runAsGroup", Ty::Int),
        ptr(5, "runAsNonRoot", Ty::Bool),
        ptr(6, "readOnlyRootFilesystem", Ty::Bool),
        ptr(7, "allowPrivilegeEscalation", Ty::Bool),
        ptr(9, "procMount", Ty::Str),
        ptr(11, "seccompProfile", Ty::Msg(&SECCOMP_PROFILE)),
        ptr(12, "appArmorProfile", Ty::Msg(&APP_ARMOR_PROFILE)),
    ],
);

/// `Container`; not described (refused when sent): `resizePolicy`, `restartPolicyRules`,
/// `volumeDevices`, `livenessProbe`, `readinessProbe`, `startupProbe`, `lifecycle`.
pub(super) static CONTAINER: Message = Message::new(
    "Container",
    &[
        val(1, "name", Ty::Str),
        val(2, "image", Ty::Str),
        list(3, "command", Ty::Str),
        list(4, "args", Ty::Str),
        val(5, "workingDir", Ty::Str),
        list(6, "ports", Ty::Msg(&CONTAINER_PORT)),
        list(19, "envFrom", Ty::Msg(&ENV_FROM_SOURCE)),
        list(7, "env", Ty::Msg(&ENV_VAR)),
        val(8, "resources", Ty::Msg(&RESOURCE_REQUIREMENTS)),
        ptr(24, "restartPolicy", Ty::Str),
        list(9, "volumeMounts", Ty::Msg(&VOLUME_MOUNT)),
        val(13, "terminationMessagePath", Ty::Str),
        val(20, "terminationMessagePolicy", Ty::Str),
        val(14, "imagePullPolicy", Ty::Str),
        ptr(15, "securityContext", Ty::Msg(&SECURITY_CONTEXT)),
        val(16, "stdin", Ty::Bool),
        val(17, "stdinOnce", Ty::Bool),
        val(18, "tty", Ty::Bool),
    ],
);

/// `Sysctl`.
pub(super) static SYSCTL: Message = Message::new(
    "Sysctl",
    &[val(1, "name", Ty::Str), val(2, "value", Ty::Str)],
);

/// `PodSecurityContext`.
pub(super) static POD_SECURITY_CONTEXT: Message = Message::new(
    "PodSecurityContext",
    &[
        ptr(1, "seLinuxOptions", Ty::Msg(&SE_LINUX_OPTIONS)),
        ptr(
            8,
            "windowsOptions",
            Ty::Msg(&WINDOWS_SECURITY_CONTEXT_OPTIONS),
        ),
        ptr(2, "runAsUser", Ty::Int),
        ptr(6, "runAsGroup", Ty::Int),
        ptr(3, "runAsNonRoot", Ty::Bool),
        list(4, "supplementalGroups", Ty::Int),
        ptr(12, "supplementalGroupsPolicy", Ty::Str),
        ptr(5, "fsGroup", Ty::Int),
        list(7, "sysctls", Ty::Msg(&SYSCTL)),
        ptr(9, "fsGroupChangePolicy", Ty::Str),
        ptr(10, "seccompProfile", Ty::Msg(&SECCOMP_PROFILE)),
        ptr(11, "appArmorProfile", Ty::Msg(&APP_ARMOR_PROFILE)),
        ptr(13, "seLinuxChangePolicy", Ty::Str),
    ],
);

/// `Toleration`.
pub(super) static TOLERATION: Message = Message::new(
    "Toleration",
    &[
        val(1, "key", Ty::Str),
        val(2, "operator", Ty::Str),
        val(3, "value", Ty::Str),
        val(4, "effect", Ty::Str),
        ptr(5, "tolerationSeconds", Ty::Int),
    ],
);

/// `PodSpec`; not described (refused when sent): `ephemeralContainers`, `affinity`, `hostAliases`,
/// `dnsConfig`, `readinessGates`, `topologySpreadConstraints`, `os`, `schedulingGates`,
/// `resourceClaims`.
pub(super) static POD_SPEC: Message = Message::new(
    "PodSpec",
    &[
        list(1, "volumes", Ty::Msg(&VOLUME)),
        list(20, "initContainers", Ty::Msg(&CONTAINER)),
        list(2, "containers", Ty::Msg(&CONTAINER)),
        val(3, "restartPolicy", Ty::Str),
        ptr(4, "terminationGracePeriodSeconds", Ty::Int),
        ptr(5, "activeDeadlineSeconds", Ty::Int),
        val(6, "dnsPolicy", Ty::Str),
        map(7, "nodeSelector", Ty::Str),
        val(8, "serviceAccountName", Ty::Str),
        val(9, "serviceAccount", Ty::Str),
        ptr(21, "automountServiceAccountToken", Ty::Bool),
        val(10, "nodeName", Ty::Str),
        val(11, "hostNetwork", Ty::Bool),
        val(12, "hostPID", Ty::Bool),
        val(13, "hostIPC", Ty::Bool),
        ptr(27, "shareProcessNamespace", Ty::Bool),
        ptr(14, "securityContext", Ty::Msg(&POD_SECURITY_CONTEXT)),
        list(15, "imagePullSecrets", Ty::Msg(&LOCAL_OBJECT_REFERENCE)),
        val(16, "hostname", Ty::Str),
        val(17, "subdomain", Ty::Str),
        val(19, "schedulerName", Ty::Str),
        list(22, "tolerations", Ty::Msg(&TOLERATION)),
        val(24, "priorityClassName", Ty::Str),
        ptr(25, "priority", Ty::Int),
        ptr(29, "runtimeClassName", Ty::Str),
        ptr(30, "enableServiceLinks", Ty::Bool),
        ptr(31, "preemptionPolicy", Ty::Str),
        map(32, "overhead", Ty::Quantity),
        ptr(35, "setHostnameAsFQDN", Ty::Bool),
        ptr(37, "hostUsers", Ty::Bool),
        ptr(40, "resources", Ty::Msg(&RESOURCE_REQUIREMENTS)),
        ptr(41, "hostnameOverride", Ty::Str),
    ],
);

/// `TypedLocalObjectReference`.
pub(super) static TYPED_LOCAL_OBJECT_REFERENCE: Message = Message::new(
    "TypedLocalObjectReference",
    &[
        ptr(1, "apiGroup", Ty::Str),
        val(2, "kind", Ty::Str),
        val(3, "name", Ty::Str),
    ],
);
