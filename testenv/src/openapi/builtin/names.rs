//! How kube-apiserver names the parts of a built-in document: component schema prefixes
//! (`io.k8s.api.apps.v1`), the group-version word of operation ids (`AppsV1`) and tags
//! (`apps_v1`, `rbacAuthorization`).

/// The group without the `.k8s.io` suffix: `rbac.authorization`, `apps`.
fn short_group(group: &str) -> &str {
    group.strip_suffix(".k8s.io").unwrap_or(group)
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The component-name prefix of a built-in group-version: `io.k8s.api.apps.v1`,
/// `io.k8s.api.core.v1`, `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1`.
pub fn component_prefix(group: &str, version: &str) -> String {
    match group {
        "" => format!("io.k8s.api.core.{version}"),
        "apiextensions.k8s.io" => {
            format!("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.{version}")
        }
        "apiregistration.k8s.io" => {
            format!("io.k8s.kube-aggregator.pkg.apis.apiregistration.{version}")
        }
        g => {
            let first = short_group(g).split('.').next().unwrap_or(g);
            format!("io.k8s.api.{first}.{version}")
        }
    }
}

/// The group-version word of operation ids: `CoreV1`, `AppsV1`, `RbacAuthorizationV1`.
pub fn gv_camel(group: &str, version: &str) -> String {
    let g = if group.is_empty() {
        "Core".to_string()
    } else {
        short_group(group).split('.').map(capitalized).collect()
    };
    format!("{g}{}", capitalized(version))
}

/// The tag of a group's operations: `core`, `apps`, `rbacAuthorization`; with a version
/// `core_v1`, `apps_v1`, `rbacAuthorization_v1`.
pub fn tag(group: &str, version: Option<&str>) -> String {
    let g = if group.is_empty() {
        "core".to_string()
    } else {
        let mut parts = short_group(group).split('.');
        let first = parts.next().unwrap_or_default().to_string();
        first + &parts.map(capitalized).collect::<String>()
    };
    match version {
        Some(v) => format!("{g}_{v}"),
        None => g,
    }
}

/// The `/openapi/v3` index key of a group-version: `api/v1` for core, `apis/<g>/<v>` else.
pub fn index_key(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_real_server() {
        assert_eq!(component_prefix("", "v1"), "io.k8s.api.core.v1");
        assert_eq!(
            component_prefix("rbac.authorization.k8s.io", "v1"),
            "io.k8s.api.rbac.v1"
        );
        assert_eq!(
            gv_camel("flowcontrol.apiserver.k8s.io", "v1"),
            "FlowcontrolApiserverV1"
        );
        assert_eq!(gv_camel("", "v1"), "CoreV1");
        assert_eq!(tag("rbac.authorization.k8s.io", None), "rbacAuthorization");
        assert_eq!(tag("", Some("v1")), "core_v1");
        assert_eq!(index_key("batch", "v1"), "apis/batch/v1");
    }
}
