//! How a test server authenticates tokens it does not know and decides access: the
//! [`Policy`] of `TestEnv::builder().policy(..)`.

use std::sync::Arc;

use serde_json::Value;

/// Who a bearer token belongs to, as TokenReview reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct UserInfo {
    /// `status.user.username`
    pub username: String,
    /// `status.user.groups`
    pub groups: Vec<String>,
}

type Authenticate = dyn Fn(&str) -> Option<UserInfo> + Send + Sync;
type Authorize = dyn Fn(&Value) -> bool + Send + Sync;

/// How access is decided.
#[derive(Clone)]
pub(crate) enum Authorizer {
    /// Everything is allowed.
    AllowAll,
    /// A function of the review's `spec`.
    Custom(Arc<Authorize>),
    /// RBAC over the stored roles and bindings, as a real cluster decides.
    Rbac,
}

/// How tokens are authenticated and access decided.
///
/// The server's own admin token (the kubeconfig's) and the service account tokens it signs
/// are always known; other tokens go to the policy. The default refuses a token that looks
/// like a service account token (a JSON Web Token) but was not signed by the server, and
/// authenticates every other non-empty token as an admin (`kubeforge-testenv`, groups
/// `system:masters` and `system:authenticated`). Access is decided by RBAC over the stored
/// roles and bindings, for requests and access reviews alike, as a real cluster (and
/// envtest's kube-apiserver) decides it: the admin, in `system:masters`, is allowed
/// everything; a service account using a token from `serviceaccounts/<name>/token`, an
/// impersonated user and an anonymous request get what their bindings (and the built-in
/// ones, such as `system:public-info-viewer`) allow, and 403 otherwise. So a test that
/// binds an operator's role to its service account and acts with that account's token
/// finds out what the role lacks before a cluster does. [`Policy::allow_all`] lets every
/// identity do everything instead.
#[derive(Clone)]
pub struct Policy {
    authenticate: Arc<Authenticate>,
    /// Whether `authenticate` was replaced (the default accepts any token but one that
    /// looks like the server's own tokens and is not).
    custom_authenticate: bool,
    authorize: Authorizer,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            authenticate: Arc::new(|token: &str| {
                (!token.is_empty()).then(|| UserInfo {
                    username: crate::support::user::ADMIN.into(),
                    groups: vec!["system:masters".into(), "system:authenticated".into()],
                })
            }),
            custom_authenticate: false,
            authorize: Authorizer::Rbac,
        }
    }
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Policy { .. }")
    }
}

impl Policy {
    /// The default token check with RBAC deciding access: requests of users outside
    /// `system:masters` (service accounts with a token from `serviceaccounts/<name>/token`,
    /// users of [`Policy::with_authenticate`]) get 403 unless a role bound to them allows
    /// the request, and access reviews answer the same. This is the default policy; the
    /// name says so where a test depends on it.
    pub fn rbac() -> Self {
        Policy::default()
    }

    /// The default token check with every access allowed: requests of every identity go
    /// through (impersonation, escalation and bind checks included), and access reviews
    /// answer as RBAC would, except for service accounts, which they allow. Unlike a real
    /// cluster; for tests that use identities only as labels (a CSR's requester, a
    /// webhook's `userInfo`) and do not want to bind roles for them.
    pub fn allow_all() -> Self {
        Policy {
            authorize: Authorizer::AllowAll,
            ..Policy::default()
        }
    }

    /// Replaces the token check: `Some(user)` authenticates the token.
    pub fn with_authenticate(
        mut self,
        f: impl Fn(&str) -> Option<UserInfo> + Send + Sync + 'static,
    ) -> Self {
        self.authenticate = Arc::new(f);
        self.custom_authenticate = true;
        self
    }

    /// Whether the token check was replaced with [`Policy::with_authenticate`].
    pub(crate) fn authenticates_itself(&self) -> bool {
        self.custom_authenticate
    }

    /// The user a token the policy knows belongs to.
    pub(crate) fn authenticate(&self, token: &str) -> Option<UserInfo> {
        (self.authenticate)(token)
    }

    /// Replaces the access decision; the function receives the review's `spec` (for
    /// requests, a review spec describing the request).
    pub fn with_authorize(mut self, f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        self.authorize = Authorizer::Custom(Arc::new(f));
        self
    }

    /// How access is decided.
    pub(crate) fn authorizer(&self) -> &Authorizer {
        &self.authorize
    }

    /// Whether the policy has functions of its own ([`Policy::with_authenticate`],
    /// [`Policy::with_authorize`]) or allows everything ([`Policy::allow_all`]), which only
    /// the embedded server can do: a real kube-apiserver authenticates with its own
    /// authenticators and authorizes with RBAC, which is what the default policy gives.
    pub(crate) fn needs_embedded(&self) -> bool {
        self.custom_authenticate || !matches!(self.authorize, Authorizer::Rbac)
    }

    /// Whether requests need an access decision at all ([`Policy::allow_all`] allows
    /// everything).
    pub(crate) fn checks_requests(&self) -> bool {
        !matches!(self.authorize, Authorizer::AllowAll)
    }
}
