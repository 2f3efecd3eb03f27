//! The conversion of one spoke to and from the hub: the conversion file beside the spoke's
//! type (its field mapping read from both types through the parser), its module, and
//! `storage = false` on the spoke's type.

use std::path::Path;

use super::mapping::mapping;
use super::target::Target;
use super::values::Values;
use crate::artifacts::api;
use crate::artifacts::webhook;
use crate::error::Error;
use crate::layout::ApiLayout;
use crate::project::ProjectFile;
use crate::scaffold::rust::{
    KubeArgument, RustSource, add_kube_argument, remove_kube_argument, struct_fields,
};
use crate::scaffold::{Fragment, Plan};

/// What the spoke's `#[kube(...)]` gets: only the hub is stored.
const NOT_STORED: KubeArgument<'static> = KubeArgument {
    key: "storage",
    value: "false",
    comment: "The hub version of the conversion webhook is the storage version.",
};

/// The spoke version `spoke` of the hub `hub`, and its layout.
pub fn spoke(
    project: &ProjectFile,
    hub: &Target,
    spoke: &str,
) -> Result<(Target, ApiLayout), Error> {
    let resource = project
        .find(&hub.group, spoke, &hub.kind)
        .ok_or_else(|| Error::Internal(format!("spoke {spoke} vanished from PROJECT")))?;
    let target = Target::own(project, resource, hub.namespaced);
    let layout = ApiLayout::new(project.multigroup, &hub.group, spoke, &hub.kind);
    Ok((target, layout))
}

/// Plans the conversion of `spoke` to and from the hub `hub`.
pub fn plan(
    plan: &mut Plan<'_>,
    project: &ProjectFile,
    hub: &Target,
    values: &Values,
    spoke_version: &str,
    force: bool,
) -> Result<(), Error> {
    let (spoke, spoke_layout) = spoke(project, hub, spoke_version)?;
    let hub_file = hub.type_file.clone().unwrap_or_default();
    let spoke_file = spoke.type_file.clone().unwrap_or_default();
    let kind = &hub.kind;
    let hub_source = read_type(plan, &hub_file)?;
    let spoke_source = read_type(plan, &spoke_file)?;
    let hub_source = RustSource::parse(&hub_file, &hub_source)?;
    let spoke_source = RustSource::parse(&spoke_file, &spoke_source)?;
    let fields_of = |source: &RustSource<'_>, name: String| {
        struct_fields(source, &name).ok_or_else(|| Error::TypeNotFound {
            path: source.path().to_owned(),
            name,
        })
    };
    let hub_spec = fields_of(&hub_source, format!("{kind}Spec"))?;
    let spoke_spec = fields_of(&spoke_source, format!("{kind}Spec"))?;
    let hub_status = fields_of(&hub_source, format!("{kind}Status"))?;
    let spoke_status = fields_of(&spoke_source, format!("{kind}Status"))?;

    let mut values = values.for_spoke(&spoke, &spoke_layout);
    values.hub_module = format!("crate::{}", hub.type_module);
    let hub_version = values.hub_version.clone();
    let spec = (format!("hub::{kind}Spec"), format!("{kind}Spec"));
    let status = (format!("hub::{kind}Status"), format!("{kind}Status"));
    values.spec_to_hub = mapping(
        "spec",
        &spec.0,
        (&spoke_spec, spoke_version),
        (&hub_spec, &hub_version),
    );
    values.spec_from_hub = mapping(
        "spec",
        &spec.1,
        (&hub_spec, &hub_version),
        (&spoke_spec, spoke_version),
    );
    values.status_to_hub = mapping(
        "status",
        &status.0,
        (&spoke_status, spoke_version),
        (&hub_status, &hub_version),
    );
    values.status_from_hub = mapping(
        "status",
        &status.1,
        (&hub_status, &hub_version),
        (&spoke_status, spoke_version),
    );
    plan.add(&webhook::conversion(&spoke_layout, force), &values)?;
    plan.insert(
        &api::version_module(&spoke_layout).at(api::MODULES),
        Fragment::line(format!("mod {};", spoke_layout.conversion_mod)),
    )?;
    plan.edit_rust(&hub_file, "#[kube(", |source| {
        // The hub is the storage version: a hub that was a later version of the kind loses
        // the `storage = false` `create api` gave it.
        Ok(remove_kube_argument(source, kind, NOT_STORED.key)
            .unwrap_or_else(|| source.text().to_owned()))
    })?;
    plan.edit_rust(&spoke_file, "#[kube(", |source| {
        // A type restructured without `kind = "..."` is left alone: `make manifests` then names
        // the problem.
        Ok(add_kube_argument(source, kind, NOT_STORED).unwrap_or_else(|| source.text().to_owned()))
    })?;
    Ok(())
}

/// Reads a type file the conversion maps.
fn read_type(plan: &Plan<'_>, path: &Path) -> Result<String, Error> {
    plan.current(path)?.ok_or_else(|| Error::Read {
        path: plan.tree().root().join(path),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the API's type file is missing (restore it, or run `kubeforge create api` for it again with --force)",
        ),
    })
}
