//! The continue token of a paginated list, in kube-apiserver's format: URL-safe base64
//! (no padding) of `{"v":"meta.k8s.io/v1","rv":<list resourceVersion>,"start":"/<key>\u0000"}`,
//! where the key, relative to the list's prefix, is `<name>` (a list in one namespace, or of
//! cluster-scoped objects) or `<namespace>/<name>` (across namespaces) of the last object
//! returned. A token that does not decode is refused with the real server's words, Go's
//! base64 and JSON errors included.

use base64::Engine;
use base64::alphabet::URL_SAFE;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::json;

use crate::support::go_decode::{self, Node};
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

/// The token continuing a list at resourceVersion `rv` after the object whose key, relative
/// to the list's own prefix (`<name>` in one namespace or for cluster-scoped objects,
/// `<namespace>/<name>` across all namespaces), is `key`.
pub fn encode(rv: u64, key: &str) -> String {
    URL_SAFE_NO_PAD
        .encode(json!({"v": TOKEN_VERSION, "rv": rv, "start": format!("/{key}\u{0}")}).to_string())
}

/// Where a token continues a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continuation {
    /// The list's resourceVersion (a negative one reads the current state).
    pub rv: i64,
    /// The first key to read, relative to the list's prefix (the key of the last object
    /// returned followed by NUL in a token this server wrote).
    pub from: String,
}

/// Where a token continues, or the message of the 400 that refuses it, in the real
/// server's order: base64, JSON (Go's words), version, resourceVersion, key.
pub fn decode(token: &str) -> Result<Continuation, String> {
    let invalid = |why: String| format!("invalid continue token: continue key is not valid: {why}");
    let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|e| {
        let offset = match e {
            base64::DecodeError::InvalidByte(at, _)
            | base64::DecodeError::InvalidLastSymbol(at, _) => at,
            // Go stops at the first byte that cannot start a full quantum.
            _ => token.find('=').unwrap_or(token.len() / 4 * 4),
        };
        invalid(format!("illegal base64 data at input byte {offset}"))
    })?;
    if let Some(why) = go_json::syntax_error(&bytes) {
        return Err(invalid(why));
    }
    let value = go_decode::parse_top(&bytes).ok_or_else(|| {
        let why = serde_json::from_slice::<serde_json::Value>(&bytes).err();
        invalid(why.map_or_else(|| "unexpected end of JSON input".into(), |e| e.to_string()))
    })?;
    let fields = token_fields(&value).map_err(invalid)?;
    if fields.version != TOKEN_VERSION {
        return Err(invalid(format!(
            "server does not recognize this encoded version {}",
            fields.version
        )));
    }
    if fields.rv == 0 {
        return Err(invalid(format!(
            "incorrect encoded start resourceVersion (version {TOKEN_VERSION})"
        )));
    }
    if fields.start.is_empty() {
        return Err(invalid(format!(
            "encoded start key empty (version {TOKEN_VERSION})"
        )));
    }
    let key = if fields.start.starts_with('/') {
        fields.start.clone()
    } else {
        format!("/{}", fields.start)
    };
    if !is_clean_path(&key) {
        return Err(invalid(fields.start));
    }
    Ok(Continuation {
        rv: fields.rv,
        from: key[1..].to_string(),
    })
}

/// The fields of a token as Go's `encoding/json` fills its struct: members in document
/// order (a repeated one filled again), names matched without regard to case, `null` leaving
/// a field as it is, and a value of another type an error naming the member as written; the
/// first such error in the document is the one reported.
struct TokenFields {
    version: String,
    rv: i64,
    start: String,
}

/// A field of the token's Go struct.
#[derive(Clone, Copy)]
enum Field {
    Version,
    Rv,
    Start,
}

impl Field {
    /// The field a member's key fills: its JSON name exactly, or folded as Go folds names
    /// (ASCII letters in either case, `ſ` as `s`).
    fn of_key(key: &str) -> Option<Field> {
        let folded: String = key
            .chars()
            .map(|c| match c {
                '\u{17f}' => 's',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        match folded.as_str() {
            "v" => Some(Field::Version),
            "rv" => Some(Field::Rv),
            "start" => Some(Field::Start),
            _ => None,
        }
    }
}

fn token_fields(value: &Node) -> Result<TokenFields, String> {
    let mut fields = TokenFields {
        version: String::new(),
        rv: 0,
        start: String::new(),
    };
    let members = match value {
        Node::Object(members) => members,
        Node::Null => return Ok(fields),
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type storage.continueToken",
                other.go_kind()
            ));
        }
    };
    let mut first_error = None;
    for (key, v) in members {
        let Some(field) = Field::of_key(key) else {
            continue;
        };
        let mismatch = |what: String, ty: &str| {
            format!(
                "json: cannot unmarshal {what} into Go struct field continueToken.{key} of type {ty}"
            )
        };
        let error = match (field, v) {
            (_, Node::Null) => None,
            (Field::Version, Node::String(text)) => {
                fields.version = text.clone();
                None
            }
            (Field::Start, Node::String(text)) => {
                fields.start = text.clone();
                None
            }
            (Field::Version | Field::Start, other) => {
                Some(mismatch(other.go_kind().to_string(), "string"))
            }
            (Field::Rv, Node::Number(written)) => match written.parse::<i64>() {
                Ok(rv) => {
                    fields.rv = rv;
                    None
                }
                Err(_) => Some(mismatch(format!("number {written}"), "int64")),
            },
            (Field::Rv, other) => Some(mismatch(other.go_kind().to_string(), "int64")),
        };
        if first_error.is_none() {
            first_error = error;
        }
    }
    first_error.map_or(Ok(fields), Err)
}

/// Whether Go's `path.Clean` leaves an absolute path as it is: no empty, `.` or `..`
/// element and no trailing slash (the root itself is clean).
fn is_clean_path(path: &str) -> bool {
    path == "/"
        || path[1..]
            .split('/')
            .all(|element| !matches!(element, "" | "." | ".."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        assert_eq!(
            decode(&encode(42, "ns/a")).unwrap(),
            Continuation {
                rv: 42,
                from: "ns/a\u{0}".into()
            }
        );
    }

    fn refusal(json: &str) -> String {
        decode(&URL_SAFE_NO_PAD.encode(json))
            .unwrap_err()
            .trim_start_matches("invalid continue token: continue key is not valid: ")
            .to_string()
    }

    #[test]
    fn deep_tokens_are_read_as_go_reads_them() {
        let nested = |levels: usize, around: &str| {
            let arrays = format!("{}{}", "[".repeat(levels), "]".repeat(levels));
            around.replace("@", &arrays)
        };
        // 10 000 levels in all are read (the deep member is ignored); one more is refused.
        let token = nested(9_999, r#"{"v":"meta.k8s.io/v1","rv":7,"start":"/a","x":@}"#);
        assert_eq!(decode(&URL_SAFE_NO_PAD.encode(token)).unwrap().rv, 7);
        let token = nested(
            10_000,
            r#"{"v":"meta.k8s.io/v1","rv":7,"start":"/a","x":@}"#,
        );
        assert_eq!(refusal(&token), "exceeded max depth");
        // A deep value where a string belongs is named by its kind.
        assert_eq!(
            refusal(&nested(700, r#"{"v":@,"rv":1}"#)),
            "json: cannot unmarshal array into Go struct field continueToken.v of type string"
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
        assert!(
            decode("YQ=")
                .unwrap_err()
                .ends_with("illegal base64 data at input byte 2")
        );
        assert!(
            decode("Y")
                .unwrap_err()
                .ends_with("illegal base64 data at input byte 0")
        );
        assert_eq!(
            refusal(r#"{"v":"x","rv":1,"start":"a"}"#),
            "server does not recognize this encoded version x"
        );
        assert_eq!(
            refusal(r#"{"v":"meta.k8s.io/v1","rv":"5"}"#),
            "json: cannot unmarshal string into Go struct field continueToken.rv of type int64"
        );
        assert_eq!(
            refusal(r#"{"v":"meta.k8s.io/v1","rv":1.5}"#),
            "json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64"
        );
        assert_eq!(
            refusal("[1]"),
            "json: cannot unmarshal array into Go value of type storage.continueToken"
        );
        assert_eq!(
            refusal(r#"{"v":"meta.k8s.io/v1","rv":5}"#),
            "encoded start key empty (version meta.k8s.io/v1)"
        );
        assert_eq!(
            refusal(r#"{"v":"meta.k8s.io/v1","rv":5,"start":"a/../x"}"#),
            "a/../x"
        );
    }

    #[test]
    fn the_first_wrong_member_in_the_document_is_named_as_written() {
        assert_eq!(
            refusal(r#"{"start":2,"rv":"x","v":1}"#),
            "json: cannot unmarshal number into Go struct field continueToken.start of type string"
        );
        assert_eq!(
            refusal(r#"{"v":1,"rv":"x","start":2}"#),
            "json: cannot unmarshal number into Go struct field continueToken.v of type string"
        );
        assert_eq!(
            refusal(r#"{"v":"meta.k8s.io/v1","rv":5,"rv":"x","start":"a"}"#),
            "json: cannot unmarshal string into Go struct field continueToken.rv of type int64"
        );
        assert_eq!(
            refusal(r#"{"RV":1e2}"#),
            "json: cannot unmarshal number 1e2 into Go struct field continueToken.RV of type int64"
        );
        assert_eq!(
            refusal("{\"\u{17f}tart\":[1]}"),
            "json: cannot unmarshal array into Go struct field continueToken.\u{17f}tart of type string"
        );
    }

    #[test]
    fn repeated_members_fill_their_field_again_and_null_leaves_it() {
        let token = URL_SAFE_NO_PAD
            .encode(r#"{"v":"x","V":"meta.k8s.io/v1","rv":-1,"start":"a\u0000","rv":null}"#);
        assert_eq!(
            decode(&token).unwrap(),
            Continuation {
                rv: -1,
                from: "a\u{0}".into()
            }
        );
    }
}
