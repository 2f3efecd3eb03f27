//! Who makes a request, as kube-apiserver's authenticators report it: user name, uid,
//! groups and extra attributes. Requests carry one ([`crate::support::request::Req::user`]);
//! TokenReview, SelfSubjectReview, admission reviews and authorization read it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// The admin's user name in every mode the test environment starts: the embedded server's
/// own admin token authenticates as it, and binaries mode puts it in the admin client
/// certificate, so a CSR's `spec.username` or a `whoami` reads the same in both.
pub const ADMIN: &str = "kubeforge-testenv-admin";

/// An authenticated (or anonymous) user.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct User {
    /// `system:serviceaccount:ns:name`, `kubeforge-testenv-admin`, `system:anonymous`.
    pub username: String,
    /// The user's uid, empty when the authenticator gives none.
    pub uid: String,
    /// Group names, `system:authenticated` included for authenticated users.
    pub groups: Vec<String>,
    /// Extra attributes (`authentication.kubernetes.io/credential-id`, ...).
    pub extra: BTreeMap<String, Vec<String>>,
}

impl User {
    /// The embedded server's admin (the kubeconfig's token): in `system:masters`.
    pub fn admin() -> Self {
        User {
            username: ADMIN.into(),
            groups: vec!["system:masters".into(), "system:authenticated".into()],
            ..User::default()
        }
    }

    /// A request without credentials.
    pub fn anonymous() -> Self {
        User {
            username: "system:anonymous".into(),
            groups: vec!["system:unauthenticated".into()],
            ..User::default()
        }
    }

    /// Whether the user is in `group`.
    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }

    /// The `user`/`userInfo` object of reviews: empty fields left out, as the real server.
    pub fn to_json(&self) -> Value {
        let mut v = json!({"username": self.username});
        if !self.uid.is_empty() {
            v["uid"] = json!(self.uid);
        }
        if !self.groups.is_empty() {
            v["groups"] = json!(self.groups);
        }
        if !self.extra.is_empty() {
            v["extra"] = json!(self.extra);
        }
        v
    }
}
