//! The core `v1` security contexts of a container and of a pod, with the options they share.

use super::schema::{Message, Ty, list, ptr, val};

/// `Capabilities`.
pub(super) static CAPABILITIES: Message = Message::new(
    "Capabilities",
    &[list(1, "add", Ty::Str), list(2, "drop", Ty::Str)],
);

/// `SELinuxOptions`.
pub(super) static SE_LINUX_OPTIONS: Message = Message::new(
    "SELinuxOptions",
    &[
        val(1, "user", Ty::Str),
        val(2, "role", Ty::Str),
        val(3, "type", Ty::Str),
        val(4, "level", Ty::Str),
    ],
);

/// `WindowsSecurityContextOptions`.
pub(super) static WINDOWS_SECURITY_CONTEXT_OPTIONS: Message = Message::new(
    "WindowsSecurityContextOptions",
    &[
        ptr(1, "gmsaCredentialSpecName", Ty::Str),
        ptr(2, "gmsaCredentialSpec", Ty::Str),
        ptr(3, "runAsUserName", Ty::Str),
        ptr(4, "hostProcess", Ty::Bool),
    ],
);

/// `SeccompProfile`.
pub(super) static SECCOMP_PROFILE: Message = Message::new(
    "SeccompProfile",
    &[val(1, "type", Ty::Str), ptr(2, "localhostProfile", Ty::Str)],
);

/// `AppArmorProfile`.
pub(super) static APP_ARMOR_PROFILE: Message = Message::new(
    "AppArmorProfile",
    &[val(1, "type", Ty::Str), ptr(2, "localhostProfile", Ty::Str)],
);

/// `SecurityContext`.
pub(super) static SECURITY_CONTEXT: Message = Message::new(
    "SecurityContext",
    &[
        ptr(1, "capabilities", Ty::Msg(&CAPABILITIES)),
        ptr(2, "privileged", Ty::Bool),
        ptr(3, "seLinuxOptions", Ty::Msg(&SE_LINUX_OPTIONS)),
        ptr(
            10,
            "windowsOptions",
            Ty::Msg(&WINDOWS_SECURITY_CONTEXT_OPTIONS),
        ),
        ptr(4, "runAsUser", Ty::Int),
        ptr(8, "runAsGroup", Ty::Int),
        ptr(5, "runAsNonRoot", Ty::Bool),
        ptr(6, "readOnlyRootFilesystem", Ty::Bool),
        ptr(7, "allowPrivilegeEscalation", Ty::Bool),
        ptr(9, "procMount", Ty::Str),
        ptr(11, "seccompProfile", Ty::Msg(&SECCOMP_PROFILE)),
        ptr(12, "appArmorProfile", Ty::Msg(&APP_ARMOR_PROFILE)),
    ],
);

/// `Sysctl`.
pub(super) static SYSCTL: Message = Message::new(
    "Sysctl",
    &[val(1, "name", Ty::Str), val(2, "value", Ty::Str)],
);

/// `PodSecurityContext`.
pub(super) static POD_SECURITY_CONTEXT: Message = Message::new(
    "PodSecurityContext",
    &[
        ptr(1, "seLinuxOptions", Ty::Msg(&SE_LINUX_OPTIONS)),
        ptr(
            8,
            "windowsOptions",
            Ty::Msg(&WINDOWS_SECURITY_CONTEXT_OPTIONS),
        ),
        ptr(2, "runAsUser", Ty::Int),
        ptr(6, "runAsGroup", Ty::Int),
        ptr(3, "runAsNonRoot", Ty::Bool),
        list(4, "supplementalGroups", Ty::Int),
        ptr(12, "supplementalGroupsPolicy", Ty::Str),
        ptr(5, "fsGroup", Ty::Int),
        list(7, "sysctls", Ty::Msg(&SYSCTL)),
        ptr(9, "fsGroupChangePolicy", Ty::Str),
        ptr(10, "seccompProfile", Ty::Msg(&SECCOMP_PROFILE)),
        ptr(11, "appArmorProfile", Ty::Msg(&APP_ARMOR_PROFILE)),
        ptr(13, "seLinuxChangePolicy", Ty::Str),
    ],
);
