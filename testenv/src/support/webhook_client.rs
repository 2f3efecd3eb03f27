//! The HTTPS call to a webhook: `clientConfig` parsing (url, or service with caBundle) and
//! one JSON POST over TLS that trusts only the caBundle, as kube-apiserver makes it.
//!
//! Services are not resolved through DNS: the embedded server has no cluster network, so a
//! service reference reaches the address registered with [`Transport::route_service`] (the
//! TLS server name stays `<name>.<namespace>.svc`, so the webhook's certificate must name
//! it).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use super::webhook_conn::{Connection, alpn_protocols};

/// Where webhook calls go and the connections they reuse: the service routes of the
/// embedded server and a pool of idle keep-alive connections, shared by admission and
/// conversion webhook calls of one API server.
#[derive(Default)]
pub struct Transport {
    /// (namespace, name) of a service → the address its calls connect to.
    routes: Mutex<HashMap<(String, String), SocketAddr>>,
    /// Idle keep-alive connections to webhooks.
    connections: Connections,
}

impl Transport {
    /// Makes webhook calls to the service `namespace/name` (any port) connect to `to`: the
    /// embedded server has no cluster network to resolve services through.
    pub fn route_service(&self, namespace: &str, name: &str, to: SocketAddr) {
        self.routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert((namespace.to_string(), name.to_string()), to);
    }

    /// The address registered for the service `namespace/name`, if any.
    pub fn service_route(&self, namespace: &str, name: &str) -> Option<SocketAddr> {
        self.routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(namespace.to_string(), name.to_string()))
            .copied()
    }
}

/// Why a webhook could not be called (the real server's "failed to call webhook" cases).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The `clientConfig` is unusable (no url or service, bad url, bad caBundle).
    #[error("invalid webhook clientConfig: {0}")]
    InvalidConfig(String),
    /// A service reference has no route registered on the embedded server.
    #[error(
        "Post \"{url}\": service \"{namespace}/{name}\" is not routed: the embedded API server has no cluster network; register the webhook's address with TestEnv::route_service(\"{namespace}\", \"{name}\", addr) or use clientConfig.url"
    )]
    ServiceNotRouted {
        /// The URL the call would have used.
        url: String,
        /// The service's namespace.
        namespace: String,
        /// The service's name.
        name: String,
    },
    /// TCP connection, TLS handshake or HTTP exchange failed.
    #[error("Post \"{url}\": {reason}")]
    Transport {
        /// The URL called.
        url: String,
        /// What went wrong, for example `connection refused` or a certificate error.
        reason: String,
    },
    /// No answer within the webhook's timeout.
    #[error("Post \"{url}\": context deadline exceeded")]
    Timeout {
        /// The URL called.
        url: String,
    },
    /// The webhook answered with a non-2xx HTTP status.
    #[error("Post \"{url}\": the server responded with HTTP {status}: {body}")]
    Status {
        /// The URL called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The answer is not JSON.
    #[error("Post \"{url}\": the response is not valid JSON: {reason}")]
    Decode {
        /// The URL called.
        url: String,
        /// The parse error.
        reason: String,
    },
}

/// Where a webhook lives.
#[derive(Debug, Clone, PartialEq)]
pub enum Endpoint {
    /// `clientConfig.url`: `https://host[:port][/path]`.
    Url {
        /// Host name or IP address (also the TLS server name).
        host: String,
        /// Port (443 when the URL names none).
        port: u16,
        /// Path (and nothing else: the real server refuses queries and fragments).
        path: String,
    },
    /// `clientConfig.service`.
    Service {
        /// The service's namespace.
        namespace: String,
        /// The service's name.
        name: String,
        /// The service port (default 443).
        port: u16,
        /// The path, default `/`.
        path: String,
    },
}

/// A parsed `clientConfig` (url, or service {namespace, name, port (default 443), path},
/// and caBundle).
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Where to send the request.
    pub endpoint: Endpoint,
    /// The certificates of `caBundle` (DER); system roots are trusted when empty.
    pub ca_bundle: Vec<CertificateDer<'static>>,
}

fn invalid(message: impl Into<String>) -> CallError {
    CallError::InvalidConfig(message.into())
}

fn parse_url(url: &str) -> Result<Endpoint, CallError> {
    let uri: http::Uri = url
        .parse()
        .map_err(|e| invalid(format!("url {url:?} is not a valid URL: {e}")))?;
    if uri.scheme_str() != Some("https") {
        return Err(invalid(format!(
            "url {url:?}: 'https' is the only allowed URL scheme"
        )));
    }
    let authority = uri
        .authority()
        .ok_or_else(|| invalid(format!("url {url:?} has no host")))?;
    if authority.as_str().contains('@') {
        return Err(invalid(format!(
            "url {url:?}: user information is not permitted in the URL"
        )));
    }
    if uri.query().is_some() || url.contains('#') {
        return Err(invalid(format!(
            "url {url:?}: query parameters and fragments are not permitted in the URL"
        )));
    }
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    if host.is_empty() {
        return Err(invalid(format!("url {url:?} has no host")));
    }
    Ok(Endpoint::Url {
        host,
        port: authority.port_u16().unwrap_or(443),
        path: uri.path().to_string(),
    })
}

fn parse_service(service: &Value) -> Result<Endpoint, CallError> {
    let field = |k: &str| service.get(k).and_then(Value::as_str).unwrap_or_default();
    let (namespace, name) = (field("namespace"), field("name"));
    if namespace.is_empty() || name.is_empty() {
        return Err(invalid(
            "service reference needs both namespace and name (clientConfig.service.namespace, clientConfig.service.name)",
        ));
    }
    let port = match service.get("port") {
        None | Some(Value::Null) => 443,
        Some(p) => p
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .filter(|p| *p > 0)
            .ok_or_else(|| invalid(format!("service port {p} must be between 1 and 65535")))?,
    };
    let path = match field("path") {
        "" => "/".to_string(),
        p if p.starts_with('/') => p.to_string(),
        p => {
            return Err(invalid(format!("service path {p:?} must start with a '/'")));
        }
    };
    Ok(Endpoint::Service {
        namespace: namespace.to_string(),
        name: name.to_string(),
        port,
        path,
    })
}

fn parse_ca_bundle(v: &Value) -> Result<Vec<CertificateDer<'static>>, CallError> {
    let Some(encoded) = v.get("caBundle").filter(|b| !b.is_null()) else {
        return Ok(Vec::new());
    };
    let pem: k8s_openapi::ByteString = serde_json::from_value(encoded.clone())
        .map_err(|e| invalid(format!("caBundle is not base64: {e}")))?;
    if pem.0.is_empty() {
        return Ok(Vec::new());
    }
    let certs = CertificateDer::pem_slice_iter(&pem.0)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(format!("unable to load root certificates: {e}")))?;
    if certs.is_empty() {
        return Err(invalid(
            "unable to load root certificates: unable to parse bytes as PEM block",
        ));
    }
    Ok(certs)
}

impl ClientConfig {
    /// Parses a `clientConfig` object: exactly one of `url` and `service`, and an optional
    /// base64 `caBundle` of PEM certificates.
    pub fn parse(v: &Value) -> Result<Self, CallError> {
        let url = v.get("url").and_then(Value::as_str);
        let service = v.get("service").filter(|s| !s.is_null());
        let endpoint = match (url, service) {
            (Some(url), None) => parse_url(url)?,
            (None, Some(service)) => parse_service(service)?,
            _ => return Err(invalid("exactly one of url or service is required")),
        };
        Ok(ClientConfig {
            endpoint,
            ca_bundle: parse_ca_bundle(v)?,
        })
    }

    /// The URL the real server would call (`https://<name>.<namespace>.svc:<port><path>` for
    /// a service), used in error messages.
    pub fn url(&self) -> String {
        match &self.endpoint {
            Endpoint::Url { host, port, .. } => {
                let host = if host.contains(':') {
                    format!("[{host}]")
                } else {
                    host.clone()
                };
                format!("https://{host}:{port}{}", self.path())
            }
            Endpoint::Service {
                namespace,
                name,
                port,
                ..
            } => format!("https://{name}.{namespace}.svc:{port}{}", self.path()),
        }
    }

    /// The name the webhook's certificate must carry.
    fn server_name(&self) -> String {
        match &self.endpoint {
            Endpoint::Url { host, .. } => host.clone(),
            Endpoint::Service {
                namespace, name, ..
            } => format!("{name}.{namespace}.svc"),
        }
    }

    fn path(&self) -> &str {
        match &self.endpoint {
            Endpoint::Url { path, .. } | Endpoint::Service { path, .. } => {
                if path.is_empty() {
                    "/"
                } else {
                    path
                }
            }
        }
    }
}

/// The system's trusted roots, loaded once.
fn system_roots() -> Arc<RootCertStore> {
    static ROOTS: OnceLock<Arc<RootCertStore>> = OnceLock::new();
    ROOTS
        .get_or_init(|| {
            let mut store = RootCertStore::empty();
            let loaded = rustls_native_certs::load_native_certs();
            let (added, _ignored) = store.add_parsable_certificates(loaded.certs);
            tracing::debug!(added, "loaded system root certificates for webhook calls");
            Arc::new(store)
        })
        .clone()
}

fn tls_connector(config: &ClientConfig, url: &str) -> Result<TlsConnector, CallError> {
    let roots = if config.ca_bundle.is_empty() {
        system_roots()
    } else {
        let mut store = RootCertStore::empty();
        for cert in &config.ca_bundle {
            store.add(cert.clone()).map_err(|e| CallError::Transport {
                url: url.to_string(),
                reason: format!("unable to load root certificates: {e}"),
            })?;
        }
        Arc::new(store)
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| CallError::Transport {
            url: url.to_string(),
            reason: e.to_string(),
        })?
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = alpn_protocols();
    Ok(TlsConnector::from(Arc::new(tls)))
}

/// Where to open the TCP connection.
enum Dial {
    Addr(SocketAddr),
    Host(String, u16),
}

fn dial_target(transport: &Transport, config: &ClientConfig, url: &str) -> Result<Dial, CallError> {
    match &config.endpoint {
        Endpoint::Url { host, port, .. } => Ok(match host.parse::<std::net::IpAddr>() {
            Ok(ip) => Dial::Addr(SocketAddr::new(ip, *port)),
            Err(_) => Dial::Host(host.clone(), *port),
        }),
        Endpoint::Service {
            namespace, name, ..
        } => transport
            .service_route(namespace, name)
            .map(Dial::Addr)
            .ok_or_else(|| CallError::ServiceNotRouted {
                url: url.to_string(),
                namespace: namespace.clone(),
                name: name.clone(),
            }),
    }
}

/// What makes connections interchangeable: the address, the TLS server name and the
/// trusted CAs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PoolKey {
    dial: String,
    server_name: String,
    trust: u64,
}

/// Idle keep-alive connections to webhooks, reused as kube-apiserver's webhook clients
/// reuse theirs (one TLS handshake per connection, not per call).
#[derive(Default)]
struct Connections(Mutex<HashMap<PoolKey, Vec<Connection>>>);

/// Idle connections kept per webhook endpoint.
const MAX_IDLE: usize = 8;

impl Connections {
    fn take(&self, key: &PoolKey) -> Option<Connection> {
        let mut idle = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let list = idle.get_mut(key)?;
        while let Some(conn) = list.pop() {
            if conn.is_closed() {
                continue;
            }
            // An HTTP/2 connection stays for the next call: calls share it.
            if let Some(shared) = conn.share() {
                list.push(conn);
                return Some(shared);
            }
            return Some(conn);
        }
        None
    }

    fn put(&self, key: PoolKey, conn: Connection) {
        let mut idle = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let list = idle.entry(key).or_default();
        if conn.is_shared() && list.iter().any(|c| c.is_shared() && !c.is_closed()) {
            return; // another handle to a kept HTTP/2 connection
        }
        if list.len() < MAX_IDLE {
            list.push(conn);
        }
    }
}

fn pool_key(config: &ClientConfig, dialed: &str) -> PoolKey {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for cert in &config.ca_bundle {
        cert.as_ref().hash(&mut hasher);
    }
    PoolKey {
        dial: dialed.to_string(),
        server_name: config.server_name(),
        trust: hasher.finish(),
    }
}

/// Opens a new TLS connection to the webhook.
async fn connect(
    config: &ClientConfig,
    dial: &Dial,
    dialed: &str,
    url: &str,
) -> Result<Connection, CallError> {
    let transport = |reason: String| CallError::Transport {
        url: url.to_string(),
        reason,
    };
    let tcp = match dial {
        Dial::Addr(addr) => TcpStream::connect(addr).await,
        Dial::Host(host, port) => TcpStream::connect((host.as_str(), *port)).await,
    }
    .map_err(|e| transport(dial_error(dialed, &e)))?;
    let _ = tcp.set_nodelay(true);
    let server_name = ServerName::try_from(config.server_name())
        .map_err(|e| transport(format!("invalid TLS server name: {e}")))?;
    let tls = tls_connector(config, url)?
        .connect(server_name, tcp)
        .await
        .map_err(|e| transport(tls_error(&e, &config.server_name())))?;
    Connection::start(tls).await.map_err(transport)
}

async fn exchange(
    to: &Transport,
    config: &ClientConfig,
    body: &Value,
    timeout: Duration,
    url: &str,
) -> Result<Value, CallError> {
    let transport = |reason: String| CallError::Transport {
        url: url.to_string(),
        reason,
    };
    let dial = dial_target(to, config, url)?;
    let dialed = match &dial {
        Dial::Addr(addr) => addr.to_string(),
        Dial::Host(host, port) => format!("{host}:{port}"),
    };
    let host = match &config.endpoint {
        Endpoint::Url { .. } => url
            .trim_start_matches("https://")
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string(),
        Endpoint::Service { .. } => config.server_name(),
    };
    let payload = Bytes::from(serde_json::to_vec(body).map_err(|e| transport(e.to_string()))?);
    let request = || {
        http::Request::post(format!(
            "{}?timeout={}s",
            config.path(),
            timeout.as_secs().max(1)
        ))
        .header(http::header::HOST, host.as_str())
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json")
        .body(payload.clone())
        .map_err(|e| transport(e.to_string()))
    };
    let key = pool_key(config, &dialed);
    let pool = &to.connections;
    // A kept connection the webhook closed meanwhile fails at once: then dial afresh.
    let mut reused = None;
    if let Some(mut conn) = pool.take(&key)
        && let Ok(response) = conn.send(request()?).await
    {
        reused = Some((conn, response));
    }
    let (conn, response) = match reused {
        Some(pair) => pair,
        None => {
            let mut conn = connect(config, &dial, &dialed, url).await?;
            let response = conn.send(request()?).await.map_err(transport)?;
            (conn, response)
        }
    };
    let (status, answer) = response;
    let bytes = answer.read().await.map_err(transport)?;
    if !conn.is_closed() {
        pool.put(key, conn);
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&bytes);
        return Err(CallError::Status {
            url: url.to_string(),
            status: status.as_u16(),
            body: text.chars().take(512).collect(),
        });
    }
    serde_json::from_slice(&bytes).map_err(|e| CallError::Decode {
        url: url.to_string(),
        reason: e.to_string(),
    })
}

/// A connection failure worded like Go's net package (`dial tcp <addr>: connect: ...`).
fn dial_error(addr: &str, e: &std::io::Error) -> String {
    let why = match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
        _ => e.to_string(),
    };
    format!("dial tcp {addr}: connect: {why}")
}

/// A TLS failure worded like Go's crypto/tls and x509 (the rustls reason in parentheses).
fn tls_error(e: &std::io::Error, server_name: &str) -> String {
    use rustls::CertificateError as C;
    let rustls_error = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
    match rustls_error {
        Some(rustls::Error::InvalidCertificate(cert)) => {
            let why = match cert {
                C::UnknownIssuer | C::BadSignature => {
                    "x509: certificate signed by unknown authority".to_string()
                }
                C::NotValidForName | C::NotValidForNameContext { .. } => {
                    format!("x509: certificate is not valid for {server_name}")
                }
                C::Expired | C::ExpiredContext { .. } | C::NotValidYet => {
                    "x509: certificate has expired or is not yet valid".to_string()
                }
                _ => "x509: certificate is not valid".to_string(),
            };
            format!("tls: failed to verify certificate: {why} ({cert:?})")
        }
        Some(other) => format!("tls: {other}"),
        None => format!("tls: {e}"),
    }
}

/// POSTs `body` as JSON over HTTPS, trusting only caBundle (system roots when it is absent),
/// with the timeout; a service is resolved through the routes registered on `transport`.
pub async fn post_json(
    transport: &Transport,
    config: &ClientConfig,
    body: &Value,
    timeout: Duration,
) -> Result<Value, CallError> {
    let url = format!("{}?timeout={}s", config.url(), timeout.as_secs().max(1));
    match tokio::time::timeout(timeout, exchange(transport, config, body, timeout, &url)).await {
        Ok(result) => result,
        Err(_) => Err(CallError::Timeout { url }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_url_and_service() {
        let c = ClientConfig::parse(&json!({"url": "https://127.0.0.1:9443/mutate"})).unwrap();
        assert_eq!(
            c.endpoint,
            Endpoint::Url {
                host: "127.0.0.1".into(),
                port: 9443,
                path: "/mutate".into()
            }
        );
        assert!(c.ca_bundle.is_empty());
        let c =
            ClientConfig::parse(&json!({"service": {"namespace": "ns", "name": "hook"}})).unwrap();
        assert_eq!(c.url(), "https://hook.ns.svc:443/");
        assert_eq!(c.server_name(), "hook.ns.svc");
    }

    #[test]
    fn refuses_bad_configs() {
        let err = |v: Value| ClientConfig::parse(&v).unwrap_err().to_string();
        assert!(err(json!({})).contains("exactly one of url or service is required"));
        assert!(
            err(json!({"url": "https://a", "service": {"namespace": "n", "name": "s"}}))
                .contains("exactly one")
        );
        assert!(err(json!({"url": "http://a/x"})).contains("'https' is the only allowed"));
        assert!(err(json!({"url": "https://a/x?y=1"})).contains("query parameters"));
        assert!(
            err(json!({"service": {"namespace": "n", "name": "s", "path": "x"}}))
                .contains("must start with a '/'")
        );
        // "not a certificate" in base64
        assert!(
            err(json!({"url": "https://a", "caBundle": "bm90IGEgY2VydGlmaWNhdGU="}))
                .contains("unable to load root certificates")
        );
    }
}
