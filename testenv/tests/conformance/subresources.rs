//! Scale subresource, access reviews answered by RBAC, garbage collection of owned objects, no-op writes.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use kube::api::{Api, DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::core::Resource;
use serde_json::json;

use crate::common::{Widget, env, widget};

#[tokio::test]
async fn scale_subresource() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    widgets
        .create(&PostParams::default(), &widget("scaled", "red"))
        .await
        .unwrap();
    let scale = widgets.get_scale("scaled").await.unwrap();
    assert_eq!(scale.spec.and_then(|s| s.replicas), Some(1));
    widgets
        .patch_scale(
            "scaled",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 5}})),
        )
        .await
        .unwrap();
    assert_eq!(widgets.get("scaled").await.unwrap().spec.replicas, 5);

    let deployments: Api<Deployment> = Api::namespaced(env.client(), env.namespace());
    let d: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "s"},
        "spec": {"selector": {"matchLabels": {"app": "s"}}, "template": {"metadata": {"labels": {"app": "s"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
    }))
    .unwrap();
    deployments
        .create(&PostParams::default(), &d)
        .await
        .unwrap();
    deployments
        .patch_scale(
            "s",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .unwrap();
    let after = deployments.get("s").await.unwrap();
    assert_eq!(after.spec.unwrap().replicas, Some(3));
    assert_eq!(after.metadata.generation, Some(2));
}

#[tokio::test]
async fn subject_access_reviews_answer_with_rbac() {
    let env = env().await;
    let ns = env.namespace().to_string();
    let reviews: Api<SubjectAccessReview> = Api::all(env.client());
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(format!("system:serviceaccount:{ns}:reviewed")),
            resource_attributes: Some(ResourceAttributes {
                verb: Some("get".into()),
                resource: Some("configmaps".into()),
                namespace: Some(ns.clone()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let allowed = || async {
        reviews
            .create(&PostParams::default(), &review)
            .await
            .unwrap()
            .status
            .unwrap()
    };
    // No role is bound to the account yet: RBAC has no opinion, so not allowed.
    let status = allowed().await;
    assert!(!status.allowed, "{status:?}");

    let roles: Api<Role> = Api::namespaced(env.client(), &ns);
    let role: Role = serde_json::from_value(json!({"metadata": {"name": "cm-reader"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]}))
    .unwrap();
    roles.create(&PostParams::default(), &role).await.unwrap();
    let bindings: Api<RoleBinding> = Api::namespaced(env.client(), &ns);
    let binding: RoleBinding =
        serde_json::from_value(json!({"metadata": {"name": "reviewed-reads"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "reviewed", "namespace": ns}]}))
        .unwrap();
    bindings
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    // A real server's authorizer reads bindings from an informer: wait for it to see this one.
    let mut status = allowed().await;
    for _ in 0..50 {
        if status.allowed {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        status = allowed().await;
    }
    assert!(status.allowed, "{status:?}");
    assert_eq!(
        status.reason.as_deref(),
        Some(
            format!(
                "RBAC: allowed by RoleBinding \"reviewed-reads/{ns}\" of Role \"cm-reader\" to ServiceAccount \"reviewed/{ns}\""
            )
            .as_str()
        )
    );
}

#[tokio::test]
async fn owned_objects_are_garbage_collected() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let owner = widgets
        .create(&PostParams::default(), &widget("owner", "red"))
        .await
        .unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owned = ConfigMap {
        metadata: ObjectMeta {
            name: Some("owned".into()),
            owner_references: Some(vec![owner.controller_owner_ref(&()).unwrap()]),
            ..Default::default()
        },
        ..Default::default()
    };
    cms.create(&PostParams::default(), &owned).await.unwrap();
    widgets
        .delete("owner", &DeleteParams::default())
        .await
        .unwrap();
    crate::semantics::wait_for(|| async {
        matches!(cms.get("owned").await, Err(kube::Error::Api(s)) if s.code == 404)
    })
    .await;
}

#[tokio::test]
async fn unchanged_writes_keep_the_resource_version() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let created = widgets
        .create(&PostParams::default(), &widget("same", "red"))
        .await
        .unwrap();
    let again = widgets
        .patch(
            "same",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"color": "red"}})),
        )
        .await
        .unwrap();
    assert_eq!(
        again.metadata.resource_version,
        created.metadata.resource_version
    );
}

#[tokio::test]
async fn token_review_authenticates() {
    use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
    let env = env().await;
    if env.is_real_cluster() {
        eprintln!("skipping: a real cluster's tokens are its own");
        return;
    }
    let reviews: Api<TokenReview> = Api::all(env.client());
    let review = |token: &str| TokenReview {
        spec: TokenReviewSpec {
            token: Some(token.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    // The token of the embedded server's kubeconfig is one it issued.
    let params = PostParams::default();
    let answered = reviews
        .create(&params, &review("kubeforge-testenv-admin"))
        .await
        .unwrap();
    let status = answered.status.unwrap();
    assert_eq!(status.authenticated, Some(true));
    assert!(status.user.unwrap().username.is_some());
    // One it never issued is not, as on a real server.
    let answered = reviews.create(&params, &review("any-token")).await.unwrap();
    let status = answered.status.unwrap();
    assert_ne!(status.authenticated, Some(true));
    assert_eq!(status.error.as_deref(), Some("invalid bearer token"));
}

#[tokio::test]
async fn orphan_propagation_keeps_dependents() {
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let owner = widgets
        .create(&PostParams::default(), &widget("parent", "red"))
        .await
        .unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owned = ConfigMap {
        metadata: ObjectMeta {
            name: Some("orphaned".into()),
            owner_references: Some(vec![owner.controller_owner_ref(&()).unwrap()]),
            ..Default::default()
        },
        ..Default::default()
    };
    cms.create(&PostParams::default(), &owned).await.unwrap();
    widgets
        .delete("parent", &DeleteParams::orphan())
        .await
        .unwrap();
    crate::semantics::wait_for(|| async {
        matches!(widgets.get("parent").await, Err(kube::Error::Api(s)) if s.code == 404)
    })
    .await;
    crate::semantics::wait_for(|| async {
        cms.get("orphaned")
            .await
            .is_ok_and(|c| c.metadata.owner_references.unwrap_or_default().is_empty())
    })
    .await;
}
