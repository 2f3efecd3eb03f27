//! `apps/v1`: the DeploymentSpec `kubectl create deployment` sends (the kind, with its status, is
//! in `apps_kinds`).

use super::core::POD_TEMPLATE_SPEC;
use super::meta::LABEL_SELECTOR;
use super::schema::{Message, Ty, ptr, val};

/// `RollingUpdateDeployment`.
pub(super) static ROLLING_UPDATE_DEPLOYMENT: Message = Message::new(
    "RollingUpdateDeployment",
    &[
        ptr(1, "maxUnavailable", Ty::IntOrString),
        ptr(2, "maxSurge", Ty::IntOrString),
    ],
);

/// `DeploymentStrategy`.
pub(super) static DEPLOYMENT_STRATEGY: Message = Message::new(
    "DeploymentStrategy",
    &[
        val(1, "type", Ty::Str),
        ptr(2, "rollingUpdate", Ty::Msg(&ROLLING_UPDATE_DEPLOYMENT)),
    ],
);

/// `DeploymentSpec`.
pub(super) static DEPLOYMENT_SPEC: Message = Message::new(
    "DeploymentSpec",
    &[
        ptr(1, "replicas", Ty::Int),
        ptr(2, "selector", Ty::Msg(&LABEL_SELECTOR)),
        val(3, "template", Ty::Msg(&POD_TEMPLATE_SPEC)),
        val(4, "strategy", Ty::Msg(&DEPLOYMENT_STRATEGY)),
        val(5, "minReadySeconds", Ty::Int),
        ptr(6, "revisionHistoryLimit", Ty::Int),
        val(7, "paused", Ty::Bool),
        ptr(9, "progressDeadlineSeconds", Ty::Int),
    ],
);
