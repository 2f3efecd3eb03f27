//! The continue token of a paginated list, in kube-apiserver's format: URL-safe base64
//! (no padding) of `{"v":"meta.k8s.io/v1","rv":<list resourceVersion>,"start":"<key>\u0000"}`,
//! where the key is `<namespace>/<name>` (or `<name>` for cluster-scoped objects) of the
//! last object returned. A token that does not decode is refused with the real server's
//! words, Go's base64 and JSON errors included.

use base64::Engine;
use base64::alphabet::URL_SAFE;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::{Value, json};

use crate::support::go_json;

/// Go's `base64.RawURLEncoding`: URL-safe alphabet, no padding, and (not strict) bits after
/// the last full byte ignored.
const URL_SAFE_NO_PAD: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true),
);

/// The version of the token format the real server writes and reads.
const TOKEN_VERSION: &str = "meta.k8s.io/v1";

/// The token continuing a list at resourceVersion `rv` after `ns`/`name`.
pub fn encode(rv: u64, ns: &str, name: &str) -> String {
    let key = if ns.is_empty() {
        format!("{name}\u{0}")
    } else {
        format!("{ns}/{name}\u{0}")
    };
    URL_SAFE_NO_PAD.encode(json!({"v": TOKEN_VERSION, "rv": rv, "start": key}).to_string())
}

/// The list resourceVersion, namespace and name a token continues after, or the message of
/// the 400 that refuses it.
pub fn decode(token: &str) -> Result<(u64, String, String), String> {
    let invalid = |why: String| format!("invalid continue token: continue key is not valid: {why}");
    let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|e| {
        let offset = match e {
            base64::DecodeError::InvalidByte(at, _)
            | base64::DecodeError::InvalidLastSymbol(at, _) => at,
            _ => token.len(),
        };
        invalid(format!("illegal base64 data at input byte {offset}"))
    })?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| invalid(go_json::syntax_error(&bytes).unwrap_or_else(|| e.to_string())))?;
    if value["v"] != TOKEN_VERSION {
        return Err(invalid("server does not recognize this encoded key".into()));
    }
    let rv = value["rv"].as_u64().filter(|rv| *rv > 0).ok_or_else(|| {
        invalid(format!(
            "incorrect encoded start resourceVersion (version {TOKEN_VERSION})"
        ))
    })?;
    let key = value["start"]
        .as_str()
        .and_then(|k| k.strip_suffix('\u{0}'))
        .ok_or_else(|| invalid("the encoded key is not valid".into()))?;
    let (ns, name) = key.split_once('/').unwrap_or(("", key));
    Ok((rv, ns.to_string(), name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_for_namespaced_and_cluster_objects() {
        assert_eq!(
            decode(&encode(42, "ns", "a")).unwrap(),
            (42, "ns".into(), "a".into())
        );
        assert_eq!(
            decode(&encode(7, "", "node-1")).unwrap(),
            (7, String::new(), "node-1".into())
        );
    }

    #[test]
    fn corrupt_tokens_get_the_real_servers_words() {
        assert_eq!(
            decode("not-a-token").unwrap_err(),
            r"invalid continue token: continue key is not valid: invalid character '\x9e' looking for beginning of value"
        );
        assert!(
            decode("a*b")
                .unwrap_err()
                .ends_with("illegal base64 data at input byte 1")
        );
        let other = URL_SAFE_NO_PAD.encode(r#"{"v":"x","rv":1,"start":"a\u0000"}"#);
        assert!(
            decode(&other)
                .unwrap_err()
                .ends_with("server does not recognize this encoded key")
        );
    }
}
