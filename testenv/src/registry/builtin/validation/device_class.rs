//! DeviceClasses (`ValidateDeviceClass`): the selectors (their CEL expressions, checked in
//! [`super::resource`]), then each configuration's opaque driver and parameters, each list
//! at most 32 long. An update checks the spec twice (the class as new, then as an update).

use serde_json::Value;

use super::errors::{Errors, child, dns1123_subdomain, index, invalid_text, required};
use crate::support::status::Cause;

/// The most selectors, and configurations, a class may have.
const MAX_ITEMS: usize = 32;

/// The longest driver name.
const MAX_DRIVER: usize = 63;

/// `field.TooMany` of a list of `len` items.
fn too_many(field: &str, len: usize) -> Cause {
    Cause {
        reason: "FieldValueTooMany".into(),
        message: format!("Too many: {len}: must have at most {MAX_ITEMS} items"),
        field: field.into(),
    }
}

/// The spec's checks: selectors, then configurations.
pub fn device_class(object: &Value) -> Errors {
    let spec = &object["spec"];
    let mut out = super::resource::device_class(object);
    let count = |f: &str| spec[f].as_array().map_or(0, Vec::len);
    if count("selectors") > MAX_ITEMS {
        out.push(too_many("spec.selectors", count("selectors")));
    }
    for (i, config) in spec["config"].as_array().into_iter().flatten().enumerate() {
        out.extend(configuration(config, &index("spec.config", i)));
    }
    if count("config") > MAX_ITEMS {
        out.push(too_many("spec.config", count("config")));
    }
    out
}

/// An update's second check of the spec (`ValidateDeviceClassUpdate`).
pub fn device_class_update(object: &Value, _old: &Value) -> Errors {
    device_class(object)
}

/// One configuration: an opaque one is required, with a driver name (checked in lower
/// case) and a JSON object of parameters.
fn configuration(config: &Value, at: &str) -> Errors {
    let opaque = &config["opaque"];
    let path = child(at, "opaque");
    if !opaque.is_object() {
        return vec![required(&path)];
    }
    let mut out = Vec::new();
    let driver = opaque["driver"].as_str().unwrap_or_default();
    let driver_path = child(&path, "driver");
    if driver.is_empty() {
        out.push(required(&driver_path));
    }
    if driver.len() > MAX_DRIVER {
        out.push(Cause {
            reason: "FieldValueTooLong".into(),
            message: format!("Too long: may not be more than {MAX_DRIVER} bytes"),
            field: driver_path.clone(),
        });
    }
    for why in dns1123_subdomain(&driver.to_lowercase()) {
        out.push(invalid_text(&driver_path, &format!("{driver:?}"), &why));
    }
    let parameters_path = child(&path, "parameters");
    match &opaque["parameters"] {
        Value::Null => out.push(required(&parameters_path)),
        Value::Object(_) => {}
        _ => out.push(invalid_text(
            &parameters_path,
            "\"<value omitted>\"",
            "must be a valid JSON object",
        )),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn configurations_need_an_opaque_driver_and_parameters() {
        let class = json!({"spec": {"config": [
            {"opaque": {"driver": "Bad_Driver", "parameters": {}}}, {},
            {"opaque": {"driver": "A", "parameters": [1]}}]}});
        let fields: Vec<String> = device_class(&class).into_iter().map(|c| c.field).collect();
        assert_eq!(
            fields,
            [
                "spec.config[0].opaque.driver",
                "spec.config[1].opaque",
                "spec.config[2].opaque.parameters"
            ]
        );
    }
}
