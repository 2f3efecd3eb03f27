//! The status rules of a ResourceClaim's status update (`ValidateResourceClaimStatusUpdate`):
//! its consumers (`reservedFor`: at most 256, each named, unique by uid, only on an allocated
//! claim, none added while it is being deleted), its device statuses (each an allocated
//! device, unique, with valid conditions, data and network data) and its allocation (checked
//! when it is set, immutable afterwards). The fields of features a v1.34 server has
//! disabled (shared devices, consumed capacity, binding conditions, the allocation time) are
//! dropped first, as the strategy drops them.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::errors::{
    Errors, check_dns1123_label, child, forbidden, index, invalid_str, invalid_text, not_supported,
    required,
};
use super::node_selector::node_selector;
use super::pv_source::csi_driver;
use super::resource_go::{allocation_result, with_raw_texts};
use super::status_policy::conditions;
use super::storage::too_long;
use crate::support::json_order::raw_bytes::{same_bytes, written_texts};
use crate::support::status::Cause;

/// `ResourceClaimReservedForMaxSize`.
const MAX_CONSUMERS: usize = 256;
/// `AllocationResultsMaxSize`.
const MAX_RESULTS: usize = 32;
/// `DeviceConfigMaxSize` (a claim's and its class's configurations both count twice it).
const MAX_CONFIG: usize = 32;
/// `DeviceRequestsMaxSize`.
const MAX_REQUESTS: usize = 32;
/// `AllocatedDeviceStatusMaxConditions`.
const MAX_CONDITIONS: usize = 8;
/// `OpaqueParametersMaxLength` and `AllocatedDeviceStatusDataMaxLength`.
const MAX_RAW: usize = 10 * 1024;
/// `NetworkDeviceDataInterfaceNameMaxLength`.
const MAX_INTERFACE: usize = 256;
/// `NetworkDeviceDataHardwareAddressMaxLength`.
const MAX_HARDWARE_ADDRESS: usize = 128;
/// `NetworkDeviceDataMaxIPs`.
const MAX_IPS: usize = 16;
/// `PoolNameMaxLength`.
const MAX_POOL: usize = 253;

/// How the real server prints a device's identity (`structured.SharedDeviceID`, whose fields
/// are interned strings that `encoding/json` writes as empty objects).
const DEVICE_ID: &str = r#"{"Driver":{},"Pool":{},"Device":{},"ShareID":{}}"#;
/// Why a request reference is refused.
const NOT_A_REQUEST: &str = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

/// `field.TooMany`.
fn too_many(field: &str, actual: usize, max: usize) -> Cause {
    Cause {
        reason: "FieldValueTooMany".into(),
        message: format!("Too many: {actual}: must have at most {max} items"),
        field: field.into(),
    }
}

/// The items of a list (none when it is not one).
fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// A string field (`""` when unset).
fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

/// Drops what the status strategy drops of the features a v1.34 server has disabled: a
/// result's share ID, consumed capacity and binding conditions, the allocation time, a
/// device status's share ID.
pub fn drop_disabled(status: &mut Map<String, Value>) {
    if let Some(allocation) = status.get_mut("allocation").and_then(Value::as_object_mut) {
        allocation.remove("allocationTimestamp");
        if let Some(results) = allocation
            .get_mut("devices")
            .and_then(|d| d.get_mut("results"))
            .and_then(Value::as_array_mut)
        {
            for result in results.iter_mut().filter_map(Value::as_object_mut) {
                for f in [
                    "shareID",
                    "consumedCapacity",
                    "bindingConditions",
                    "bindingFailureConditions",
                ] {
                    result.remove(f);
                }
            }
        }
    }
    if let Some(devices) = status.get_mut("devices").and_then(Value::as_array_mut) {
        for device in devices.iter_mut().filter_map(Value::as_object_mut) {
            device.remove("shareID");
        }
    }
}

/// A device's identity: its driver, pool and name.
type DeviceId = (String, String, String);

fn device_id(device: &Value) -> DeviceId {
    (
        text(device, "driver").into(),
        text(device, "pool").into(),
        text(device, "device").into(),
    )
}

/// The devices an allocation names.
fn allocated(status: &Value) -> HashSet<DeviceId> {
    items(&status["allocation"]["devices"]["results"])
        .iter()
        .map(device_id)
        .collect()
}

/// Drops from `status` the statuses of the devices that the stored status (`old_status`)
/// had allocated and `status` no longer does (`dropDeallocatedStatusDevices`).
pub fn drop_deallocated(status: &mut Value, old_status: &Value) {
    let now = allocated(status);
    let gone: HashSet<DeviceId> = allocated(old_status)
        .into_iter()
        .filter(|d| !now.contains(d))
        .collect();
    if let Some(devices) = status.get_mut("devices").and_then(Value::as_array_mut) {
        devices.retain(|d| !gone.contains(&device_id(d)));
    }
}

/// The status as the strategy validates it: without the statuses of deallocated devices.
fn without_deallocated(status: &Value, old_status: &Value) -> Value {
    let mut status = status.clone();
    drop_deallocated(&mut status, old_status);
    status
}

/// The request names of a claim's spec, each with its subrequests (`None` for a request
/// asking for its devices exactly).
pub(super) fn request_names(spec: &Value) -> Vec<(String, Option<Vec<String>>)> {
    items(&spec["devices"]["requests"])
        .iter()
        .map(|r| {
            let subs: Vec<String> = items(&r["firstAvailable"])
                .iter()
                .map(|s| text(s, "name").to_string())
                .collect();
            (
                text(r, "name").to_string(),
                (!subs.is_empty()).then_some(subs),
            )
        })
        .collect()
}

/// `validateRequestNameRef`: a request, or a request and one of its subrequests.
pub(super) fn request_ref(
    name: &str,
    path: &str,
    names: &[(String, Option<Vec<String>>)],
) -> Errors {
    let segments: Vec<&str> = name.split('/').collect();
    if segments.len() > 2 {
        return vec![invalid_str(path, name, NOT_A_REQUEST)];
    }
    let mut out = Vec::new();
    for segment in &segments {
        out.extend(check_dns1123_label(path, segment));
    }
    let known = names.iter().any(|(request, subs)| {
        request == segments[0]
            && match (segments.get(1), subs) {
                (None, _) => true,
                (Some(sub), Some(subs)) => subs.iter().any(|s| s == sub),
                (Some(_), None) => false,
            }
    });
    if !known {
        out.push(invalid_str(path, name, NOT_A_REQUEST));
    }
    out
}

/// `validatePoolName`: set, not too long, each `/`-separated part a DNS subdomain.
fn pool(name: &str, path: &str) -> Errors {
    if name.is_empty() {
        return vec![required(path)];
    }
    let mut out = Vec::new();
    if name.len() > MAX_POOL {
        out.push(too_long(path, MAX_POOL));
    }
    for part in name.split('/') {
        for why in super::errors::dns1123_subdomain(part) {
            out.push(invalid_str(path, part, &why));
        }
    }
    out
}

/// `validateRawExtension` of a new value at `path`: set, not too long, a JSON object.
pub(super) fn raw_object(value: &Value, path: &str) -> Errors {
    let omitted = "\"<value omitted>\"";
    if value.is_null() {
        return vec![required(path)];
    }
    if value.to_string().len() > MAX_RAW {
        return vec![too_long(path, MAX_RAW)];
    }
    if !value.is_object() {
        return vec![invalid_text(path, omitted, "must be a valid JSON object")];
    }
    Vec::new()
}

/// The errors of the list at `path` when it is longer than `max` (the only error then).
fn over(list: &[Value], max: usize, path: &str) -> Option<Errors> {
    (list.len() > max).then(|| vec![too_many(path, list.len(), max)])
}

/// The duplicates of a list by key, each reported at `at(i)` with its key as `shown` prints
/// it.
fn duplicates<K: Eq + std::hash::Hash>(
    keys: impl Iterator<Item = K>,
    at: impl Fn(usize) -> String,
    shown: impl Fn(&K) -> String,
) -> Errors {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, k) in keys.enumerate() {
        let message = format!("Duplicate value: {}", shown(&k));
        if !seen.insert(k) {
            out.push(Cause {
                reason: "FieldValueDuplicate".into(),
                message,
                field: at(i),
            });
        }
    }
    out
}

/// A string key as a field error prints it.
fn quoted(key: &String) -> String {
    format!("{key:?}")
}

/// The consumers: at most [`MAX_CONSUMERS`], each with a resource, name and uid, unique by
/// uid.
fn consumers(list: &[Value], path: &str) -> Errors {
    if let Some(too) = over(list, MAX_CONSUMERS, path) {
        return too;
    }
    let mut out = Vec::new();
    for (i, c) in list.iter().enumerate() {
        for f in ["resource", "name", "uid"] {
            if text(c, f).is_empty() {
                out.push(required(&child(&index(path, i), f)));
            }
        }
    }
    out.extend(duplicates(
        list.iter().map(|c| text(c, "uid").to_string()),
        |i| child(&index(path, i), "uid"),
        quoted,
    ));
    out
}

/// `IsValidInterfaceAddress`: an address with its prefix length, in canonical form.
fn interface_address(value: &str, path: &str) -> Errors {
    let parsed = value.split_once('/').and_then(|(ip, bits)| {
        let ip = parse_sloppy(ip)?;
        let max = if ip.is_ipv4() { 32 } else { 128 };
        let bits_ok =
            !bits.is_empty() && bits.len() <= 3 && bits.bytes().all(|b| b.is_ascii_digit());
        let bits: u8 = bits.parse().ok().filter(|b| bits_ok && *b <= max)?;
        Some((ip, bits))
    });
    match parsed {
        None => vec![invalid_str(
            path,
            value,
            "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)",
        )],
        Some((ip, bits)) => {
            let canonical = format!("{ip}/{bits}");
            if canonical == value {
                Vec::new()
            } else {
                vec![invalid_str(
                    path,
                    value,
                    &format!("must be in canonical form ({canonical:?})"),
                )]
            }
        }
    }
}

/// An address as Go's sloppy parser reads it (IPv4 octets may have leading zeros).
fn parse_sloppy(text: &str) -> Option<std::net::IpAddr> {
    if let Ok(ip) = text.parse() {
        return Some(ip);
    }
    let octets: Vec<u8> = text
        .split('.')
        .map(|o| {
            (!o.is_empty() && o.bytes().all(|b| b.is_ascii_digit()))
                .then(|| o.parse::<u8>().ok())
                .flatten()
        })
        .collect::<Option<_>>()?;
    let octets: [u8; 4] = octets.try_into().ok()?;
    Some(std::net::IpAddr::from(octets))
}

/// A device's network data: the lengths of its interface name and hardware address, its
/// addresses (at most [`MAX_IPS`], each an interface address, unique).
fn network_data(data: &Value, path: &str) -> Errors {
    if !data.is_object() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if text(data, "interfaceName").len() > MAX_INTERFACE {
        out.push(too_long(&child(path, "interfaceName"), MAX_INTERFACE));
    }
    if text(data, "hardwareAddress").len() > MAX_HARDWARE_ADDRESS {
        out.push(too_long(
            &child(path, "hardwareAddress"),
            MAX_HARDWARE_ADDRESS,
        ));
    }
    let ips_path = child(path, "ips");
    let ips = items(&data["ips"]);
    if let Some(too) = over(ips, MAX_IPS, &ips_path) {
        out.extend(too);
        return out;
    }
    for (i, ip) in ips.iter().enumerate() {
        out.extend(interface_address(
            ip.as_str().unwrap_or_default(),
            &index(&ips_path, i),
        ));
    }
    out.extend(duplicates(
        ips.iter()
            .map(|ip| ip.as_str().unwrap_or_default().to_string()),
        |i| index(&ips_path, i),
        quoted,
    ));
    out
}

/// One device status: its names, that it is allocated, its conditions, data and network data.
fn device_status(device: &Value, path: &str, allocated: &HashSet<DeviceId>) -> Errors {
    let mut out = csi_driver(text(device, "driver"), &child(path, "driver"));
    out.extend(pool(text(device, "pool"), &child(path, "pool")));
    out.extend(check_dns1123_label(
        &child(path, "device"),
        text(device, "device"),
    ));
    if !allocated.contains(&device_id(device)) {
        out.push(invalid_text(
            path,
            DEVICE_ID,
            "must be an allocated device in the claim",
        ));
    }
    let conditions_path = child(path, "conditions");
    let list = items(&device["conditions"]);
    if list.len() > MAX_CONDITIONS {
        out.push(too_many(&conditions_path, list.len(), MAX_CONDITIONS));
    }
    out.extend(conditions(&device["conditions"], &conditions_path));
    let data = &device["data"];
    if !data.is_null() {
        out.extend(raw_object(data, &child(path, "data")));
    }
    out.extend(network_data(
        &device["networkData"],
        &child(path, "networkData"),
    ));
    out
}

/// The device statuses: each one, then duplicates by device.
fn device_statuses(list: &[Value], path: &str, allocated: &HashSet<DeviceId>) -> Errors {
    let mut out = Vec::new();
    for (i, device) in list.iter().enumerate() {
        out.extend(device_status(device, &index(path, i), allocated));
    }
    out.extend(duplicates(
        list.iter().map(device_id),
        |i| child(&index(path, i), "deviceID"),
        |_| DEVICE_ID.to_string(),
    ));
    out
}

/// One allocated device: its request, driver, pool and name.
fn result(r: &Value, path: &str, names: &[(String, Option<Vec<String>>)]) -> Errors {
    let mut out = request_ref(text(r, "request"), &child(path, "request"), names);
    out.extend(csi_driver(text(r, "driver"), &child(path, "driver")));
    out.extend(pool(text(r, "pool"), &child(path, "pool")));
    out.extend(check_dns1123_label(
        &child(path, "device"),
        text(r, "device"),
    ));
    out
}

/// One configuration of an allocation: its source, the requests it applies to, its opaque
/// parameters.
fn configuration(c: &Value, path: &str, names: &[(String, Option<Vec<String>>)]) -> Errors {
    let mut out = Vec::new();
    let source_path = child(path, "source");
    match text(c, "source") {
        "" => out.push(required(&source_path)),
        "FromClaim" | "FromClass" => {}
        other => out.push(not_supported(
            &source_path,
            other,
            &["FromClaim", "FromClass"],
        )),
    }
    let requests_path = child(path, "requests");
    let requests = items(&c["requests"]);
    if let Some(too) = over(requests, MAX_REQUESTS, &requests_path) {
        out.extend(too);
    } else {
        for (i, r) in requests.iter().enumerate() {
            out.extend(request_ref(
                r.as_str().unwrap_or_default(),
                &index(&requests_path, i),
                names,
            ));
        }
        out.extend(duplicates(
            requests
                .iter()
                .map(|r| r.as_str().unwrap_or_default().to_string()),
            |i| index(&requests_path, i),
            quoted,
        ));
    }
    let opaque_path = child(path, "opaque");
    let opaque = &c["opaque"];
    if opaque.is_object() {
        out.extend(csi_driver(
            text(opaque, "driver"),
            &child(&opaque_path, "driver"),
        ));
        out.extend(raw_object(
            &opaque["parameters"],
            &child(&opaque_path, "parameters"),
        ));
    } else {
        out.push(required(&opaque_path));
    }
    out
}

/// A new allocation: its results, its configurations, its node selector.
fn allocation(a: &Value, path: &str, names: &[(String, Option<Vec<String>>)]) -> Errors {
    let mut out = Vec::new();
    let results_path = format!("{path}.devices.results");
    let results = items(&a["devices"]["results"]);
    if let Some(too) = over(results, MAX_RESULTS, &results_path) {
        out.extend(too);
    } else {
        for (i, r) in results.iter().enumerate() {
            out.extend(result(r, &index(&results_path, i), names));
        }
    }
    let config_path = format!("{path}.devices.config");
    let config = items(&a["devices"]["config"]);
    if let Some(too) = over(config, 2 * MAX_CONFIG, &config_path) {
        out.extend(too);
    } else {
        for (i, c) in config.iter().enumerate() {
            out.extend(configuration(c, &index(&config_path, i), names));
        }
    }
    let selector = &a["nodeSelector"];
    if !selector.is_null() {
        out.extend(node_selector(selector, &child(path, "nodeSelector")));
    }
    out
}

/// Whether `list` has a consumer that `old` has not.
fn adds_consumers(list: &[Value], old: &[Value]) -> bool {
    list.iter().any(|c| !old.contains(c))
}

/// A ResourceClaim's status (`old` is the stored claim): its consumers, its device
/// statuses, then the consumers' rules, then its allocation.
pub fn resource_claim(object: &Value, old: &Value) -> Errors {
    let old_status = &old["status"];
    let status = without_deallocated(&object["status"], old_status);
    let names = request_names(&object["spec"]);
    let consumers_list = items(&status["reservedFor"]);
    let mut out = consumers(consumers_list, "status.reservedFor");
    out.extend(device_statuses(
        items(&status["devices"]),
        "status.devices",
        &allocated(&status),
    ));
    let new_allocation = &status["allocation"];
    if !consumers_list.is_empty() {
        if new_allocation.is_null() {
            out.push(forbidden(
                "status.reservedFor",
                "may not be specified when `allocated` is not set",
            ));
        } else if crate::support::meta::is_deleting(object)
            && adds_consumers(consumers_list, items(&old_status["reservedFor"]))
        {
            out.push(forbidden(
                "status.reservedFor",
                "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set",
            ));
        }
    }
    let old_allocation = &old_status["allocation"];
    const AT: &str = "status.allocation";
    if !new_allocation.is_null() {
        if old_allocation.is_null() {
            out.extend(allocation(new_allocation, "status.allocation", &names));
        } else if new_allocation != old_allocation || !same_bytes(old, object, AT) {
            // The opaque parameters are compared and printed as the bytes kept.
            let text = allocation_result(new_allocation);
            let cause = invalid_text(AT, &text, "field is immutable");
            out.push(with_raw_texts(cause, &written_texts(old, object, AT)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claim() -> Value {
        json!({"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "c"}},
            {"name": "alt", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}]}}})
    }

    fn found(object: &Value, old: &Value) -> Vec<String> {
        resource_claim(object, old)
            .into_iter()
            .map(|c| format!("{} {}", c.field, c.reason))
            .collect()
    }

    fn with_status(status: Value) -> Value {
        let mut c = claim();
        c["status"] = status;
        c
    }

    #[test]
    fn consumers_and_device_statuses_without_an_allocation() {
        let claim = with_status(json!({
            "reservedFor": [{"resource": "pods", "name": "p", "uid": "u1"}, {"uid": "u1"}],
            "devices": [{"driver": "Bad_Driver", "pool": "Pool!", "device": "Dev!",
                "conditions": [{"type": "A", "status": "Bogus", "reason": "R", "lastTransitionTime": "t"}],
                "data": [1],
                "networkData": {"ips": ["1.2.3.4", "01.2.3.4/24", "1.2.3.4/24", "1.2.3.4/24"]}}]}));
        assert_eq!(
            found(&claim, &json!({})),
            [
                "status.reservedFor[1].resource FieldValueRequired",
                "status.reservedFor[1].name FieldValueRequired",
                "status.reservedFor[1].uid FieldValueDuplicate",
                "status.devices[0].driver FieldValueInvalid",
                "status.devices[0].pool FieldValueInvalid",
                "status.devices[0].device FieldValueInvalid",
                "status.devices[0] FieldValueInvalid",
                "status.devices[0].conditions[0].status FieldValueNotSupported",
                "status.devices[0].data FieldValueInvalid",
                "status.devices[0].networkData.ips[0] FieldValueInvalid",
                "status.devices[0].networkData.ips[1] FieldValueInvalid",
                "status.devices[0].networkData.ips[3] FieldValueDuplicate",
                "status.reservedFor FieldValueForbidden",
            ]
        );
        let messages: Vec<String> = resource_claim(&claim, &json!({}))
            .into_iter()
            .map(|c| c.message)
            .collect();
        assert_eq!(
            messages[6],
            r#"Invalid value: {"Driver":{},"Pool":{},"Device":{},"ShareID":{}}: must be an allocated device in the claim"#
        );
        assert_eq!(
            messages[10],
            r#"Invalid value: "01.2.3.4/24": must be in canonical form ("1.2.3.4/24")"#
        );
    }

    #[test]
    fn a_new_allocation_is_checked_then_immutable() {
        let bad = with_status(json!({"allocation": {"devices": {
            "results": [{"request": "nope", "driver": "", "pool": "", "device": ""},
                {"request": "alt/c", "driver": "d.example.com", "pool": "p/Q", "device": "d"},
                {"request": "a/b/c", "driver": "d.example.com", "pool": "p", "device": "d"},
                {"request": "alt/a", "driver": "d.example.com", "pool": "p", "device": "d"}],
            "config": [{"source": "Bogus", "requests": ["gpu", "gpu", "zz"],
                "opaque": {"driver": "", "parameters": [1]}}, {"requests": []}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Bogus"}]}]}}}));
        assert_eq!(
            found(&bad, &json!({})),
            [
                "status.allocation.devices.results[0].request FieldValueInvalid",
                "status.allocation.devices.results[0].driver FieldValueRequired",
                "status.allocation.devices.results[0].driver FieldValueInvalid",
                "status.allocation.devices.results[0].pool FieldValueRequired",
                "status.allocation.devices.results[0].device FieldValueInvalid",
                "status.allocation.devices.results[1].request FieldValueInvalid",
                "status.allocation.devices.results[1].pool FieldValueInvalid",
                "status.allocation.devices.results[2].request FieldValueInvalid",
                "status.allocation.devices.config[0].source FieldValueNotSupported",
                "status.allocation.devices.config[0].requests[2] FieldValueInvalid",
                "status.allocation.devices.config[0].requests[1] FieldValueDuplicate",
                "status.allocation.devices.config[0].opaque.driver FieldValueRequired",
                "status.allocation.devices.config[0].opaque.driver FieldValueInvalid",
                "status.allocation.devices.config[0].opaque.parameters FieldValueInvalid",
                "status.allocation.devices.config[1].source FieldValueRequired",
                "status.allocation.devices.config[1].opaque FieldValueRequired",
                "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator FieldValueInvalid",
            ]
        );
        let good = json!({"devices": {"results": [
            {"request": "gpu", "driver": "d.example.com", "pool": "p", "device": "d"}]}});
        let old = with_status(json!({"allocation": good}));
        assert!(found(&old, &json!({})).is_empty());
        let mut changed = good.clone();
        changed["devices"]["results"][0]["device"] = json!("z");
        let now = with_status(json!({"allocation": changed}));
        assert_eq!(found(&now, &old), ["status.allocation FieldValueInvalid"]);
        assert!(found(&old, &old).is_empty());
    }

    #[test]
    fn deallocation_drops_device_statuses_and_consumers_need_an_allocation() {
        let alloc = json!({"devices": {"results": [
            {"request": "gpu", "driver": "d.example.com", "pool": "p", "device": "d"}]}});
        let old = with_status(json!({"allocation": alloc,
            "devices": [{"driver": "d.example.com", "pool": "p", "device": "d"}]}));
        let freed = with_status(json!({
            "devices": [{"driver": "d.example.com", "pool": "p", "device": "d"},
                {"driver": "d.example.com", "pool": "p", "device": "e"},
                {"driver": "d.example.com", "pool": "p", "device": "e"}]}));
        assert_eq!(
            found(&freed, &old),
            [
                "status.devices[0] FieldValueInvalid",
                "status.devices[1] FieldValueInvalid",
                "status.devices[1].deviceID FieldValueDuplicate",
            ]
        );
        let mut deleting = with_status(json!({"allocation": alloc,
            "reservedFor": [{"resource": "pods", "name": "p", "uid": "u2"}]}));
        deleting["metadata"] = json!({"deletionTimestamp": "2020-01-01T00:00:00Z"});
        assert_eq!(
            found(&deleting, &old),
            ["status.reservedFor FieldValueForbidden"]
        );
        let many: Vec<Value> = (0..257)
            .map(|i| json!({"resource": "pods", "name": "p", "uid": format!("u{i}")}))
            .collect();
        let crowded = with_status(json!({"allocation": alloc, "reservedFor": many}));
        assert_eq!(
            found(&crowded, &old),
            ["status.reservedFor FieldValueTooMany"]
        );
    }

    #[test]
    fn disabled_features_are_dropped() {
        let mut status = json!({"allocation": {"allocationTimestamp": "t", "devices": {"results": [
            {"request": "gpu", "shareID": "s", "consumedCapacity": {"x": "1"},
             "bindingConditions": ["a"], "bindingFailureConditions": ["b"], "tolerations": []}]}},
            "devices": [{"driver": "d", "shareID": "s"}]});
        drop_disabled(status.as_object_mut().unwrap());
        assert_eq!(
            status,
            json!({"allocation": {"devices": {"results": [{"request": "gpu", "tolerations": []}]}},
                "devices": [{"driver": "d"}]})
        );
    }
}
