//! The core `v1` probes and lifecycle hooks of a container.

use super::schema::{Message, Ty, inline, list, ptr, val};

/// `ExecAction`.
pub(super) static EXEC_ACTION: Message = Message::new("ExecAction", &[list(1, "command", Ty::Str)]);

/// `HTTPHeader`.
pub(super) static HTTP_HEADER: Message = Message::new(
    "HTTPHeader",
    &[val(1, "name", Ty::Str), val(2, "value", Ty::Str)],
);

/// `HTTPGetAction`.
pub(super) static HTTP_GET_ACTION: Message = Message::new(
    "HTTPGetAction",
    &[
        val(1, "path", Ty::Str),
        val(2, "port", Ty::IntOrString),
        val(3, "host", Ty::Str),
        val(4, "scheme", Ty::Str),
        list(5, "httpHeaders", Ty::Msg(&HTTP_HEADER)),
    ],
);

/// `TCPSocketAction`.
pub(super) static TCP_SOCKET_ACTION: Message = Message::new(
    "TCPSocketAction",
    &[val(1, "port", Ty::IntOrString), val(2, "host", Ty::Str)],
);

/// `GRPCAction`.
pub(super) static GRPC_ACTION: Message = Message::new(
    "GRPCAction",
    &[val(1, "port", Ty::Int), ptr(2, "service", Ty::Str)],
);

/// `ProbeHandler`.
pub(super) static PROBE_HANDLER: Message = Message::new(
    "ProbeHandler",
    &[
        ptr(1, "exec", Ty::Msg(&EXEC_ACTION)),
        ptr(2, "httpGet", Ty::Msg(&HTTP_GET_ACTION)),
        ptr(3, "tcpSocket", Ty::Msg(&TCP_SOCKET_ACTION)),
        ptr(4, "grpc", Ty::Msg(&GRPC_ACTION)),
    ],
);

/// `Probe`.
pub(super) static PROBE: Message = Message::new(
    "Probe",
    &[
        inline(1, &PROBE_HANDLER),
        val(2, "initialDelaySeconds", Ty::Int),
        val(3, "timeoutSeconds", Ty::Int),
        val(4, "periodSeconds", Ty::Int),
        val(5, "successThreshold", Ty::Int),
        val(6, "failureThreshold", Ty::Int),
        ptr(7, "terminationGracePeriodSeconds", Ty::Int),
    ],
);

/// `SleepAction`.
pub(super) static SLEEP_ACTION: Message =
    Message::new("SleepAction", &[val(1, "seconds", Ty::Int)]);

/// `LifecycleHandler`.
pub(super) static LIFECYCLE_HANDLER: Message = Message::new(
    "LifecycleHandler",
    &[
        ptr(1, "exec", Ty::Msg(&EXEC_ACTION)),
        ptr(2, "httpGet", Ty::Msg(&HTTP_GET_ACTION)),
        ptr(3, "tcpSocket", Ty::Msg(&TCP_SOCKET_ACTION)),
        ptr(4, "sleep", Ty::Msg(&SLEEP_ACTION)),
    ],
);

/// `Lifecycle`.
pub(super) static LIFECYCLE: Message = Message::new(
    "Lifecycle",
    &[
        ptr(1, "postStart", Ty::Msg(&LIFECYCLE_HANDLER)),
        ptr(2, "preStop", Ty::Msg(&LIFECYCLE_HANDLER)),
        ptr(3, "stopSignal", Ty::Str),
    ],
);
