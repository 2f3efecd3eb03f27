//! The API server assembled: the endpoints' state with the controllers a control plane runs
//! next to it handed in.

use std::sync::Arc;

use crate::controllers::ControllerManager;
use crate::endpoints::{Api, ApiOptions};

/// A fresh API server (built-in resources, bootstrap namespaces) whose writes the garbage
/// collector, the namespace controller and the CRD clean-up react to.
pub fn new_api(options: ApiOptions) -> Arc<Api> {
    Api::new(options, Arc::new(ControllerManager))
}
