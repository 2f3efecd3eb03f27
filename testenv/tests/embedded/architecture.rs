//! The embedded API server's layers, enforced: reads `src/`, builds the import graph of its
//! files, and fails when a file imports a file of a higher layer, or when files import each
//! other (directly or through a loop). The README ("Inside: the layers") explains each layer;
//! this list is the one the build checks.

use std::path::Path;

use crate::module_graph::ModuleGraph;

/// The layers from the top down, with the module paths each holds (a module path holds its
/// descendants). A layer may import only the layers below it.
const LAYERS: &[(&str, &[&str])] = &[
    // The crate root declares the modules and re-exports the public API.
    ("crate root", &["crate"]),
    // The public entry points: `TestEnv` (embedded or existing cluster) and the dev server.
    ("entry points", &["env", "dev_server"]),
    // HTTPS listener, filter chain (fault injection), routing, assembly with controllers.
    ("server", &["server", "faults"]),
    // What kube-controller-manager runs: garbage collector, namespace lifecycle, CRD clean-up.
    ("controllers", &["controllers"]),
    // Handlers per verb family, serving of non-storage versions, discovery.
    ("endpoints", &["endpoints", "discovery"]),
    // Built-in defaulting, admission of written objects, the admission webhook chain.
    ("admission", &["admission"]),
    // Served resources, per-resource strategies, CRD schemas, OpenAPI documents.
    ("registry", &["registry", "openapi"]),
    // The store, the watch history and the versioning codec.
    ("storage", &["storage"]),
    // Leaf utilities every layer shares.
    ("support", &["support"]),
];

fn graph() -> ModuleGraph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    ModuleGraph::read(&src).expect("src/ is readable")
}

#[test]
fn every_file_is_in_a_layer() {
    let unlayered = graph().unlayered(LAYERS);
    assert!(
        unlayered.is_empty(),
        "files in no layer (add their module to LAYERS in tests/embedded/architecture.rs and to the \
         README's table): {unlayered:?}"
    );
}

#[test]
fn layers_import_only_the_layers_below_them() {
    let violations = graph().layer_violations(LAYERS);
    let text: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        violations.is_empty(),
        "{} imports of a higher layer (where a lower layer needs something from above, hand \
         it a trait object or a closure):\n{}",
        violations.len(),
        text.join("\n")
    );
}

#[test]
fn no_two_files_import_each_other() {
    let loops = graph().loops();
    let text: Vec<String> = loops.iter().map(ToString::to_string).collect();
    assert!(
        loops.is_empty(),
        "{} import loops (move what both sides need into a file of its own, below both):\n{}",
        loops.len(),
        text.join("\n")
    );
}
