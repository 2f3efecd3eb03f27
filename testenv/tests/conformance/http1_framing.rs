//! HTTP/1.1 answers headed as Go's `net/http` heads them: names in canonical case
//! (`Audit-Id`, `Etag`), the handler's headers sorted by name, then `Date`, then the length
//! the server computed or `Transfer-Encoding: chunked`; and go-restful's 405 to `HEAD` and
//! `OPTIONS` on the paths it serves without a handler for them.

use crate::common::env;
use crate::support::http2::CurlAuth;

/// The header lines (name, value) of an HTTP/1.1 answer curl printed with `-D -`.
fn header_lines(text: &str) -> Vec<(String, String)> {
    text.split("\r\n")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_once(": "))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

/// Go's `CanonicalHeaderKey`: the first letter and each one after a hyphen upper case.
fn canonical(name: &str) -> bool {
    name.split('-').all(|part| {
        let mut chars = part.chars();
        chars.next().is_some_and(|c| !c.is_ascii_lowercase())
            && chars.all(|c| !c.is_ascii_uppercase())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http1_answers_are_headed_as_go_heads_them() {
    let env = env().await;
    let auth = CurlAuth::of(&env).await;
    let small = format!(
        "{}/api/v1/namespaces/{}/configmaps/none-such",
        auth.server,
        env.namespace()
    );
    let aggregated = format!("{}/api", auth.server);
    let cases: [(&str, &[&str]); 2] = [
        (&small, &[]),
        (
            &aggregated,
            &[
                "-H",
                "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            ],
        ),
    ];
    for (url, extra) in cases {
        let mut args = vec!["--http1.1", "-D", "-", "-o", "/dev/null", url];
        args.extend_from_slice(extra);
        let Some(out) = tokio::task::block_in_place(|| auth.run(&args)) else {
            return;
        };
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let lines = header_lines(&text);
        let names: Vec<&str> = lines.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.iter().all(|n| canonical(n)), "{text}");
        let date = names.iter().position(|n| *n == "Date").expect(&text);
        let handler = &names[..date];
        assert!(handler.windows(2).all(|w| w[0] <= w[1]), "{text}");
        assert!(handler.contains(&"Audit-Id") && handler.contains(&"Content-Type"));
        assert!(
            matches!(&names[date + 1..], ["Content-Length" | "Transfer-Encoding"]),
            "{text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go_restful_paths_refuse_head_and_options() {
    let env = env().await;
    let auth = CurlAuth::of(&env).await;
    let code = |method: &str, path: &str| {
        let url = format!("{}{path}", auth.server);
        let out = tokio::task::block_in_place(|| {
            auth.run(&["-X", method, "-o", "/dev/null", "-w", "%{http_code}", &url])
        })?;
        Some(String::from_utf8_lossy(&out.stdout).to_string())
    };
    for path in [
        "/version",
        "/api",
        "/api/v1",
        "/apis/apps/v1",
        "/openid/v1/jwks",
    ] {
        for method in ["HEAD", "OPTIONS"] {
            let Some(code) = code(method, path) else {
                return;
            };
            assert_eq!(code, "405", "{method} {path}");
        }
    }
    // Outside go-restful, a HEAD is answered as a GET without its body.
    for path in ["/apis", "/healthz"] {
        assert_eq!(code("HEAD", path).as_deref(), Some("200"), "HEAD {path}");
    }
}
