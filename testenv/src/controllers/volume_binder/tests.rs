//! The binder driven through a whole API server: creates and deletes as requests make them.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::controllers::ControllerManager;
use crate::endpoints::delete::delete_object;
use crate::endpoints::delete_options::DeleteOptions;
use crate::endpoints::state::Cluster;
use crate::endpoints::{Api, ApiOptions, create};
use crate::support::query::Query;

fn api() -> Arc<Api> {
    Api::new(ApiOptions::default(), Arc::new(ControllerManager))
}

fn create(cluster: &mut Cluster, group: &str, plural: &str, ns: Option<&str>, object: Value) {
    let def = cluster.registry.get(group, "v1", plural).unwrap();
    create::create_object(cluster, &def, ns, object, &Query::parse(None)).unwrap();
}

fn volume(cluster: &mut Cluster, name: &str, size: &str, spec: Value) {
    let mut object = json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": format!("/tmp/{name}")}}});
    for (k, v) in spec.as_object().unwrap() {
        object["spec"][k] = v.clone();
    }
    create(cluster, "", "persistentvolumes", None, object);
}

fn claim(cluster: &mut Cluster, name: &str, size: &str, spec: Value) {
    let mut object = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": {"resources": {"requests": {"storage": size}}, "accessModes": ["ReadWriteOnce"]}});
    for (k, v) in spec.as_object().unwrap() {
        object["spec"][k] = v.clone();
    }
    create(
        cluster,
        "",
        "persistentvolumeclaims",
        Some("default"),
        object,
    );
}

fn get_volume(cluster: &Cluster, name: &str) -> Option<Arc<Value>> {
    cluster.store.get("/persistentvolumes", "", name)
}

fn get_claim(cluster: &Cluster, name: &str) -> Arc<Value> {
    cluster
        .store
        .get("/persistentvolumeclaims", "default", name)
        .unwrap()
}

/// The reasons and messages of the Events about `name` in `ns`.
fn events(cluster: &Cluster, ns: &str, name: &str) -> Vec<(String, String)> {
    cluster
        .store
        .bucket("/events")
        .into_iter()
        .flatten()
        .filter(|((n, _), e)| n == ns && e["involvedObject"]["name"] == name)
        .map(|(_, e)| {
            (
                e["reason"].as_str().unwrap().to_string(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn delete_claim(cluster: &mut Cluster, name: &str) {
    let def = cluster
        .registry
        .get("", "v1", "persistentvolumeclaims")
        .unwrap();
    delete_object(cluster, &def, "default", name, &DeleteOptions::default()).unwrap();
}

#[test]
fn a_claim_binds_to_the_smallest_available_volume_that_fits() {
    let api = api();
    let mut cluster = api.lock();
    volume(&mut cluster, "big", "5Gi", json!({}));
    volume(&mut cluster, "small", "1Gi", json!({}));
    assert_eq!(
        get_volume(&cluster, "small").unwrap()["status"]["phase"],
        "Available"
    );
    assert!(
        get_volume(&cluster, "small").unwrap()["status"]["lastPhaseTransitionTime"].is_string()
    );
    claim(&mut cluster, "data", "500Mi", json!({}));
    let c = get_claim(&cluster, "data");
    let v = get_volume(&cluster, "small").unwrap();
    assert_eq!(c["spec"]["volumeName"], "small");
    assert_eq!(c["status"]["phase"], "Bound");
    assert_eq!(c["status"]["capacity"], json!({"storage": "1Gi"}));
    assert_eq!(c["status"]["accessModes"], json!(["ReadWriteOnce"]));
    let a = &c["metadata"]["annotations"];
    assert_eq!(a["pv.kubernetes.io/bind-completed"], "yes");
    assert_eq!(a["pv.kubernetes.io/bound-by-controller"], "yes");
    assert_eq!(v["status"]["phase"], "Bound");
    assert_eq!(
        v["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"],
        "yes"
    );
    let r = &v["spec"]["claimRef"];
    assert_eq!(
        (&r["kind"], &r["namespace"], &r["name"]),
        (
            &json!("PersistentVolumeClaim"),
            &json!("default"),
            &json!("data")
        )
    );
    assert_eq!(r["uid"], c["metadata"]["uid"]);
    assert!(r["resourceVersion"].is_string());
    assert_eq!(
        get_volume(&cluster, "big").unwrap()["status"]["phase"],
        "Available"
    );
    assert!(events(&cluster, "default", "data").is_empty());
    // The controller's writes are recorded as its own: the claim's fields, then its status.
    let managers: Vec<(&str, &str)> = c["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["manager"].as_str().unwrap(),
                e["subresource"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert!(
        managers.contains(&("kube-controller-manager", ""))
            && managers.contains(&("kube-controller-manager", "status")),
        "{managers:?}"
    );
}

#[test]
fn a_claim_without_a_volume_records_why_it_waits() {
    let api = api();
    let mut cluster = api.lock();
    let class = |name: &str, provisioner: &str, mode: &str| {
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": name}, "provisioner": provisioner, "volumeBindingMode": mode})
    };
    for (name, provisioner, mode) in [
        ("ext", "example.com/foo", "Immediate"),
        ("ebs", "kubernetes.io/aws-ebs", "Immediate"),
        ("wait", "example.com/foo", "WaitForFirstConsumer"),
        ("none", "kubernetes.io/no-provisioner", "Immediate"),
    ] {
        create(
            &mut cluster,
            "storage.k8s.io",
            "storageclasses",
            None,
            class(name, provisioner, mode),
        );
    }
    claim(&mut cluster, "plain", "1Gi", json!({}));
    claim(
        &mut cluster,
        "missing",
        "1Gi",
        json!({"storageClassName": "missing"}),
    );
    claim(
        &mut cluster,
        "ext",
        "1Gi",
        json!({"storageClassName": "ext"}),
    );
    claim(
        &mut cluster,
        "ebs",
        "1Gi",
        json!({"storageClassName": "ebs"}),
    );
    claim(
        &mut cluster,
        "wait",
        "1Gi",
        json!({"storageClassName": "wait"}),
    );
    claim(
        &mut cluster,
        "none",
        "1Gi",
        json!({"storageClassName": "none"}),
    );
    let reasons = |name: &str| events(&cluster, "default", name);
    assert_eq!(
        reasons("plain"),
        [(
            "FailedBinding".to_string(),
            "no persistent volumes available for this claim and no storage class is set"
                .to_string()
        )]
    );
    assert_eq!(
        reasons("missing"),
        [(
            "ProvisioningFailed".to_string(),
            "storageclass.storage.k8s.io \"missing\" not found".to_string()
        )]
    );
    assert_eq!(reasons("ext")[0].0, "ExternalProvisioning");
    assert!(reasons("ebs")[0].1.contains("'ebs.csi.aws.com'"));
    let ext = get_claim(&cluster, "ebs");
    assert_eq!(
        ext["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"],
        "ebs.csi.aws.com"
    );
    assert_eq!(
        reasons("wait"),
        [(
            "WaitForFirstConsumer".to_string(),
            "waiting for first consumer to be created before binding".to_string()
        )]
    );
    assert_eq!(
        reasons("none")[0].1,
        "no volume plugin matched name: kubernetes.io/no-provisioner"
    );
    for name in ["plain", "missing", "ext", "wait", "none"] {
        assert_eq!(get_claim(&cluster, name)["status"]["phase"], "Pending");
    }
    // A volume that fits binds the waiting claim; the one waiting for a consumer stays.
    volume(&mut cluster, "late", "1Gi", json!({}));
    volume(
        &mut cluster,
        "later",
        "1Gi",
        json!({"storageClassName": "wait"}),
    );
    assert_eq!(get_claim(&cluster, "plain")["status"]["phase"], "Bound");
    assert_eq!(get_claim(&cluster, "wait")["status"]["phase"], "Pending");
}

#[test]
fn named_and_pre_bound_volumes() {
    let api = api();
    let mut cluster = api.lock();
    volume(&mut cluster, "named", "1Gi", json!({}));
    volume(
        &mut cluster,
        "reserved",
        "1Gi",
        json!({"claimRef": {"namespace": "default", "name": "mine"}}),
    );
    assert_eq!(
        get_volume(&cluster, "reserved").unwrap()["status"]["phase"],
        "Available"
    );
    claim(&mut cluster, "asks", "1Gi", json!({"volumeName": "named"}));
    let c = get_claim(&cluster, "asks");
    assert_eq!(c["status"]["phase"], "Bound");
    assert!(c["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"].is_null());
    let v = get_volume(&cluster, "named").unwrap();
    assert_eq!(
        v["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"],
        "yes"
    );
    claim(&mut cluster, "mine", "1Gi", json!({}));
    let v = get_volume(&cluster, "reserved").unwrap();
    assert_eq!(v["status"]["phase"], "Bound");
    assert!(v["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"].is_null());
    assert_eq!(
        get_claim(&cluster, "mine")["spec"]["volumeName"],
        "reserved"
    );
    // A named volume that does not fit.
    volume(&mut cluster, "tiny", "1Mi", json!({}));
    claim(
        &mut cluster,
        "too-big",
        "1Gi",
        json!({"volumeName": "tiny"}),
    );
    assert_eq!(
        events(&cluster, "default", "too-big"),
        [(
            "VolumeMismatch".to_string(),
            "Cannot bind to requested volume \"tiny\": requested PV is too small".to_string()
        )]
    );
}

#[test]
fn a_deleted_claim_releases_its_volume_by_policy() {
    let api = api();
    let mut cluster = api.lock();
    let cases = [
        (
            "retain",
            "Retain",
            json!({"hostPath": {"path": "/tmp/retain"}}),
        ),
        (
            "nfs",
            "Delete",
            json!({"nfs": {"server": "nfs.example", "path": "/a"}}),
        ),
        ("tmp", "Delete", json!({"hostPath": {"path": "/tmp/tmp"}})),
        (
            "csi",
            "Delete",
            json!({"csi": {"driver": "d.example.com", "volumeHandle": "h"}}),
        ),
    ];
    for (name, policy, source) in cases {
        let mut object = json!({"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": policy, "storageClassName": name}});
        for (k, v) in source.as_object().unwrap() {
            object["spec"][k] = v.clone();
        }
        create(&mut cluster, "", "persistentvolumes", None, object);
        claim(&mut cluster, name, "1Gi", json!({"storageClassName": name}));
        assert_eq!(get_claim(&cluster, name)["status"]["phase"], "Bound");
        delete_claim(&mut cluster, name);
    }
    let phase = |cluster: &Cluster, name: &str| {
        get_volume(cluster, name).map(|v| v["status"]["phase"].as_str().unwrap().to_string())
    };
    assert_eq!(phase(&cluster, "retain").as_deref(), Some("Released"));
    assert_eq!(phase(&cluster, "csi").as_deref(), Some("Released"));
    assert_eq!(phase(&cluster, "tmp"), None);
    assert_eq!(phase(&cluster, "nfs").as_deref(), Some("Failed"));
    let message = "error getting deleter volume plugin for volume \"nfs\": no deletable volume plugin matched";
    assert_eq!(
        get_volume(&cluster, "nfs").unwrap()["status"]["message"],
        message
    );
    assert_eq!(
        events(&cluster, "default", "nfs"),
        [("VolumeFailedDelete".to_string(), message.to_string())]
    );
}

/// Sets the phase (and message) of recycler pod `name`, as a kubelet would.
fn finish_pod(cluster: &mut Cluster, name: &str, phase: &str, message: &str) {
    let def = cluster.registry.get("", "v1", "pods").unwrap();
    let mut pod = (*cluster.store.get("/pods", "default", name).unwrap()).clone();
    pod["status"]["phase"] = json!(phase);
    pod["status"]["message"] = json!(message);
    crate::endpoints::update::update_object(
        cluster,
        &def,
        "default",
        name,
        pod,
        crate::endpoints::subresource::Endpoint::Status,
        &Query::parse(None),
    )
    .unwrap();
}

#[test]
fn a_recycled_volume_waits_for_its_recycler_pod() {
    let api = api();
    let mut cluster = api.lock();
    let recycle = json!({"persistentVolumeReclaimPolicy": "Recycle", "storageClassName": ""});
    volume(&mut cluster, "big", "10Gi", recycle.clone());
    let released = |cluster: &mut Cluster, claim_name: &str| {
        claim(cluster, claim_name, "1Gi", json!({"storageClassName": ""}));
        assert_eq!(get_claim(cluster, claim_name)["status"]["phase"], "Bound");
        delete_claim(cluster, claim_name);
    };
    released(&mut cluster, "first");
    let pod = |cluster: &Cluster| cluster.store.get("/pods", "default", "recycler-for-big");
    let scrubber = pod(&cluster).expect("the recycler pod is created");
    assert_eq!(scrubber["spec"]["activeDeadlineSeconds"], 300);
    assert_eq!(
        scrubber["spec"]["volumes"][0]["hostPath"]["path"],
        "/tmp/big"
    );
    assert_eq!(scrubber["spec"]["containers"][0]["name"], "pv-recycler");
    let volume_now = |cluster: &Cluster| get_volume(cluster, "big").unwrap();
    assert_eq!(volume_now(&cluster)["status"]["phase"], "Released");

    finish_pod(&mut cluster, "recycler-for-big", "Succeeded", "");
    assert!(pod(&cluster).is_none(), "the recycler pod is deleted");
    assert_eq!(volume_now(&cluster)["status"]["phase"], "Available");
    assert!(volume_now(&cluster)["spec"]["claimRef"].is_null());
    assert_eq!(
        events(&cluster, "default", "big"),
        [("VolumeRecycled".to_string(), "Volume recycled".to_string())]
    );

    released(&mut cluster, "second");
    let def = cluster.registry.get("", "v1", "pods").unwrap();
    delete_object(
        &mut cluster,
        &def,
        "default",
        "recycler-for-big",
        &DeleteOptions::default(),
    )
    .unwrap();
    let failed = "Recycle failed: failed to recycle volume: recycler pod was deleted";
    assert_eq!(volume_now(&cluster)["status"]["phase"], "Failed");
    assert_eq!(volume_now(&cluster)["status"]["message"], failed);
    assert!(pod(&cluster).is_some(), "a failed recycling starts again");
    finish_pod(&mut cluster, "recycler-for-big", "Failed", "boom");
    assert!(pod(&cluster).is_some(), "and again");
    assert_eq!(volume_now(&cluster)["status"]["message"], failed);
    finish_pod(&mut cluster, "recycler-for-big", "Succeeded", "");
    assert_eq!(volume_now(&cluster)["status"]["phase"], "Available");
}
