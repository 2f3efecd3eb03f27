//! The texts of raw fields (`runtime.RawExtension`) a write keeps, as kube-apiserver keeps
//! the bytes sent (`support::json_order::raw`): known by value while the write is in flight,
//! then recorded with the object it stored; a write to an existing object is known while in
//! flight to the checks that compare raw bytes (`raw::same_bytes`). Only writes to kinds
//! with raw fields are seen.

use http::Method;

use crate::endpoints::patch_types::{PatchType, patch_body};
use crate::support::json_order::raw::{self, Expected, InFlight, Rewrite, Sent};
use crate::support::json_order::raw_patch::PatchBody;
use crate::support::protobuf;
use crate::support::request::{Reply, Req, Target, is_json};

/// Whether `req`'s body is protobuf.
fn is_protobuf(req: &Req) -> bool {
    req.content_type.contains("protobuf")
}

/// A write to an object of a kind with raw fields.
pub struct RawWrite {
    sent: Sent,
    status: bool,
    rewrite: Rewrite,
    _expected: Expected,
}

impl RawWrite {
    /// The write `req` makes, if it writes an object of a built-in kind with raw fields (the
    /// object itself or its status).
    pub fn of(req: &Req, target: &Target) -> Option<RawWrite> {
        let def = &target.def;
        if def.custom.is_some() || !raw::holds_raw(&def.group, &def.version, &def.kind) {
            return None;
        }
        let status = match target.subresource.as_deref() {
            None => false,
            Some("status") => true,
            Some(_) => return None,
        };
        let rewrite = match req.method {
            Method::POST | Method::PUT => Rewrite::Body,
            Method::PATCH => match PatchType::from_content_type(&req.content_type) {
                Ok(PatchType::Merge | PatchType::Json) => Rewrite::Keep,
                Ok(PatchType::Strategic) => Rewrite::Strategic,
                _ => Rewrite::Maps,
            },
            _ => return None,
        };
        let sent = match PatchType::from_content_type(&req.content_type) {
            _ if rewrite == Rewrite::Body && is_json(req) => {
                Sent::of_body(&def.group, &def.version, &def.kind, &req.body)
            }
            _ if rewrite == Rewrite::Body && is_protobuf(req) => {
                match protobuf::decode_keeping_raw(&req.body) {
                    Ok((sent, raws)) => {
                        Sent::of_raw_bytes(&def.group, &def.version, &def.kind, &sent, &raws)
                    }
                    Err(_) => Sent::default(),
                }
            }
            Ok(PatchType::Merge) if rewrite == Rewrite::Keep => Sent {
                texts: Vec::new(),
                patch: Some(PatchBody::Merge(req.body.to_vec().into())),
            },
            Ok(PatchType::Json) if rewrite == Rewrite::Keep => Sent {
                texts: Vec::new(),
                patch: Some(PatchBody::Json(req.body.to_vec().into())),
            },
            // A strategic merge patch's numbers are read from its text, an apply's from its
            // configuration.
            Ok(PatchType::Strategic) => Sent {
                texts: Vec::new(),
                patch: Some(PatchBody::Strategic(req.body.to_vec().into())),
            },
            Ok(PatchType::Apply) => Sent {
                texts: Vec::new(),
                patch: patch_body(req, PatchType::Apply)
                    .ok()
                    .map(|config| PatchBody::Apply(config.into())),
            },
            _ => Sent::default(),
        };
        // A write to an existing object: its immutability checks compare the bytes.
        let to = target.name.as_ref().map(|name| InFlight {
            group: def.group.clone(),
            namespace: target.namespace.clone().unwrap_or_default(),
            name: name.clone(),
            status,
            rewrite,
            sent: sent.clone(),
            json_patched: None,
        });
        let expected = raw::expect(&sent, to);
        Some(RawWrite {
            sent,
            status,
            rewrite,
            _expected: expected,
        })
    }

    /// Whether a repeated member at `path` (Go's name) lies inside a raw value sent.
    pub fn inside_raw(&self, path: &str) -> bool {
        self.sent.inside_raw(path)
    }

    /// Records the texts of the object a successful write answered with.
    pub fn written(&self, reply: &Reply) {
        if let Reply::Json { code, body, .. } = reply
            && (200..300).contains(code)
        {
            raw::record(body, &self.sent, self.status, self.rewrite);
        }
    }
}
