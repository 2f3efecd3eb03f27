//! Kind-specific rules of the built-in registries that are not defaulting: what a create
//! records of the requester, what an update may not change, and the checks that are not
//! schema validation.

use serde_json::{Value, json};

use crate::support::status::Cause;
use crate::support::user::User;

/// Whether `group`/`plural` is the CertificateSigningRequest resource.
pub fn is_csr(group: &str, plural: &str) -> bool {
    group == "certificates.k8s.io" && plural == "certificatesigningrequests"
}

/// A CertificateSigningRequest records who asked (`spec.username`, `uid`, `groups`,
/// `extra`), whatever the request said, and starts without a status.
pub fn csr_on_create(object: &mut Value, user: &User) {
    object["spec"]["username"] = json!(user.username);
    let spec = object["spec"]
        .as_object_mut()
        .expect("spec was just written");
    for (key, value) in [
        ("uid", (!user.uid.is_empty()).then(|| json!(user.uid))),
        (
            "groups",
            (!user.groups.is_empty()).then(|| json!(user.groups)),
        ),
        ("extra", (!user.extra.is_empty()).then(|| json!(user.extra))),
    ] {
        match value {
            Some(v) => {
                spec.insert(key.into(), v);
            }
            None => {
                spec.remove(key);
            }
        }
    }
    if let Some(o) = object.as_object_mut() {
        o.insert("status".into(), json!({}));
    }
}

/// The checks of a CertificateSigningRequest's spec that the schema does not make.
pub fn csr_validate(object: &Value) -> Vec<Cause> {
    use base64::Engine;
    let mut causes = Vec::new();
    let request = object["spec"]["request"].as_str().unwrap_or_default();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(request)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default();
    if !decoded
        .trim_start()
        .starts_with("-----BEGIN CERTIFICATE REQUEST-----")
    {
        causes.push(Cause {
            reason: "FieldValueInvalid".into(),
            message: format!(
                "Invalid value: \"{request}\": PEM block type must be CERTIFICATE REQUEST"
            ),
            field: "spec.request".into(),
        });
    }
    if object["spec"]["signerName"]
        .as_str()
        .is_none_or(str::is_empty)
    {
        causes.push(Cause {
            reason: "FieldValueRequired".into(),
            message: "Required value".into(),
            field: "spec.signerName".into(),
        });
    }
    causes
}
