//! Embedded-server specifics: configurable review policy and bookmark interval.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use kubeforge_testenv::{Mode, Policy, TestEnv};

/// Whether `KUBEFORGE_TEST_CLUSTER` selects the embedded server (the settings tested here
/// are its own).
fn embedded() -> bool {
    matches!(Mode::from_env(), Ok(Mode::Embedded))
}

#[tokio::test]
async fn subject_access_reviews_follow_the_policy() {
    if !embedded() {
        eprintln!("skipping: the policy applies to the embedded server only");
        return;
    }
    let policy =
        Policy::default().with_authorize(|spec| spec["resourceAttributes"]["verb"] != "delete");
    let env = TestEnv::builder().policy(policy).start().await.unwrap();
    let reviews: Api<SubjectAccessReview> = Api::all(env.client());
    let ask = |verb: &str| SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some("alice".into()),
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                resource: Some("pods".into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let get = reviews
        .create(&PostParams::default(), &ask("get"))
        .await
        .unwrap();
    assert!(get.status.unwrap().allowed);
    let delete = reviews
        .create(&PostParams::default(), &ask("delete"))
        .await
        .unwrap();
    assert!(!delete.status.unwrap().allowed);
}

#[tokio::test]
async fn the_default_policy_authorizes_service_accounts_with_rbac() {
    if !embedded() {
        eprintln!("skipping: Policy::allow_all is the embedded server's alone");
        return;
    }
    // As on a real cluster: a service account with no binding may not list pods.
    let env = TestEnv::start().await.unwrap();
    let sa = env.service_account_client("operator").await.unwrap();
    let err = Api::<Pod>::namespaced(sa, env.namespace())
        .list(&ListParams::default())
        .await
        .expect_err("no role is bound to the service account");
    match err {
        kube::Error::Api(status) => {
            assert_eq!(status.code, 403, "{status:?}");
            assert_eq!(
                status.message,
                format!(
                    "pods is forbidden: User \"system:serviceaccount:{ns}:operator\" cannot list resource \"pods\" in API group \"\" in the namespace \"{ns}\"",
                    ns = env.namespace()
                )
            );
        }
        other => panic!("expected a 403, got {other:?}"),
    }
    // Policy::allow_all lets every identity through.
    let env = TestEnv::builder()
        .policy(Policy::allow_all())
        .start()
        .await
        .unwrap();
    let sa = env.service_account_client("operator").await.unwrap();
    let pods = Api::<Pod>::namespaced(sa, env.namespace())
        .list(&ListParams::default())
        .await
        .unwrap();
    assert!(pods.items.is_empty());
}

#[tokio::test]
async fn bookmarks_arrive_at_the_configured_interval() {
    if !embedded() {
        eprintln!("skipping: the bookmark interval is a setting of the embedded server");
        return;
    }
    let env = TestEnv::builder()
        .bookmark_interval(Duration::from_millis(200))
        .start()
        .await
        .unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let rv = cms
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut stream = cms
        .watch(
            &WatchParams {
                bookmarks: true,
                ..Default::default()
            },
            &rv,
        )
        .await
        .unwrap()
        .boxed();
    let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    match event {
        WatchEvent::Bookmark(b) => assert_eq!(b.metadata.resource_version, rv),
        other => panic!("expected a bookmark, got {other:?}"),
    }
    let mut plain = cms
        .watch(
            &WatchParams {
                bookmarks: false,
                ..Default::default()
            }
            .timeout(1),
            &rv,
        )
        .await
        .unwrap()
        .boxed();
    let none = tokio::time::timeout(Duration::from_secs(10), plain.next())
        .await
        .unwrap();
    assert!(none.is_none(), "no bookmarks unless asked for: {none:?}");
}

#[tokio::test]
async fn many_environments_at_once() {
    if !embedded() {
        eprintln!("skipping: many servers at once is what the embedded mode does");
        return;
    }
    let envs = futures::future::join_all((0..8).map(|_| TestEnv::start())).await;
    let envs: Vec<TestEnv> = envs.into_iter().map(Result::unwrap).collect();
    let mut urls: Vec<String> = envs.iter().map(TestEnv::url).collect();
    urls.sort();
    urls.dedup();
    assert_eq!(urls.len(), 8, "every environment has its own port");
    for (i, env) in envs.iter().enumerate() {
        let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
        let cm: ConfigMap = serde_json::from_value(
            serde_json::json!({"metadata": {"name": format!("only-in-{i}")}}),
        )
        .unwrap();
        cms.create(&PostParams::default(), &cm).await.unwrap();
        // Every namespace also holds the cluster's `kube-root-ca.crt`, as on a cluster.
        let names: Vec<String> = cms
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|c| c.metadata.name)
            .filter(|n| n != "kube-root-ca.crt")
            .collect();
        assert_eq!(
            names,
            vec![format!("only-in-{i}")],
            "environments are isolated"
        );
    }
    let url = envs[0].url();
    let kubeconfig = envs[0].kubeconfig_path().to_path_buf();
    drop(envs);
    assert!(
        !kubeconfig.exists(),
        "the kubeconfig is removed with the environment"
    );
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "the server stops on drop"
    );
}
