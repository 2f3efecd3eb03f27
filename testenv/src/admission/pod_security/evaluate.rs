//! Which checks a level at a version runs, in the real server's order: the baseline checks
//! sorted by their identifiers, then (for restricted) the restricted ones, each in the form
//! of the newest version not after the one asked for. A restricted check replaces the
//! baseline check it overrides (volume types replace hostPath volumes, the restricted
//! capabilities and seccomp rules the baseline ones) from the version it exists in.
//! Versions after the newest check's (and `latest`) run the newest rules.

use super::baseline as b;
use super::level::{Level, LevelVersion, Version};
use super::restricted as r;
use super::spec::{Pod, Violation};

/// One form of a check: the minor version (of v1) it applies from, and the rule.
type Form = (i64, fn(Pod) -> Option<Violation>);

/// A check of the policy: its identifier (which orders it), its level, its forms by
/// version, and the baseline check it replaces at the restricted level.
struct Check {
    id: &'static str,
    level: Level,
    forms: &'static [Form],
    overrides: Option<&'static str>,
}

/// Every check, baseline first, each level sorted by identifier (Go's byte order).
const CHECKS: &[Check] = &[
    baseline("appArmorProfile", &[(0, b::app_armor)]),
    baseline("capabilities_baseline", &[(0, b::capabilities)]),
    baseline("hostNamespaces", &[(0, b::host_namespaces)]),
    baseline("hostPathVolumes", &[(0, b::host_path_volumes)]),
    baseline("hostPorts", &[(0, b::host_ports)]),
    baseline(
        "hostProbesAndHostLifecycle",
        &[(34, b::host_probes_and_lifecycle)],
    ),
    baseline("privileged", &[(0, b::privileged)]),
    baseline("procMount", &[(0, b::proc_mount)]),
    baseline(
        "seLinuxOptions",
        &[(0, b::se_linux_1_0), (31, b::se_linux_1_31)],
    ),
    baseline(
        "seccompProfile_baseline",
        &[(0, b::seccomp_annotations), (19, b::explicit_seccomp)],
    ),
    baseline(
        "sysctls",
        &[
            (0, b::sysctls_1_0),
            (27, b::sysctls_1_27),
            (29, b::sysctls_1_29),
            (32, b::sysctls_1_32),
        ],
    ),
    baseline("windowsHostProcess", &[(0, b::windows_host_process)]),
    restricted(
        "allowPrivilegeEscalation",
        &[
            (8, r::allow_privilege_escalation_1_8),
            (25, r::allow_privilege_escalation_1_25),
        ],
        None,
    ),
    restricted(
        "capabilities_restricted",
        &[(22, r::capabilities_1_22), (25, r::capabilities_1_25)],
        Some("capabilities_baseline"),
    ),
    restricted(
        "restrictedVolumes",
        &[(0, r::volumes)],
        Some("hostPathVolumes"),
    ),
    restricted("runAsNonRoot", &[(0, r::run_as_non_root)], None),
    restricted("runAsUser", &[(23, r::run_as_user)], None),
    restricted(
        "seccompProfile_restricted",
        &[(19, r::seccomp_1_19), (25, r::seccomp_1_25)],
        Some("seccompProfile_baseline"),
    ),
];

const fn baseline(id: &'static str, forms: &'static [Form]) -> Check {
    Check {
        id,
        level: Level::Baseline,
        forms,
        overrides: None,
    }
}

const fn restricted(
    id: &'static str,
    forms: &'static [Form],
    overrides: Option<&'static str>,
) -> Check {
    Check {
        id,
        level: Level::Restricted,
        forms,
        overrides,
    }
}

/// The newest version any check has a form for: later versions run its rules.
fn newest() -> i64 {
    CHECKS
        .iter()
        .flat_map(|c| c.forms.iter().map(|(minor, _)| *minor))
        .max()
        .unwrap_or(0)
}

/// The form of `check` at minor version `minor`, if the check exists then.
fn form_at(check: &Check, minor: i64) -> Option<fn(Pod) -> Option<Violation>> {
    check
        .forms
        .iter()
        .rev()
        .find(|(from, _)| *from <= minor)
        .map(|(_, rule)| *rule)
}

/// What `pod` violates of `standard`, in the real server's order (nothing at the
/// privileged level).
pub fn violations(standard: LevelVersion, pod: Pod) -> Vec<Violation> {
    if standard.level == Level::Privileged {
        return Vec::new();
    }
    let newest = newest();
    let minor = match standard.version {
        Version::Minor(minor) => minor.min(newest),
        Version::Latest => newest,
    };
    let overridden: Vec<&str> = if standard.level == Level::Restricted {
        CHECKS
            .iter()
            .filter(|c| c.level == Level::Restricted && form_at(c, minor).is_some())
            .filter_map(|c| c.overrides)
            .collect()
    } else {
        Vec::new()
    };
    CHECKS
        .iter()
        .filter(|c| c.level <= standard.level && !overridden.contains(&c.id))
        .filter_map(|c| form_at(c, minor))
        .filter_map(|rule| rule(pod))
        .collect()
}

/// The reasons alone, joined: what a namespace's new level says of an existing pod.
pub fn reasons(violations: &[Violation]) -> String {
    let reasons: Vec<&str> = violations.iter().map(|v| v.reason.as_str()).collect();
    reasons.join(", ")
}

/// Each reason with its detail in parentheses, joined: `host namespaces (hostPID=true),
/// privileged (container "c" must not set securityContext.privileged=true)`.
pub fn details(violations: &[Violation]) -> String {
    let parts: Vec<String> = violations
        .iter()
        .map(|v| {
            if v.detail.is_empty() {
                v.reason.clone()
            } else {
                format!("{} ({})", v.reason, v.detail)
            }
        })
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_are_sorted_by_level_then_identifier() {
        for pair in CHECKS.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(
                (a.level, a.id) < (b.level, b.id),
                "{} before {}",
                a.id,
                b.id
            );
        }
    }

    #[test]
    fn versions_choose_the_forms_they_had() {
        let spec = serde_json::json!({"containers": [{"name": "c", "image": "i",
            "securityContext": {"capabilities": {"add": ["NET_RAW"]}}}]});
        let meta = serde_json::json!({});
        let pod = Pod {
            meta: &meta,
            spec: &spec,
        };
        let at = |minor| LevelVersion {
            level: Level::Restricted,
            version: Version::Minor(minor),
        };
        let reasons_at = |minor| reasons(&violations(at(minor), pod));
        assert_eq!(
            reasons_at(21),
            "non-default capabilities, allowPrivilegeEscalation != false, runAsNonRoot != true, seccompProfile"
        );
        assert_eq!(
            reasons_at(22),
            "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"
        );
        assert_eq!(
            reasons_at(7),
            "non-default capabilities, runAsNonRoot != true"
        );
    }
}
