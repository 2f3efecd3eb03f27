//! Hub-and-spoke conversion checks: every version of a kind must convert to the hub (storage)
//! version and back without losing a field. [`check_round_trip`] proves it for an object, so a
//! conversion webhook's tests (and the generated ones) catch a spoke that drops data.

use serde_json::Value;

use crate::scheme::{ConvertError, convert};

/// Why an object does not survive the trip to the hub and back.
#[derive(Debug, thiserror::Error)]
pub enum RoundTripError {
    /// A conversion on the way failed or is not registered.
    #[error(transparent)]
    Convert(#[from] ConvertError),
    /// The object came back different; `changes` is the JSON patch from the original to what
    /// came back (fields removed there were lost).
    #[error("{api_version} -> {hub} -> {api_version} changed the object: {changes}")]
    Lossy {
        /// The object's version.
        api_version: String,
        /// The hub version.
        hub: String,
        /// RFC 6902 patch from the original object to the round-tripped one.
        changes: Value,
    },
}

/// Converts `object` to `hub_api_version` and back to its own version through the registered
/// conversions, and fails unless the result equals `object`. Returns the hub form.
pub fn check_round_trip(object: &Value, hub_api_version: &str) -> Result<Value, RoundTripError> {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .ok_or(ConvertError::Untyped)?
        .to_string();
    let hub = convert(object.clone(), hub_api_version)?;
    let back = convert(hub.clone(), &api_version)?;
    if &back == object {
        Ok(hub)
    } else {
        Err(RoundTripError::Lossy {
            changes: serde_json::to_value(json_patch::diff(object, &back))
                .expect("a JSON patch serializes"),
            api_version,
            hub: hub_api_version.to_string(),
        })
    }
}
