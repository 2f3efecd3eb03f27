//! The service account issuer's OpenID discovery documents, as kube-apiserver serves them
//! (`pkg/serviceaccount/openidmetadata.go`): `/.well-known/openid-configuration` and the key
//! set at `/openid/v1/jwks`, each written once with `json.Marshal` (compact, in its Go
//! struct's field order, no line end) and cacheable for an hour.

use std::net::SocketAddr;

use bytes::Bytes;

use crate::support::request::Reply;
use crate::support::tokens::{ISSUER, Signer};

/// How the documents may be cached.
const CACHE_CONTROL: &str = "public, max-age=3600";

/// The issuer's configuration. Without `--service-account-jwks-uri` the key set's address is
/// the server's external address (the one `/api` advertises), not the issuer's.
pub fn configuration(address: Option<SocketAddr>) -> Reply {
    let address = address.map_or_else(|| "127.0.0.1".to_string(), |a| a.to_string());
    let jwks_uri = format!("https://{address}/openid/v1/jwks");
    let body = format!(
        r#"{{"issuer":{},"jwks_uri":{},"response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"]}}"#,
        quoted(ISSUER),
        quoted(&jwks_uri),
    );
    cacheable("application/json", body)
}

/// The public keys that verify service account tokens, as go-jose writes a key set.
pub fn key_set(signer: &Signer) -> Reply {
    let key = signer.public_key();
    let body = format!(
        r#"{{"keys":[{{"use":"sig","kty":"EC","kid":{},"crv":"P-256","alg":"ES256","x":{},"y":{}}}]}}"#,
        quoted(&key.kid),
        quoted(&key.x),
        quoted(&key.y),
    );
    cacheable("application/jwk-set+json", body)
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

fn cacheable(content_type: &str, body: String) -> Reply {
    Reply::Cacheable {
        cache_control: CACHE_CONTROL,
        etag: None,
        reply: Box::new(Reply::Raw {
            code: 200,
            content_type: content_type.into(),
            body: Bytes::from(body),
            etag: None,
            document: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(reply: Reply) -> String {
        let Reply::Cacheable { reply, .. } = reply else {
            panic!("not cacheable")
        };
        let Reply::Raw { body, .. } = *reply else {
            panic!("not raw")
        };
        String::from_utf8(body.to_vec()).unwrap()
    }

    #[test]
    fn the_configuration_is_written_in_its_go_order_and_names_the_external_address() {
        let text = text(configuration(Some("127.0.0.1:6443".parse().unwrap())));
        assert_eq!(
            text,
            r#"{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://127.0.0.1:6443/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"]}"#
        );
    }

    #[test]
    fn the_key_set_is_written_in_go_joses_order() {
        let signer = Signer::generate();
        let text = text(key_set(&signer));
        let keys: serde_json::Value = serde_json::from_str(&text).unwrap();
        let key = &keys["keys"][0];
        let order: Vec<usize> = ["use", "kty", "kid", "crv", "alg", "x", "y"]
            .iter()
            .map(|name| text.find(&format!("\"{name}\":")).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert_eq!(key["kid"], signer.public_key().kid.as_str());
        assert!(!text.ends_with('\n'));
    }
}
