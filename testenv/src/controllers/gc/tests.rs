//! The collector driven through a whole API server: long chains, orphaning.

use std::sync::Arc;

use super::*;
use crate::controllers::ControllerManager;
use crate::endpoints::delete;
use crate::endpoints::state::Cluster;
use crate::endpoints::{Api, ApiOptions, create};
use crate::support::query::Query;

/// Creates `n` configmaps in `default`, each owned by the previous (the first by none),
/// with `blockOwnerDeletion`; returns their names.
fn chain(cluster: &mut Cluster, n: usize) -> Vec<String> {
    let def = cluster.registry.get("", "v1", "configmaps").unwrap();
    let mut names = Vec::new();
    let mut owner: Option<(String, String)> = None;
    for i in 0..n {
        let name = format!("link-{i}");
        let mut object =
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
        if let Some((owner_name, uid)) = &owner {
            object["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap",
                "name": owner_name, "uid": uid, "blockOwnerDeletion": true}]);
        }
        let (stored, _) =
            create::create_object(cluster, &def, Some("default"), object, &Query::parse(None))
                .unwrap();
        owner = Some((
            name.clone(),
            meta::meta_str(&stored, "uid").unwrap().to_string(),
        ));
        names.push(name);
    }
    names
}

fn remaining(cluster: &Cluster, names: &[String]) -> usize {
    names
        .iter()
        .filter(|n| cluster.store.get("/configmaps", "default", n).is_some())
        .count()
}

#[test]
fn long_chains_are_collected_without_recursion() {
    for policy in ["Background", "Foreground"] {
        let api = Api::new(ApiOptions::default(), Arc::new(ControllerManager));
        let mut cluster = api.lock();
        let names = chain(&mut cluster, 2000);
        let def = cluster.registry.get("", "v1", "configmaps").unwrap();
        let options = DeleteOptions {
            propagation: Some(policy.to_string()),
            ..Default::default()
        };
        delete::delete_object(&mut cluster, &def, "default", "link-0", &options).unwrap();
        assert_eq!(remaining(&cluster, &names), 0, "{policy}");
        assert!(!DRAINING.with(Cell::get));
    }
}

#[test]
fn orphaned_chain_members_keep_their_own_dependents() {
    let api = Api::new(ApiOptions::default(), Arc::new(ControllerManager));
    let mut cluster = api.lock();
    let names = chain(&mut cluster, 3);
    let def = cluster.registry.get("", "v1", "configmaps").unwrap();
    let options = DeleteOptions {
        propagation: Some("Orphan".into()),
        ..Default::default()
    };
    delete::delete_object(&mut cluster, &def, "default", "link-0", &options).unwrap();
    assert_eq!(remaining(&cluster, &names), 2);
    let middle = cluster
        .store
        .get("/configmaps", "default", "link-1")
        .unwrap();
    assert!(middle["metadata"].get("ownerReferences").is_none());
    // The collector's patch goes through the field manager: the creator owned only the
    // reference, so no manager is left.
    assert!(middle["metadata"].get("managedFields").is_none());
    let last = cluster
        .store
        .get("/configmaps", "default", "link-2")
        .unwrap();
    assert_eq!(last["metadata"]["ownerReferences"][0]["name"], "link-1");
    assert!(
        last["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"]["f:ownerReferences"]
            .is_object()
    );
}

#[test]
fn an_update_adding_an_absent_owner_is_collected_at_once() {
    let api = Api::new(ApiOptions::default(), Arc::new(ControllerManager));
    let mut cluster = api.lock();
    let names = chain(&mut cluster, 1);
    let owner_uid = cluster
        .store
        .get("/configmaps", "default", "link-0")
        .unwrap()["metadata"]["uid"]
        .clone();
    let def = cluster.registry.get("", "v1", "configmaps").unwrap();
    let query = Query::parse(None);
    let absent =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "gone", "uid": "0000-gone"});
    let live = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "link-0", "uid": owner_uid});
    for (name, refs) in [("alone", json!([absent])), ("kept", json!([absent, live]))] {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
        create::create_object(&mut cluster, &def, Some("default"), object, &query).unwrap();
        let mut changed = (*cluster.store.get("/configmaps", "default", name).unwrap()).clone();
        changed["metadata"]["ownerReferences"] = refs;
        let (reply, _) = crate::endpoints::update::update_object_as(
            &mut cluster,
            &def,
            "default",
            name,
            changed,
            crate::endpoints::subresource::Endpoint::Main,
            &query,
            crate::endpoints::fields::Fields::of_query(&query),
        )
        .unwrap();
        // The reply is the object as written; the collector acts right after.
        assert!(reply["metadata"]["ownerReferences"][0]["name"] == "gone");
    }
    assert!(
        cluster
            .store
            .get("/configmaps", "default", "alone")
            .is_none()
    );
    let kept = cluster.store.get("/configmaps", "default", "kept").unwrap();
    assert_eq!(kept["metadata"]["ownerReferences"], json!([live]));
    assert_eq!(remaining(&cluster, &names), 1);
}
