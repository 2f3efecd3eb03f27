//! The persistent volume binder of kube-controller-manager: a new PersistentVolume becomes
//! `Available`, a claim is bound to the smallest volume of its class that fits (both then
//! `Bound`, with the annotations, `claimRef`, `volumeName` and status the real controller
//! writes), a claim without a volume records why it waits (no class, a missing class, an
//! external provisioner, `WaitForFirstConsumer`), a volume created after its claim is bound
//! to it, and a deleted claim's volume is released by its reclaim policy (a `Recycle` one
//! scrubbed by a recycler pod).
//!
//! Volumes are cluster-scoped and, on a shared cluster, other tests' claims could take them:
//! each test gives its volumes a class named after its namespace. The real controller binds
//! at once on a claim's creation but finds a volume created later only on its periodic
//! resync (every 15 s), so the checks poll.

use serde_json::{Value, json};

use crate::common::env;
use crate::support::raw::{eventually, send};

const VOLUMES: &str = "/api/v1/persistentvolumes";

/// POSTs `body` to `path`, asserting 201.
async fn created(client: &kube::Client, path: &str, body: Value) -> Value {
    let (code, answer) = send(client, "POST", path, "application/json", Some(body)).await;
    assert_eq!(code, 201, "{answer}");
    answer
}

/// A volume of `size` in `class`, with `source` and `policy`.
fn volume(name: &str, size: &str, class: &str, policy: &str, source: Value) -> Value {
    let mut v = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
        "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
            "storageClassName": class, "persistentVolumeReclaimPolicy": policy}});
    for (k, s) in source.as_object().unwrap() {
        v["spec"][k] = s.clone();
    }
    v
}

/// A claim of `size` in `class` (unset when None).
fn claim(name: &str, size: &str, class: Option<&str>) -> Value {
    let mut c = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}});
    if let Some(class) = class {
        c["spec"]["storageClassName"] = json!(class);
    }
    c
}

/// The object at `path` once `done` holds for it (within 40 s, beyond the real
/// controller's 15 s resync).
async fn once(client: &kube::Client, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let seen = eventually(40, || async {
        let (code, v) = send(client, "GET", path, "", None).await;
        (code == 200 && done(&v)).then_some(v)
    })
    .await;
    match seen {
        Some(v) => v,
        None => {
            let (_, v) = send(client, "GET", path, "", None).await;
            panic!("{path} never reached the expected state: {v}")
        }
    }
}

fn phase(v: &Value) -> &str {
    v["status"]["phase"].as_str().unwrap_or_default()
}

/// The first Event about `name` in `ns` with `reason` (within 40 s).
async fn event(client: &kube::Client, ns: &str, name: &str, reason: &str) -> Value {
    let path = format!("/api/v1/namespaces/{ns}/events?fieldSelector=involvedObject.name%3D{name}");
    let found = eventually(40, || async {
        let (_, list) = send(client, "GET", &path, "", None).await;
        list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["reason"] == reason)
            .cloned()
    })
    .await;
    found.unwrap_or_else(|| panic!("no {reason} event about {name} in {ns}"))
}

async fn delete(client: &kube::Client, path: &str) {
    send(client, "DELETE", path, "", None).await;
}

#[tokio::test]
async fn a_claim_binds_to_the_smallest_volume_of_its_class_that_fits() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let class = format!("vb-fit-{ns}");
    let host = json!({"hostPath": {"path": "/tmp/kubeforge-vb"}});
    let (small, big) = (format!("vb-small-{ns}"), format!("vb-big-{ns}"));
    created(
        &client,
        VOLUMES,
        volume(&big, "5Gi", &class, "Retain", host.clone()),
    )
    .await;
    created(
        &client,
        VOLUMES,
        volume(&small, "1Gi", &class, "Retain", host),
    )
    .await;
    for name in [&small, &big] {
        let v = once(&client, &format!("{VOLUMES}/{name}"), |v| {
            phase(v) == "Available"
        })
        .await;
        assert!(v["status"]["lastPhaseTransitionTime"].is_string(), "{v}");
    }
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    created(&client, &claims, claim("data", "500Mi", Some(&class))).await;
    let c = once(&client, &format!("{claims}/data"), |c| phase(c) == "Bound").await;
    assert_eq!(c["spec"]["volumeName"], json!(small), "{c}");
    let annotations = &c["metadata"]["annotations"];
    assert_eq!(annotations["pv.kubernetes.io/bind-completed"], "yes", "{c}");
    assert_eq!(
        annotations["pv.kubernetes.io/bound-by-controller"], "yes",
        "{c}"
    );
    assert_eq!(c["status"]["capacity"], json!({"storage": "1Gi"}), "{c}");
    assert_eq!(c["status"]["accessModes"], json!(["ReadWriteOnce"]), "{c}");
    let v = once(&client, &format!("{VOLUMES}/{small}"), |v| {
        phase(v) == "Bound"
    })
    .await;
    let r = &v["spec"]["claimRef"];
    assert_eq!(r["kind"], "PersistentVolumeClaim", "{v}");
    assert_eq!(r["namespace"], json!(ns), "{v}");
    assert_eq!(r["name"], "data", "{v}");
    assert_eq!(r["uid"], c["metadata"]["uid"], "{v}");
    assert!(r["resourceVersion"].is_string(), "{v}");
    assert_eq!(
        v["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"],
        "yes"
    );
    let (_, b) = send(&client, "GET", &format!("{VOLUMES}/{big}"), "", None).await;
    assert_eq!(phase(&b), "Available", "{b}");

    // Deleted, the claim releases its volume, which keeps the reference (Retain).
    delete(&client, &format!("{claims}/data")).await;
    let v = once(&client, &format!("{VOLUMES}/{small}"), |v| {
        phase(v) == "Released"
    })
    .await;
    assert_eq!(v["spec"]["claimRef"]["name"], "data", "{v}");
    for name in [&small, &big] {
        delete(&client, &format!("{VOLUMES}/{name}")).await;
    }
}

#[tokio::test]
async fn a_claim_without_a_volume_says_why_it_waits() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let classes = "/apis/storage.k8s.io/v1/storageclasses";
    let (external, waiting) = (format!("vb-ext-{ns}"), format!("vb-wait-{ns}"));
    for (name, mode) in [(&external, "Immediate"), (&waiting, "WaitForFirstConsumer")] {
        let class = json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": name}, "provisioner": "example.com/vb", "volumeBindingMode": mode});
        created(&client, classes, class).await;
    }
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let missing = format!("vb-missing-{ns}");
    // No volume anywhere is this large, so nothing binds them.
    for (name, class) in [
        ("none", Some("")),
        ("missing", Some(missing.as_str())),
        ("external", Some(external.as_str())),
        ("waiting", Some(waiting.as_str())),
    ] {
        created(&client, &claims, claim(name, "900Ti", class)).await;
    }
    let e = event(&client, ns, "none", "FailedBinding").await;
    assert_eq!(
        e["message"],
        "no persistent volumes available for this claim and no storage class is set"
    );
    assert_eq!(e["type"], "Normal");
    assert_eq!(e["source"]["component"], "persistentvolume-controller");
    assert_eq!(e["involvedObject"]["kind"], "PersistentVolumeClaim");
    let e = event(&client, ns, "missing", "ProvisioningFailed").await;
    assert_eq!(
        e["message"],
        json!(format!(
            "storageclass.storage.k8s.io \"{missing}\" not found"
        ))
    );
    assert_eq!(e["type"], "Warning");
    let e = event(&client, ns, "external", "ExternalProvisioning").await;
    assert_eq!(
        e["message"],
        "Waiting for a volume to be created either by the external provisioner 'example.com/vb' \
         or manually by the system administrator. If volume creation is delayed, please verify \
         that the provisioner is running and correctly registered."
    );
    let c = once(&client, &format!("{claims}/external"), |c| {
        c["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"].is_string()
    })
    .await;
    let annotations = &c["metadata"]["annotations"];
    assert_eq!(
        annotations["volume.kubernetes.io/storage-provisioner"],
        "example.com/vb"
    );
    assert_eq!(
        annotations["volume.beta.kubernetes.io/storage-provisioner"],
        "example.com/vb"
    );
    let e = event(&client, ns, "waiting", "WaitForFirstConsumer").await;
    assert_eq!(
        e["message"],
        "waiting for first consumer to be created before binding"
    );
    for name in ["none", "missing", "external", "waiting"] {
        let (_, c) = send(&client, "GET", &format!("{claims}/{name}"), "", None).await;
        assert_eq!(phase(&c), "Pending", "{c}");
        assert!(c["spec"]["volumeName"].is_null(), "{c}");
    }
    for name in [&external, &waiting] {
        delete(&client, &format!("{classes}/{name}")).await;
    }
}

#[tokio::test]
async fn a_volume_created_after_its_claim_is_bound_to_it() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let class = format!("vb-late-{ns}");
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    created(&client, &claims, claim("early", "1Gi", Some(&class))).await;
    let name = format!("vb-late-{ns}");
    let source = json!({"hostPath": {"path": "/tmp/kubeforge-vb"}});
    created(
        &client,
        VOLUMES,
        volume(&name, "2Gi", &class, "Retain", source),
    )
    .await;
    let c = once(&client, &format!("{claims}/early"), |c| phase(c) == "Bound").await;
    assert_eq!(c["spec"]["volumeName"], json!(name), "{c}");
    assert_eq!(c["status"]["capacity"], json!({"storage": "2Gi"}), "{c}");
    delete(&client, &format!("{claims}/early")).await;
    once(&client, &format!("{VOLUMES}/{name}"), |v| {
        phase(v) == "Released"
    })
    .await;
    delete(&client, &format!("{VOLUMES}/{name}")).await;
}

#[tokio::test]
async fn a_deleted_claim_has_its_volume_reclaimed_as_the_plugins_allow() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let nfs = format!("vb-nfs-{ns}");
    let tmp = format!("vb-tmp-{ns}");
    let sources = [
        (
            &nfs,
            json!({"nfs": {"server": "nfs.example.com", "path": "/exports"}}),
        ),
        // The real host-path deleter removes the directory: one that does not exist.
        (
            &tmp,
            json!({"hostPath": {"path": format!("/tmp/kubeforge-vb-absent-{ns}")}}),
        ),
    ];
    for (name, source) in sources {
        created(
            &client,
            VOLUMES,
            volume(name, "1Gi", name, "Delete", source),
        )
        .await;
        once(&client, &format!("{VOLUMES}/{name}"), |v| {
            phase(v) == "Available"
        })
        .await;
        let mut c = claim(name, "1Gi", Some(name));
        c["spec"]["volumeName"] = json!(name);
        created(&client, &claims, c).await;
        let c = once(&client, &format!("{claims}/{name}"), |c| {
            phase(c) == "Bound"
        })
        .await;
        let annotations = &c["metadata"]["annotations"];
        assert_eq!(annotations["pv.kubernetes.io/bind-completed"], "yes", "{c}");
        assert!(
            annotations["pv.kubernetes.io/bound-by-controller"].is_null(),
            "the claim named its volume: {c}"
        );
        delete(&client, &format!("{claims}/{name}")).await;
    }
    // No plugin deletes an NFS volume: Failed, with the reason in its status and an Event.
    let v = once(&client, &format!("{VOLUMES}/{nfs}"), |v| {
        phase(v) == "Failed"
    })
    .await;
    let message = format!(
        "error getting deleter volume plugin for volume \"{nfs}\": no deletable volume plugin matched"
    );
    assert_eq!(v["status"]["message"], json!(message), "{v}");
    let e = event(&client, "default", &nfs, "VolumeFailedDelete").await;
    assert_eq!(e["message"], json!(message));
    assert_eq!(e["type"], "Warning");
    // The host-path plugin deletes a volume under /tmp: it goes.
    let gone = eventually(40, || async {
        let (code, _) = send(&client, "GET", &format!("{VOLUMES}/{tmp}"), "", None).await;
        (code == 404).then_some(())
    })
    .await;
    assert_eq!(gone, Some(()), "the host-path volume is deleted");
    delete(&client, &format!("{VOLUMES}/{nfs}")).await;
}

#[tokio::test]
async fn a_released_recycle_volume_is_scrubbed_by_a_recycler_pod() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let name = format!("vb-recycle-{ns}");
    let host = json!({"hostPath": {"path": "/tmp/kubeforge-vb"}});
    created(
        &client,
        VOLUMES,
        volume(&name, "4Gi", &name, "Recycle", host),
    )
    .await;
    once(&client, &format!("{VOLUMES}/{name}"), |v| {
        phase(v) == "Available"
    })
    .await;
    created(&client, &claims, claim(&name, "1Gi", Some(&name))).await;
    once(&client, &format!("{claims}/{name}"), |c| {
        phase(c) == "Bound"
    })
    .await;
    delete(&client, &format!("{claims}/{name}")).await;

    // The volume waits, Released, for its recycler pod in `default` (no node runs it).
    let pod_path = format!("/api/v1/namespaces/default/pods/recycler-for-{name}");
    let pod = once(&client, &pod_path, |_| true).await;
    assert_eq!(
        pod["spec"]["activeDeadlineSeconds"], 120,
        "30 s per GiB: {pod}"
    );
    assert_eq!(pod["spec"]["restartPolicy"], "Never");
    assert_eq!(
        pod["spec"]["volumes"][0],
        json!({"name": "vol", "hostPath": {"path": "/tmp/kubeforge-vb", "type": ""}})
    );
    let v = once(&client, &format!("{VOLUMES}/{name}"), |v| {
        phase(v) == "Released"
    })
    .await;
    assert_eq!(v["spec"]["claimRef"]["name"], json!(name));

    // The pod succeeds (as a kubelet would say): the volume is Available for a new claim.
    let body = json!({"status": {"phase": "Succeeded"}});
    let status = format!("{pod_path}/status");
    let (code, answer) = send(
        &client,
        "PATCH",
        &status,
        "application/merge-patch+json",
        Some(body),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    let v = once(&client, &format!("{VOLUMES}/{name}"), |v| {
        phase(v) == "Available"
    })
    .await;
    assert!(v["spec"]["claimRef"].is_null(), "{v}");
    let e = event(&client, "default", &name, "VolumeRecycled").await;
    assert_eq!(e["message"], "Volume recycled");
    let gone = eventually(40, || async {
        let (code, _) = send(&client, "GET", &pod_path, "", None).await;
        (code == 404).then_some(())
    })
    .await;
    assert_eq!(gone, Some(()), "the recycler pod is deleted");
    delete(&client, &format!("{VOLUMES}/{name}")).await;
}

#[tokio::test]
async fn in_tree_provisioned_volumes_get_the_migration_annotation_and_the_in_tree_finalizer() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let (ebs, host) = (format!("vb-ebs-{ns}"), format!("vb-hp-{ns}"));
    let mut v = volume(
        &ebs,
        "1Gi",
        &ebs,
        "Delete",
        json!({"awsElasticBlockStore": {"volumeID": "vol-1"}}),
    );
    v["metadata"]["annotations"] =
        json!({"pv.kubernetes.io/provisioned-by": "kubernetes.io/aws-ebs"});
    created(&client, VOLUMES, v).await;
    let mut v = volume(
        &host,
        "1Gi",
        &host,
        "Delete",
        json!({"hostPath": {"path": format!("/tmp/kubeforge-vb-absent-{ns}")}}),
    );
    v["metadata"]["annotations"] =
        json!({"pv.kubernetes.io/provisioned-by": "kubernetes.io/host-path"});
    created(&client, VOLUMES, v).await;

    // A migrated plugin: the CSI driver it moved to.
    let v = once(&client, &format!("{VOLUMES}/{ebs}"), |v| {
        v["metadata"]["annotations"]["pv.kubernetes.io/migrated-to"].is_string()
    })
    .await;
    assert_eq!(
        v["metadata"]["annotations"]["pv.kubernetes.io/migrated-to"],
        "ebs.csi.aws.com"
    );
    assert_eq!(
        v["metadata"]["finalizers"],
        json!(["kubernetes.io/pv-protection"])
    );
    // A plugin that is not migrated: the in-tree finalizer, while the policy is Delete.
    let in_tree = json!(["kubernetes.io/pv-protection", "kubernetes.io/pv-controller"]);
    once(&client, &format!("{VOLUMES}/{host}"), |v| {
        v["metadata"]["finalizers"] == in_tree
    })
    .await;
    let body = json!({"spec": {"persistentVolumeReclaimPolicy": "Retain"}});
    let path = format!("{VOLUMES}/{host}");
    let (code, answer) = send(
        &client,
        "PATCH",
        &path,
        "application/merge-patch+json",
        Some(body),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    once(&client, &path, |v| {
        v["metadata"]["finalizers"] == json!(["kubernetes.io/pv-protection"])
    })
    .await;
    delete(&client, &path).await;
    delete(&client, &format!("{VOLUMES}/{ebs}")).await;
}
