//! The `Warning` a request to a deprecated resource gets, on every verb, as kube-apiserver
//! adds it: a CRD version marked `deprecated` (its `deprecationWarning`, or the default
//! naming the preferred served version that is not deprecated), and the built-in resources
//! v1.34 serves deprecated (v1 Endpoints, v1 ComponentStatus).

use crate::discovery::version::compare_versions;
use crate::registry::Registry;
use crate::support::resource::ResourceDef;

/// The deprecation warning of requests to `def`, if it is deprecated.
pub fn warning(registry: &Registry, def: &ResourceDef) -> Option<String> {
    let Some(custom) = &def.custom else {
        return builtin(def).map(str::to_string);
    };
    let given = custom.deprecated.as_ref()?;
    if let Some(text) = given {
        return Some(text.clone());
    }
    let mut message = format!("{}/{} {} is deprecated", def.group, def.version, def.kind);
    let preferred = registry
        .all()
        .filter(|d| d.group == def.group && d.plural == def.plural)
        .filter(|d| d.custom.as_ref().is_some_and(|c| c.deprecated.is_none()))
        .map(|d| d.version.as_str())
        .max_by(|a, b| compare_versions(a, b));
    if let Some(version) = preferred {
        message.push_str(&format!("; use {}/{version} {}", def.group, def.kind));
    }
    Some(message)
}

fn builtin(def: &ResourceDef) -> Option<&'static str> {
    match (
        def.group.as_str(),
        def.version.as_str(),
        def.plural.as_str(),
    ) {
        ("", "v1", "endpoints") => {
            Some("v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice")
        }
        ("", "v1", "componentstatuses") => Some("v1 ComponentStatus is deprecated in v1.19+"),
        _ => None,
    }
}
