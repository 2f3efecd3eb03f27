//! Clients acting as service accounts, with the tokens a cluster signs for them: what an
//! operator's pod gets, so a test can check what its bound role lets it do.

use k8s_openapi::api::authentication::v1::TokenRequest;
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};

use super::TestEnv;
use crate::Error;
use crate::support::kubeconfig;

impl TestEnv {
    /// A client acting as the service account `name` of [`TestEnv::namespace`]: the account
    /// is created unless it exists, and the client authenticates with a token the server
    /// signs for it (a TokenRequest, as `kubectl create token` asks). Its requests get what
    /// RBAC gives the account, on the embedded server (under the default policy) as on a
    /// real one: bind the operator's role to the account, then act as it to see what the
    /// role allows and what it lacks (403 with the real message).
    pub async fn service_account_client(&self, name: &str) -> Result<kube::Client, Error> {
        let namespace = self.namespace();
        let failed = |source: kube::Error| Error::ServiceAccountToken {
            namespace: namespace.to_string(),
            name: name.to_string(),
            source: source.into(),
        };
        let accounts: Api<ServiceAccount> = Api::namespaced(self.client(), namespace);
        let mut account = ServiceAccount::default();
        account.metadata.name = Some(name.to_string());
        match accounts.create(&PostParams::default(), &account).await {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.code == 409 => {}
            Err(e) => return Err(failed(e)),
        }
        let token = accounts
            .create_token_request(name, &PostParams::default(), &TokenRequest::default())
            .await
            .map_err(failed)?
            .status
            .map(|status| status.token)
            .unwrap_or_default();
        let mut config = kubeconfig::config_from(self.kubeconfig_path()).await?;
        config.auth_info = kube::config::AuthInfo {
            token: Some(token.into()),
            ..Default::default()
        };
        kubeconfig::client_of(config)
    }
}
