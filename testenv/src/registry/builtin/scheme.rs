//! The kinds the real kube-apiserver v1.34's decoding schemes register, and the internal Go
//! type each converts to: what decides whether a body of another apiVersion or kind is
//! decoded (and then refused by the apiVersion check), refused as a kind the scheme does not
//! know ("no kind ... is registered"), or refused as a type of another internal type
//! ("unknown conversion").
//!
//! Three schemes decode requests: `pkg/api/legacyscheme` (every built-in group except the
//! two below), the API extensions server's (`apiextensions.k8s.io`) and the aggregator's
//! (`apiregistration.k8s.io`). The legacy table is the `addKnownTypes` list of every
//! `k8s.io/api` group version that `pkg/controlplane` installs (v0.34.9), served or not
//! (`apps/v1beta1`, `extensions/v1beta1`, `batch/v1beta1`, ...; `apidiscovery.k8s.io` is not
//! installed), with the internal package each kind converts to (`pkg/apis/<group>`; the
//! `extensions` kinds convert to the apps and networking types, every `Scale` to
//! `autoscaling.Scale`, the `events.k8s.io` events to `core.Event`). Each of these was checked
//! against a real v1.34.9 server (a body of every kind sent to a resource of another type,
//! and to a resource of the same internal type). `metav1.AddToGroupVersion` adds the option
//! kinds to every installed group version ([`OPTION_KINDS`]); [`UNVERSIONED_KINDS`] are
//! registered for any group and version.

/// The kinds a scheme registers in one group version that convert to one internal package.
struct GroupVersionKinds {
    /// `group/version`, or `v1` for the core group.
    group_version: &'static str,
    /// The Go package of the internal type each kind converts to (`core`, `apps`, ...).
    internal: &'static str,
    /// The kinds, separated by whitespace; each is also the name of its Go type.
    kinds: &'static str,
}

/// The kinds `metav1.AddToGroupVersion` registers in each group version (`metav1` types,
/// converting to no built-in kind).
const OPTION_KINDS: &[&str] = &[
    "WatchEvent",
    "ListOptions",
    "GetOptions",
    "DeleteOptions",
    "CreateOptions",
    "UpdateOptions",
    "PatchOptions",
];

/// The `metav1` kinds registered as unversioned: any apiVersion names them.
const UNVERSIONED_KINDS: &[&str] = &[
    "Status",
    "APIVersions",
    "APIGroupList",
    "APIGroup",
    "APIResourceList",
];

/// `pkg/api/legacyscheme`: the group versions `pkg/controlplane` installs.
const LEGACY: &[GroupVersionKinds] = &[
    GroupVersionKinds {
        group_version: "v1",
        internal: "core",
        kinds: "Pod PodList PodStatusResult PodTemplate PodTemplateList ReplicationController \
             ReplicationControllerList Service ServiceProxyOptions ServiceList Endpoints \
             EndpointsList Node NodeList NodeProxyOptions Binding Event EventList List \
             LimitRange LimitRangeList ResourceQuota ResourceQuotaList Namespace \
             NamespaceList Secret SecretList ServiceAccount ServiceAccountList \
             PersistentVolume PersistentVolumeList PersistentVolumeClaim \
             PersistentVolumeClaimList PodAttachOptions PodLogOptions PodExecOptions \
             PodPortForwardOptions PodProxyOptions ComponentStatus ComponentStatusList \
             SerializedReference RangeAllocation ConfigMap ConfigMapList",
    },
    GroupVersionKinds {
        group_version: "admission.k8s.io/v1",
        internal: "admission",
        kinds: "AdmissionReview",
    },
    GroupVersionKinds {
        group_version: "admission.k8s.io/v1beta1",
        internal: "admission",
        kinds: "AdmissionReview",
    },
    GroupVersionKinds {
        group_version: "admissionregistration.k8s.io/v1",
        internal: "admissionregistration",
        kinds: "ValidatingWebhookConfiguration ValidatingWebhookConfigurationList \
             MutatingWebhookConfiguration MutatingWebhookConfigurationList \
             ValidatingAdmissionPolicy ValidatingAdmissionPolicyList \
             ValidatingAdmissionPolicyBinding ValidatingAdmissionPolicyBindingList",
    },
    GroupVersionKinds {
        group_version: "admissionregistration.k8s.io/v1alpha1",
        internal: "admissionregistration",
        kinds: "ValidatingAdmissionPolicy ValidatingAdmissionPolicyList \
             ValidatingAdmissionPolicyBinding ValidatingAdmissionPolicyBindingList \
             MutatingAdmissionPolicy MutatingAdmissionPolicyList \
             MutatingAdmissionPolicyBinding MutatingAdmissionPolicyBindingList",
    },
    GroupVersionKinds {
        group_version: "admissionregistration.k8s.io/v1beta1",
        internal: "admissionregistration",
        kinds: "ValidatingWebhookConfiguration ValidatingWebhookConfigurationList \
             MutatingWebhookConfiguration MutatingWebhookConfigurationList \
             ValidatingAdmissionPolicy ValidatingAdmissionPolicyList \
             ValidatingAdmissionPolicyBinding ValidatingAdmissionPolicyBindingList \
             MutatingAdmissionPolicy MutatingAdmissionPolicyList \
             MutatingAdmissionPolicyBinding MutatingAdmissionPolicyBindingList",
    },
    GroupVersionKinds {
        group_version: "apps/v1",
        internal: "apps",
        kinds: "Deployment DeploymentList StatefulSet StatefulSetList DaemonSet DaemonSetList \
             ReplicaSet ReplicaSetList ControllerRevision ControllerRevisionList",
    },
    GroupVersionKinds {
        group_version: "apps/v1beta1",
        internal: "apps",
        kinds: "Deployment DeploymentList DeploymentRollback StatefulSet StatefulSetList \
             ControllerRevision ControllerRevisionList",
    },
    GroupVersionKinds {
        group_version: "apps/v1beta1",
        internal: "autoscaling",
        kinds: "Scale",
    },
    GroupVersionKinds {
        group_version: "apps/v1beta2",
        internal: "apps",
        kinds: "Deployment DeploymentList StatefulSet StatefulSetList DaemonSet DaemonSetList \
             ReplicaSet ReplicaSetList ControllerRevision ControllerRevisionList",
    },
    GroupVersionKinds {
        group_version: "apps/v1beta2",
        internal: "autoscaling",
        kinds: "Scale",
    },
    GroupVersionKinds {
        group_version: "authentication.k8s.io/v1",
        internal: "authentication",
        kinds: "TokenReview TokenRequest SelfSubjectReview",
    },
    GroupVersionKinds {
        group_version: "authentication.k8s.io/v1alpha1",
        internal: "authentication",
        kinds: "SelfSubjectReview",
    },
    GroupVersionKinds {
        group_version: "authentication.k8s.io/v1beta1",
        internal: "authentication",
        kinds: "SelfSubjectReview TokenReview",
    },
    GroupVersionKinds {
        group_version: "authorization.k8s.io/v1",
        internal: "authorization",
        kinds: "SelfSubjectRulesReview SelfSubjectAccessReview SubjectAccessReview \
             LocalSubjectAccessReview",
    },
    GroupVersionKinds {
        group_version: "authorization.k8s.io/v1beta1",
        internal: "authorization",
        kinds: "SelfSubjectRulesReview SelfSubjectAccessReview SubjectAccessReview \
             LocalSubjectAccessReview",
    },
    GroupVersionKinds {
        group_version: "autoscaling/v1",
        internal: "autoscaling",
        kinds: "HorizontalPodAutoscaler HorizontalPodAutoscalerList Scale",
    },
    GroupVersionKinds {
        group_version: "autoscaling/v2",
        internal: "autoscaling",
        kinds: "HorizontalPodAutoscaler HorizontalPodAutoscalerList",
    },
    GroupVersionKinds {
        group_version: "autoscaling/v2beta1",
        internal: "autoscaling",
        kinds: "HorizontalPodAutoscaler HorizontalPodAutoscalerList",
    },
    GroupVersionKinds {
        group_version: "autoscaling/v2beta2",
        internal: "autoscaling",
        kinds: "HorizontalPodAutoscaler HorizontalPodAutoscalerList",
    },
    GroupVersionKinds {
        group_version: "batch/v1",
        internal: "batch",
        kinds: "Job JobList CronJob CronJobList",
    },
    GroupVersionKinds {
        group_version: "batch/v1beta1",
        internal: "batch",
        kinds: "CronJob CronJobList",
    },
    GroupVersionKinds {
        group_version: "certificates.k8s.io/v1",
        internal: "certificates",
        kinds: "CertificateSigningRequest CertificateSigningRequestList",
    },
    GroupVersionKinds {
        group_version: "certificates.k8s.io/v1alpha1",
        internal: "certificates",
        kinds: "ClusterTrustBundle ClusterTrustBundleList PodCertificateRequest \
             PodCertificateRequestList",
    },
    GroupVersionKinds {
        group_version: "certificates.k8s.io/v1beta1",
        internal: "certificates",
        kinds: "CertificateSigningRequest CertificateSigningRequestList ClusterTrustBundle \
             ClusterTrustBundleList",
    },
    GroupVersionKinds {
        group_version: "coordination.k8s.io/v1",
        internal: "coordination",
        kinds: "Lease LeaseList",
    },
    GroupVersionKinds {
        group_version: "coordination.k8s.io/v1alpha2",
        internal: "coordination",
        kinds: "LeaseCandidate LeaseCandidateList",
    },
    GroupVersionKinds {
        group_version: "coordination.k8s.io/v1beta1",
        internal: "coordination",
        kinds: "Lease LeaseList LeaseCandidate LeaseCandidateList",
    },
    GroupVersionKinds {
        group_version: "discovery.k8s.io/v1",
        internal: "discovery",
        kinds: "EndpointSlice EndpointSliceList",
    },
    GroupVersionKinds {
        group_version: "discovery.k8s.io/v1beta1",
        internal: "discovery",
        kinds: "EndpointSlice EndpointSliceList",
    },
    GroupVersionKinds {
        group_version: "events.k8s.io/v1",
        internal: "core",
        kinds: "Event EventList",
    },
    GroupVersionKinds {
        group_version: "events.k8s.io/v1beta1",
        internal: "core",
        kinds: "Event EventList",
    },
    GroupVersionKinds {
        group_version: "extensions/v1beta1",
        internal: "apps",
        kinds: "Deployment DeploymentList DeploymentRollback DaemonSetList DaemonSet ReplicaSet \
             ReplicaSetList",
    },
    GroupVersionKinds {
        group_version: "extensions/v1beta1",
        internal: "autoscaling",
        kinds: "Scale",
    },
    GroupVersionKinds {
        group_version: "extensions/v1beta1",
        internal: "networking",
        kinds: "Ingress IngressList NetworkPolicy NetworkPolicyList",
    },
    GroupVersionKinds {
        group_version: "flowcontrol.apiserver.k8s.io/v1",
        internal: "flowcontrol",
        kinds: "FlowSchema FlowSchemaList PriorityLevelConfiguration \
             PriorityLevelConfigurationList",
    },
    GroupVersionKinds {
        group_version: "flowcontrol.apiserver.k8s.io/v1beta1",
        internal: "flowcontrol",
        kinds: "FlowSchema FlowSchemaList PriorityLevelConfiguration \
             PriorityLevelConfigurationList",
    },
    GroupVersionKinds {
        group_version: "flowcontrol.apiserver.k8s.io/v1beta2",
        internal: "flowcontrol",
        kinds: "FlowSchema FlowSchemaList PriorityLevelConfiguration \
             PriorityLevelConfigurationList",
    },
    GroupVersionKinds {
        group_version: "flowcontrol.apiserver.k8s.io/v1beta3",
        internal: "flowcontrol",
        kinds: "FlowSchema FlowSchemaList PriorityLevelConfiguration \
             PriorityLevelConfigurationList",
    },
    GroupVersionKinds {
        group_version: "imagepolicy.k8s.io/v1alpha1",
        internal: "imagepolicy",
        kinds: "ImageReview",
    },
    GroupVersionKinds {
        group_version: "internal.apiserver.k8s.io/v1alpha1",
        internal: "apiserverinternal",
        kinds: "StorageVersion StorageVersionList",
    },
    GroupVersionKinds {
        group_version: "networking.k8s.io/v1",
        internal: "networking",
        kinds: "Ingress IngressList IngressClass IngressClassList NetworkPolicy \
             NetworkPolicyList IPAddress IPAddressList ServiceCIDR ServiceCIDRList",
    },
    GroupVersionKinds {
        group_version: "networking.k8s.io/v1beta1",
        internal: "networking",
        kinds: "Ingress IngressList IngressClass IngressClassList IPAddress IPAddressList \
             ServiceCIDR ServiceCIDRList",
    },
    GroupVersionKinds {
        group_version: "node.k8s.io/v1",
        internal: "node",
        kinds: "RuntimeClass RuntimeClassList",
    },
    GroupVersionKinds {
        group_version: "node.k8s.io/v1alpha1",
        internal: "node",
        kinds: "RuntimeClass RuntimeClassList",
    },
    GroupVersionKinds {
        group_version: "node.k8s.io/v1beta1",
        internal: "node",
        kinds: "RuntimeClass RuntimeClassList",
    },
    GroupVersionKinds {
        group_version: "policy/v1",
        internal: "policy",
        kinds: "PodDisruptionBudget PodDisruptionBudgetList Eviction",
    },
    GroupVersionKinds {
        group_version: "policy/v1beta1",
        internal: "policy",
        kinds: "PodDisruptionBudget PodDisruptionBudgetList Eviction",
    },
    GroupVersionKinds {
        group_version: "rbac.authorization.k8s.io/v1",
        internal: "rbac",
        kinds: "Role RoleBinding RoleBindingList RoleList ClusterRole ClusterRoleBinding \
             ClusterRoleBindingList ClusterRoleList",
    },
    GroupVersionKinds {
        group_version: "rbac.authorization.k8s.io/v1alpha1",
        internal: "rbac",
        kinds: "Role RoleBinding RoleBindingList RoleList ClusterRole ClusterRoleBinding \
             ClusterRoleBindingList ClusterRoleList",
    },
    GroupVersionKinds {
        group_version: "rbac.authorization.k8s.io/v1beta1",
        internal: "rbac",
        kinds: "Role RoleBinding RoleBindingList RoleList ClusterRole ClusterRoleBinding \
             ClusterRoleBindingList ClusterRoleList",
    },
    GroupVersionKinds {
        group_version: "resource.k8s.io/v1",
        internal: "resource",
        kinds: "DeviceClass DeviceClassList ResourceClaim ResourceClaimList \
             ResourceClaimTemplate ResourceClaimTemplateList ResourceSlice ResourceSliceList",
    },
    GroupVersionKinds {
        group_version: "resource.k8s.io/v1alpha3",
        internal: "resource",
        kinds: "DeviceTaintRule DeviceTaintRuleList",
    },
    GroupVersionKinds {
        group_version: "resource.k8s.io/v1beta1",
        internal: "resource",
        kinds: "DeviceClass DeviceClassList ResourceClaim ResourceClaimList \
             ResourceClaimTemplate ResourceClaimTemplateList ResourceSlice ResourceSliceList",
    },
    GroupVersionKinds {
        group_version: "resource.k8s.io/v1beta2",
        internal: "resource",
        kinds: "DeviceClass DeviceClassList ResourceClaim ResourceClaimList \
             ResourceClaimTemplate ResourceClaimTemplateList ResourceSlice ResourceSliceList",
    },
    GroupVersionKinds {
        group_version: "scheduling.k8s.io/v1",
        internal: "scheduling",
        kinds: "PriorityClass PriorityClassList",
    },
    GroupVersionKinds {
        group_version: "scheduling.k8s.io/v1alpha1",
        internal: "scheduling",
        kinds: "PriorityClass PriorityClassList",
    },
    GroupVersionKinds {
        group_version: "scheduling.k8s.io/v1beta1",
        internal: "scheduling",
        kinds: "PriorityClass PriorityClassList",
    },
    GroupVersionKinds {
        group_version: "storage.k8s.io/v1",
        internal: "storage",
        kinds: "StorageClass StorageClassList VolumeAttachment VolumeAttachmentList CSINode \
             CSINodeList CSIDriver CSIDriverList CSIStorageCapacity CSIStorageCapacityList \
             VolumeAttributesClass VolumeAttributesClassList",
    },
    GroupVersionKinds {
        group_version: "storage.k8s.io/v1alpha1",
        internal: "storage",
        kinds: "VolumeAttachment VolumeAttachmentList CSIStorageCapacity CSIStorageCapacityList \
             VolumeAttributesClass VolumeAttributesClassList",
    },
    GroupVersionKinds {
        group_version: "storage.k8s.io/v1beta1",
        internal: "storage",
        kinds: "StorageClass StorageClassList VolumeAttachment VolumeAttachmentList CSIDriver \
             CSIDriverList CSINode CSINodeList CSIStorageCapacity CSIStorageCapacityList \
             VolumeAttributesClass VolumeAttributesClassList",
    },
    GroupVersionKinds {
        group_version: "storagemigration.k8s.io/v1alpha1",
        internal: "storagemigration",
        kinds: "StorageVersionMigration StorageVersionMigrationList",
    },
];

/// The API extensions server's scheme (`apiextensions.k8s.io`); the core `v1` has only the
/// option kinds.
const API_EXTENSIONS: &[GroupVersionKinds] = &[
    GroupVersionKinds {
        group_version: "v1",
        internal: "",
        kinds: "",
    },
    GroupVersionKinds {
        group_version: "apiextensions.k8s.io/v1",
        internal: "apiextensions",
        kinds: "CustomResourceDefinition CustomResourceDefinitionList ConversionReview",
    },
    GroupVersionKinds {
        group_version: "apiextensions.k8s.io/v1beta1",
        internal: "apiextensions",
        kinds: "CustomResourceDefinition CustomResourceDefinitionList ConversionReview",
    },
];

/// The aggregator's scheme (`apiregistration.k8s.io`); the core `v1` has only the option
/// kinds.
const AGGREGATOR: &[GroupVersionKinds] = &[
    GroupVersionKinds {
        group_version: "v1",
        internal: "",
        kinds: "",
    },
    GroupVersionKinds {
        group_version: "apiregistration.k8s.io/v1",
        internal: "apiregistration",
        kinds: "APIService APIServiceList",
    },
    GroupVersionKinds {
        group_version: "apiregistration.k8s.io/v1beta1",
        internal: "apiregistration",
        kinds: "APIService APIServiceList",
    },
];

/// One of the schemes that decode request bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `pkg/api/legacyscheme`.
    Legacy,
    /// The API extensions server's.
    ApiExtensions,
    /// The aggregator's.
    Aggregator,
}

/// A registered kind: its Go type and the internal type it converts to, each as Go prints a
/// type (`package.Type`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registered {
    /// The versioned Go type (`v1beta1.Deployment`, `v1.DeleteOptions`).
    pub go_type: String,
    /// The internal Go type it converts to (`apps.Deployment`); `None` for the `metav1`
    /// kinds, which convert to no resource's type.
    pub internal: Option<String>,
}

impl Scheme {
    /// The scheme that decodes the bodies of a built-in group's resources.
    pub fn of_group(group: &str) -> Self {
        match group {
            "apiextensions.k8s.io" => Self::ApiExtensions,
            "apiregistration.k8s.io" => Self::Aggregator,
            _ => Self::Legacy,
        }
    }

    /// The scheme's name in its "no kind ... is registered" message.
    pub fn name(self) -> &'static str {
        match self {
            Self::Legacy => "pkg/api/legacyscheme/scheme.go:30",
            Self::ApiExtensions => "pkg/apiserver/apiserver.go:55",
            Self::Aggregator => "pkg/apiserver/scheme/scheme.go:28",
        }
    }

    fn table(self) -> &'static [GroupVersionKinds] {
        match self {
            Self::Legacy => LEGACY,
            Self::ApiExtensions => API_EXTENSIONS,
            Self::Aggregator => AGGREGATOR,
        }
    }

    /// Whether any apiVersion names this kind in this scheme: the unversioned `metav1`
    /// kinds, and `WatchEvent` in the API extensions server's.
    fn unversioned(self, kind: &str) -> bool {
        UNVERSIONED_KINDS.contains(&kind) || (self == Self::ApiExtensions && kind == "WatchEvent")
    }

    /// The kind as this scheme registers it for `api_version` (`group/version`, or a
    /// version alone for the core group), or `None` when it does not.
    pub fn lookup(self, api_version: &str, kind: &str) -> Option<Registered> {
        let meta = |name: &str| Registered {
            go_type: format!("v1.{name}"),
            internal: None,
        };
        if self.unversioned(kind) {
            return Some(meta(kind));
        }
        if let Some(group) = internal_group(api_version) {
            return self.lookup_internal(group, kind);
        }
        let mut versions = self
            .table()
            .iter()
            .filter(|gv| gv.group_version == api_version)
            .peekable();
        versions.peek()?;
        if OPTION_KINDS.contains(&kind) {
            return Some(meta(kind));
        }
        let version = api_version.rsplit('/').next().unwrap_or(api_version);
        versions
            .find(|gv| gv.kinds.split_whitespace().any(|k| k == kind))
            .map(|gv| Registered {
                go_type: format!("{version}.{kind}"),
                internal: Some(format!("{}.{kind}", gv.internal)),
            })
    }

    /// A kind of a group's internal version (`apps/__internal`, `__internal` for the core
    /// group): each kind a version of the group registers, as its internal type (the
    /// `extensions` Deployment is `apps.Deployment`); the option kinds are not registered
    /// there.
    fn lookup_internal(self, group: &str, kind: &str) -> Option<Registered> {
        self.table()
            .iter()
            .filter(|gv| gv.group_version.rsplit_once('/').map_or("", |(g, _)| g) == group)
            .find(|gv| gv.kinds.split_whitespace().any(|k| k == kind))
            .map(|gv| {
                let internal = format!("{}.{kind}", gv.internal);
                Registered {
                    go_type: internal.clone(),
                    internal: Some(internal),
                }
            })
    }

    /// The decoder's words for a kind this scheme does not register for `api_version`.
    pub fn unregistered(self, api_version: &str, kind: &str) -> String {
        let version = match internal_group(api_version) {
            Some(group) => format!("the internal version of group \"{group}\""),
            None => format!("version \"{api_version}\""),
        };
        format!(
            "no kind \"{kind}\" is registered for {version} in scheme \"{}\"",
            self.name()
        )
    }

    /// The internal Go type a served resource's objects decode into, by its own group,
    /// version and kind (`core.Event` for `events.k8s.io/v1` events).
    pub fn internal_type(self, group: &str, version: &str, kind: &str) -> String {
        let api_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        self.lookup(&api_version, kind)
            .and_then(|r| r.internal)
            .unwrap_or_else(|| format!("{}.{kind}", group.split('.').next().unwrap_or(group)))
    }
}

/// The group of an internal apiVersion (`apps/__internal`; `__internal` is the core group's),
/// which the real schemes also register, or `None` for a versioned one.
fn internal_group(api_version: &str) -> Option<&str> {
    match api_version.rsplit_once('/') {
        Some((group, "__internal")) => Some(group),
        None if api_version == "__internal" => Some(""),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unserved_versions_convert_to_the_internal_type() {
        let d = Scheme::Legacy.lookup("extensions/v1beta1", "Deployment");
        assert_eq!(
            d,
            Some(Registered {
                go_type: "v1beta1.Deployment".into(),
                internal: Some("apps.Deployment".into()),
            })
        );
        let scale = Scheme::Legacy.lookup("apps/v1beta2", "Scale");
        assert_eq!(
            scale.and_then(|r| r.internal).as_deref(),
            Some("autoscaling.Scale")
        );
        assert_eq!(
            Scheme::Legacy.internal_type("events.k8s.io", "v1", "Event"),
            "core.Event"
        );
    }

    #[test]
    fn internal_versions_register_each_kind_as_its_internal_type() {
        let d = Scheme::Legacy.lookup("extensions/__internal", "Deployment");
        assert_eq!(
            d.and_then(|r| r.internal).as_deref(),
            Some("apps.Deployment")
        );
        let pod = Scheme::Legacy.lookup("__internal", "Pod");
        assert_eq!(pod.map(|r| r.go_type).as_deref(), Some("core.Pod"));
        assert_eq!(
            Scheme::Legacy.lookup("apps/__internal", "DeleteOptions"),
            None
        );
        assert_eq!(
            Scheme::Legacy.unregistered("apps/__internal", "Pod"),
            "no kind \"Pod\" is registered for the internal version of group \"apps\" in scheme \"pkg/api/legacyscheme/scheme.go:30\""
        );
    }

    #[test]
    fn option_and_unversioned_kinds() {
        assert!(
            Scheme::Legacy
                .lookup("policy/v1beta1", "DeleteOptions")
                .is_some()
        );
        assert!(
            Scheme::Legacy
                .lookup("foo.io/v1", "DeleteOptions")
                .is_none()
        );
        assert!(Scheme::Legacy.lookup("foo.io/v1", "Status").is_some());
        assert!(Scheme::Legacy.lookup("foo.io/v1", "WatchEvent").is_none());
        assert!(
            Scheme::ApiExtensions
                .lookup("foo.io/v1", "WatchEvent")
                .is_some()
        );
        assert!(Scheme::Aggregator.lookup("v1", "DeleteOptions").is_some());
        assert!(Scheme::Aggregator.lookup("v1", "Pod").is_none());
        assert!(
            Scheme::Legacy
                .lookup("apidiscovery.k8s.io/v2", "DeleteOptions")
                .is_none()
        );
        assert!(Scheme::Legacy.lookup("apps/v1", "List").is_none());
    }
}
