//! The rest of a security context's fields as kube-apiserver v1.34 checks them, in its
//! order: a container's (`ValidateSecurityContext`: user and group IDs, `procMount`, its
//! seccomp profile, `allowPrivilegeEscalation: false` beside `privileged` or
//! `CAP_SYS_ADMIN`, Windows options, its AppArmor profile) and a pod's
//! (`validatePodSpecSecurityContext`: IDs, a process namespace shared with `hostPID`,
//! sysctls, policies, seccomp, Windows options, AppArmor). The seccomp profile and sysctls
//! are [`super::security_context`]'s, the AppArmor profile [`super::apparmor`]'s.

use serde_json::Value;

use super::errors::{Errors, child, index, invalid, invalid_text, not_supported};
use super::go_diff::marshal;
use super::pod_go;
use super::security_context;
use crate::support::meta::dns1123_subdomain;

/// `IsValidUserID`'s and `IsValidGroupID`'s message.
const ID_RANGE: &str = "must be between 0 and 2147483647, inclusive";
const PROC_MOUNTS: &[&str] = &["Default", "Unmasked"];
const FS_GROUP_CHANGE_POLICIES: &[&str] = &["Always", "OnRootMismatch"];
const SUPPLEMENTAL_GROUPS_POLICIES: &[&str] = &["Merge", "Strict"];
const SE_LINUX_CHANGE_POLICIES: &[&str] = &["Recursive"];
/// The longest credential spec (64 KiB) and the longest domain and user of a Windows user name.
const MAX_GMSA_SPEC: usize = 64 * 1024;
const MAX_DOMAIN: usize = 256;
const MAX_USER: usize = 104;

/// An ID field of `holder` outside 0..=2147483647.
fn id(holder: &Value, key: &str, path: &str) -> Errors {
    match holder[key].as_i64() {
        Some(v) if !(0..=i64::from(i32::MAX)).contains(&v) => {
            vec![invalid(&child(path, key), &Value::from(v), ID_RANGE)]
        }
        _ => Vec::new(),
    }
}

/// A string policy field of `holder` with a value outside `supported`.
fn policy(holder: &Value, key: &str, path: &str, supported: &[&str]) -> Errors {
    match holder[key].as_str() {
        Some(v) if !supported.contains(&v) => vec![not_supported(&child(path, key), v, supported)],
        _ => Vec::new(),
    }
}

/// `ValidateSecurityContext` of container `c` at `path` (`hostUsers` is the pod's,
/// true unless it says false).
pub fn container(c: &Value, path: &str, host_users: bool) -> Errors {
    let sc = &c["securityContext"];
    if !sc.is_object() {
        return Vec::new();
    }
    let at = child(path, "securityContext");
    let mut out = Vec::new();
    out.extend(id(sc, "runAsUser", &at));
    out.extend(id(sc, "runAsGroup", &at));
    if let Some(mount) = sc["procMount"].as_str() {
        let field = child(&at, "procMount");
        if !PROC_MOUNTS.contains(&mount) {
            out.push(not_supported(&field, mount, PROC_MOUNTS));
        }
        if host_users && mount == "Unmasked" {
            out.push(invalid(
                &field,
                &Value::from(mount),
                "`hostUsers` must be false to use `Unmasked`",
            ));
        }
    }
    out.extend(security_context::seccomp_profile(c, path));
    if sc["allowPrivilegeEscalation"] == false {
        let printed = || marshal(&pod_go::security_context(sc));
        if sc["privileged"] == true {
            out.push(invalid_text(
                &at,
                &printed(),
                "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
            ));
        }
        let added = sc["capabilities"]["add"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        for _ in added.iter().filter(|cap| *cap == "CAP_SYS_ADMIN") {
            out.push(invalid_text(
                &at,
                &printed(),
                "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
            ));
        }
    }
    out.extend(windows_options(
        &sc["windowsOptions"],
        &child(&at, "windowsOptions"),
    ));
    out.extend(super::apparmor::security_context(c, path));
    out
}

/// `validatePodSpecSecurityContext` of a v1 pod `spec` at `path` (the spec's): the host
/// process namespace is the spec's `hostPID`, shared when `shareProcessNamespace` is.
pub fn pod(spec: &Value, path: &str) -> Errors {
    let sc = &spec["securityContext"];
    let at = child(path, "securityContext");
    let mut out = Vec::new();
    if sc.is_object() {
        out.extend(id(sc, "fsGroup", &at));
        out.extend(id(sc, "runAsUser", &at));
        out.extend(id(sc, "runAsGroup", &at));
        let groups = sc["supplementalGroups"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        for (i, group) in groups.iter().enumerate() {
            if let Some(g) = group.as_i64()
                && !(0..=i64::from(i32::MAX)).contains(&g)
            {
                let field = index(&child(&at, "supplementalGroups"), i);
                out.push(invalid(&field, &Value::from(g), ID_RANGE));
            }
        }
    }
    if spec["shareProcessNamespace"] == true && spec["hostPID"] == true {
        out.push(invalid(
            &child(&at, "shareProcessNamespace"),
            &Value::Bool(true),
            "ShareProcessNamespace and HostPID cannot both be enabled",
        ));
    }
    out.extend(security_context::sysctls(spec, path));
    out.extend(policy(
        sc,
        "fsGroupChangePolicy",
        &at,
        FS_GROUP_CHANGE_POLICIES,
    ));
    out.extend(security_context::seccomp_profile(spec, path));
    out.extend(windows_options(
        &sc["windowsOptions"],
        &child(&at, "windowsOptions"),
    ));
    out.extend(super::apparmor::security_context(spec, path));
    out.extend(policy(
        sc,
        "supplementalGroupsPolicy",
        &at,
        SUPPLEMENTAL_GROUPS_POLICIES,
    ));
    out.extend(policy(
        sc,
        "seLinuxChangePolicy",
        &at,
        SE_LINUX_CHANGE_POLICIES,
    ));
    out
}

/// `validateWindowsSecurityContextOptions`: the credential spec's name and size, and the
/// user name (`[domain\]user`, each part in Windows' rules).
fn windows_options(options: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if let Some(name) = options["gmsaCredentialSpecName"].as_str() {
        for why in dns1123_subdomain(name) {
            out.push(invalid(
                &child(path, "gmsaCredentialSpecName"),
                &Value::from(name),
                &why,
            ));
        }
    }
    if let Some(spec) = options["gmsaCredentialSpec"].as_str() {
        let field = child(path, "gmsaCredentialSpec");
        if spec.is_empty() {
            out.push(invalid(
                &field,
                &Value::from(spec),
                "gmsaCredentialSpec cannot be an empty string",
            ));
        } else if spec.len() > MAX_GMSA_SPEC {
            out.push(invalid(
                &field,
                &Value::from(spec),
                "gmsaCredentialSpec size must be under 64 KiB",
            ));
        }
    }
    if let Some(name) = options["runAsUserName"].as_str() {
        let field = child(path, "runAsUserName");
        out.extend(
            user_name_errors(name)
                .into_iter()
                .map(|why| invalid(&field, &Value::from(name), &why)),
        );
    }
    out
}

/// Why a Windows `runAsUserName` is refused, in Go's order.
fn user_name_errors(name: &str) -> Vec<String> {
    if name.is_empty() {
        return vec!["runAsUserName cannot be an empty string".into()];
    }
    // Go's `[[:cntrl:]]`: ASCII control characters.
    if name.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return vec!["runAsUserName cannot contain control characters".into()];
    }
    let parts: Vec<&str> = name.split('\\').collect();
    if parts.len() > 2 {
        return vec!["runAsUserName cannot contain more than one backslash".into()];
    }
    let (domain, user) = match parts.as_slice() {
        [user] => (None, *user),
        [domain, user] => (Some(*domain), *user),
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    if domain.is_some_and(|d| d.len() >= MAX_DOMAIN) {
        out.push(format!(
            "runAsUserName's Domain length must be under {MAX_DOMAIN} characters"
        ));
    }
    if let Some(domain) = domain
        && !(net_bios_domain(domain) || dns_domain(domain))
    {
        out.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format".into());
    }
    if user.is_empty() {
        out.push("runAsUserName's User cannot be empty".into());
    } else if user.len() > MAX_USER {
        out.push(format!(
            "runAsUserName's User length must not be longer than {MAX_USER} characters"
        ));
    }
    if !user.is_empty() && user.chars().all(|c| c == '.' || c == ' ') {
        out.push("runAsUserName's User cannot contain only periods or spaces".into());
    }
    if user.contains(|c| "\"/\\:;|=,+*?<>@[]".contains(c)) {
        out.push(
            "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
                .into(),
        );
    }
    out
}

/// A NetBIOS domain: 1 to 15 characters (Go's regexp counts runes), none of `\/:*?"<>|`,
/// not starting with a dot.
fn net_bios_domain(domain: &str) -> bool {
    let count = domain.chars().count();
    (1..=15).contains(&count)
        && !domain.starts_with('.')
        && !domain.contains(|c| "\\/:*?\"<>|".contains(c))
}

/// A DNS domain: dot-separated labels of ASCII letters, digits and inner dashes, each 1
/// to 63 characters.
fn dns_domain(domain: &str) -> bool {
    domain.split('.').all(|label| {
        let bytes = label.as_bytes();
        (1..=63).contains(&bytes.len())
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && bytes[0] != b'-'
            && bytes[bytes.len() - 1] != b'-'
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_user_names_follow_the_domain_and_user_rules() {
        assert!(user_name_errors("CONTAINERADMINISTRATOR").is_empty());
        assert!(user_name_errors("example.com\\admin").is_empty());
        assert!(user_name_errors("NT AUTHORITY\\NETWORK SERVICE").is_empty());
        assert_eq!(
            user_name_errors("a\\b\\c"),
            ["runAsUserName cannot contain more than one backslash"]
        );
        assert_eq!(
            user_name_errors("-bad-\\.."),
            ["runAsUserName's User cannot contain only periods or spaces"]
        );
        assert_eq!(
            user_name_errors(".dom:ain\\u@x"),
            [
                "runAsUserName's Domain doesn't match the NetBios nor the DNS format",
                "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
            ]
        );
    }
}
