//! Where the files of one external kind at one version go: its types under
//! `src/external/<group>/<version>/`, its CRD's copy under `config/crd/external/`, and (through
//! [`ApiLayout`]) its controller and the controller's test.

use std::path::PathBuf;

use crate::layout::ApiLayout;
use crate::naming;
use crate::typegen::Crd;

/// The folder of the generated types.
pub const TYPES_DIR: &str = "src/external";

/// The folder of the CRD copies (what the types were generated from; the generated tests
/// install them into the embedded API server).
pub const CRD_DIR: &str = "config/crd/external";

/// The paths and Rust names of an external `group/version kind`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalLayout {
    /// The full API group (`cert-manager.io`).
    pub group: String,
    /// Its first label, PROJECT's `group` (`cert-manager`).
    pub group_label: String,
    /// The rest, PROJECT's `domain` (`io`).
    pub domain: String,
    /// The version (`v1`).
    pub version: String,
    /// The kind (`Certificate`).
    pub kind: String,
    /// The group's module (`cert_manager_io`).
    pub group_mod: String,
    /// The version's module (`v1`).
    pub version_mod: String,
    /// The kind's module (`certificate`).
    pub kind_mod: String,
    /// `src/external/<group>/mod.rs`.
    pub group_mod_file: PathBuf,
    /// `src/external/<group>/<version>/mod.rs`.
    pub version_mod_file: PathBuf,
    /// `src/external/<group>/<version>/<kind>.rs`.
    pub type_file: PathBuf,
    /// The module of the types, from the crate root (`external::cert_manager_io::v1`).
    pub type_module: String,
    /// `config/crd/external/<group>_<plural>.yaml`.
    pub crd_file: PathBuf,
    /// The controller's paths, as for any kind of another group.
    pub api: ApiLayout,
}

impl ExternalLayout {
    /// The layout of `crd`'s kind at `version` in a single-group or multigroup project.
    pub fn of_crd(multigroup: bool, crd: &Crd, version: &str) -> Self {
        Self::new(multigroup, &crd.group, version, &crd.kind, &crd.plural)
    }

    /// The layout of `kind` (resource `plural`) of `group/version` in a single-group or
    /// multigroup project.
    pub fn new(multigroup: bool, group: &str, version: &str, kind: &str, plural: &str) -> Self {
        let (group_label, domain) = split_group(group);
        let group_file = naming::file_stem(group);
        let version_file = naming::file_stem(version);
        let kind_snake = naming::snake_case(kind);
        let kind_file = naming::file_stem(&kind_snake);
        let group_mod = naming::module_ident(&group_file);
        let version_mod = naming::module_ident(&version_file);
        let dir = PathBuf::from(TYPES_DIR).join(&group_file);
        Self {
            group: group.to_owned(),
            group_label: group_label.to_owned(),
            domain: domain.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            group_mod_file: dir.join("mod.rs"),
            version_mod_file: dir.join(&version_file).join("mod.rs"),
            type_file: dir.join(&version_file).join(format!("{kind_file}.rs")),
            type_module: format!("external::{group_mod}::{version_mod}"),
            crd_file: PathBuf::from(CRD_DIR).join(format!("{group}_{plural}.yaml")),
            api: ApiLayout::new(multigroup, group_label, version, kind),
            group_mod,
            version_mod,
            kind_mod: naming::module_ident(&kind_snake),
        }
    }
}

/// `cert-manager.io` → (`cert-manager`, `io`): PROJECT's group and domain, which join back into
/// the API group (kubebuilder's `--group` and `--external-api-domain`).
pub fn split_group(group: &str) -> (&str, &str) {
    group.split_once('.').unwrap_or((group, ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_modules() {
        let l = ExternalLayout::new(
            false,
            "cert-manager.io",
            "v1",
            "Certificate",
            "certificates",
        );
        assert_eq!(
            l.type_file,
            PathBuf::from("src/external/cert_manager_io/v1/certificate.rs")
        );
        assert_eq!(l.type_module, "external::cert_manager_io::v1");
        assert_eq!(
            l.crd_file,
            PathBuf::from("config/crd/external/cert-manager.io_certificates.yaml")
        );
        assert_eq!(
            (l.group_label.as_str(), l.domain.as_str()),
            ("cert-manager", "io")
        );
        assert_eq!(
            l.api.controller_file,
            PathBuf::from("src/controllers/certificate.rs")
        );
        let l = ExternalLayout::new(
            true,
            "gateway.networking.k8s.io",
            "v1",
            "HTTPRoute",
            "httproutes",
        );
        assert_eq!(
            l.type_file,
            PathBuf::from("src/external/gateway_networking_k8s_io/v1/http_route.rs")
        );
        assert_eq!(
            l.api.controller_file,
            PathBuf::from("src/controllers/gateway/http_route.rs")
        );
    }
}
