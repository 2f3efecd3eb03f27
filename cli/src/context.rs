//! The values templates are rendered with.

use std::collections::BTreeMap;

use serde::Serialize;

/// Where `init` writes the license header that later commands put on new Rust files
/// (kubebuilder's `hack/boilerplate.go.txt`).
pub const BOILERPLATE_FILE: &str = "hack/boilerplate.rs.txt";

/// The current year, or the year of `SOURCE_DATE_EPOCH` when set (reproducible output).
pub fn year() -> i64 {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    civil_year(secs.div_euclid(86_400))
}

/// Year of a day count since 1970-01-01 (Howard Hinnant's civil-from-days).
fn civil_year(days: i64) -> i64 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
}

/// The boilerplate as a Rust comment block followed by a blank line ("" without boilerplate).
pub fn rust_header(boilerplate: Option<&str>) -> String {
    let Some(text) = boilerplate.filter(|t| !t.trim().is_empty()) else {
        return String::new();
    };
    let mut out = String::new();
    for line in text.trim_end().lines() {
        if line.is_empty() {
            out.push_str("//\n");
        } else {
            out.push_str("// ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('\n');
    out
}

/// Versions of registry dependencies, keyed with '_' for handlebars (`k8s_openapi`).
pub fn versions() -> BTreeMap<String, &'static str> {
    kubeforge_templates::versions::DEPENDENCIES
        .iter()
        .map(|(name, version)| (name.replace('-', "_"), *version))
        .collect()
}

/// Values of the `project/**` templates.
#[derive(Debug, Serialize)]
pub struct ProjectContext {
    /// Project (package) name.
    pub project_name: String,
    /// The crate as a path names it (`-` → `_`; a keyword raw: `r#match`).
    pub crate_name: String,
    /// API domain.
    pub domain: String,
    /// Copyright owner ("" when none).
    pub owner: String,
    /// Whether the Apache 2.0 header is used.
    pub apache2: bool,
    /// The year for the copyright line.
    pub year: i64,
    /// License header of Rust files.
    pub header: String,
    /// Multigroup layout.
    pub multigroup: bool,
    /// Namespace-scoped manager.
    pub namespaced: bool,
    /// Kubernetes version, e.g. `1.35`.
    pub k8s_version: String,
    /// k8s-openapi feature, e.g. `v1_35`.
    pub k8s_feature: String,
    /// Minimum Rust version.
    pub rust_version: &'static str,
    /// Registry dependency versions.
    pub versions: BTreeMap<String, &'static str>,
    /// Inline-table contents for the kubeforge crates (`runtime`, `testenv`).
    pub kubeforge_source: BTreeMap<&'static str, String>,
}

/// Values of the `api/**` templates.
#[derive(Debug, Serialize)]
pub struct ApiContext {
    /// License header of Rust files.
    pub header: String,
    /// Project (package) name.
    pub project_name: String,
    /// The crate as a path names it (`demo`, `r#match`).
    pub crate_name: String,
    /// Project domain.
    pub domain: String,
    /// Kind.
    pub kind: String,
    /// Lower-case kind (`memcached`, `configmap`).
    pub kind_lower: String,
    /// snake_case kind (`config_map`).
    pub kind_snake: String,
    /// Version.
    pub version: String,
    /// Resource (plural) name.
    pub plural: String,
    /// Full API group (`cache.example.com`, `apps`, `` for core).
    pub api_group: String,
    /// `apiVersion` of objects (`cache.example.com/v1alpha1`, `v1`).
    pub api_version: String,
    /// Whether objects are namespaced.
    pub namespaced: bool,
    /// Module of the type, relative to the crate root (`api::v1alpha1`).
    pub type_module: String,
    /// The Rust name of the kind's type (the kind, or `<Kind>Resource` when it is a name the
    /// generated code uses; see `naming::kind_ident`).
    pub kind_ident: String,
    /// What the controller imports (`crate::api::v1::Memcached`,
    /// `k8s_openapi::api::apps::v1::Deployment`, `crate::api::v1::ErrorResource`).
    pub type_import: String,
    /// What a test of the project imports (`::demo::api::v1::Memcached`).
    pub test_type_import: String,
    /// Module of the controller, relative to the crate root (`controllers::memcached`).
    pub controller_module: String,
    /// The controller's name in logs, metrics and leader election (`memcached`; in a
    /// multigroup project `cache-memcached`, unique across groups).
    pub controller_name: String,
    /// Whether the kind's Rust type is not named like the kind (`kind_ident`).
    pub renamed: bool,
    /// Whether this version is the kind's storage version (the first version of a kind is).
    pub stored: bool,
    /// The kind's storage version (this one, or the version that was there first).
    pub storage_version: String,
    /// The value of the `api-approved.kubernetes.io` annotation of the project's CRDs ("" for
    /// none).
    pub api_approved: String,
    /// File name of the sample under config/samples.
    pub sample_file: String,
    /// Prefix of the RBAC helper role names.
    pub role_prefix: String,
    /// A JSON object of a built-in kind for the controller test.
    pub example_object: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years() {
        assert_eq!(civil_year(0), 1970);
        assert_eq!(civil_year(19_723), 2024); // 2024-01-01
        assert_eq!(civil_year(19_722), 2023);
        assert_eq!(civil_year(20_453), 2025); // 2025-12-31
    }

    #[test]
    fn headers() {
        assert_eq!(rust_header(None), "");
        assert_eq!(rust_header(Some("a\n\nb\n")), "// a\n//\n// b\n\n");
    }
}
