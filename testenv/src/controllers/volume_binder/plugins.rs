//! What the volume plugins of kube-controller-manager v1.34 can do for a class or a volume:
//! the in-tree provisioners migrated to CSI drivers (provisioning is left to the driver's
//! external provisioner), the host-path plugin (provisioning disabled, deletion of `/tmp`
//! paths only), NFS and host-path recycling, and the real messages when no plugin can.

use serde_json::Value;

/// The annotation naming the plugin that provisioned a volume.
const PROVISIONED_BY: &str = "pv.kubernetes.io/provisioned-by";
const HOST_PATH: &str = "kubernetes.io/host-path";

/// In-tree provisioners and the CSI drivers they are migrated to (on by default in v1.34).
const MIGRATED: [(&str, &str); 7] = [
    ("kubernetes.io/aws-ebs", "ebs.csi.aws.com"),
    ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io"),
    ("kubernetes.io/azure-disk", "disk.csi.azure.com"),
    ("kubernetes.io/azure-file", "file.csi.azure.com"),
    ("kubernetes.io/cinder", "cinder.csi.openstack.org"),
    ("kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"),
    ("kubernetes.io/portworx-volume", "pxd.portworx.com"),
];

/// The CSI driver an in-tree provisioner is migrated to, if it is.
pub fn migrated_driver(provisioner: &str) -> Option<&'static str> {
    MIGRATED
        .iter()
        .find(|(p, _)| *p == provisioner)
        .map(|(_, csi)| *csi)
}

/// Who provisions volumes for a class with this `provisioner`: `Ok(name)` an external
/// provisioner of that name (the controller waits for it), `Err(message)` why provisioning
/// fails at once.
pub fn provisioner(provisioner: &str) -> Result<String, String> {
    if let Some(csi) = migrated_driver(provisioner) {
        return Ok(csi.to_string());
    }
    if provisioner == HOST_PATH {
        return Err(format!(
            "Failed to create provisioner: provisioning in volume plugin {HOST_PATH:?} is disabled"
        ));
    }
    if provisioner.starts_with("kubernetes.io/") {
        return Err(format!("no volume plugin matched name: {provisioner}"));
    }
    Ok(provisioner.to_string())
}

/// Whether a plugin for the `Failed to create provisioner` case still names itself on the
/// claim (it does: the in-tree plugin exists).
pub fn names_itself(provisioner: &str) -> bool {
    provisioner == HOST_PATH
}

/// What deleting a released volume (reclaim policy `Delete`) comes to.
#[derive(Debug, PartialEq, Eq)]
pub enum Deletion {
    /// An external provisioner deletes it: the controller leaves it `Released`.
    External,
    /// The host-path plugin deletes it: the volume object goes.
    Deleted,
    /// No plugin can: the volume is `Failed` with this message.
    Failed(String),
}

/// What the controller does with a released volume whose policy is `Delete`.
pub fn deletion(volume: &Value) -> Deletion {
    let name = volume["metadata"]["name"].as_str().unwrap_or_default();
    let spec = &volume["spec"];
    let by = volume["metadata"]["annotations"][PROVISIONED_BY]
        .as_str()
        .unwrap_or_default();
    if (!by.is_empty() && !by.starts_with("kubernetes.io/")) || spec["csi"].is_object() {
        return Deletion::External;
    }
    if let Some(path) = spec["hostPath"]["path"].as_str() {
        return match path.strip_prefix("/tmp/") {
            Some(rest) if !rest.is_empty() => Deletion::Deleted,
            _ => Deletion::Failed(format!(
                "host_path deleter only supports /tmp/.+ but received provided {path}"
            )),
        };
    }
    let reason = if spec["nfs"].is_object() || spec["local"].is_object() {
        "no deletable volume plugin matched"
    } else {
        "no volume plugin matched"
    };
    Deletion::Failed(format!(
        "error getting deleter volume plugin for volume {name:?}: {reason}"
    ))
}

/// Whether a recycler plugin (NFS, host path) handles the volume.
pub fn recyclable(volume: &Value) -> bool {
    volume["spec"]["nfs"].is_object() || volume["spec"]["hostPath"].is_object()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn migrated_provisioners_are_external_under_their_driver_name() {
        assert_eq!(
            provisioner("kubernetes.io/aws-ebs").as_deref(),
            Ok("ebs.csi.aws.com")
        );
        assert_eq!(
            provisioner("example.com/foo").as_deref(),
            Ok("example.com/foo")
        );
        assert_eq!(
            provisioner("kubernetes.io/no-provisioner"),
            Err("no volume plugin matched name: kubernetes.io/no-provisioner".to_string())
        );
        assert_eq!(
            provisioner("kubernetes.io/host-path"),
            Err("Failed to create provisioner: provisioning in volume plugin \"kubernetes.io/host-path\" is disabled".to_string())
        );
    }

    #[test]
    fn deleters_by_source() {
        let pv = |spec: Value| json!({"metadata": {"name": "v"}, "spec": spec});
        assert_eq!(
            deletion(&pv(json!({"csi": {"driver": "d"}}))),
            Deletion::External
        );
        assert_eq!(
            deletion(&pv(json!({"hostPath": {"path": "/tmp/x"}}))),
            Deletion::Deleted
        );
        assert_eq!(
            deletion(&pv(json!({"hostPath": {"path": "/var/x"}}))),
            Deletion::Failed(
                "host_path deleter only supports /tmp/.+ but received provided /var/x".into()
            )
        );
        assert_eq!(
            deletion(&pv(json!({"nfs": {"server": "s", "path": "/"}}))),
            Deletion::Failed(
                "error getting deleter volume plugin for volume \"v\": no deletable volume plugin matched".into()
            )
        );
        assert_eq!(
            deletion(&pv(json!({"awsElasticBlockStore": {"volumeID": "x"}}))),
            Deletion::Failed(
                "error getting deleter volume plugin for volume \"v\": no volume plugin matched"
                    .into()
            )
        );
    }
}
