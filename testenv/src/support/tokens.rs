//! Service account tokens: JSON Web Tokens signed with ES256 (ECDSA P-256 and SHA-256), as
//! kube-apiserver signs them with an EC key, and verified on the way back in.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair,
    UnparsedPublicKey,
};
use serde_json::{Value, json};

/// The issuer (and default audience) of the tokens, as kubeadm and envtest configure it.
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// A signing key and its key id.
pub struct Signer {
    key: EcdsaKeyPair,
    rng: SystemRandom,
    kid: String,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signer {{ kid: {} }}", self.kid)
    }
}

impl Signer {
    /// A fresh key (one per server).
    pub fn generate() -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .expect("ECDSA P-256 key generation");
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .expect("a generated key parses");
        // The key id is a digest of the public key, as kube-apiserver derives it.
        let digest = ring::digest::digest(&ring::digest::SHA256, key.public_key().as_ref());
        let kid = URL_SAFE_NO_PAD.encode(digest.as_ref());
        Signer { key, rng, kid }
    }

    /// A signed token carrying `claims`.
    pub fn sign(&self, claims: &Value) -> String {
        let header = json!({"alg": "ES256", "kid": self.kid});
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .key
            .sign(&self.rng, input.as_bytes())
            .expect("ECDSA signing");
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()))
    }

    /// The claims of a token this key signed, if the signature holds (expiry is the
    /// caller's to check).
    pub fn verify(&self, token: &str) -> Option<Value> {
        let mut parts = token.split('.');
        let (header, claims, signature) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, self.key.public_key());
        public
            .verify(format!("{header}.{claims}").as_bytes(), &signature)
            .ok()?;
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).ok()?).ok()
    }

    /// The public key, as a JSON Web Key names it (`/openid/v1/jwks`).
    pub fn public_key(&self) -> PublicKey {
        let point = self.key.public_key().as_ref();
        // Uncompressed point: 0x04 || x (32 bytes) || y (32 bytes).
        PublicKey {
            kid: self.kid.clone(),
            x: URL_SAFE_NO_PAD.encode(&point[1..33]),
            y: URL_SAFE_NO_PAD.encode(&point[33..65]),
        }
    }
}

/// A P-256 public key's JSON Web Key members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    /// The key ID (`kid`) tokens name in their header.
    pub kid: String,
    /// The point's x coordinate, base64url without padding.
    pub x: String,
    /// The point's y coordinate, base64url without padding.
    pub y: String,
}

/// Whether a token looks like a JSON Web Token (three dot-separated parts).
pub fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_verify_only_with_their_key() {
        let a = Signer::generate();
        let b = Signer::generate();
        let claims = json!({"sub": "system:serviceaccount:ns:sa", "exp": 1});
        let token = a.sign(&claims);
        assert_eq!(a.verify(&token), Some(claims));
        assert_eq!(b.verify(&token), None);
        let mut tampered = token.clone();
        tampered.insert(token.find('.').unwrap() + 2, 'x');
        assert_eq!(a.verify(&tampered), None);
        assert!(looks_like_jwt(&token) && !looks_like_jwt("kubeforge-testenv-admin"));
    }
}
