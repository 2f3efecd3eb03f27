//! Owner references: make the owner the controller of an object it created, so garbage
//! collection deletes it with the owner and `Controller::owns` maps its changes back.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::{Resource, ResourceExt};

use crate::cache::Kind;

/// Why an owner reference could not be set.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OwnerError {
    /// The owner has no name or uid (it was not read from the API server).
    #[error("owner has no name or uid")]
    OwnerIncomplete,
    /// The object already has a different controller.
    #[error("object is already controlled by {kind} {name}")]
    AlreadyControlled {
        /// Kind of the existing controller.
        kind: String,
        /// Name of the existing controller.
        name: String,
    },
    /// Cross-namespace and namespaced-owns-cluster-scoped ownership are not allowed.
    #[error(
        "a namespaced owner in {owner_namespace:?} cannot own an object in {object_namespace:?}"
    )]
    NamespaceMismatch {
        /// The owner's namespace.
        owner_namespace: Option<String>,
        /// The object's namespace.
        object_namespace: Option<String>,
    },
}

/// The controller owner reference to `owner` (controller and blockOwnerDeletion set).
pub fn controller_reference<O: Kind>(owner: &O) -> Result<OwnerReference, OwnerError> {
    owner
        .controller_owner_ref(&())
        .ok_or(OwnerError::OwnerIncomplete)
}

/// Makes `owner` the controller of `object` (controller-runtime's `SetControllerReference`):
/// updates an existing reference to the same owner, refuses a second controller.
pub fn set_controller_reference<O: Kind, C: Resource>(
    owner: &O,
    object: &mut C,
) -> Result<(), OwnerError> {
    let reference = controller_reference(owner)?;
    if O::namespaced() && owner.namespace() != object.namespace() {
        return Err(OwnerError::NamespaceMismatch {
            owner_namespace: owner.namespace(),
            object_namespace: object.namespace(),
        });
    }
    let refs = object
        .meta_mut()
        .owner_references
        .get_or_insert_with(Vec::new);
    if let Some(other) = refs
        .iter()
        .find(|r| r.controller == Some(true) && r.uid != reference.uid)
    {
        return Err(OwnerError::AlreadyControlled {
            kind: other.kind.clone(),
            name: other.name.clone(),
        });
    }
    refs.retain(|r| r.uid != reference.uid);
    refs.push(reference);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::{apps::v1::Deployment, core::v1::ConfigMap};
    use kube::api::ObjectMeta;

    fn deploy(uid: &str) -> Deployment {
        Deployment {
            metadata: ObjectMeta {
                name: Some(format!("d-{uid}")),
                namespace: Some("ns".into()),
                uid: Some(uid.into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn sets_one_controller_reference() {
        let mut cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some("c".into()),
                namespace: Some("ns".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        set_controller_reference(&deploy("1"), &mut cm).unwrap();
        set_controller_reference(&deploy("1"), &mut cm).unwrap();
        let refs = cm.owner_references();
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].kind, "Deployment");
        assert_eq!(refs[0].controller, Some(true));
        assert!(matches!(
            set_controller_reference(&deploy("2"), &mut cm),
            Err(OwnerError::AlreadyControlled { .. })
        ));
        cm.metadata.namespace = Some("other".into());
        cm.metadata.owner_references = None;
        assert!(matches!(
            set_controller_reference(&deploy("1"), &mut cm),
            Err(OwnerError::NamespaceMismatch { .. })
        ));
    }
}
