//! A Namespace's own checks past its name (`ValidateNamespace`): each of `spec.finalizers`
//! is a qualified name, and either a standard finalizer or one with a domain. A create
//! reports them on the list (`spec.finalizers`, not indexed); the finalize subresource
//! checks them itself, at each index.

use serde_json::Value;

use crate::support::meta::validate_finalizer_names;
use crate::support::status::Cause;

/// The checks of a Namespace's create.
pub fn create_causes(object: &Value) -> Vec<Cause> {
    let mut causes = validate_finalizer_names("spec.finalizers", &object["spec"]["finalizers"]);
    for cause in &mut causes {
        cause.field = "spec.finalizers".into();
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finalizers_are_reported_on_the_list() {
        let ns = json!({"spec": {"finalizers": ["kubernetes", "foo", "a/b/c"]}});
        let causes = create_causes(&ns);
        assert_eq!(causes.len(), 2);
        assert!(causes.iter().all(|c| c.field == "spec.finalizers"));
        assert!(causes[0].message.ends_with("nor is it fully qualified"));
    }
}
