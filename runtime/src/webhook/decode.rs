//! Reading an AdmissionReview body in one pass: the review's `request` is decoded straight
//! into kube's [`AdmissionRequest`] while its `object` and `oldObject` members are set aside,
//! decoded as the caller asks: as raw JSON ([`Value`], decoded later into the handler's own
//! Rust type and kept as the base of a defaulting patch) or straight into that type. kube's
//! `AdmissionReview` flattens its type fields, which makes serde buffer the whole body first,
//! so the envelope here names them as plain fields instead.

use std::borrow::Cow;
use std::fmt;

use kube::core::{DynamicObject, TypeMeta, admission::AdmissionRequest};
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};
use serde_json::Value;

/// A review as read: its type fields, and its request with the objects set aside as `O`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound = "O: Deserialize<'de>")]
pub(crate) struct Envelope<O = Value> {
    /// `apiVersion`.
    pub(crate) api_version: String,
    /// `kind`.
    pub(crate) kind: String,
    /// `request`, when present.
    #[serde(default)]
    pub(crate) request: Option<RequestParts<O>>,
}

impl<O> Envelope<O> {
    /// The review's type fields.
    pub(crate) fn types(&self) -> TypeMeta {
        TypeMeta {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
        }
    }
}

/// kube's request without its objects, and the objects as sent (`null` read as absent).
pub(crate) struct RequestParts<O = Value> {
    pub(crate) request: AdmissionRequest<DynamicObject>,
    pub(crate) object: Option<O>,
    pub(crate) old_object: Option<O>,
}

/// The members taken out of the request while it is decoded.
struct SetAside<O> {
    object: Option<O>,
    old_object: Option<O>,
}

impl<'de, O: Deserialize<'de>> Deserialize<'de> for RequestParts<O> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut aside = SetAside {
            object: None,
            old_object: None,
        };
        let request = AdmissionRequest::<DynamicObject>::deserialize(Filtered {
            inner: deserializer,
            aside: &mut aside,
        })?;
        Ok(RequestParts {
            request,
            object: aside.object,
            old_object: aside.old_object,
        })
    }
}

/// A deserializer that hands a map to its visitor without the members `object` and
/// `oldObject`, which it keeps in `aside`.
struct Filtered<'a, D, O> {
    inner: D,
    aside: &'a mut SetAside<O>,
}

impl<'de, D: Deserializer<'de>, O: Deserialize<'de>> Deserializer<'de> for Filtered<'_, D, O> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.inner.deserialize_any(FilterVisitor {
            visitor,
            aside: self.aside,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.inner.deserialize_map(FilterVisitor {
            visitor,
            aside: self.aside,
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.inner.deserialize_map(FilterVisitor {
            visitor,
            aside: self.aside,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct enum identifier
        ignored_any
    }
}

struct FilterVisitor<'a, V, O> {
    visitor: V,
    aside: &'a mut SetAside<O>,
}

impl<'de, V: Visitor<'de>, O: Deserialize<'de>> Visitor<'de> for FilterVisitor<'_, V, O> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.visitor.visit_map(FilterAccess {
            map,
            aside: self.aside,
        })
    }
}

struct FilterAccess<'a, A, O> {
    map: A,
    aside: &'a mut SetAside<O>,
}

/// A member name of the request: one of the objects set aside, or another, borrowed from the
/// body when it can be (no allocation for the names kube's type reads).
enum Key<'de> {
    Object,
    OldObject,
    Other(Cow<'de, str>),
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Key<'de>, E> {
                Ok(match name {
                    "object" => Key::Object,
                    "oldObject" => Key::OldObject,
                    _ => Key::Other(Cow::Borrowed(name)),
                })
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<Key<'de>, E> {
                Ok(match name {
                    "object" => Key::Object,
                    "oldObject" => Key::OldObject,
                    _ => Key::Other(Cow::Owned(name.to_owned())),
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

impl<'de, A: MapAccess<'de>, O: Deserialize<'de>> MapAccess<'de> for FilterAccess<'_, A, O> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        loop {
            match self.map.next_key::<Key<'de>>()? {
                None => return Ok(None),
                Some(Key::Object) => self.aside.object = self.map.next_value()?,
                Some(Key::OldObject) => self.aside.old_object = self.map.next_value()?,
                Some(Key::Other(Cow::Borrowed(name))) => {
                    let name: de::value::BorrowedStrDeserializer<'de, A::Error> =
                        de::value::BorrowedStrDeserializer::new(name);
                    return seed.deserialize(name).map(Some);
                }
                Some(Key::Other(Cow::Owned(name))) => {
                    let name: de::value::StringDeserializer<A::Error> = name.into_deserializer();
                    return seed.deserialize(name).map(Some);
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, Self::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use kube::core::admission::Operation;
    use serde_json::json;

    use super::*;

    fn review(request: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": request,
        }))
        .unwrap()
    }

    fn request(object: Value, old: Value) -> Value {
        json!({
            "uid": "u-1",
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "requestKind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "name": "c",
            "namespace": "default",
            "operation": "UPDATE",
            "userInfo": {"username": "admin", "groups": ["system:masters"]},
            "object": object,
            "oldObject": old,
            "dryRun": true,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions"},
        })
    }

    #[test]
    fn the_request_is_kubes_and_the_objects_are_set_aside_as_sent() {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
            "data": {"k": "v"}, "unknownToRust": [1, 2]});
        let old = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        let body = review(request(object.clone(), old.clone()));
        let envelope: Envelope = serde_json::from_slice(&body).unwrap();
        assert_eq!(envelope.types().kind, "AdmissionReview");
        let parts = envelope.request.unwrap();
        assert_eq!(parts.object, Some(object));
        assert_eq!(parts.old_object, Some(old));
        let request = parts.request;
        assert_eq!(request.uid, "u-1");
        assert_eq!(request.operation, Operation::Update);
        assert_eq!(request.name, "c");
        assert_eq!(request.namespace.as_deref(), Some("default"));
        assert!(request.dry_run);
        assert_eq!(request.user_info.username.as_deref(), Some("admin"));
        assert!(request.object.is_none() && request.old_object.is_none());
        // Decoded as kube decodes it: the same request through kube's own type.
        let whole: kube::core::admission::AdmissionReview<DynamicObject> =
            serde_json::from_slice(&body).unwrap();
        let whole = whole.request.unwrap();
        assert_eq!(whole.kind, request.kind);
        assert_eq!(whole.resource, request.resource);
        assert_eq!(whole.options, request.options);
    }

    #[test]
    fn the_objects_decode_straight_into_a_rust_type() {
        use k8s_openapi::api::core::v1::ConfigMap;
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
            "data": {"k": "v"}});
        let body = review(request(object, Value::Null));
        let parts = serde_json::from_slice::<Envelope<ConfigMap>>(&body)
            .unwrap()
            .request
            .unwrap();
        let object = parts.object.unwrap();
        assert_eq!(object.metadata.name.as_deref(), Some("c"));
        assert_eq!(object.data.unwrap()["k"], "v");
        assert!(parts.old_object.is_none());
        assert_eq!(parts.request.name, "c");
        // An object that is not a ConfigMap fails the whole read (the caller reads again as JSON).
        let body = review(request(json!({"data": {"k": 1}}), Value::Null));
        let error = serde_json::from_slice::<Envelope<ConfigMap>>(&body)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("invalid type: integer `1`"), "{error}");
    }

    #[test]
    fn null_objects_are_absent_and_errors_name_the_field() {
        let body = review(request(Value::Null, Value::Null));
        let parts = serde_json::from_slice::<Envelope>(&body)
            .unwrap()
            .request
            .unwrap();
        assert!(parts.object.is_none() && parts.old_object.is_none());
        let mut bad = request(Value::Null, Value::Null);
        bad["operation"] = json!("SHRED");
        let error = serde_json::from_slice::<Envelope>(&review(bad))
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("unknown variant `SHRED`"), "{error}");
        let error = serde_json::from_slice::<Envelope>(br#"{"kind": "AdmissionReview"}"#)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("missing field `apiVersion`"), "{error}");
    }
}
