//! `/healthz` and `/readyz`: named checks, all of which must pass; `?verbose` lists them.

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use std::sync::{Arc, RwLock};

use super::{Handler, text};

/// A health or readiness check: `Ok` when healthy, `Err(reason)` otherwise.
pub type Check = Arc<dyn Fn() -> BoxFuture<'static, Result<(), String>> + Send + Sync>;

/// The named liveness and readiness checks of a manager.
#[derive(Clone, Default)]
pub struct Checks {
    health: Arc<RwLock<Vec<(String, Check)>>>,
    ready: Arc<RwLock<Vec<(String, Check)>>>,
}

impl Checks {
    /// Adds a liveness check (served at `/healthz`).
    pub fn add_health(&self, name: &str, check: Check) {
        self.health
            .write()
            .expect("checks lock")
            .push((name.to_string(), check));
    }

    /// Adds a readiness check (served at `/readyz`).
    pub fn add_ready(&self, name: &str, check: Check) {
        self.ready
            .write()
            .expect("checks lock")
            .push((name.to_string(), check));
    }

    /// The probe handler.
    pub fn handler(&self) -> Handler {
        let checks = self.clone();
        Arc::new(move |req: Request<hyper::body::Incoming>| {
            let checks = checks.clone();
            Box::pin(async move { checks.answer(req.uri().path(), req.uri().query()).await })
        })
    }

    async fn answer(&self, path: &str, query: Option<&str>) -> Response<Full<Bytes>> {
        let (list, kind) = match path.trim_end_matches('/') {
            "/healthz" | "/livez" => (&self.health, "healthz"),
            "/readyz" => (&self.ready, "readyz"),
            _ => return text(StatusCode::NOT_FOUND, "not found\n"),
        };
        let checks: Vec<_> = list.read().expect("checks lock").clone();
        let mut report = String::new();
        let mut ok = true;
        for (name, check) in checks {
            match check().await {
                Ok(()) => report.push_str(&format!("[+]{name} ok\n")),
                Err(reason) => {
                    ok = false;
                    report.push_str(&format!("[-]{name} failed: {reason}\n"));
                }
            }
        }
        let verbose = query.is_some_and(|q| q.split('&').any(|p| p == "verbose"));
        if ok {
            let body = if verbose {
                format!("{report}{kind} check passed\n")
            } else {
                "ok".to_string()
            };
            text(StatusCode::OK, body)
        } else {
            text(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("{report}{kind} check failed\n"),
            )
        }
    }
}

/// A check that always passes (controller-runtime's `healthz.Ping`).
pub fn ping() -> Check {
    Arc::new(|| Box::pin(async { Ok(()) }))
}
