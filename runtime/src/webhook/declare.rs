//! What a [`WebhookServerBuilder`](super::WebhookServerBuilder) registers, as data: one
//! [`AdmissionDeclaration`] per defaulter or validator and one [`ConversionHub`] per converted
//! kind. Both the generated `config/webhook/manifests.yaml` (pointing at a Service) and the
//! local installation (pointing at `https://127.0.0.1:<port>` with a CA bundle) are built from
//! these by [`Declarations::configurations`], so the two cannot drift apart.

use k8s_openapi::{
    ByteString,
    api::admissionregistration::v1::{
        MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ServiceReference,
        ValidatingWebhook, ValidatingWebhookConfiguration, WebhookClientConfig,
    },
    apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiext,
    apimachinery::pkg::apis::meta::v1::ObjectMeta,
};

use super::{CONVERT_PATH, WebhookObject, mutate_path, validate_path};

/// The name controller-gen gives the generated MutatingWebhookConfiguration.
pub const MUTATING_CONFIGURATION: &str = "mutating-webhook-configuration";
/// The name controller-gen gives the generated ValidatingWebhookConfiguration.
pub const VALIDATING_CONFIGURATION: &str = "validating-webhook-configuration";
/// The Service kubebuilder's `config/webhook/service.yaml` defines in front of the server.
pub const SERVICE_NAME: &str = "webhook-service";
/// The namespace placeholder of kubebuilder's `config/` (kustomize replaces it).
pub const SERVICE_NAMESPACE: &str = "system";

/// Whether a webhook mutates (defaulter) or only validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AdmissionType {
    /// A [`Defaulter`](super::Defaulter), in the MutatingWebhookConfiguration.
    Mutating,
    /// A [`Validator`](super::Validator), in the ValidatingWebhookConfiguration.
    Validating,
}

/// One registered admission webhook: which kind it is for, on which operations, at which path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmissionDeclaration {
    /// Mutating or validating.
    pub admission_type: AdmissionType,
    /// The API group of the kind (`""` for the core group).
    pub group: String,
    /// The version the webhook is registered for.
    pub version: String,
    /// The kind (`Memcached`).
    pub kind: String,
    /// The resource (plural) the rule matches.
    pub plural: String,
    /// The operations the rule matches (`CREATE`, `UPDATE`, `DELETE`).
    pub operations: Vec<&'static str>,
    /// The URL path the server answers at.
    pub path: String,
}

impl AdmissionDeclaration {
    pub(crate) fn new<K: WebhookObject>(
        admission_type: AdmissionType,
        operations: Vec<&'static str>,
    ) -> Self {
        let (group, version, kind) = (
            K::group(&()).into_owned(),
            K::version(&()).into_owned(),
            K::kind(&()).into_owned(),
        );
        let path = match admission_type {
            AdmissionType::Mutating => mutate_path(&group, &version, &kind),
            AdmissionType::Validating => validate_path(&group, &version, &kind),
        };
        AdmissionDeclaration {
            admission_type,
            plural: K::plural(&()).into_owned(),
            group,
            version,
            kind,
            operations,
            path,
        }
    }

    /// The webhook's name in its configuration, as kubebuilder scaffolds it:
    /// `m<kind>-<version>.<group>` (`v...` for validators). Webhook names must have at least
    /// three dot-separated segments, so a group without a dot (`apps`) is followed by
    /// kubebuilder's default domain `kb.io` (`mdeployment-v1.apps.kb.io`), and the core group
    /// gives `mpod-v1.kb.io` as in kubebuilder's core-type webhooks.
    pub fn name(&self) -> String {
        let prefix = match self.admission_type {
            AdmissionType::Mutating => 'm',
            AdmissionType::Validating => 'v',
        };
        let domain = match self.group.as_str() {
            "" => "kb.io".to_string(),
            g if g.contains('.') => g.to_string(),
            g => format!("{g}.kb.io"),
        };
        format!(
            "{prefix}{}-{}.{domain}",
            self.kind.to_lowercase(),
            self.version
        )
    }

    fn rule(&self) -> RuleWithOperations {
        RuleWithOperations {
            api_groups: Some(vec![self.group.clone()]),
            api_versions: Some(vec![self.version.clone()]),
            operations: Some(self.operations.iter().map(|o| (*o).to_string()).collect()),
            resources: Some(vec![self.plural.clone()]),
            scope: None,
        }
    }
}

/// A kind whose CRD gets `spec.conversion` (strategy `Webhook`), registered with
/// [`WebhookServerBuilder::conversion`](super::WebhookServerBuilder::conversion).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ConversionHub {
    /// The API group.
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The hub version (the one named in `conversion::<Hub>()`).
    pub version: String,
    /// The resource (plural).
    pub plural: String,
}

impl ConversionHub {
    pub(crate) fn new<K: WebhookObject>() -> Self {
        ConversionHub {
            group: K::group(&()).into_owned(),
            kind: K::kind(&()).into_owned(),
            version: K::version(&()).into_owned(),
            plural: K::plural(&()).into_owned(),
        }
    }

    /// The name of the kind's CRD: `<plural>.<group>`.
    pub fn crd_name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }
}

/// Where the API server reaches the webhook server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// Through a Service in the cluster (the generated manifests: `webhook-service` in
    /// `system`, port 443 by default); cert-manager injects the CA bundle.
    Service {
        /// The Service's namespace.
        namespace: String,
        /// The Service's name.
        name: String,
    },
    /// Directly at a URL (local development and tests): `base` is `https://host:port`
    /// without a trailing slash, `ca_bundle` the PEM of the CA that signed the serving certificate.
    Url {
        /// `https://127.0.0.1:9443`.
        base: String,
        /// PEM-encoded CA certificate(s).
        ca_bundle: String,
    },
}

impl Endpoint {
    /// The kubebuilder default: Service `webhook-service` in namespace `system`.
    pub fn kubebuilder_service() -> Self {
        Endpoint::Service {
            namespace: SERVICE_NAMESPACE.into(),
            name: SERVICE_NAME.into(),
        }
    }

    fn admission(&self, path: &str) -> WebhookClientConfig {
        match self {
            Endpoint::Service { namespace, name } => WebhookClientConfig {
                service: Some(ServiceReference {
                    name: name.clone(),
                    namespace: namespace.clone(),
                    path: Some(path.into()),
                    port: None,
                }),
                ..Default::default()
            },
            Endpoint::Url { base, ca_bundle } => WebhookClientConfig {
                url: Some(format!("{base}{path}")),
                ca_bundle: Some(ByteString(ca_bundle.clone().into_bytes())),
                service: None,
            },
        }
    }

    fn conversion(&self) -> apiext::WebhookClientConfig {
        match self {
            Endpoint::Service { namespace, name } => apiext::WebhookClientConfig {
                service: Some(apiext::ServiceReference {
                    name: name.clone(),
                    namespace: namespace.clone(),
                    path: Some(CONVERT_PATH.into()),
                    port: None,
                }),
                ..Default::default()
            },
            Endpoint::Url { base, ca_bundle } => apiext::WebhookClientConfig {
                url: Some(format!("{base}{CONVERT_PATH}")),
                ca_bundle: Some(ByteString(ca_bundle.clone().into_bytes())),
                service: None,
            },
        }
    }
}

/// The configurations for one [`Endpoint`]: what to write to `config/` or install.
#[derive(Debug, Clone, Default)]
pub struct Configurations {
    /// `mutating-webhook-configuration` with every defaulter (none without defaulters).
    pub mutating: Option<MutatingWebhookConfiguration>,
    /// `validating-webhook-configuration` with every validator (none without validators).
    pub validating: Option<ValidatingWebhookConfiguration>,
    /// `(CRD name, spec.conversion)` for every hub kind, sorted by CRD name.
    pub conversions: Vec<(String, apiext::CustomResourceConversion)>,
}

/// Everything a builder registered; see the [module docs](self).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declarations {
    /// Defaulters and validators, in registration order.
    pub admission: Vec<AdmissionDeclaration>,
    /// Hub kinds of conversion webhooks, in registration order.
    pub conversions: Vec<ConversionHub>,
}

impl Declarations {
    /// Whether nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.admission.is_empty() && self.conversions.is_empty()
    }

    /// The webhook configurations and CRD conversions pointing at `endpoint`, as controller-gen
    /// writes them: failurePolicy `Fail`, sideEffects `None`, admissionReviewVersions `[v1]`,
    /// one rule per webhook (group, version, plural, operations); webhooks sorted by name so the
    /// output does not depend on registration order.
    pub fn configurations(&self, endpoint: &Endpoint) -> Configurations {
        let mut admission = self.admission.clone();
        admission.sort_by_key(AdmissionDeclaration::name);
        let of = |t: AdmissionType| admission.iter().filter(move |d| d.admission_type == t);
        let mutating: Vec<MutatingWebhook> = of(AdmissionType::Mutating)
            .map(|d| MutatingWebhook {
                admission_review_versions: vec!["v1".into()],
                client_config: endpoint.admission(&d.path),
                failure_policy: Some("Fail".into()),
                name: d.name(),
                rules: Some(vec![d.rule()]),
                side_effects: "None".into(),
                ..Default::default()
            })
            .collect();
        let validating: Vec<ValidatingWebhook> = of(AdmissionType::Validating)
            .map(|d| ValidatingWebhook {
                admission_review_versions: vec!["v1".into()],
                client_config: endpoint.admission(&d.path),
                failure_policy: Some("Fail".into()),
                name: d.name(),
                rules: Some(vec![d.rule()]),
                side_effects: "None".into(),
                ..Default::default()
            })
            .collect();
        let meta = |name: &str| ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        };
        let mut conversions: Vec<_> = self
            .conversions
            .iter()
            .map(|hub| {
                (
                    hub.crd_name(),
                    apiext::CustomResourceConversion {
                        strategy: "Webhook".into(),
                        webhook: Some(apiext::WebhookConversion {
                            client_config: Some(endpoint.conversion()),
                            conversion_review_versions: vec!["v1".into()],
                        }),
                    },
                )
            })
            .collect();
        conversions.sort_by(|a, b| a.0.cmp(&b.0));
        conversions.dedup_by(|a, b| a.0 == b.0);
        Configurations {
            mutating: (!mutating.is_empty()).then(|| MutatingWebhookConfiguration {
                metadata: meta(MUTATING_CONFIGURATION),
                webhooks: Some(mutating),
            }),
            validating: (!validating.is_empty()).then(|| ValidatingWebhookConfiguration {
                metadata: meta(VALIDATING_CONFIGURATION),
                webhooks: Some(validating),
            }),
            conversions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declaration(t: AdmissionType, group: &str, kind: &str) -> AdmissionDeclaration {
        AdmissionDeclaration {
            admission_type: t,
            group: group.into(),
            version: "v1".into(),
            kind: kind.into(),
            plural: format!("{}s", kind.to_lowercase()),
            operations: vec!["CREATE", "UPDATE"],
            path: "/p".into(),
        }
    }

    #[test]
    fn names_have_three_segments_like_kubebuilder() {
        let m = declaration(AdmissionType::Mutating, "cache.example.com", "Memcached");
        assert_eq!(m.name(), "mmemcached-v1.cache.example.com");
        let v = declaration(AdmissionType::Validating, "apps", "Deployment");
        assert_eq!(v.name(), "vdeployment-v1.apps.kb.io");
        let core = declaration(AdmissionType::Mutating, "", "Pod");
        assert_eq!(core.name(), "mpod-v1.kb.io");
    }

    #[test]
    fn urls_carry_the_path_and_the_ca_bundle() {
        let declarations = Declarations {
            admission: vec![declaration(
                AdmissionType::Validating,
                "cache.example.com",
                "Memcached",
            )],
            conversions: vec![],
        };
        let endpoint = Endpoint::Url {
            base: "https://127.0.0.1:9443".into(),
            ca_bundle: "PEM".into(),
        };
        let c = declarations.configurations(&endpoint);
        assert!(c.mutating.is_none());
        let webhook = &c.validating.unwrap().webhooks.unwrap()[0];
        assert_eq!(
            webhook.client_config.url.as_deref(),
            Some("https://127.0.0.1:9443/p")
        );
        assert_eq!(
            webhook.client_config.ca_bundle.as_ref().unwrap().0,
            b"PEM".to_vec()
        );
    }
}
