//! Pretty-printed JSON, as kube-apiserver writes it for people: when the request's `pretty`
//! query parameter says true (`true`, `1`, `t`, ... as Go's `strconv.ParseBool` reads them;
//! any other non-empty value says false), or, without one, when the client is `curl`,
//! `Wget` or a browser (`Mozilla/5.0`). The document is then indented by two spaces with no
//! line end after it (Go's `json.MarshalIndent`); a compact document ends with a line end
//! (Go's `json.Encoder`).

use http::HeaderMap;

/// Whether the answer to a request with this query and these headers is pretty-printed.
pub fn wanted(query: Option<&str>, headers: &HeaderMap) -> bool {
    let asked = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (key == "pretty" && !value.is_empty()).then_some(value)
        });
    if let Some(value) = asked {
        return matches!(value, "1" | "t" | "T" | "true" | "TRUE" | "True");
    }
    let agent = headers
        .get(http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    ["curl", "Wget", "Mozilla/5.0"]
        .iter()
        .any(|prefix| agent.starts_with(prefix))
}

/// `compact` (a JSON document without insignificant white space) indented as Go's
/// `json.Indent` indents it with two spaces: one member or element per line, `": "` after
/// keys, empty objects and arrays kept as `{}` and `[]`.
pub fn indent(compact: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(compact.len() + compact.len() / 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', depth * 2));
    };
    let mut bytes = compact.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        if in_string {
            out.push(b);
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                out.push(b);
            }
            b'{' | b'[' => {
                out.push(b);
                let close = if b == b'{' { b'}' } else { b']' };
                if bytes.peek() == Some(&close) {
                    out.push(close);
                    bytes.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b);
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indents_as_go_does() {
        let compact = br#"{"kind":"Status","details":{},"causes":[],"items":[{"a":"x,{:}\"y"},2],"code":404}"#;
        let expected = "{\n  \"kind\": \"Status\",\n  \"details\": {},\n  \"causes\": [],\n  \"items\": [\n    {\n      \"a\": \"x,{:}\\\"y\"\n    },\n    2\n  ],\n  \"code\": 404\n}";
        assert_eq!(String::from_utf8(indent(compact)).unwrap(), expected);
    }

    #[test]
    fn pretty_when_asked_or_for_people() {
        let mut curl = HeaderMap::new();
        curl.insert(http::header::USER_AGENT, "curl/8.5.0".parse().unwrap());
        let mut kubectl = HeaderMap::new();
        kubectl.insert(http::header::USER_AGENT, "kubectl/v1.34.9".parse().unwrap());
        assert!(wanted(None, &curl));
        assert!(!wanted(None, &kubectl));
        assert!(wanted(Some("pretty=true"), &kubectl));
        assert!(wanted(Some("limit=1&pretty=1"), &kubectl));
        assert!(!wanted(Some("pretty=false"), &curl));
        assert!(!wanted(Some("pretty=yes"), &curl));
        assert!(wanted(Some("pretty="), &curl));
        assert!(!wanted(Some("pretty"), &kubectl));
    }
}
