//! A v1 pod spec as kube-apiserver v1.34 holds it internally (`core.PodSpec`), for the
//! errors that print it: every field under its Go name, in declaration order, zero values
//! included, as `encoding/json` writes a struct without tags. The v1 fields that the
//! conversion moves (the host namespaces into the security context) are moved, and the
//! deprecated `serviceAccount` is gone. The volume sources are described in [`volume`].

use serde_json::Value;

use super::go_diff::GoValue;

mod volume;

use super::go_struct::Kind::{Bool, Int, Json, Omit, Ptr, Slice, Str, Struct};
use super::go_struct::{Field, field, fields};
pub(super) use volume::{
    AWS_EBS, AZURE_DISK, FC, FLOCKER, GCE_PD, PHOTON, PORTWORX, QUOBYTE, VSPHERE,
};
use volume::{KEY_SELECTOR, NAME_ONLY, OBJECT_FIELD, OPTIONAL_REF, RESOURCE_FIELD, VOLUME};

const PORT: &[Field] = &[
    ("Name", "name", Str),
    ("HostPort", "hostPort", Int),
    ("ContainerPort", "containerPort", Int),
    ("Protocol", "protocol", Str),
    ("HostIP", "hostIP", Str),
];
const ENV_FROM: &[Field] = &[
    ("Prefix", "prefix", Str),
    ("ConfigMapRef", "configMapRef", Ptr(OPTIONAL_REF)),
    ("SecretRef", "secretRef", Ptr(OPTIONAL_REF)),
];
const ENV: &[Field] = &[
    ("Name", "name", Str),
    ("Value", "value", Str),
    (
        "ValueFrom",
        "valueFrom",
        Ptr(&[
            ("FieldRef", "fieldRef", Ptr(OBJECT_FIELD)),
            ("ResourceFieldRef", "resourceFieldRef", Ptr(RESOURCE_FIELD)),
            ("ConfigMapKeyRef", "configMapKeyRef", Ptr(KEY_SELECTOR)),
            ("SecretKeyRef", "secretKeyRef", Ptr(KEY_SELECTOR)),
            ("FileKeyRef", "fileKeyRef", Json),
        ]),
    ),
];
const RESOURCES: &[Field] = &[
    ("Limits", "limits", Json),
    ("Requests", "requests", Json),
    (
        "Claims",
        "claims",
        Slice(&[("Name", "name", Str), ("Request", "request", Str)]),
    ),
];
const MOUNT: &[Field] = &[
    ("Name", "name", Str),
    ("ReadOnly", "readOnly", Bool),
    ("RecursiveReadOnly", "recursiveReadOnly", Json),
    ("MountPath", "mountPath", Str),
    ("SubPath", "subPath", Str),
    ("MountPropagation", "mountPropagation", Json),
    ("SubPathExpr", "subPathExpr", Str),
];
const EXEC: &[Field] = &[("Command", "command", Json)];
const HTTP_GET: &[Field] = &[
    ("Path", "path", Str),
    ("Port", "port", Json),
    ("Host", "host", Str),
    ("Scheme", "scheme", Str),
    (
        "HTTPHeaders",
        "httpHeaders",
        Slice(&[("Name", "name", Str), ("Value", "value", Str)]),
    ),
];
const TCP_SOCKET: &[Field] = &[("Port", "port", Json), ("Host", "host", Str)];
const PROBE: &[Field] = &[
    ("Exec", "exec", Ptr(EXEC)),
    ("HTTPGet", "httpGet", Ptr(HTTP_GET)),
    ("TCPSocket", "tcpSocket", Ptr(TCP_SOCKET)),
    (
        "GRPC",
        "grpc",
        Ptr(&[("Port", "port", Int), ("Service", "service", Json)]),
    ),
    ("InitialDelaySeconds", "initialDelaySeconds", Int),
    ("TimeoutSeconds", "timeoutSeconds", Int),
    ("PeriodSeconds", "periodSeconds", Int),
    ("SuccessThreshold", "successThreshold", Int),
    ("FailureThreshold", "failureThreshold", Int),
    (
        "TerminationGracePeriodSeconds",
        "terminationGracePeriodSeconds",
        Json,
    ),
];
const HANDLER: &[Field] = &[
    ("Exec", "exec", Ptr(EXEC)),
    ("HTTPGet", "httpGet", Ptr(HTTP_GET)),
    ("TCPSocket", "tcpSocket", Ptr(TCP_SOCKET)),
    ("Sleep", "sleep", Ptr(&[("Seconds", "seconds", Int)])),
];
const SE_LINUX: &[Field] = &[
    ("User", "user", Str),
    ("Role", "role", Str),
    ("Type", "type", Str),
    ("Level", "level", Str),
];
const WINDOWS: &[Field] = &[
    ("GMSACredentialSpecName", "gmsaCredentialSpecName", Json),
    ("GMSACredentialSpec", "gmsaCredentialSpec", Json),
    ("RunAsUserName", "runAsUserName", Json),
    ("HostProcess", "hostProcess", Json),
];
const PROFILE: &[Field] = &[
    ("Type", "type", Str),
    ("LocalhostProfile", "localhostProfile", Json),
];
const SECURITY: &[Field] = &[
    (
        "Capabilities",
        "capabilities",
        Ptr(&[("Add", "add", Json), ("Drop", "drop", Json)]),
    ),
    ("Privileged", "privileged", Json),
    ("SELinuxOptions", "seLinuxOptions", Ptr(SE_LINUX)),
    ("WindowsOptions", "windowsOptions", Ptr(WINDOWS)),
    ("RunAsUser", "runAsUser", Json),
    ("RunAsGroup", "runAsGroup", Json),
    ("RunAsNonRoot", "runAsNonRoot", Json),
    ("ReadOnlyRootFilesystem", "readOnlyRootFilesystem", Json),
    ("AllowPrivilegeEscalation", "allowPrivilegeEscalation", Json),
    ("ProcMount", "procMount", Json),
    ("SeccompProfile", "seccompProfile", Ptr(PROFILE)),
    ("AppArmorProfile", "appArmorProfile", Ptr(PROFILE)),
];

/// The fields of a container, which an ephemeral container shares (and then names its
/// target).
macro_rules! container_fields {
    ($($extra:expr),*) => {
        &[
            ("Name", "name", Str),
            ("Image", "image", Str),
            ("Command", "command", Json),
            ("Args", "args", Json),
            ("WorkingDir", "workingDir", Str),
            ("Ports", "ports", Slice(PORT)),
            ("EnvFrom", "envFrom", Slice(ENV_FROM)),
            ("Env", "env", Slice(ENV)),
            ("Resources", "resources", Struct(RESOURCES)),
            (
                "ResizePolicy",
                "resizePolicy",
                Slice(&[("ResourceName", "resourceName", Str), ("RestartPolicy", "restartPolicy", Str)]),
            ),
            ("RestartPolicy", "restartPolicy", Json),
            ("RestartPolicyRules", "restartPolicyRules", Json),
            ("VolumeMounts", "volumeMounts", Slice(MOUNT)),
            (
                "VolumeDevices",
                "volumeDevices",
                Slice(&[("Name", "name", Str), ("DevicePath", "devicePath", Str)]),
            ),
            ("LivenessProbe", "livenessProbe", Ptr(PROBE)),
            ("ReadinessProbe", "readinessProbe", Ptr(PROBE)),
            ("StartupProbe", "startupProbe", Ptr(PROBE)),
            (
                "Lifecycle",
                "lifecycle",
                Ptr(&[
                    ("PostStart", "postStart", Ptr(HANDLER)),
                    ("PreStop", "preStop", Ptr(HANDLER)),
                    ("StopSignal", "stopSignal", Json),
                ]),
            ),
            ("TerminationMessagePath", "terminationMessagePath", Str),
            ("TerminationMessagePolicy", "terminationMessagePolicy", Str),
            ("ImagePullPolicy", "imagePullPolicy", Str),
            ("SecurityContext", "securityContext", Ptr(SECURITY)),
            ("Stdin", "stdin", Bool),
            ("StdinOnce", "stdinOnce", Bool),
            ("TTY", "tty", Bool),
            $($extra),*
        ]
    };
}

const CONTAINER: &[Field] = container_fields!();
const EPHEMERAL_CONTAINER: &[Field] =
    container_fields!(("TargetContainerName", "targetContainerName", Str));

const POD_SECURITY: &[Field] = &[
    ("HostNetwork", "hostNetwork", Bool),
    ("HostPID", "hostPID", Bool),
    ("HostIPC", "hostIPC", Bool),
    ("ShareProcessNamespace", "shareProcessNamespace", Json),
    ("HostUsers", "hostUsers", Json),
    ("SELinuxOptions", "seLinuxOptions", Ptr(SE_LINUX)),
    ("WindowsOptions", "windowsOptions", Ptr(WINDOWS)),
    ("RunAsUser", "runAsUser", Json),
    ("RunAsGroup", "runAsGroup", Json),
    ("RunAsNonRoot", "runAsNonRoot", Json),
    ("SupplementalGroups", "supplementalGroups", Json),
    ("SupplementalGroupsPolicy", "supplementalGroupsPolicy", Json),
    ("FSGroup", "fsGroup", Json),
    ("FSGroupChangePolicy", "fsGroupChangePolicy", Json),
    (
        "Sysctls",
        "sysctls",
        Slice(&[("Name", "name", Str), ("Value", "value", Str)]),
    ),
    ("SeccompProfile", "seccompProfile", Ptr(PROFILE)),
    ("AppArmorProfile", "appArmorProfile", Ptr(PROFILE)),
    ("SELinuxChangePolicy", "seLinuxChangePolicy", Json),
];

/// `core.NodeSelectorRequirement`.
pub(super) const REQUIREMENT: &[Field] = &[
    ("Key", "key", Str),
    ("Operator", "operator", Str),
    ("Values", "values", Json),
];
/// `core.NodeSelectorTerm`.
pub(super) const SELECTOR_TERM: &[Field] = &[
    ("MatchExpressions", "matchExpressions", Slice(REQUIREMENT)),
    ("MatchFields", "matchFields", Slice(REQUIREMENT)),
];
/// `metav1.LabelSelector`, a JSON-tagged struct: its fields in declaration order, empty ones
/// left out.
const LABEL_SELECTOR: &[Field] = &[
    ("matchLabels", "matchLabels", Omit),
    ("matchExpressions", "matchExpressions", Omit),
];
const AFFINITY_TERM: &[Field] = &[
    ("LabelSelector", "labelSelector", Ptr(LABEL_SELECTOR)),
    ("Namespaces", "namespaces", Json),
    ("TopologyKey", "topologyKey", Str),
    (
        "NamespaceSelector",
        "namespaceSelector",
        Ptr(LABEL_SELECTOR),
    ),
    ("MatchLabelKeys", "matchLabelKeys", Json),
    ("MismatchLabelKeys", "mismatchLabelKeys", Json),
];
const POD_AFFINITY: &[Field] = &[
    (
        "RequiredDuringSchedulingIgnoredDuringExecution",
        "requiredDuringSchedulingIgnoredDuringExecution",
        Slice(AFFINITY_TERM),
    ),
    (
        "PreferredDuringSchedulingIgnoredDuringExecution",
        "preferredDuringSchedulingIgnoredDuringExecution",
        Slice(&[
            ("Weight", "weight", Int),
            ("PodAffinityTerm", "podAffinityTerm", Struct(AFFINITY_TERM)),
        ]),
    ),
];
const AFFINITY: &[Field] = &[
    (
        "NodeAffinity",
        "nodeAffinity",
        Ptr(&[
            (
                "RequiredDuringSchedulingIgnoredDuringExecution",
                "requiredDuringSchedulingIgnoredDuringExecution",
                Ptr(&[(
                    "NodeSelectorTerms",
                    "nodeSelectorTerms",
                    Slice(SELECTOR_TERM),
                )]),
            ),
            (
                "PreferredDuringSchedulingIgnoredDuringExecution",
                "preferredDuringSchedulingIgnoredDuringExecution",
                Slice(&[
                    ("Weight", "weight", Int),
                    ("Preference", "preference", Struct(SELECTOR_TERM)),
                ]),
            ),
        ]),
    ),
    ("PodAffinity", "podAffinity", Ptr(POD_AFFINITY)),
    ("PodAntiAffinity", "podAntiAffinity", Ptr(POD_AFFINITY)),
];

const POD_SPEC: &[Field] = &[
    ("Volumes", "volumes", Slice(VOLUME)),
    ("InitContainers", "initContainers", Slice(CONTAINER)),
    ("Containers", "containers", Slice(CONTAINER)),
    (
        "EphemeralContainers",
        "ephemeralContainers",
        Slice(EPHEMERAL_CONTAINER),
    ),
    ("RestartPolicy", "restartPolicy", Str),
    (
        "TerminationGracePeriodSeconds",
        "terminationGracePeriodSeconds",
        Json,
    ),
    ("ActiveDeadlineSeconds", "activeDeadlineSeconds", Json),
    ("DNSPolicy", "dnsPolicy", Str),
    ("NodeSelector", "nodeSelector", Json),
    ("ServiceAccountName", "serviceAccountName", Str),
    (
        "AutomountServiceAccountToken",
        "automountServiceAccountToken",
        Json,
    ),
    ("NodeName", "nodeName", Str),
    ("SecurityContext", "securityContext", Ptr(POD_SECURITY)),
    ("ImagePullSecrets", "imagePullSecrets", Slice(NAME_ONLY)),
    ("Hostname", "hostname", Str),
    ("Subdomain", "subdomain", Str),
    ("SetHostnameAsFQDN", "setHostnameAsFQDN", Json),
    ("Affinity", "affinity", Ptr(AFFINITY)),
    ("SchedulerName", "schedulerName", Str),
    (
        "Tolerations",
        "tolerations",
        Slice(&[
            ("Key", "key", Str),
            ("Operator", "operator", Str),
            ("Value", "value", Str),
            ("Effect", "effect", Str),
            ("TolerationSeconds", "tolerationSeconds", Json),
        ]),
    ),
    (
        "HostAliases",
        "hostAliases",
        Slice(&[("IP", "ip", Str), ("Hostnames", "hostnames", Json)]),
    ),
    ("PriorityClassName", "priorityClassName", Str),
    ("Priority", "priority", Json),
    ("PreemptionPolicy", "preemptionPolicy", Json),
    (
        "DNSConfig",
        "dnsConfig",
        Ptr(&[
            ("Nameservers", "nameservers", Json),
            ("Searches", "searches", Json),
            (
                "Options",
                "options",
                Slice(&[("Name", "name", Str), ("Value", "value", Json)]),
            ),
        ]),
    ),
    (
        "ReadinessGates",
        "readinessGates",
        Slice(&[("ConditionType", "conditionType", Str)]),
    ),
    ("RuntimeClassName", "runtimeClassName", Json),
    ("Overhead", "overhead", Json),
    ("EnableServiceLinks", "enableServiceLinks", Json),
    (
        "TopologySpreadConstraints",
        "topologySpreadConstraints",
        Slice(&[
            ("MaxSkew", "maxSkew", Int),
            ("TopologyKey", "topologyKey", Str),
            ("WhenUnsatisfiable", "whenUnsatisfiable", Str),
            ("LabelSelector", "labelSelector", Ptr(LABEL_SELECTOR)),
            ("MinDomains", "minDomains", Json),
            ("NodeAffinityPolicy", "nodeAffinityPolicy", Json),
            ("NodeTaintsPolicy", "nodeTaintsPolicy", Json),
            ("MatchLabelKeys", "matchLabelKeys", Json),
        ]),
    ),
    ("OS", "os", Ptr(NAME_ONLY)),
    ("SchedulingGates", "schedulingGates", Slice(NAME_ONLY)),
    (
        "ResourceClaims",
        "resourceClaims",
        Slice(&[
            ("Name", "name", Str),
            ("ResourceClaimName", "resourceClaimName", Json),
            (
                "ResourceClaimTemplateName",
                "resourceClaimTemplateName",
                Json,
            ),
        ]),
    ),
    ("Resources", "resources", Ptr(RESOURCES)),
    ("HostnameOverride", "hostnameOverride", Json),
];

/// The spec fields the v1 conversion moves into the internal security context.
const HOST_NAMESPACES: &[&str] = &[
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "hostUsers",
];

/// A v1 pod spec as its internal `core.PodSpec`.
pub fn pod_spec(spec: &Value) -> GoValue {
    let mut spec = spec.as_object().cloned().unwrap_or_default();
    spec.remove("serviceAccount");
    let mut security = spec
        .get("securityContext")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for key in HOST_NAMESPACES {
        match spec.remove(*key) {
            Some(v) => security.insert((*key).into(), v),
            None => security.remove(*key),
        };
    }
    spec.insert("securityContext".into(), Value::Object(security));
    GoValue::Struct(fields(POD_SPEC, Some(&spec)))
}

/// A v1 container security context as its internal `core.SecurityContext`.
pub fn security_context(context: &Value) -> GoValue {
    GoValue::Struct(fields(SECURITY, context.as_object()))
}

/// A v1 node selector term as its internal `core.NodeSelectorTerm`.
pub fn node_selector_term(term: &Value) -> GoValue {
    GoValue::Struct(fields(SELECTOR_TERM, term.as_object()))
}

/// A list of v1 node selector terms as `[]core.NodeSelectorTerm` (`null` when absent).
pub fn node_selector_terms(terms: &Value) -> GoValue {
    field(Slice(SELECTOR_TERM), Some(terms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::builtin::validation::go_diff::marshal;
    use serde_json::json;

    #[test]
    fn host_namespaces_move_into_the_security_context() {
        let spec = pod_spec(
            &json!({"hostPID": true, "serviceAccount": "a", "containers": [{"name": "c"}]}),
        );
        let text = marshal(&spec);
        assert!(text.starts_with("{\"Volumes\":null,\"InitContainers\":null,\"Containers\":[{\"Name\":\"c\",\"Image\":\"\","));
        assert!(text.contains("\"SecurityContext\":{\"HostNetwork\":false,\"HostPID\":true,"));
        assert!(!text.contains("\"a\""));
        assert!(text.ends_with("\"Resources\":null,\"HostnameOverride\":null}"));
    }

    #[test]
    fn a_term_prints_its_zero_fields() {
        assert_eq!(
            marshal(&node_selector_term(
                &json!({"matchExpressions": [{"key": "a", "operator": "In", "values": ["c"]}]})
            )),
            "{\"MatchExpressions\":[{\"Key\":\"a\",\"Operator\":\"In\",\"Values\":[\"c\"]}],\"MatchFields\":null}"
        );
    }

    #[test]
    fn rare_volume_sources_print_their_internal_structs() {
        let spec = pod_spec(&json!({"volumes": [
            {"name": "g", "gcePersistentDisk": {"pdName": "d"}},
            {"name": "e", "ephemeral": {"volumeClaimTemplate": {"metadata": {"labels": {"l": "v"}},
                "spec": {"resources": {"requests": {"storage": "1Gi"}}}}}},
        ]}));
        let text = marshal(&spec);
        assert!(text.contains("\"GCEPersistentDisk\":{\"PDName\":\"d\",\"FSType\":\"\",\"Partition\":0,\"ReadOnly\":false}"), "{text}");
        assert!(text.contains("\"VolumeClaimTemplate\":{\"labels\":{\"l\":\"v\"},\"Spec\":{\"AccessModes\":null,\"Selector\":null,\"Resources\":{\"Limits\":null,\"Requests\":{\"storage\":\"1Gi\"}},"), "{text}");
    }
}
