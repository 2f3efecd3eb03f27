//! Clients of an environment's server that pick the protocol themselves: an HTTP/2 connection
//! (the `h2` crate's client over rustls, ALPN `h2`), TLS handshakes offering chosen ALPN names,
//! and the server's first frames read raw; also the credentials of its kubeconfig as files, for
//! curl.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use kube::client::ConfigExt;
use kubeforge_testenv::TestEnv;
use rustls_pki_types::ServerName;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// The kubeconfig of `env` read as kube reads it.
pub async fn kube_config(env: &TestEnv) -> kube::Config {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig_path()).unwrap();
    kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap()
}

/// `host:port` of the server.
pub fn authority(config: &kube::Config) -> String {
    config
        .cluster_url
        .authority()
        .expect("a server address")
        .to_string()
}

/// A TLS connection to `env`'s server offering `alpn` (its CA trusted, its client certificate
/// presented if the kubeconfig has one): the stream, or the handshake's error.
pub async fn handshake(env: &TestEnv, alpn: &[&str]) -> std::io::Result<TlsStream<TcpStream>> {
    let config = kube_config(env).await;
    let mut tls = config.rustls_client_config().unwrap();
    tls.alpn_protocols = alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
    let tcp = TcpStream::connect(authority(&config)).await?;
    let host = config.cluster_url.host().unwrap_or("127.0.0.1").to_string();
    let name = ServerName::try_from(host).unwrap();
    TlsConnector::from(Arc::new(tls)).connect(name, tcp).await
}

/// [`handshake`] without the kubeconfig's client certificate: the requests it carries are
/// anonymous (unless they carry a token).
pub async fn anonymous_handshake(
    env: &TestEnv,
    alpn: &[&str],
) -> std::io::Result<TlsStream<TcpStream>> {
    let mut config = kube_config(env).await;
    config.auth_info = Default::default();
    let mut tls = config.rustls_client_config().unwrap();
    tls.alpn_protocols = alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
    let tcp = TcpStream::connect(authority(&config)).await?;
    let host = config.cluster_url.host().unwrap_or("127.0.0.1").to_string();
    let name = ServerName::try_from(host).unwrap();
    TlsConnector::from(Arc::new(tls)).connect(name, tcp).await
}

/// The ALPN name the server chose when offered `alpn` (None when it chose none), or the
/// handshake's error.
pub async fn negotiated(env: &TestEnv, alpn: &[&str]) -> std::io::Result<Option<String>> {
    let tls = handshake(env, alpn).await?;
    Ok(tls
        .get_ref()
        .1
        .alpn_protocol()
        .map(|p| String::from_utf8_lossy(p).into_owned()))
}

/// One HTTP/2 connection to an environment's server, and how its requests authenticate.
#[derive(Clone)]
pub struct H2 {
    sender: h2::client::SendRequest<Bytes>,
    authority: String,
    token: Option<String>,
}

impl H2 {
    /// Opens an HTTP/2 connection to `env`'s server (ALPN `h2` only).
    pub async fn connect(env: &TestEnv) -> H2 {
        let config = kube_config(env).await;
        let tls = handshake(env, &["h2"]).await.unwrap();
        assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
        let (sender, connection) = h2::client::handshake(tls).await.unwrap();
        tokio::spawn(async move {
            let _ = connection.await;
        });
        H2 {
            sender,
            authority: authority(&config),
            token: secret(&config.auth_info, "token"),
        }
    }

    /// Sends `method path` (with a JSON `body` if any) on a new stream: the answer's head and
    /// its body, still streaming.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> http::Response<h2::RecvStream> {
        let mut request = http::Request::builder()
            .method(method)
            .uri(format!("https://{}{path}", self.authority));
        if let Some(token) = &self.token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let request = request.body(()).unwrap();
        let mut sender = self.sender.clone().ready().await.unwrap();
        let (response, mut stream) = sender.send_request(request, body.is_none()).unwrap();
        if let Some(body) = body {
            stream
                .send_data(Bytes::from(body.to_string()), true)
                .unwrap();
        }
        response
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    /// [`H2::send`], its body read whole: the status, the headers and the body.
    pub async fn exchange(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, http::HeaderMap, Bytes) {
        let response = self.send(method, path, body).await;
        assert_eq!(response.version(), http::Version::HTTP_2);
        let code = response.status().as_u16();
        let headers = response.headers().clone();
        let mut body = response.into_body();
        let mut bytes = BytesMut::new();
        while let Some(chunk) = next_data(&mut body).await {
            bytes.extend_from_slice(&chunk);
        }
        (code, headers, bytes.freeze())
    }
}

/// The next piece of an HTTP/2 body (its room handed back to the sender), None at its end.
pub async fn next_data(body: &mut h2::RecvStream) -> Option<Bytes> {
    let chunk = body.data().await?.unwrap();
    let _ = body.flow_control().release_capacity(chunk.len());
    Some(chunk)
}

/// The frames a server sends first on an HTTP/2 connection (after the client's preface and
/// an empty SETTINGS frame), read for up to `wait`: (type, flags, stream, payload) each.
pub async fn first_frames(env: &TestEnv, wait: std::time::Duration) -> Vec<(u8, u8, u32, Vec<u8>)> {
    timed_frames(env, wait)
        .await
        .0
        .into_iter()
        .map(|(_, frame)| frame)
        .collect()
}

/// How a connection read by [`timed_frames`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// TLS `close_notify`, then the end of the stream.
    Closed,
    /// A read error (the TCP connection ended without `close_notify`, or was reset).
    Broken,
    /// Still open after the wait.
    Open,
}

/// [`first_frames`], each with the time since the preface was sent at which it was read
/// whole, and when and how the connection ended.
pub async fn timed_frames(
    env: &TestEnv,
    wait: std::time::Duration,
) -> (
    Vec<(std::time::Duration, (u8, u8, u32, Vec<u8>))>,
    std::time::Duration,
    Ending,
) {
    let mut tls = handshake(env, &["h2"]).await.unwrap();
    tls.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        .await
        .unwrap();
    tls.flush().await.unwrap();
    let started = tokio::time::Instant::now();
    let deadline = started + wait;
    let mut bytes = Vec::new();
    let mut frames = Vec::new();
    let mut buf = [0u8; 4096];
    let ending = loop {
        match tokio::time::timeout_at(deadline, tls.read(&mut buf)).await {
            Err(_) => break Ending::Open,
            Ok(Err(_)) => break Ending::Broken,
            Ok(Ok(0)) => break Ending::Closed,
            Ok(Ok(n)) => bytes.extend_from_slice(&buf[..n]),
        }
        while bytes.len() >= 9 {
            let len = u32::from_be_bytes([0, bytes[0], bytes[1], bytes[2]]) as usize;
            if bytes.len() < 9 + len {
                break;
            }
            let stream = u32::from_be_bytes([bytes[5], bytes[6], bytes[7], bytes[8]]) & 0x7fff_ffff;
            let frame = (bytes[3], bytes[4], stream, bytes[9..9 + len].to_vec());
            frames.push((started.elapsed(), frame));
            bytes.drain(..9 + len);
        }
    };
    (frames, started.elapsed(), ending)
}

/// The frames the server sends on stream 1 for `GET path` (sent raw, with the kubeconfig's
/// credentials, its headers HPACK literals), read until the stream ends or for 10 s:
/// (type, flags, payload) each.
pub async fn raw_get_frames(env: &TestEnv, path: &str) -> Vec<(u8, u8, Vec<u8>)> {
    let config = kube_config(env).await;
    let mut tls = handshake(env, &["h2"]).await.unwrap();
    let literal = |block: &mut Vec<u8>, name: &str, value: &str| {
        // A literal header field without indexing, its name and value plain (lengths < 127).
        block.push(0);
        block.push(name.len() as u8);
        block.extend_from_slice(name.as_bytes());
        block.push(value.len() as u8);
        block.extend_from_slice(value.as_bytes());
    };
    // :method GET and :scheme https from the static table.
    let mut block = vec![0x82, 0x87];
    literal(&mut block, ":path", path);
    literal(&mut block, ":authority", &authority(&config));
    if let Some(token) = secret(&config.auth_info, "token") {
        literal(&mut block, "authorization", &format!("Bearer {token}"));
    }
    let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00".to_vec();
    out.extend_from_slice(&(block.len() as u32).to_be_bytes()[1..]);
    // HEADERS, END_STREAM | END_HEADERS, stream 1.
    out.extend_from_slice(&[1, 5, 0, 0, 0, 1]);
    out.extend_from_slice(&block);
    tls.write_all(&out).await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut bytes = Vec::new();
    let mut frames = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        while bytes.len() >= 9 {
            let len = u32::from_be_bytes([0, bytes[0], bytes[1], bytes[2]]) as usize;
            if bytes.len() < 9 + len {
                break;
            }
            let stream = u32::from_be_bytes([bytes[5], bytes[6], bytes[7], bytes[8]]) & 0x7fff_ffff;
            if stream == 1 {
                frames.push((bytes[3], bytes[4], bytes[9..9 + len].to_vec()));
                if bytes[4] & 1 == 1 && matches!(bytes[3], 0 | 1) {
                    return frames;
                }
            }
            bytes.drain(..9 + len);
        }
        match tokio::time::timeout_at(deadline, tls.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => bytes.extend_from_slice(&buf[..n]),
            _ => return frames,
        }
    }
}

/// The credentials of `env`'s kubeconfig as curl takes them: `--cacert`, and `--cert`/`--key`
/// or an `Authorization` header. The files live as long as the value.
pub struct CurlAuth {
    pub server: String,
    args: Vec<String>,
    _dir: tempfile::TempDir,
}

impl CurlAuth {
    pub async fn of(env: &TestEnv) -> CurlAuth {
        let config = kube_config(env).await;
        let dir = tempfile::tempdir().unwrap();
        let mut args = Vec::new();
        let write = |name: &str, bytes: &[u8]| -> String {
            let path: PathBuf = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path.display().to_string()
        };
        let mut pem = String::new();
        for der in config.root_cert.iter().flatten() {
            use base64::Engine as _;
            let b64 = base64::engine::general_purpose::STANDARD.encode(der);
            pem.push_str("-----BEGIN CERTIFICATE-----\n");
            for line in b64.as_bytes().chunks(64) {
                pem.push_str(std::str::from_utf8(line).unwrap());
                pem.push('\n');
            }
            pem.push_str("-----END CERTIFICATE-----\n");
        }
        args.extend(["--cacert".to_string(), write("ca.crt", pem.as_bytes())]);
        let auth = &config.auth_info;
        if let Some(token) = secret(auth, "token") {
            args.extend(["-H".to_string(), format!("Authorization: Bearer {token}")]);
        }
        let cert = match (&auth.client_certificate, &auth.client_certificate_data) {
            (Some(path), _) => Some(path.clone()),
            (None, Some(data)) => Some(write("client.crt", &decode(data))),
            _ => None,
        };
        let key = match (&auth.client_key, secret(auth, "client-key-data")) {
            (Some(path), _) => Some(path.clone()),
            (None, Some(data)) => Some(write("client.key", &decode(&data))),
            _ => None,
        };
        if let (Some(cert), Some(key)) = (cert, key) {
            args.extend(["--cert".to_string(), cert, "--key".to_string(), key]);
        }
        CurlAuth {
            server: config
                .cluster_url
                .to_string()
                .trim_end_matches('/')
                .to_string(),
            args,
            _dir: dir,
        }
    }

    /// `curl -sS` with these credentials and `args`; None (after saying why) without curl.
    pub fn run(&self, args: &[&str]) -> Option<std::process::Output> {
        let Some(curl) = ["/usr/bin/curl", "/usr/local/bin/curl"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
        else {
            eprintln!("skipping: curl is not installed");
            return None;
        };
        let output = std::process::Command::new(curl)
            .arg("-sS")
            .args(&self.args)
            .args(args)
            .output()
            .expect("curl runs");
        Some(output)
    }
}

/// A secret field of the kubeconfig's user (kube writes them in clear when serializing).
fn secret(auth: &kube::config::AuthInfo, field: &str) -> Option<String> {
    let value = serde_json::to_value(auth).unwrap();
    value[field].as_str().map(str::to_string)
}

fn decode(base64_text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(base64_text.trim())
        .unwrap()
}
