#[kubeforge::rbac(groups = "apps", resources = "deployments", verbs = "get;fetch")]
pub fn add_to_manager() {}

fn main() {}
