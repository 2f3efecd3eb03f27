//! Version conversion through the scheme: conversions between versions of a kind are registered
//! with [`conversion!`](crate::conversion) from `From` impls between the root types, and
//! [`convert`] finds a path (directly, or through a hub version) for any object.

use std::collections::{BTreeSet, VecDeque};

use kube::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use kube::core::response::Status;

use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

use super::registry::ApiObject;

/// A registered conversion from one version of a kind to another.
#[derive(Debug)]
pub struct Conversion {
    from: fn() -> String,
    to: fn() -> String,
    kind: fn() -> String,
    convert: fn(Value) -> Result<Value, serde_json::Error>,
}

fn api_version<K: ApiObject>() -> String {
    K::api_version(&()).into_owned()
}

fn kind<K: ApiObject>() -> String {
    K::kind(&()).into_owned()
}

fn via_from<A, B>(value: Value) -> Result<Value, serde_json::Error>
where
    A: DeserializeOwned,
    B: From<A> + Serialize,
{
    let a: A = serde_json::from_value(value)?;
    serde_json::to_value(B::from(a))
}

impl Conversion {
    /// The conversion `A -> B` through `B: From<A>`; used by [`conversion!`](crate::conversion).
    pub const fn new<A: ApiObject, B: ApiObject + From<A>>() -> Self {
        Conversion {
            from: api_version::<A>,
            to: api_version::<B>,
            kind: kind::<A>,
            convert: via_from::<A, B>,
        }
    }
}

inventory::collect!(Conversion);

/// Registers conversions between versions of a kind from `From` impls between their root types:
/// `kubeforge::conversion!(v1::Memcached => v2::Memcached, v2::Memcached => v1::Memcached);`
#[macro_export]
macro_rules! conversion {
    ($($from:ty => $to:ty),+ $(,)?) => {
        $($crate::__private::inventory::submit! {
            $crate::scheme::Conversion::new::<$from, $to>()
        })+
    };
}

/// Why an object could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The object has no `apiVersion` or `kind`.
    #[error("the object has no apiVersion or kind")]
    Untyped,
    /// No chain of registered conversions leads to the requested version.
    #[error(
        "no conversion of {kind} from {from} to {to} is registered (register one with kubeforge::conversion!)"
    )]
    NoPath {
        /// The kind.
        kind: String,
        /// The object's apiVersion.
        from: String,
        /// The requested apiVersion.
        to: String,
    },
    /// A conversion step failed (the object did not deserialize as the source version).
    #[error("converting {kind} from {from} to {to} failed: {source}")]
    Failed {
        /// The kind.
        kind: String,
        /// Source apiVersion of the failing step.
        from: String,
        /// Target apiVersion of the failing step.
        to: String,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
}

/// Converts `object` (any registered version) to `to_api_version` (`group/version`), directly
/// or through intermediate versions (hub and spokes); the shortest chain wins.
pub fn convert(object: Value, to_api_version: &str) -> Result<Value, ConvertError> {
    let from = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .ok_or(ConvertError::Untyped)?
        .to_string();
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .ok_or(ConvertError::Untyped)?
        .to_string();
    if from == to_api_version {
        return Ok(object);
    }
    let edges: Vec<&Conversion> = inventory::iter::<Conversion>
        .into_iter()
        .filter(|c| (c.kind)() == kind)
        .collect();
    // Breadth-first search over apiVersions, deterministic by registration-independent order.
    let mut queue = VecDeque::from([(from.clone(), Vec::<&Conversion>::new())]);
    let mut seen = BTreeSet::from([from.clone()]);
    let path = loop {
        let Some((at, path)) = queue.pop_front() else {
            return Err(ConvertError::NoPath {
                kind,
                from,
                to: to_api_version.into(),
            });
        };
        if at == to_api_version {
            break path;
        }
        let mut next: Vec<&Conversion> =
            edges.iter().copied().filter(|c| (c.from)() == at).collect();
        next.sort_by_key(|c| (c.to)());
        for c in next {
            if seen.insert((c.to)()) {
                let mut p = path.clone();
                p.push(c);
                queue.push_back(((c.to)(), p));
            }
        }
    };
    path.into_iter().try_fold(object, |obj, step| {
        (step.convert)(obj).map_err(|source| ConvertError::Failed {
            kind: kind.clone(),
            from: (step.from)(),
            to: (step.to)(),
            source,
        })
    })
}

/// Answers a CRD conversion webhook request: converts every object of the review to its
/// `desiredAPIVersion` through [`convert`], keeping their order. Any failure fails the whole
/// review with the error as message (what the API server expects).
pub fn review(review: ConversionReview) -> ConversionReview {
    let request = match ConversionRequest::from_review(review) {
        Ok(request) => request,
        Err(e) => {
            return ConversionResponse::invalid(Status::failure(
                &format!("not a conversion request: {e}"),
                "InvalidRequest",
            ))
            .into_review();
        }
    };
    let desired = request.desired_api_version.clone();
    let converted: Result<Vec<Value>, ConvertError> = request
        .objects
        .iter()
        .cloned()
        .map(|object| convert(object, &desired))
        .collect();
    let response = ConversionResponse::for_request(request);
    match converted {
        Ok(objects) => response.success(objects),
        Err(e) => response.failure(Status::failure(&e.to_string(), "ConversionFailed")),
    }
    .into_review()
}

#[cfg(test)]
mod tests {
    use super::{ConvertError, via_from};
    use serde::{Deserialize, Serialize};
    use serde_json::json;
    use std::error::Error as _;

    #[derive(Deserialize)]
    struct Old {
        count: u32,
    }

    #[derive(Serialize)]
    struct New {
        total: u32,
    }

    impl From<Old> for New {
        fn from(old: Old) -> Self {
            New { total: old.count }
        }
    }

    #[test]
    fn a_failed_step_keeps_the_serde_error_as_its_source() {
        assert_eq!(
            via_from::<Old, New>(json!({"count": 3})).unwrap(),
            json!({"total": 3})
        );
        let source = via_from::<Old, New>(json!({"count": "three"})).unwrap_err();
        let err = ConvertError::Failed {
            kind: "Pet".into(),
            from: "v1".into(),
            to: "v2".into(),
            source,
        };
        let cause = err
            .source()
            .and_then(|e| e.downcast_ref::<serde_json::Error>())
            .expect("the serde error is the source");
        assert!(cause.is_data(), "{cause}");
        assert_eq!(
            err.to_string(),
            format!("converting Pet from v1 to v2 failed: {cause}")
        );
    }
}
