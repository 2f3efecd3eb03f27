//! Where the files of one kind at one version go in a project, and the Rust names that lead to
//! them. Every command derives paths and module names here, from the group, version and kind
//! as given and the project's layout (single group or multigroup), so a naming rule changes in
//! one place.

use std::path::PathBuf;

use crate::naming;

/// The paths and Rust names of `group/version kind` in a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiLayout {
    /// Whether the project lays APIs out per group.
    pub multigroup: bool,
    /// The group as given (`cache`).
    pub group: String,
    /// The version as given (`v1alpha1`).
    pub version: String,
    /// The kind as given (`Memcached`).
    pub kind: String,
    /// snake_case kind (`config_map`).
    pub kind_snake: String,
    /// Lower-case kind (`configmap`).
    pub kind_lower: String,
    /// The group's module (`cache`, `r#type`).
    pub group_mod: String,
    /// The version's module (`v1alpha1`).
    pub version_mod: String,
    /// The kind's module (`memcached`).
    pub kind_mod: String,
    /// The folder of the version's modules (`src/api/v1alpha1`, `src/api/cache/v1alpha1`).
    pub api_dir: PathBuf,
    /// The type file (`src/api/v1alpha1/memcached.rs`).
    pub type_file: PathBuf,
    /// The controller file (`src/controllers/memcached.rs`).
    pub controller_file: PathBuf,
    /// The controller's test (`tests/memcached_controller.rs`).
    pub controller_test_file: PathBuf,
    /// Stem of the admin/editor/viewer role files (`memcached`, `cache_memcached`).
    pub role_stem: String,
    /// The sample's file name under config/samples (`cache_v1alpha1_memcached.yaml`).
    pub sample_file: String,
    /// The module of the type, from the crate root (`api::v1alpha1`, `api::cache::v1alpha1`).
    pub type_module: String,
    /// The module of the controller, from the crate root (`controllers::memcached`).
    pub controller_module: String,
    /// The controller's name (`memcached`; `cache-memcached` in a multigroup project, where
    /// kinds of two groups may share a name).
    pub controller_name: String,
    /// The module of the webhooks under `webhooks` (`memcached_v1`, `cache_memcached_v1`).
    pub webhook_module: String,
    /// The webhooks' file (`src/webhooks/memcached_v1.rs`).
    pub webhook_file: PathBuf,
    /// The webhooks' test (`tests/memcached_webhook.rs`).
    pub webhook_test_file: PathBuf,
    /// Prefix of the webhook test functions (`memcached_v1`).
    pub fn_prefix: String,
    /// The module of the conversion beside a spoke's type (`memcached_conversion`).
    pub conversion_mod: String,
    /// The conversion's file in the spoke's folder (`memcached_conversion.rs`).
    pub conversion_file_name: String,
}

impl ApiLayout {
    /// The layout of `group/version kind` in a single-group or multigroup project.
    pub fn new(multigroup: bool, group: &str, version: &str, kind: &str) -> Self {
        let kind_snake = naming::snake_case(kind);
        let kind_file = naming::file_stem(&kind_snake);
        let group_file = naming::file_stem(group);
        let version_file = naming::file_stem(version);
        let kind_lower = kind.to_ascii_lowercase();
        let group_mod = naming::module_ident(group);
        let version_mod = naming::module_ident(version);
        let kind_mod = naming::module_ident(&kind_snake);
        let (api_dir, controller_dir, test_stem, role_stem, group_path, webhook_module) =
            if multigroup {
                (
                    PathBuf::from(format!("src/api/{group_file}/{version_file}")),
                    PathBuf::from(format!("src/controllers/{group_file}")),
                    naming::join_snake(&[group, &kind_snake]),
                    format!("{group}_{kind_lower}"),
                    format!("{group_mod}::"),
                    naming::join_snake(&[group, &kind_snake, version]),
                )
            } else {
                (
                    PathBuf::from(format!("src/api/{version_file}")),
                    PathBuf::from("src/controllers"),
                    naming::join_snake(&[&kind_snake]),
                    kind_lower.clone(),
                    String::new(),
                    naming::join_snake(&[&kind_snake, version]),
                )
            };
        let webhook_module = naming::module_ident(&webhook_module);
        let conversion_mod = format!("{kind_snake}_conversion");
        Self {
            multigroup,
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            type_file: api_dir.join(format!("{kind_file}.rs")),
            controller_file: controller_dir.join(format!("{kind_file}.rs")),
            controller_test_file: PathBuf::from(format!("tests/{test_stem}_controller.rs")),
            api_dir,
            role_stem,
            sample_file: format!("{group}_{version}_{kind_lower}.yaml"),
            type_module: format!("api::{group_path}{version_mod}"),
            controller_module: format!("controllers::{group_path}{kind_mod}"),
            controller_name: if multigroup {
                format!("{group}-{kind_lower}")
            } else {
                kind_lower.clone()
            },
            webhook_file: PathBuf::from(format!(
                "src/webhooks/{}.rs",
                webhook_module.trim_start_matches("r#")
            )),
            webhook_module,
            webhook_test_file: PathBuf::from(format!("tests/{test_stem}_webhook.rs")),
            fn_prefix: naming::join_snake(&[&kind_snake, version]),
            conversion_file_name: format!("{}.rs", naming::file_stem(&conversion_mod)),
            conversion_mod: naming::module_ident(&conversion_mod),
            kind_snake,
            kind_lower,
            group_mod,
            version_mod,
            kind_mod,
        }
    }

    /// The folder of the group's modules (`src/api/cache`; the api folder itself in a
    /// single-group project).
    pub fn api_group_dir(&self) -> PathBuf {
        if self.multigroup {
            self.api_dir
                .parent()
                .map_or_else(|| self.api_dir.clone(), PathBuf::from)
        } else {
            self.api_dir.clone()
        }
    }

    /// The folder of the controllers of the group (`src/controllers/cache`, or
    /// `src/controllers`).
    pub fn controller_dir(&self) -> PathBuf {
        self.controller_file
            .parent()
            .map_or_else(|| self.controller_file.clone(), PathBuf::from)
    }

    /// The version module's `mod.rs` (`src/api/v1alpha1/mod.rs`).
    pub fn version_mod_file(&self) -> PathBuf {
        self.api_dir.join("mod.rs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_group() {
        let l = ApiLayout::new(false, "cache", "v1alpha1", "MemcachedCluster");
        assert_eq!(
            l.type_file,
            PathBuf::from("src/api/v1alpha1/memcached_cluster.rs")
        );
        assert_eq!(
            l.controller_file,
            PathBuf::from("src/controllers/memcached_cluster.rs")
        );
        assert_eq!(
            l.controller_test_file,
            PathBuf::from("tests/memcached_cluster_controller.rs")
        );
        assert_eq!(l.role_stem, "memcachedcluster");
        assert_eq!(l.type_module, "api::v1alpha1");
        assert_eq!(l.controller_module, "controllers::memcached_cluster");
        assert_eq!(
            l.webhook_file,
            PathBuf::from("src/webhooks/memcached_cluster_v1alpha1.rs")
        );
        assert_eq!(
            l.webhook_test_file,
            PathBuf::from("tests/memcached_cluster_webhook.rs")
        );
        assert_eq!(l.sample_file, "cache_v1alpha1_memcachedcluster.yaml");
        assert_eq!(l.api_group_dir(), PathBuf::from("src/api/v1alpha1"));
    }

    #[test]
    fn multigroup() {
        let l = ApiLayout::new(true, "my-group", "v1", "Memcached");
        assert_eq!(
            l.type_file,
            PathBuf::from("src/api/my_group/v1/memcached.rs")
        );
        assert_eq!(
            l.controller_dir(),
            PathBuf::from("src/controllers/my_group")
        );
        assert_eq!(l.role_stem, "my-group_memcached");
        assert_eq!(l.type_module, "api::my_group::v1");
        assert_eq!(l.controller_module, "controllers::my_group::memcached");
        assert_eq!(l.webhook_module, "my_group_memcached_v1");
        assert_eq!(
            l.webhook_test_file,
            PathBuf::from("tests/my_group_memcached_webhook.rs")
        );
        assert_eq!(l.api_group_dir(), PathBuf::from("src/api/my_group"));
    }

    #[test]
    fn keywords_become_raw_identifiers_but_not_file_names() {
        let l = ApiLayout::new(true, "type", "v1", "Match");
        assert_eq!(l.group_mod, "r#type");
        assert_eq!(l.api_dir, PathBuf::from("src/api/type/v1"));
        assert_eq!(l.kind_mod, "r#match");
        assert_eq!(l.type_file, PathBuf::from("src/api/type/v1/match.rs"));
    }
}
