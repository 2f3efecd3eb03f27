//! Lists: label and field selectors, pagination, resourceVersion semantics.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, ObjectMeta, PostParams, VersionMatch};

use crate::common::env;

fn labelled(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<BTreeMap<_, _>>(),
            ),
            ..Default::default()
        },
        ..Default::default()
    }
}

async fn names(api: &Api<ConfigMap>, lp: &ListParams) -> Vec<String> {
    let mut n: Vec<String> = api
        .list(lp)
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .filter(|n| n.starts_with("sel-"))
        .collect();
    n.sort();
    n
}

#[tokio::test]
async fn label_and_field_selectors() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    for (name, labels) in [
        ("sel-a", vec![("app", "web"), ("tier", "front")]),
        ("sel-b", vec![("app", "db")]),
        ("sel-c", vec![("app", "web"), ("tier", "back")]),
        ("sel-d", vec![]),
    ] {
        cms.create(&PostParams::default(), &labelled(name, &labels))
            .await
            .unwrap();
    }
    let l = |s: &str| ListParams::default().labels(s);
    assert_eq!(names(&cms, &l("app=web")).await, ["sel-a", "sel-c"]);
    assert_eq!(names(&cms, &l("app==db")).await, ["sel-b"]);
    assert_eq!(names(&cms, &l("app!=web")).await, ["sel-b", "sel-d"]);
    assert_eq!(
        names(&cms, &l("app in (db,web),tier")).await,
        ["sel-a", "sel-c"]
    );
    assert_eq!(
        names(&cms, &l("tier notin (front)")).await,
        ["sel-b", "sel-c", "sel-d"]
    );
    assert_eq!(names(&cms, &l("!app")).await, ["sel-d"]);
    assert_eq!(
        names(&cms, &ListParams::default().fields("metadata.name=sel-b")).await,
        ["sel-b"]
    );
    assert_eq!(
        names(
            &cms,
            &ListParams::default()
                .fields("metadata.name!=sel-b")
                .labels("app")
        )
        .await,
        ["sel-a", "sel-c"]
    );
    let bad = cms
        .list(&ListParams::default().fields("data.foo=bar"))
        .await;
    assert!(matches!(bad, Err(kube::Error::Api(s)) if s.code == 400));
}

#[tokio::test]
async fn pagination_is_consistent() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    for i in 0..7 {
        cms.create(
            &PostParams::default(),
            &labelled(&format!("page-{i}"), &[("paged", "yes")]),
        )
        .await
        .unwrap();
    }
    let lp = ListParams::default().labels("paged=yes").limit(3);
    let first = cms.list(&lp).await.unwrap();
    assert_eq!(first.items.len(), 3);
    let token = first.metadata.continue_.clone().expect("a continue token");
    // A change after the first page does not show up in later pages of the same list.
    cms.create(
        &PostParams::default(),
        &labelled("page-9", &[("paged", "yes")]),
    )
    .await
    .unwrap();
    let mut seen: Vec<String> = first
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    let mut next = Some(token);
    while let Some(token) = next {
        let page = cms.list(&lp.clone().continue_token(&token)).await.unwrap();
        assert!(page.items.len() <= 3);
        seen.extend(page.items.into_iter().filter_map(|c| c.metadata.name));
        next = page.metadata.continue_.filter(|t| !t.is_empty());
    }
    assert_eq!(
        seen,
        (0..7).map(|i| format!("page-{i}")).collect::<Vec<_>>()
    );
    assert_eq!(
        cms.list(&ListParams::default().labels("paged=yes"))
            .await
            .unwrap()
            .items
            .len(),
        8
    );
}

#[tokio::test]
async fn list_resource_versions() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let list = cms.list(&ListParams::default()).await.unwrap();
    let rv: u64 = list.metadata.resource_version.unwrap().parse().unwrap();
    let created = cms
        .create(&PostParams::default(), &labelled("rv-1", &[]))
        .await
        .unwrap();
    let created_rv = created.metadata.resource_version.unwrap();
    // Any resourceVersion ("0") answers from whatever the server has.
    let any = cms.list(&ListParams::default().match_any()).await.unwrap();
    assert!(any.metadata.resource_version.is_some());
    // NotOlderThan the create's resourceVersion sees the created object at least (a real
    // server may answer from its watch cache, which is only guaranteed that fresh).
    let not_older = cms
        .list(
            &ListParams::default()
                .at(&created_rv)
                .matching(VersionMatch::NotOlderThan),
        )
        .await
        .unwrap();
    let listed_rv: u64 = not_older
        .metadata
        .resource_version
        .unwrap()
        .parse()
        .unwrap();
    assert!(listed_rv > rv && listed_rv >= created_rv.parse().unwrap());
    assert!(
        not_older
            .items
            .iter()
            .any(|c| c.metadata.name.as_deref() == Some("rv-1"))
    );
}

#[tokio::test]
async fn selectable_fields_of_custom_resources() {
    use crate::common::{Widget, widget};
    let env = env().await;
    let widgets: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    widgets
        .create(&PostParams::default(), &widget("red-one", "red"))
        .await
        .unwrap();
    widgets
        .create(&PostParams::default(), &widget("blue-one", "blue"))
        .await
        .unwrap();
    let red = widgets
        .list(&ListParams::default().fields("spec.color=red"))
        .await
        .unwrap();
    let names: Vec<_> = red
        .items
        .iter()
        .filter_map(|w| w.metadata.name.clone())
        .collect();
    assert_eq!(names, ["red-one"]);
    let refused = widgets
        .list(&ListParams::default().fields("spec.replicas=1"))
        .await;
    assert!(
        matches!(refused, Err(kube::Error::Api(s)) if s.code == 400),
        "only selectable fields"
    );
}

#[tokio::test]
async fn exact_resource_version_lists_the_past() {
    let env = env().await;
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let first = cms
        .create(
            &PostParams::default(),
            &labelled("exact-1", &[("exact", "yes")]),
        )
        .await
        .unwrap();
    let rv = first.metadata.resource_version.unwrap();
    cms.create(
        &PostParams::default(),
        &labelled("exact-2", &[("exact", "yes")]),
    )
    .await
    .unwrap();
    let lp = ListParams::default()
        .labels("exact=yes")
        .at(&rv)
        .matching(VersionMatch::Exact);
    let past = cms.list(&lp).await.unwrap();
    let names: Vec<_> = past
        .items
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    assert_eq!(names, ["exact-1"]);
    assert_eq!(past.metadata.resource_version.as_deref(), Some(rv.as_str()));
}
