//! HTTP/1.1 connections under the deadlines of kube-apiserver's Go server: 32 s for a
//! request's head (`ReadHeaderTimeout`, from the start of the connection, or from the first
//! bytes of a later request), 90 s between an answer and the next request (`IdleTimeout`);
//! past one, the connection is closed without an answer, with TLS's `close_notify`. And
//! HTTP/2's preface sent without ALPN `h2`, which Go reads as an HTTP/1 request `PRI *`.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

use crate::common::env;
use crate::support::http2::{anonymous_handshake, handshake};

const REQUEST: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: kubernetes\r\n\r\n";

/// What one HTTP/1.1 connection sees when the client sends `first`, then `later` after
/// `delay` (if any), and waits: how long after its first bytes the server closed it, whether
/// with `close_notify` (a clean end of the TLS stream), and how many answers came.
async fn closed_after(
    env: &kubeforge_testenv::TestEnv,
    first: &'static [u8],
    later: Option<(Duration, &'static [u8])>,
) -> (Duration, bool, usize) {
    let mut tls = handshake(env, &["http/1.1"]).await.unwrap();
    let started = Instant::now();
    tls.write_all(first).await.unwrap();
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    let mut later = later;
    let clean = loop {
        let read = match later {
            Some((delay, _)) => {
                match tokio::time::timeout_at(started + delay, tls.read(&mut buf)).await {
                    Ok(read) => read,
                    Err(_) => {
                        let (_, bytes) = later.take().unwrap();
                        tls.write_all(bytes).await.unwrap();
                        continue;
                    }
                }
            }
            None => {
                let deadline = started + Duration::from_secs(150);
                match tokio::time::timeout_at(deadline, tls.read(&mut buf)).await {
                    Ok(read) => read,
                    Err(_) => panic!("still open after 150 s"),
                }
            }
        };
        match read {
            Ok(0) => break true,
            Ok(n) => received.extend_from_slice(&buf[..n]),
            Err(_) => break false,
        }
    };
    let answers = String::from_utf8_lossy(&received)
        .matches("HTTP/1.1 200 OK")
        .count();
    (started.elapsed(), clean, answers)
}

/// Whether `elapsed` is `secs` as the client measures it: the server's clock starts once it
/// has the handshake, a moment before or after the client.
fn around(elapsed: Duration, secs: u64) -> bool {
    let secs = Duration::from_secs(secs);
    elapsed >= secs - Duration::from_millis(500) && elapsed < secs + Duration::from_secs(4)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_must_arrive_within_32_seconds() {
    let env = env().await;
    let (nothing, partial, later) = tokio::join!(
        // No request at all: closed 32 s after the connection started.
        closed_after(&env, b"", None),
        // A head that never ends.
        closed_after(&env, b"GET /healthz HTTP/1.1\r\nHost: kubernetes\r\n", None),
        // After an answer, a head begun 20 s later: 32 s from its first bytes.
        closed_after(
            &env,
            REQUEST,
            Some((Duration::from_secs(20), b"GET /healthz HTTP/1.1\r\n"))
        ),
    );
    for (what, (elapsed, clean, answers), secs, expected) in [
        ("nothing", nothing, 32, 0),
        ("partial", partial, 32, 0),
        ("later", later, 52, 1),
    ] {
        assert!(around(elapsed, secs), "{what}: {elapsed:?}");
        assert!(clean, "{what}: closed without close_notify");
        assert_eq!(answers, expected, "{what}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_keep_alive_connection_is_closed_after_90_seconds() {
    let env = env().await;
    let (idle, two_bytes) = tokio::join!(
        closed_after(&env, REQUEST, None),
        // Fewer than 4 bytes of a next request do not end the wait.
        closed_after(&env, REQUEST, Some((Duration::from_secs(20), b"GE"))),
    );
    for (what, (elapsed, clean, answers)) in [("idle", idle), ("two bytes", two_bytes)] {
        assert!(around(elapsed, 90), "{what}: {elapsed:?}");
        assert!(clean, "{what}: closed without close_notify");
        assert_eq!(answers, 1, "{what}");
    }
}

#[tokio::test]
async fn an_http2_preface_without_alpn_is_answered_as_a_pri_request() {
    let env = env().await;
    let mut tls = anonymous_handshake(&env, &[]).await.unwrap();
    assert_eq!(tls.get_ref().1.alpn_protocol(), None);
    let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";
    tls.write_all(preface).await.unwrap();
    // Answered, then closed (with close_notify) without waiting for the client.
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), tls.read_to_end(&mut answer)).await;
    assert!(matches!(read, Ok(Ok(_))), "{read:?}");
    let answer = String::from_utf8(answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
    let mut lines = head.split("\r\n");
    assert_eq!(lines.next(), Some("HTTP/1.1 403 Forbidden"), "{answer}");
    let headers: Vec<(&str, &str)> = lines.map(|l| l.split_once(": ").unwrap()).collect();
    let names: Vec<&str> = headers.iter().map(|(name, _)| *name).collect();
    // The anonymous HTTP/2 request is asked to close its connection in the handler's own
    // headers, sorted with them.
    assert_eq!(
        names,
        [
            "Audit-Id",
            "Cache-Control",
            "Connection",
            "Content-Type",
            "X-Content-Type-Options",
            "X-Kubernetes-Pf-Flowschema-Uid",
            "X-Kubernetes-Pf-Prioritylevel-Uid",
            "Date",
            "Content-Length",
        ],
        "{answer}"
    );
    let value = |name: &str| headers.iter().find(|(n, _)| *n == name).unwrap().1;
    assert_eq!(value("Connection"), "close");
    assert_eq!(value("Content-Type"), "application/json");
    assert_eq!(value("Content-Length"), body.len().to_string());
    assert_eq!(
        body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"system:anonymous\" cannot pri path \"*\"","reason":"Forbidden","details":{},"code":403}
"#
    );
}
