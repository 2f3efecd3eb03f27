//! The security contexts of a pod spec as kube-apiserver v1.34 checks them: the pod's
//! (`validatePodSpecSecurityContext`: user and group ids, a process namespace shared with
//! the pod or the host, sysctls and seccomp ([`super::security_context`]), policies, Windows
//! options, AppArmor ([`super::apparmor`])), a container's (`ValidateSecurityContext`), and
//! the host namespaces a pod without host users may not share (`validateHostUsers`).

use serde_json::Value;

use super::errors::{
    Errors, child, dns1123_subdomain, forbidden, index, invalid, invalid_str, invalid_text,
    not_supported,
};
use super::go_diff::marshal;

const ID_RANGE: &str = "must be between 0 and 2147483647, inclusive";
const FS_GROUP_CHANGE_POLICIES: &[&str] = &["Always", "OnRootMismatch"];
const SUPPLEMENTAL_GROUPS_POLICIES: &[&str] = &["Merge", "Strict"];
const SE_LINUX_CHANGE_POLICIES: &[&str] = &["Recursive"];
const PROC_MOUNTS: &[&str] = &["Default", "Unmasked"];
const NO_HOST_USERS: &str = "when `hostUsers` is false";
/// The largest Windows GMSA credential spec, in KiB.
const GMSA_SPEC_MAX_KIB: usize = 64;
/// The longest domain and user of a Windows `runAsUserName`.
const DOMAIN_MAX: usize = 256;
const USER_MAX: usize = 104;
/// What a Windows user name may not contain.
const USER_FORBIDDEN: &str = "\"/\\:;|=,+*?<>@[]";

/// `IsValidUserID`/`IsValidGroupID` of the id at `field` of `holder`, if set.
fn id(holder: &Value, field: &str, path: &str) -> Errors {
    match holder[field].as_i64() {
        Some(n) if !(0..=2_147_483_647).contains(&n) => {
            vec![invalid(&child(path, field), &n.into(), ID_RANGE)]
        }
        _ => Vec::new(),
    }
}

/// A value of `holder[field]`, if set, among `supported`.
fn one_of(holder: &Value, field: &str, path: &str, supported: &[&str]) -> Errors {
    match holder[field].as_str() {
        Some(v) if !supported.contains(&v) => {
            vec![not_supported(&child(path, field), v, supported)]
        }
        _ => Vec::new(),
    }
}

/// The pod security context of the spec at `path`, in the real order.
pub(super) fn pod(spec: &Value, path: &str) -> Errors {
    let context = &spec["securityContext"];
    let at = child(path, "securityContext");
    let mut out = Vec::new();
    for field in ["fsGroup", "runAsUser", "runAsGroup"] {
        out.extend(id(context, field, &at));
    }
    let groups = child(&at, "supplementalGroups");
    for (i, group) in context["supplementalGroups"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(n) = group.as_i64().filter(|n| !(0..=2_147_483_647).contains(n)) {
            out.push(invalid(&index(&groups, i), &n.into(), ID_RANGE));
        }
    }
    if spec["shareProcessNamespace"] == true && spec["hostPID"] == true {
        out.push(invalid(
            &child(&at, "shareProcessNamespace"),
            &Value::Bool(true),
            "ShareProcessNamespace and HostPID cannot both be enabled",
        ));
    }
    out.extend(super::security_context::sysctls(spec, path));
    out.extend(one_of(
        context,
        "fsGroupChangePolicy",
        &at,
        FS_GROUP_CHANGE_POLICIES,
    ));
    out.extend(super::security_context::seccomp_profile(spec, path));
    out.extend(windows_options(
        &context["windowsOptions"],
        &child(&at, "windowsOptions"),
    ));
    out.extend(super::apparmor::security_context(spec, path));
    out.extend(one_of(
        context,
        "supplementalGroupsPolicy",
        &at,
        SUPPLEMENTAL_GROUPS_POLICIES,
    ));
    out.extend(one_of(
        context,
        "seLinuxChangePolicy",
        &at,
        SE_LINUX_CHANGE_POLICIES,
    ));
    out
}

/// `validateHostUsers`: a pod without host users shares none of the host's namespaces
/// (reported at the internal fields' names, `HostPID` and `HostIPC`).
pub(super) fn host_users(spec: &Value, path: &str) -> Errors {
    if spec["hostUsers"] != false {
        return Vec::new();
    }
    [
        ("hostNetwork", "hostNetwork"),
        ("hostPID", "HostPID"),
        ("hostIPC", "HostIPC"),
    ]
    .into_iter()
    .filter(|(field, _)| spec[*field] == true)
    .map(|(_, name)| forbidden(&child(path, name), NO_HOST_USERS))
    .collect()
}

/// A container's security context (of the container `c` at `path`) in a pod that uses the
/// host's users (`host_users`), in the real order.
pub(super) fn container(c: &Value, path: &str, host_users: bool) -> Errors {
    let context = &c["securityContext"];
    let at = child(path, "securityContext");
    let mut out = Vec::new();
    if context.is_object() {
        out.extend(id(context, "runAsUser", &at));
        out.extend(id(context, "runAsGroup", &at));
        if let Some(mount) = context["procMount"].as_str() {
            out.extend(one_of(context, "procMount", &at, PROC_MOUNTS));
            if host_users && mount == "Unmasked" {
                out.push(invalid_str(
                    &child(&at, "procMount"),
                    mount,
                    "`hostUsers` must be false to use `Unmasked`",
                ));
            }
        }
    }
    out.extend(super::security_context::seccomp_profile(c, path));
    if context["allowPrivilegeEscalation"] == false {
        let printed = || marshal(&super::pod_go::security_context(context));
        if context["privileged"] == true {
            out.push(invalid_text(
                &at,
                &printed(),
                "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
            ));
        }
        let added = context["capabilities"]["add"]
            .as_array()
            .into_iter()
            .flatten();
        for _ in added.filter(|cap| *cap == "CAP_SYS_ADMIN") {
            out.push(invalid_text(
                &at,
                &printed(),
                "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
            ));
        }
    }
    out.extend(windows_options(
        &context["windowsOptions"],
        &child(&at, "windowsOptions"),
    ));
    out.extend(super::apparmor::security_context(c, path));
    out
}

/// `validateWindowsSecurityContextOptions` of the options at `path`.
fn windows_options(options: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if let Some(name) = options["gmsaCredentialSpecName"].as_str() {
        let at = child(path, "gmsaCredentialSpecName");
        out.extend(
            dns1123_subdomain(name)
                .iter()
                .map(|why| invalid_str(&at, name, why)),
        );
    }
    if let Some(spec) = options["gmsaCredentialSpec"].as_str() {
        let at = child(path, "gmsaCredentialSpec");
        if spec.is_empty() {
            out.push(invalid_str(
                &at,
                spec,
                "gmsaCredentialSpec cannot be an empty string",
            ));
        } else if spec.len() > GMSA_SPEC_MAX_KIB * 1024 {
            let why = format!("gmsaCredentialSpec size must be under {GMSA_SPEC_MAX_KIB} KiB");
            out.push(invalid_str(&at, spec, &why));
        }
    }
    if let Some(name) = options["runAsUserName"].as_str() {
        let at = child(path, "runAsUserName");
        out.extend(
            user_name(name)
                .iter()
                .map(|why| invalid_str(&at, name, why)),
        );
    }
    out
}

/// Why a Windows `runAsUserName` (`[domain\]user`) is refused.
fn user_name(name: &str) -> Vec<String> {
    if name.is_empty() {
        return vec!["runAsUserName cannot be an empty string".into()];
    }
    if name.chars().any(|c| c.is_ascii_control()) {
        return vec!["runAsUserName cannot contain control characters".into()];
    }
    let parts: Vec<&str> = name.split('\\').collect();
    let (domain, user) = match parts.as_slice() {
        [user] => (None, *user),
        [domain, user] => (Some(*domain), *user),
        _ => return vec!["runAsUserName cannot contain more than one backslash".into()],
    };
    let mut out = Vec::new();
    if domain.is_some_and(|d| d.len() >= DOMAIN_MAX) {
        out.push(format!(
            "runAsUserName's Domain length must be under {DOMAIN_MAX} characters"
        ));
    }
    if let Some(domain) = domain
        && !(net_bios_domain(domain) || dns_domain(domain))
    {
        out.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format".into());
    }
    if user.is_empty() {
        out.push("runAsUserName's User cannot be empty".into());
    } else if user.len() > USER_MAX {
        out.push(format!(
            "runAsUserName's User length must not be longer than {USER_MAX} characters"
        ));
    }
    if !user.is_empty() && user.chars().all(|c| c == '.' || c == ' ') {
        out.push("runAsUserName's User cannot contain only periods or spaces".into());
    }
    if user.chars().any(|c| USER_FORBIDDEN.contains(c)) {
        out.push(format!(
            "runAsUserName's User cannot contain the following characters: {USER_FORBIDDEN}"
        ));
    }
    out
}

/// A NetBIOS domain: 1 to 15 characters, none of `\/:*?"<>|`, not starting with a period.
fn net_bios_domain(domain: &str) -> bool {
    let count = domain.chars().count();
    (1..=15).contains(&count)
        && !domain.starts_with('.')
        && !domain.chars().any(|c| "\\/:*?\"<>|".contains(c))
}

/// A DNS domain: dot-separated labels of letters, digits and inner hyphens, up to 63 each.
fn dns_domain(domain: &str) -> bool {
    domain.split('.').all(|label| {
        let bytes = label.as_bytes();
        (1..=63).contains(&bytes.len())
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn windows_user_names_have_a_domain_and_a_user_of_their_forms() {
        assert!(user_name("NT AUTHORITY\\SYSTEM").is_empty());
        assert!(user_name("bad domain!\\u").is_empty());
        assert!(user_name("abcdefghijklmnop\\u").is_empty());
        assert_eq!(user_name("dom\\"), ["runAsUserName's User cannot be empty"]);
        assert_eq!(
            user_name(".dom\\u"),
            ["runAsUserName's Domain doesn't match the NetBios nor the DNS format"]
        );
        assert_eq!(
            user_name("a\\b\\c"),
            ["runAsUserName cannot contain more than one backslash"]
        );
        assert_eq!(
            user_name("..."),
            ["runAsUserName's User cannot contain only periods or spaces"]
        );
        assert_eq!(user_name(&format!("{}\\u", "x".repeat(300))).len(), 2);
    }

    #[test]
    fn host_users_off_shares_no_host_namespace() {
        let spec = json!({"hostUsers": false, "hostNetwork": true, "hostIPC": true});
        let fields: Vec<String> = host_users(&spec, "spec")
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(fields, ["spec.hostNetwork", "spec.HostIPC"]);
        assert!(host_users(&json!({"hostPID": true}), "spec").is_empty());
    }

    #[test]
    fn a_privileged_container_may_escalate() {
        let c = json!({"securityContext": {"privileged": true, "allowPrivilegeEscalation": false}});
        let errors = container(&c, "c", true);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .message
                .starts_with("Invalid value: {\"Capabilities\":null,\"Privileged\":true,"),
            "{}",
            errors[0].message
        );
    }
}
