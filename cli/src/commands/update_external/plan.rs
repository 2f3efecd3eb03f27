//! The plan stage of `update external`: every recorded version's types written again (with
//! the modules that declare them), the CRD copies, and PROJECT's sources when `--crd` changed
//! them. Controllers and tests are the user's: they are not touched.

use kubeforge_templates::Renderer;

use super::super::create_external::plan::{plan_crd_copy, plan_types};
use super::super::create_external::values::external_context;
use super::super::rust_header;
use super::request::UpdateRequest;
use crate::error::Error;
use crate::external::ExternalLayout;
use crate::external::layout::split_group;
use crate::project::{self, PROJECT_FILE, ProjectFile};
use crate::scaffold::{IfExists, Plan, Tree};

/// Plans `request` in `project`, whose files `tree` shows.
pub fn plan<'a>(
    project: &ProjectFile,
    request: &UpdateRequest,
    tree: &'a dyn Tree,
    renderer: &'a Renderer,
) -> Result<Plan<'a>, Error> {
    let header = rust_header(tree)?;
    let mut plan = Plan::new(tree, renderer);
    let mut updated = project.clone();
    for kind in &request.kinds {
        let crd = &kind.crd;
        for (version, generated) in &kind.versions {
            let layout = ExternalLayout::of_crd(project.multigroup, crd, version);
            let ctx = external_context(project, crd, &layout, &header, &generated.source);
            plan_types(&mut plan, &ctx, &layout, IfExists::Overwrite)?;
            plan_crd_copy(&mut plan, &layout, &crd.text, true)?;
        }
        let (group, domain) = split_group(&crd.group);
        for resource in updated
            .resources
            .iter_mut()
            .filter(|r| r.external && r.group == group && r.domain == domain && r.kind == crd.kind)
        {
            resource.module = Some(kind.recorded.clone());
        }
    }
    plan.put(
        PROJECT_FILE,
        project::render(&updated)?,
        IfExists::Overwrite,
    )?;
    Ok(plan)
}
