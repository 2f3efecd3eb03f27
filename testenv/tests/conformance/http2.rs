//! HTTP/2 as kube-apiserver serves it: chosen by ALPN (`h2` first, `http/1.1` too), its
//! SETTINGS in Go's order (100 concurrent streams, 256 KiB frames and stream windows), answers
//! of up to 4 KiB with their `content-length` and headed as Go heads them, watches as streams
//! beside other requests on one connection (and ended by the client's RST_STREAM), the GOAWAY
//! after 90 s idle and the close a second later, and what curl, kubectl and webhooks see of it.

use std::time::Duration;

use serde_json::{Value, json};

use crate::admission::{Ctx, rules};
use crate::common::env;
use crate::kubectl::kubectl_path;
use crate::support::http2::{
    CurlAuth, Ending, H2, first_frames, negotiated, next_data, raw_get_frames, timed_frames,
};
use crate::support::webhook_server::{WebhookServer, allow};

fn config_map(name: &str, size: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
        "data": {"k": "x".repeat(size)}})
}

fn content_length(headers: &http::HeaderMap) -> Option<usize> {
    headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse().ok())
}

#[tokio::test]
async fn alpn_prefers_h2_and_refuses_unknown_protocols() {
    let env = env().await;
    // The server's preference wins, whatever the client's order.
    for offer in [
        &["h2", "http/1.1"][..],
        &["http/1.1", "h2"],
        &["h2"],
        &["h2", "spdy/3"],
    ] {
        assert_eq!(
            negotiated(&env, offer).await.unwrap().as_deref(),
            Some("h2"),
            "{offer:?}"
        );
    }
    assert_eq!(
        negotiated(&env, &["http/1.1"]).await.unwrap().as_deref(),
        Some("http/1.1")
    );
    // No ALPN at all: nothing is chosen (and HTTP/1.1 is spoken).
    assert_eq!(negotiated(&env, &[]).await.unwrap(), None);
    // Only protocols it does not speak: the `no_application_protocol` alert.
    let err = negotiated(&env, &["spdy/3"]).await.unwrap_err();
    let alert = err
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>())
        .cloned();
    assert_eq!(
        alert,
        Some(rustls::Error::AlertReceived(
            rustls::AlertDescription::NoApplicationProtocol
        )),
        "{err}"
    );
}

#[tokio::test]
async fn the_settings_frame_shows_kube_apiserver_s_limits() {
    let env = env().await;
    let frames = first_frames(&env, Duration::from_secs(2)).await;
    // The first frame is the server's SETTINGS (not an acknowledgement).
    let (kind, flags, stream, payload) = frames.first().expect("a first frame").clone();
    assert_eq!((kind, flags & 1, stream), (4, 0, 0), "{frames:?}");
    let settings: Vec<(u16, u32)> = payload
        .chunks(6)
        .map(|s| {
            (
                u16::from_be_bytes([s[0], s[1]]),
                u32::from_be_bytes([s[2], s[3], s[4], s[5]]),
            )
        })
        .collect();
    // In the order Go's server writes them.
    assert_eq!(
        settings,
        [
            (5, 262_144),   // MAX_FRAME_SIZE
            (3, 100),       // MAX_CONCURRENT_STREAMS
            (6, 1_048_896), // MAX_HEADER_LIST_SIZE
            (1, 4096),      // HEADER_TABLE_SIZE
            (4, 262_144),   // INITIAL_WINDOW_SIZE
        ]
    );
    // The connection's window grows to one stream window per stream.
    let window: Vec<u32> = frames
        .iter()
        .filter(|(kind, _, stream, _)| *kind == 8 && *stream == 0)
        .map(|(_, _, _, p)| u32::from_be_bytes([p[0], p[1], p[2], p[3]]) & 0x7fff_ffff)
        .collect();
    assert_eq!(window, [100 * 262_144 - 65_535], "{frames:?}");
    // And the client's SETTINGS are acknowledged.
    assert!(
        frames
            .iter()
            .any(|(kind, flags, _, _)| *kind == 4 && flags & 1 == 1),
        "{frames:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_up_to_4_kib_carry_their_length_over_http2() {
    let env = env().await;
    let h2 = H2::connect(&env).await;
    let base = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    for (name, size) in [("short", 200), ("middle", 3000), ("long", 6000)] {
        let (code, _, _) = h2
            .exchange("POST", &base, Some(&config_map(name, size)))
            .await;
        assert_eq!(code, 201);
    }
    // Over HTTP/1.1 the middle one goes out chunked; Go's HTTP/2 server buffers 4 KiB.
    for (name, announced) in [("short", true), ("middle", true), ("long", false)] {
        let (code, headers, body) = h2.exchange("GET", &format!("{base}/{name}"), None).await;
        assert_eq!(code, 200);
        let expected = announced.then_some(body.len());
        assert_eq!(content_length(&headers), expected, "{name}: {headers:?}");
        assert!(headers.contains_key(http::header::DATE), "{headers:?}");
    }
    let (code, headers, body) = h2.exchange("GET", &format!("{base}/absent"), None).await;
    assert_eq!(code, 404);
    assert_eq!(content_length(&headers), Some(body.len()));
    let status: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status["reason"], "NotFound");
    // A pod with no node: exec and port-forward are refused the same way over HTTP/2.
    let pods = format!("/api/v1/namespaces/{}/pods", env.namespace());
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lonely"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    assert_eq!(h2.exchange("POST", &pods, Some(&pod)).await.0, 201);
    for (method, path) in [
        ("POST", "lonely/exec?command=ls&stdout=true"),
        ("GET", "lonely/portforward?ports=80"),
    ] {
        let (code, _, body) = h2.exchange(method, &format!("{pods}/{path}"), None).await;
        let status: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (code, status["message"].as_str()),
            (400, Some("pod lonely does not have a host assigned")),
            "{path}"
        );
    }
}

#[tokio::test]
async fn an_answer_s_last_data_frame_ends_its_stream_unless_it_outgrew_4_kib() {
    let env = env().await;
    let data = |frames: &[(u8, u8, Vec<u8>)]| -> Vec<(u8, usize)> {
        frames
            .iter()
            .filter(|(kind, ..)| *kind == 0)
            .map(|(_, flags, payload)| (flags & 1, payload.len()))
            .collect()
    };
    // A short answer: one DATA frame, which ends the stream.
    let short = data(&raw_get_frames(&env, "/version").await);
    assert!(
        matches!(short[..], [(1, len)] if len > 0 && len <= 4096),
        "{short:?}"
    );
    // One longer than Go's write buffer went through it: an empty DATA frame ends the stream.
    let long = data(&raw_get_frames(&env, "/api/v1").await);
    let (last, rest) = long.split_last().expect("DATA frames");
    assert_eq!(*last, (1, 0), "{long:?}");
    assert!(rest.iter().all(|(end, _)| *end == 0), "{long:?}");
    assert!(
        rest.iter().map(|(_, len)| len).sum::<usize>() > 4096,
        "{long:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_streams_beside_other_requests_on_one_connection() {
    let env = env().await;
    let h2 = H2::connect(&env).await;
    let base = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    let (code, _, list) = h2.exchange("GET", &base, None).await;
    assert_eq!(code, 200);
    let list: Value = serde_json::from_slice(&list).unwrap();
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let watch = h2
        .send(
            "GET",
            &format!("{base}?watch=true&resourceVersion={rv}"),
            None,
        )
        .await;
    assert_eq!(watch.status(), 200);
    assert_eq!(content_length(watch.headers()), None);
    let mut events = watch.into_body();
    // The watch's stream stays open while other streams come and go on the connection.
    for name in ["one", "two"] {
        let (code, _, _) = h2
            .exchange("POST", &base, Some(&config_map(name, 10)))
            .await;
        assert_eq!(code, 201);
    }
    let mut text = String::new();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let chunk = tokio::time::timeout(Duration::from_secs(10), next_data(&mut events))
            .await
            .expect("an event within 10s")
            .expect("the watch stays open");
        text.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = text.find('\n') {
            let event: Value = serde_json::from_str(&text[..end]).unwrap();
            text.drain(..=end);
            let name = event["object"]["metadata"]["name"].as_str().unwrap();
            // A real control plane publishes its own ConfigMaps (kube-root-ca.crt) in a new
            // namespace: only ours count.
            if ["one", "two"].contains(&name) {
                assert_eq!(event["type"], "ADDED");
                seen.push(name.to_string());
            }
        }
    }
    assert_eq!(seen, ["one", "two"]);
    // The client cancels the watch (RST_STREAM): the connection goes on serving, and a watch
    // started afterwards sees what changes next.
    drop(events);
    let (code, _, _) = h2.exchange("GET", &base, None).await;
    assert_eq!(code, 200);
    let again = h2
        .send(
            "GET",
            &format!("{base}?watch=true&resourceVersion={rv}&fieldSelector=metadata.name%3Dthree"),
            None,
        )
        .await;
    assert_eq!(again.status(), 200);
    let mut events = again.into_body();
    let (code, _, _) = h2
        .exchange("POST", &base, Some(&config_map("three", 10)))
        .await;
    assert_eq!(code, 201);
    let chunk = tokio::time::timeout(Duration::from_secs(10), next_data(&mut events))
        .await
        .expect("an event within 10s")
        .expect("the watch stays open");
    let event: Value = serde_json::from_slice(chunk.trim_ascii_end()).unwrap();
    assert_eq!(
        (&event["type"], &event["object"]["metadata"]["name"]),
        (&json!("ADDED"), &json!("three"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_over_http2_are_headed_as_go_heads_them() {
    let env = env().await;
    let h2 = H2::connect(&env).await;
    let base = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    let (code, created, _) = h2
        .exchange("POST", &base, Some(&config_map("short", 100)))
        .await;
    assert_eq!(code, 201);
    let (code, _, _) = h2
        .exchange("POST", &base, Some(&config_map("long", 6000)))
        .await;
    assert_eq!(code, 201);
    let (_, short, _) = h2.exchange("GET", &format!("{base}/short"), None).await;
    let (_, long, _) = h2.exchange("GET", &format!("{base}/long"), None).await;
    let (_, missing, _) = h2.exchange("GET", &format!("{base}/absent"), None).await;
    // The handler's headers sorted by name, then the length when the answer fit Go's write
    // buffer, then the date the server adds.
    for (what, headers, announced) in [
        ("created", created, true),
        ("short", short, true),
        ("long", long, false),
        ("missing", missing, true),
    ] {
        let names: Vec<&str> = headers.keys().map(http::HeaderName::as_str).collect();
        let (last, rest) = names.split_last().expect("headers");
        assert_eq!(*last, "date", "{what}: {names:?}");
        let handler = match rest.split_last() {
            Some((&"content-length", handler)) if announced => handler,
            _ if announced => panic!("{what}: no content-length before the date: {names:?}"),
            _ => rest,
        };
        assert!(!handler.contains(&"content-length"), "{what}: {names:?}");
        let mut sorted = handler.to_vec();
        sorted.sort_unstable();
        assert_eq!(handler, sorted, "{what}: {names:?}");
        assert!(handler.contains(&"content-type"), "{what}: {names:?}");
    }
}

#[tokio::test]
async fn an_idle_http2_connection_gets_a_goaway_after_90_seconds() {
    let env = env().await;
    let (frames, ended, ending) = timed_frames(&env, Duration::from_secs(120)).await;
    let (at, (kind, _, stream, payload)) = frames.last().expect("frames").clone();
    assert_eq!((kind, stream), (7, 0), "a GOAWAY last: {frames:?}");
    let last_stream = u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]]);
    let code = u32::from_be_bytes([payload[4], payload[5], payload[6], payload[7]]);
    // No stream was opened; NO_ERROR.
    assert_eq!((last_stream & 0x7fff_ffff, code), (0, 0));
    assert!(
        at >= Duration::from_secs(89) && at < Duration::from_secs(100),
        "{at:?}"
    );
    // Then, the client staying, the connection is closed (with TLS's close_notify) a second
    // later.
    assert_eq!(ending, Ending::Closed);
    let lingered = ended - at;
    assert!(
        lingered >= Duration::from_millis(900) && lingered < Duration::from_millis(2000),
        "{lingered:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_concurrent_streams_share_one_connection() {
    let env = env().await;
    let h2 = H2::connect(&env).await;
    let path = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    // A first answer: the server's SETTINGS (its limit of 100 streams) have been read. Streams
    // a client opens beyond the limit before it knows it are refused (REFUSED_STREAM), by Go's
    // server as by this one.
    assert_eq!(h2.exchange("GET", &path, None).await.0, 200);
    // More than the 100 streams the server allows at once: the client waits for free ones.
    let answers = futures::future::join_all((0..250).map(|i| {
        let h2 = h2.clone();
        let path = path.clone();
        async move {
            let body = config_map(&format!("cm-{i}"), 10);
            h2.exchange("POST", &path, Some(&body)).await.0
        }
    }))
    .await;
    assert!(answers.iter().all(|code| *code == 201), "{answers:?}");
    let (code, _, list) = h2.exchange("GET", &path, None).await;
    assert_eq!(code, 200);
    let list: Value = serde_json::from_slice(&list).unwrap();
    let names = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|cm| cm["metadata"]["name"].as_str().unwrap().starts_with("cm-"))
        .count();
    assert_eq!(names, 250);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curl_negotiates_http2_and_can_insist_on_http1_1() {
    let env = env().await;
    let auth = CurlAuth::of(&env).await;
    let url = format!("{}/version", auth.server);
    let Some(out) = tokio::task::block_in_place(|| auth.run(&["--http2", "-D", "-", &url])) else {
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.starts_with("HTTP/2 200 \r\n"), "{text}");
    assert!(
        text.contains("\r\ncontent-type: application/json\r\n"),
        "{text}"
    );
    assert!(text.contains("\"gitVersion\""), "{text}");
    let out = tokio::task::block_in_place(|| auth.run(&["--http1.1", "-D", "-", &url])).unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    // A watch through curl over HTTP/2: its events arrive while it runs.
    let watch = format!(
        "{}/api/v1/namespaces/{}/configmaps?watch=true&timeoutSeconds=2",
        auth.server,
        env.namespace()
    );
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    let create = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let body = config_map("through-curl", 5);
        crate::support::raw::send(&client, "POST", &path, "application/json", Some(body)).await
    });
    let out = tokio::task::block_in_place(|| {
        auth.run(&["--http2", "-N", "-w", "%{http_version}", &watch])
    });
    assert_eq!(create.await.unwrap().0, 201);
    let text = String::from_utf8_lossy(&out.unwrap().stdout).to_string();
    assert!(text.contains(r#"{"type":"ADDED""#), "{text}");
    assert!(text.contains("through-curl"), "{text}");
    assert!(text.ends_with('2'), "{text}");
}

/// Runs kubectl with `-v=9` and `extra` environment against `env`: its combined output.
fn kubectl_v9(env: &kubeforge_testenv::TestEnv, extra: &[(&str, &str)], args: &[&str]) -> String {
    let bin = kubectl_path().unwrap();
    let out = std::process::Command::new(bin)
        .arg("--kubeconfig")
        .arg(env.kubeconfig_path())
        .args(["-n", env.namespace(), "-v=9"])
        .args(args)
        .envs(extra.iter().copied())
        .output()
        .expect("kubectl runs");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The value of `header` in the response to the request whose URL ends with `path` in kubectl's
/// `-v=9` log (`GET <url> 200 OK in 3 milliseconds`, then `Response Headers:`, then one
/// indented `Name: value` line each).
fn response_header(log: &str, path: &str, header: &str) -> Option<String> {
    let mut lines = log.lines();
    lines.find(|l| {
        l.split_whitespace()
            .any(|w| w.starts_with("https://") && w.ends_with(path))
            && l.contains(" 200 OK")
    })?;
    lines
        .skip_while(|l| !l.ends_with("Response Headers:"))
        .skip(1)
        .map_while(|l| l.split_once("]     ").map(|(_, h)| h.to_string()))
        .find_map(|h| {
            let (name, value) = h.split_once(": ")?;
            (name == header).then(|| value.to_string())
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_speaks_http2_unless_told_not_to() {
    if kubectl_path().is_none() {
        eprintln!("skipping: kubectl is not installed");
        return;
    }
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let path = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    let (code, _) = crate::support::raw::send(
        &client,
        "POST",
        &path,
        "application/json",
        Some(config_map("middle", 3000)),
    )
    .await;
    assert_eq!(code, 201);
    // An object of 2-4 KiB: with its length over HTTP/2, chunked over HTTP/1.1 (where Go's
    // client shows no length). kubectl's verbose log shows the response headers; client-go
    // leaves HTTP/2 out when `DISABLE_HTTP2` is set.
    let get = ["get", "configmap", "middle", "-o", "name"];
    let h2 = tokio::task::block_in_place(|| kubectl_v9(&env, &[], &get));
    assert!(h2.contains("configmap/middle"), "{h2}");
    let length = response_header(&h2, "/configmaps/middle", "Content-Length");
    assert!(
        length.is_some_and(|l| l.parse::<usize>().is_ok_and(|l| l > 2048 && l <= 4096)),
        "{h2}"
    );
    let h1 = tokio::task::block_in_place(|| kubectl_v9(&env, &[("DISABLE_HTTP2", "1")], &get));
    assert!(h1.contains("configmap/middle"), "{h1}");
    let headers = response_header(&h1, "/configmaps/middle", "Content-Type");
    assert_eq!(headers.as_deref(), Some("application/json"), "{h1}");
    assert_eq!(
        response_header(&h1, "/configmaps/middle", "Content-Length"),
        None,
        "{h1}"
    );
    // A list and a watch over HTTP/2: the watch sees a change made meanwhile.
    let list =
        tokio::task::block_in_place(|| kubectl_v9(&env, &[], &["get", "configmaps", "-o", "name"]));
    assert!(list.contains("configmap/middle"), "{list}");
    let bin = kubectl_path().unwrap();
    let mut watch = std::process::Command::new(bin)
        .arg("--kubeconfig")
        .arg(env.kubeconfig_path())
        .args([
            "-n",
            env.namespace(),
            "get",
            "configmaps",
            "--watch-only",
            "-o",
            "name",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("kubectl starts");
    let stdout = watch.stdout.take().unwrap();
    let (lines, seen) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.send(line);
        }
    });
    // kubectl starts its watch a moment after it starts: create one after another until one
    // is seen.
    let mut found = None;
    for i in 0..10 {
        let name = format!("watched-{i}");
        let (code, _) = crate::support::raw::send(
            &client,
            "POST",
            &path,
            "application/json",
            Some(config_map(&name, 5)),
        )
        .await;
        assert_eq!(code, 201);
        let line = tokio::task::block_in_place(|| seen.recv_timeout(Duration::from_secs(2)));
        if let Ok(line) = line {
            found = Some(line);
            break;
        }
    }
    let _ = watch.kill();
    let _ = watch.wait();
    assert!(
        found
            .as_deref()
            .is_some_and(|l| l.starts_with("configmap/watched-")),
        "{found:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_serving_http2_are_called_over_http2() {
    let Some(ctx) = Ctx::new().await else { return };
    let hook = WebhookServer::start_http2(&[], |_, review| async move { allow(&review) }).await;
    let entry = ctx.hook(
        "h2.conformance.kubeforge.dev",
        hook.client_config("/validate"),
        rules("", &["configmaps"], &["CREATE"]),
        json!({}),
    );
    ctx.validating("h2", vec![entry]).await;
    let client = crate::support::raw::client(&ctx.env).await;
    let path = format!("/api/v1/namespaces/{}/configmaps", ctx.ns());
    for i in 0..3 {
        let body = config_map(&format!("hooked-{i}"), 5);
        let (code, body) =
            crate::support::raw::send(&client, "POST", &path, "application/json", Some(body)).await;
        assert_eq!(code, 201, "{body}");
    }
    let versions = hook.versions();
    let connections = hook.connections();
    let opening = hook.http2_opening();
    ctx.cleanup().await;
    // Every call over HTTP/2: the three creations (on a real server, the kube-root-ca.crt
    // ConfigMap the controller manager publishes in the test's namespace may be a fourth).
    assert!(
        versions.len() >= 3 && versions.iter().all(|v| *v == http::Version::HTTP_2),
        "{versions:?}"
    );
    // One connection carries every call.
    assert_eq!(connections, 1);
    // Opened as Go's transport opens it: the preface, its SETTINGS (push off, 4 MiB stream
    // windows, 16 KiB frames, 10 MiB header lists, in that order) and a WINDOW_UPDATE growing
    // the connection's window by 1 GiB, before anything else.
    let (preface, frames) = opening.split_at(24);
    assert_eq!(preface, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    let settings = [(2u16, 0u32), (4, 4_194_304), (5, 16_384), (6, 10_485_760)];
    let mut expected = vec![0, 0, 24, 4, 0, 0, 0, 0, 0];
    for (id, value) in settings {
        expected.extend(id.to_be_bytes());
        expected.extend(value.to_be_bytes());
    }
    expected.extend([0, 0, 4, 8, 0, 0, 0, 0, 0, 0x40, 0, 0, 0]);
    assert_eq!(
        frames.get(..expected.len()),
        Some(&expected[..]),
        "{frames:02x?}"
    );
}

/// What the server answers `bytes` sent without TLS, until it closes the connection.
async fn plain_answer(env: &kubeforge_testenv::TestEnv, bytes: &[u8]) -> Vec<u8> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let config = crate::support::http2::kube_config(env).await;
    let mut tcp = tokio::net::TcpStream::connect(crate::support::http2::authority(&config))
        .await
        .unwrap();
    tcp.write_all(bytes).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server closes the connection");
    answer
}

#[tokio::test]
async fn plain_http_and_h2c_to_the_tls_port() {
    let env = env().await;
    // An HTTP/1.1 request without TLS: Go's plain-text refusal.
    let answer = plain_answer(&env, b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert_eq!(
        String::from_utf8_lossy(&answer),
        "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
    );
    // HTTP/2 with prior knowledge (h2c) is not TLS either, nor an HTTP/1 request: the
    // connection is closed without a word.
    let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";
    assert_eq!(plain_answer(&env, preface).await, b"");
}
