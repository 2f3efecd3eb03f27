//! `storage.k8s.io` and the core storage kinds: a StorageClass's provisioning fields never
//! change (an invalid update reports its errors first), the class marked default is given to
//! claims that name none (the DefaultStorageClass plugin), claims and volumes are protected
//! from deletion while in use, a PersistentVolume's source is checked field by field, a bound
//! claim's request shrinks only down to its capacity, and unset non-pointer times read `null`.

use serde_json::json;

use crate::common::env;
use crate::support::raw::{causes, eventually, send};

/// POSTs `body` to `path` and returns the created object (201 asserted).
async fn created(client: &kube::Client, path: &str, body: serde_json::Value) -> serde_json::Value {
    let (code, answer) = send(client, "POST", path, "application/json", Some(body)).await;
    assert_eq!(code, 201, "{answer}");
    answer
}

#[tokio::test]
async fn storage_classes_are_fixed_and_the_default_one_is_given_to_claims() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let name = format!("fast-{ns}");
    let class = json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": name,
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "example.com/fast"});
    let base = "/apis/storage.k8s.io/v1/storageclasses";
    let (code, created) = send(&client, "POST", base, "application/json", Some(class)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        (&created["reclaimPolicy"], &created["volumeBindingMode"]),
        (&json!("Delete"), &json!("Immediate"))
    );
    let path = format!("{base}/{name}");
    let merge = "application/merge-patch+json";
    let patch = json!({"provisioner": "example.com/slow", "parameters": {"a": "b"},
        "reclaimPolicy": "Retain", "volumeBindingMode": "WaitForFirstConsumer"});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        json!(format!(
            "StorageClass.storage.k8s.io \"{name}\" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden., reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden., volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable]"
        ))
    );
    let patch = json!({"allowVolumeExpansion": true, "mountOptions": ["ro"]});
    let (code, body) = send(&client, "PATCH", &path, merge, Some(patch)).await;
    assert_eq!(
        (code, &body["allowVolumeExpansion"]),
        (200, &json!(true)),
        "{body}"
    );

    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = |name: &str, class: Option<&str>| {
        let mut c = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
        if let Some(class) = class {
            c["spec"]["storageClassName"] = json!(class);
        }
        c
    };
    let (code, given) = send(
        &client,
        "POST",
        &claims,
        "application/json",
        Some(claim("given", None)),
    )
    .await;
    assert_eq!(code, 201, "{given}");
    assert_eq!(given["spec"]["storageClassName"], json!(name));
    // An empty class name asks for no class at all: it is kept.
    let (code, none) = send(
        &client,
        "POST",
        &claims,
        "application/json",
        Some(claim("none", Some(""))),
    )
    .await;
    assert_eq!(code, 201, "{none}");
    assert_eq!(none["spec"]["storageClassName"], "");
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn claims_in_use_are_protected_from_deletion() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = |name: &str| {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                "resources": {"requests": {"storage": "1Gi"}}}})
    };
    for name in ["free", "used"] {
        let (code, created) = send(
            &client,
            "POST",
            &claims,
            "application/json",
            Some(claim(name)),
        )
        .await;
        assert_eq!(code, 201, "{created}");
        assert_eq!(
            created["metadata"]["finalizers"],
            json!(["kubernetes.io/pvc-protection"])
        );
    }
    // The controller puts back a finalizer a write took away.
    let idle_path = format!("{claims}/free");
    let (code, body) = send(
        &client,
        "PATCH",
        &idle_path,
        "application/merge-patch+json",
        Some(json!({"metadata": {"finalizers": null}})),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let protected = eventually(20, || async {
        let (_, c) = send(&client, "GET", &idle_path, "", None).await;
        (c["metadata"]["finalizers"] == json!(["kubernetes.io/pvc-protection"])).then_some(())
    })
    .await;
    assert_eq!(protected, Some(()), "the claim's finalizer is back");
    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "used"}}]}});
    let (code, body) = send(&client, "POST", &pods, "application/json", Some(pod)).await;
    assert_eq!(code, 201, "{body}");
    // Only a pod on a node holds its claim.
    let binding = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "user"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "node-a"}});
    let (code, body) = send(
        &client,
        "POST",
        &format!("{pods}/user/binding"),
        "application/json",
        Some(binding),
    )
    .await;
    assert_eq!(code, 201, "{body}");

    let gone = |name: &'static str| {
        let client = client.clone();
        let path = format!("{claims}/{name}");
        async move {
            eventually(20, || async {
                let (code, _) = send(&client, "GET", &path, "", None).await;
                (code == 404).then_some(())
            })
            .await
        }
    };
    for name in ["free", "used"] {
        let (code, body) = send(&client, "DELETE", &format!("{claims}/{name}"), "", None).await;
        assert_eq!(code, 200, "{body}");
    }
    assert_eq!(gone("free").await, Some(()), "an unused claim goes");
    let (code, held) = send(&client, "GET", &format!("{claims}/used"), "", None).await;
    assert_eq!(code, 200, "a claim in use stays: {held}");
    assert!(held["metadata"]["deletionTimestamp"].is_string(), "{held}");
    let (code, body) = send(
        &client,
        "DELETE",
        &format!("{pods}/user?gracePeriodSeconds=0"),
        "",
        None,
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        gone("used").await,
        Some(()),
        "released once its pod is gone"
    );
}

#[tokio::test]
async fn volume_sources_are_checked_field_by_field() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let volume = |name: &str, source: serde_json::Value| {
        let mut spec = json!({"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]});
        for (k, v) in source.as_object().expect("an object") {
            spec[k] = v.clone();
        }
        json!({"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": format!("{name}-{ns}")}, "spec": spec})
    };
    let create = |body: serde_json::Value| {
        let client = client.clone();
        async move {
            send(
                &client,
                "POST",
                "/api/v1/persistentvolumes",
                "application/json",
                Some(body),
            )
            .await
        }
    };
    let (code, body) = create(volume(
        "nfs",
        json!({"nfs": {"server": "", "path": "exports"}}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.nfs.server: Required value",
            "spec.nfs.path: Invalid value: \"exports\": must be an absolute path",
        ]
    );
    let (code, body) = create(volume(
        "two",
        json!({"hostPath": {"path": "/a/../b"}, "csi": {"driver": "d", "volumeHandle": "h"}}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.hostPath.path: Invalid value: \"/a/../b\": must not contain '..'",
            "spec.csi: Forbidden: may not specify more than 1 volume type",
        ]
    );
    let (code, body) = create(volume("local", json!({"local": {"path": "/mnt"}}))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        ["spec.nodeAffinity: Required value: Local volume requires node affinity"]
    );
    let affinity = json!({"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "Gt", "values": ["1", "2"]}]}]}});
    let (code, body) = create(volume(
        "local",
        json!({"local": {"path": "/mnt"}, "nodeAffinity": affinity}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
        ]
    );
    // Azure disks default to shared blob disks, whose URI is an https one.
    let (code, body) = create(volume(
        "azure",
        json!({"azureDisk": {"diskName": "d", "diskURI": "disk"}}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.azureDisk.diskURI: Unsupported value: \"disk\": supported values: \"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd\""
        ]
    );
    let (code, body) = create(volume(
        "iscsi",
        json!({"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example", "lun": 256}}),
    ))
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "spec.iscsi.iqn: Invalid value: \"iqn.2001-04.com.example\": must be valid format",
            "spec.iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive",
        ]
    );
}

#[tokio::test]
async fn volumes_are_protected_while_bound() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let volumes = "/api/v1/persistentvolumes";
    let class = format!("manual-{ns}");
    let (code, body) = send(
        &client,
        "POST",
        "/apis/storage.k8s.io/v1/storageclasses",
        "application/json",
        Some(
            json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": class}, "provisioner": "kubernetes.io/no-provisioner"}),
        ),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let volume = |name: &str, claim: Option<&str>| {
        let mut v = json!({"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": format!("{name}-{ns}")},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/tmp/data"}, "storageClassName": class}});
        if let Some(claim) = claim {
            v["spec"]["claimRef"] = json!({"namespace": ns, "name": claim});
        }
        v
    };
    let (code, free) = send(
        &client,
        "POST",
        volumes,
        "application/json",
        Some(volume("free", None)),
    )
    .await;
    assert_eq!(code, 201, "{free}");
    assert_eq!(
        free["metadata"]["finalizers"],
        json!(["kubernetes.io/pv-protection"])
    );
    assert_eq!(free["status"]["phase"], "Pending");
    assert!(
        free["status"]["lastPhaseTransitionTime"].is_string(),
        "{free}"
    );
    // The controller puts back a finalizer a write took away.
    let merge = "application/merge-patch+json";
    let free_path = format!("{volumes}/free-{ns}");
    let unprotect = json!({"metadata": {"finalizers": null}});
    let (code, body) = send(&client, "PATCH", &free_path, merge, Some(unprotect)).await;
    assert_eq!(code, 200, "{body}");
    let protected = eventually(20, || async {
        let (_, v) = send(&client, "GET", &free_path, "", None).await;
        (v["metadata"]["finalizers"] == json!(["kubernetes.io/pv-protection"])).then_some(())
    })
    .await;
    assert_eq!(protected, Some(()), "the finalizer is back");
    // A volume that names its claim, then a claim that names the volume: bound (by the
    // volume binder of a real control plane; the status says so everywhere).
    let (code, body) = send(
        &client,
        "POST",
        volumes,
        "application/json",
        Some(volume("held", Some("data"))),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": class,
            "volumeName": format!("held-{ns}"), "resources": {"requests": {"storage": "1Gi"}}}});
    let (code, body) = send(&client, "POST", &claims, "application/json", Some(claim)).await;
    assert_eq!(code, 201, "{body}");
    let held = format!("{volumes}/held-{ns}");
    let status = |phase: &str| json!({"status": {"phase": phase}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{held}/status"),
        merge,
        Some(status("Bound")),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    // A real binder may have seen the volume before its claim existed (and called it
    // Available): wait until it has bound the two (the claim's uid in the volume's claimRef).
    if env.is_real_cluster() {
        let bound = eventually(30, || async {
            let (_, v) = send(&client, "GET", &held, "", None).await;
            (v["status"]["phase"] == "Bound" && v["spec"]["claimRef"]["uid"].is_string())
                .then_some(())
        })
        .await;
        assert_eq!(bound, Some(()), "the binder binds the volume to its claim");
    }

    let gone = |path: String| {
        let client = client.clone();
        async move {
            eventually(30, || async {
                let (code, _) = send(&client, "GET", &path, "", None).await;
                (code == 404).then_some(())
            })
            .await
        }
    };
    for path in [format!("{volumes}/free-{ns}"), held.clone()] {
        let (code, body) = send(&client, "DELETE", &path, "", None).await;
        assert_eq!(code, 200, "{body}");
    }
    assert_eq!(
        gone(format!("{volumes}/free-{ns}")).await,
        Some(()),
        "an unbound volume goes"
    );
    let (code, kept) = send(&client, "GET", &held, "", None).await;
    assert_eq!(code, 200, "a bound volume stays: {kept}");
    assert!(kept["metadata"]["deletionTimestamp"].is_string(), "{kept}");
    assert_eq!(
        kept["metadata"]["finalizers"],
        json!(["kubernetes.io/pv-protection"])
    );
    // The claim goes; its volume is released (by the binder, or here by hand) and goes too.
    let (code, body) = send(&client, "DELETE", &format!("{claims}/data"), "", None).await;
    assert_eq!(code, 200, "{body}");
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{held}/status"),
        merge,
        Some(status("Released")),
    )
    .await;
    assert!(code == 200 || code == 404, "{code} {body}");
    assert_eq!(gone(held).await, Some(()), "released once unbound");
    send(
        &client,
        "DELETE",
        &format!("/apis/storage.k8s.io/v1/storageclasses/{class}"),
        "",
        None,
    )
    .await;
}

#[tokio::test]
async fn bound_claims_shrink_down_to_their_capacity() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let merge = "application/merge-patch+json";
    let class = format!("expandable-{ns}");
    let classes = "/apis/storage.k8s.io/v1/storageclasses";
    created(
        &client,
        classes,
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": class}, "provisioner": "kubernetes.io/no-provisioner",
            "allowVolumeExpansion": true}),
    )
    .await;
    // A 10Gi volume bound to a claim of 5Gi (the binder of a real control plane binds them,
    // and records the volume's size as the claim's capacity; here the status says so).
    let volume = format!("/api/v1/persistentvolumes/big-{ns}");
    let pv = json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": format!("big-{ns}")},
        "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/tmp/big"}, "storageClassName": class,
            "claimRef": {"namespace": ns, "name": "big"}}});
    created(&client, "/api/v1/persistentvolumes", pv).await;
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = |name: &str, volume: &str| {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": class,
                "volumeName": volume, "resources": {"requests": {"storage": "5Gi"}}}})
    };
    let bound_claim = claim("big", &format!("big-{ns}"));
    created(&client, &claims, bound_claim).await;
    created(&client, &claims, claim("loose", "")).await;
    let request = |size: &str| json!({"spec": {"resources": {"requests": {"storage": size}}}});
    // Unbound: the request never changes.
    let loose = format!("{claims}/loose");
    let (code, body) = send(&client, "PATCH", &loose, merge, Some(request("1Gi"))).await;
    assert_eq!(code, 422, "{body}");
    assert!(
        causes(&body)[0].starts_with("spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"),
        "{body}"
    );
    let path = format!("{claims}/big");
    let bound = json!({"status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{path}/status"),
        merge,
        Some(bound),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    // It grows (its class allows it), and shrinks while it stays above its capacity.
    for size in ["20Gi", "15Gi"] {
        let (code, body) = send(&client, "PATCH", &path, merge, Some(request(size))).await;
        assert_eq!(
            (code, &body["spec"]["resources"]["requests"]["storage"]),
            (200, &json!(size)),
            "{body}"
        );
    }
    for size in ["10Gi", "1Gi"] {
        let (code, body) = send(&client, "PATCH", &path, merge, Some(request(size))).await;
        assert_eq!(code, 422, "{body}");
        assert_eq!(
            causes(&body),
            [
                "spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"
            ]
        );
    }
    for path in [path, loose, volume, format!("{classes}/{class}")] {
        send(&client, "DELETE", &path, "", None).await;
    }
}

#[tokio::test]
async fn an_invalid_storage_class_update_reports_validation_then_immutability() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let name = format!("slow-{ns}");
    let base = "/apis/storage.k8s.io/v1/storageclasses";
    let class = json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": name}, "provisioner": "example.com/slow"});
    let (code, body) = send(&client, "POST", base, "application/json", Some(class)).await;
    assert_eq!(code, 201, "{body}");
    let patch = json!({"provisioner": "Not Valid!", "volumeBindingMode": "Later"});
    let path = format!("{base}/{name}");
    let (code, body) = send(
        &client,
        "PATCH",
        &path,
        "application/merge-patch+json",
        Some(patch),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        [
            "provisioner: Invalid value: \"not valid!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            "volumeBindingMode: Unsupported value: \"Later\": supported values: \"Immediate\", \"WaitForFirstConsumer\"",
            "provisioner: Forbidden: updates to provisioner are forbidden.",
            "volumeBindingMode: Invalid value: \"Later\": field is immutable",
        ]
    );
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn unset_times_that_are_not_pointers_read_as_null() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
            "resources": {"requests": {"storage": "1Gi"}}}});
    let (code, body) = send(&client, "POST", &claims, "application/json", Some(claim)).await;
    assert_eq!(code, 201, "{body}");
    let condition = json!({"status": {"conditions": [{"type": "Resizing", "status": "True"}]}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{claims}/c/status"),
        "application/merge-patch+json",
        Some(condition),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        body["status"]["conditions"],
        json!([{"type": "Resizing", "status": "True", "lastProbeTime": null, "lastTransitionTime": null}])
    );
    let events = format!("/api/v1/namespaces/{ns}/events");
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"},
        "involvedObject": {"kind": "PersistentVolumeClaim", "name": "c", "namespace": ns},
        "reason": "Resizing", "message": "m"});
    let (code, body) = send(&client, "POST", &events, "application/json", Some(event)).await;
    assert_eq!(code, 201, "{body}");
    let (code, event) = send(&client, "GET", &format!("{events}/e"), "", None).await;
    assert_eq!(code, 200, "{event}");
    for field in ["firstTimestamp", "lastTimestamp", "eventTime"] {
        assert_eq!(event.get(field), Some(&json!(null)), "{field}: {event}");
    }
}

#[tokio::test]
async fn bound_claims_grow_only_when_their_class_allows_it_and_a_quota_has_room() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let merge = "application/merge-patch+json";
    let class = format!("fixed-{ns}");
    let class_path = format!("/apis/storage.k8s.io/v1/storageclasses/{class}");
    created(
        &client,
        "/apis/storage.k8s.io/v1/storageclasses",
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": class}, "provisioner": "kubernetes.io/no-provisioner"}),
    )
    .await;
    let volume = format!("/api/v1/persistentvolumes/grow-{ns}");
    let pv = json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": format!("grow-{ns}")},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/tmp/grow"}, "storageClassName": class,
            "claimRef": {"namespace": ns, "name": "grow"}}});
    created(&client, "/api/v1/persistentvolumes", pv).await;
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "grow"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": class,
            "volumeName": format!("grow-{ns}"), "resources": {"requests": {"storage": "1Gi"}}}});
    created(&client, &claims, claim).await;
    let path = format!("{claims}/grow");
    let bound = json!({"status": {"phase": "Bound", "capacity": {"storage": "1Gi"}}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{path}/status"),
        merge,
        Some(bound),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let request = |size: &str| json!({"spec": {"resources": {"requests": {"storage": size}}}});

    // The class does not allow expansion: the PersistentVolumeClaimResize plugin refuses.
    let (code, body) = send(&client, "PATCH", &path, merge, Some(request("2Gi"))).await;
    assert_eq!(
        (code, &body["reason"]),
        (403, &json!("Forbidden")),
        "{body}"
    );
    assert_eq!(
        body["message"],
        "persistentvolumeclaims \"grow\" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"
    );

    // Once it does, the claim grows, within what the namespace's quota leaves.
    let (code, body) = send(
        &client,
        "PATCH",
        &class_path,
        merge,
        Some(json!({"allowVolumeExpansion": true})),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let quota = json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "storage"},
        "spec": {"hard": {"requests.storage": "3Gi"}}});
    let quotas = format!("/api/v1/namespaces/{ns}/resourcequotas");
    created(&client, &quotas, quota).await;
    // The quota controller counts the claim before the quota admits anything.
    let counted = eventually(30, || async {
        let (_, q) = send(&client, "GET", &format!("{quotas}/storage"), "", None).await;
        (q["status"]["used"]["requests.storage"] == "1Gi").then_some(())
    })
    .await;
    assert!(counted.is_some(), "the quota's usage is counted");
    let (code, body) = send(&client, "PATCH", &path, merge, Some(request("2Gi"))).await;
    assert_eq!(
        (code, &body["spec"]["resources"]["requests"]["storage"]),
        (200, &json!("2Gi")),
        "{body}"
    );
    // The quota's usage follows (a real quota controller takes a moment).
    let recounted = eventually(30, || async {
        let (_, q) = send(&client, "GET", &format!("{quotas}/storage"), "", None).await;
        (q["status"]["used"]["requests.storage"] == "2Gi").then_some(())
    })
    .await;
    assert!(recounted.is_some(), "the quota counts the grown claim");
    let (code, body) = send(&client, "PATCH", &path, merge, Some(request("5Gi"))).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["message"],
        "persistentvolumeclaims \"grow\" is forbidden: exceeded quota: storage, requested: requests.storage=3Gi, used: requests.storage=2Gi, limited: requests.storage=3Gi"
    );
    for path in [path, volume, class_path] {
        send(&client, "DELETE", &path, "", None).await;
    }
}

/// The `Warning` headers of `method path` with a JSON (or merge-patch) body: status and
/// warnings.
async fn warned(
    client: &kube::Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: serde_json::Value,
) -> (u16, Vec<String>) {
    let (code, headers, bytes) = crate::support::raw::exchange(
        client,
        method,
        path,
        &[("Content-Type", content_type)],
        Some(&body),
    )
    .await;
    assert!(code < 300, "{}", String::from_utf8_lossy(&bytes));
    let warnings = crate::support::raw::warnings(&headers);
    (code, warnings)
}

#[tokio::test]
async fn the_beta_storage_class_annotation_warns_on_volumes_and_claims() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let annotation = "299 - \"metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use \\\"storageClassName\\\" attribute instead\"";
    let annotated = json!({"volume.beta.kubernetes.io/storage-class": "slow"});
    let name = format!("beta-class-{ns}");
    let volume = json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": annotated},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Recycle", "hostPath": {"path": "/tmp"}}});
    let volumes = "/api/v1/persistentvolumes";
    let (code, warnings) = warned(&client, "POST", volumes, "application/json", volume).await;
    assert_eq!(code, 201);
    assert_eq!(
        warnings,
        [
            annotation,
            "299 - \"spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.\"",
        ]
    );
    // Every update of the volume warns again, an update of its status does not.
    let merge = "application/merge-patch+json";
    let path = format!("{volumes}/{name}");
    let labels = json!({"metadata": {"labels": {"a": "b"}}});
    let (_, warnings) = warned(&client, "PATCH", &path, merge, labels.clone()).await;
    assert_eq!(warnings.first().map(String::as_str), Some(annotation));
    let status = json!({"status": {"message": "hi"}});
    let status_path = format!("{path}/status");
    let (_, warnings) = warned(&client, "PATCH", &status_path, merge, status).await;
    assert!(warnings.is_empty(), "{warnings:?}");

    // A claim: the annotation, then the storage sizes that are no whole bytes.
    let claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "beta-class", "annotations": annotated},
        "spec": {"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1500m"}, "limits": {"storage": "2500m"}}}});
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims?dryRun=All");
    let (code, warnings) = warned(&client, "POST", &claims, "application/json", claim).await;
    assert_eq!(code, 201);
    assert_eq!(
        warnings,
        [
            annotation,
            "299 - \"spec.resources.requests[storage]: fractional byte value \\\"1500m\\\" is invalid, must be an integer\"",
            "299 - \"spec.resources.limits[storage]: fractional byte value \\\"2500m\\\" is invalid, must be an integer\"",
        ]
    );
    send(&client, "DELETE", &path, "", None).await;
}

#[tokio::test]
async fn storage_class_allowed_topologies_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = "/apis/storage.k8s.io/v1/storageclasses?dryRun=All";
    let class = |topologies: serde_json::Value| {
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "topo"}, "provisioner": "a.b/c",
            "allowedTopologies": topologies})
    };
    let body = class(json!([
        {"matchLabelExpressions": [{"key": "example.com/", "values": ["x", "x"]},
            {"key": "example.com/"}]},
        {"matchLabelExpressions": [{"key": "k", "values": ["v"]}]},
        {"matchLabelExpressions": [{"key": "k", "values": ["v"]}]},
        {},
    ]));
    let (code, body) = send(&client, "POST", path, "application/json", Some(body)).await;
    assert_eq!(code, 422, "{body}");
    let t = |i: usize| format!("allowedTopologies[{i}].matchLabelExpressions");
    let key = format!("{}[0].key", t(0));
    let bad_key = [
        "Invalid value: \"example.com/\": name part must be non-empty",
        "Invalid value: \"example.com/\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ];
    let second_key = format!("{}[1].key", t(0));
    // An empty term is alike the list's length of blank terms Go compares it with.
    let blank = format!("{}: Duplicate value: \"\"", t(3));
    assert_eq!(
        causes(&body),
        [
            format!("{}[0].values[1]: Duplicate value: \"x\"", t(0)),
            format!("{key}: {}", bad_key[0]),
            format!("{key}: {}", bad_key[1]),
            format!("{}[1].values: Required value", t(0)),
            format!("{second_key}: {}", bad_key[0]),
            format!("{second_key}: {}", bad_key[1]),
            format!("{second_key}: Duplicate value: \"example.com/\""),
            format!("{}: Duplicate value: \"\"", t(2)),
            blank.clone(),
            blank.clone(),
            blank.clone(),
            blank,
        ]
    );
}

#[tokio::test]
async fn a_claims_data_source_fields_are_filled_in_and_dropped_as_old_clients_expect() {
    let env = env().await;
    let ns = env.namespace();
    let client = crate::support::raw::client(&env).await;
    let claims = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims");
    let claim = |name: &str, sources: serde_json::Value| {
        let mut spec = json!({"accessModes": ["ReadWriteOnce"], "storageClassName": "",
            "resources": {"requests": {"storage": "1Gi"}}});
        for (k, v) in sources.as_object().into_iter().flatten() {
            spec[k] = v.clone();
        }
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec})
    };
    let dry = format!("{claims}?dryRun=All");
    let source = json!({"kind": "PersistentVolumeClaim", "name": "src"});
    let foo = json!({"apiGroup": "example.com", "kind": "Foo", "name": "f"});
    // dataSource alone (a claim or a snapshot) gives the same dataSourceRef; the creator is
    // credited with dataSource only.
    let made = created(&client, &dry, claim("a", json!({"dataSource": source}))).await;
    let copied = json!({"apiGroup": null, "kind": "PersistentVolumeClaim", "name": "src"});
    assert_eq!(made["spec"]["dataSource"], copied);
    assert_eq!(made["spec"]["dataSourceRef"], copied);
    let owned = &made["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"];
    assert!(owned.get("f:dataSourceRef").is_none(), "{owned}");
    // Another kind in dataSource alone is dropped; in dataSourceRef it is copied back.
    let made = created(&client, &dry, claim("b", json!({"dataSource": foo}))).await;
    assert!(made["spec"].get("dataSource").is_none(), "{made}");
    assert!(made["spec"].get("dataSourceRef").is_none(), "{made}");
    let made = created(&client, &dry, claim("c", json!({"dataSourceRef": foo}))).await;
    assert_eq!(made["spec"]["dataSource"], foo);
    let owned = &made["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:dataSourceRef"];
    assert_eq!(
        *owned,
        json!({".": {}, "f:apiGroup": {}, "f:kind": {}, "f:name": {}})
    );
    // A reference to another namespace is dropped (CrossNamespaceVolumeDataSource is off).
    let elsewhere = json!({"kind": "PersistentVolumeClaim", "name": "b", "namespace": "x"});
    let made = created(
        &client,
        &dry,
        claim("d", json!({"dataSourceRef": elsewhere})),
    )
    .await;
    assert!(made["spec"].get("dataSourceRef").is_none(), "{made}");
    // Both set, they must match.
    let (code, body) = send(
        &client,
        "POST",
        &dry,
        "application/json",
        Some(claim(
            "e",
            json!({"dataSource": foo, "dataSourceRef": source}),
        )),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "PersistentVolumeClaim \"e\" is invalid: spec: Invalid value: {}: must match dataSourceRef"
    );
    // An update of a claim without a data source drops another kind the same way (the
    // writer is still credited with it), and fills in a source sent alone.
    created(&client, &claims, claim("plain", json!({}))).await;
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{claims}/plain?fieldManager=m"),
        "application/merge-patch+json",
        Some(json!({"spec": {"dataSource": foo}})),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert!(body["spec"].get("dataSource").is_none(), "{body}");
    let entry = body["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["manager"] == "m")
        .cloned();
    assert_eq!(
        entry.map(|e| e["fieldsV1"].clone()),
        Some(json!({"f:spec": {"f:dataSource": {}}}))
    );
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{claims}/plain?dryRun=All"),
        "application/merge-patch+json",
        Some(json!({"spec": {"dataSource": source}})),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.contains("+ \"DataSourceRef\": {"), "{message}");
    send(&client, "DELETE", &format!("{claims}/plain"), "", None).await;
}

/// A CSIDriver's `nodeAllocatableUpdatePeriodSeconds` belongs to a feature off in v1.34: it
/// is dropped, the creator's managed fields still naming it.
#[tokio::test]
async fn csi_drivers_lose_the_allocatable_update_period() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let driver = json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
        "metadata": {"name": "period.example.com"}, "spec": {"nodeAllocatableUpdatePeriodSeconds": 60}});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/storage.k8s.io/v1/csidrivers?dryRun=All",
        "application/json",
        Some(driver),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    assert!(body["spec"]["nodeAllocatableUpdatePeriodSeconds"].is_null());
    assert!(
        !body["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]
            ["f:nodeAllocatableUpdatePeriodSeconds"]
            .is_null()
    );
}
