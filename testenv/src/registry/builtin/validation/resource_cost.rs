//! The cost of a resource.k8s.io device selector, as the real server estimates it: the CRD
//! rules' estimator ([`estimate_with`]) with the sizes the selector environment declares
//! for the `device` variable, and the limit above which a selector is refused.

use cel::common::ast::IdedExpr;

use crate::registry::schema::cel_types::check::Checked;
use crate::registry::schema::cel_types::cost::{VariableSizes, estimate_with};

/// The most a selector may cost (`CELSelectorExpressionMaxCost`).
pub const MAX_COST: u64 = 1_000_000;

/// The longest driver name (a DNS subdomain of at most `DriverNameMaxLength`).
const DRIVER: u64 = 63;
/// The most attributes and capacities a device has
/// (`ResourceSliceMaxAttributesAndCapacitiesPerDevice`): the bound of the domains of
/// `device.attributes` and `device.capacity`, and of the names in each domain.
const PER_DEVICE: u64 = 32;
/// The longest domain (`DeviceMaxDomainLength`), a key of `device.attributes`.
const DOMAIN: u64 = 63;
/// The longest attribute or capacity name in a domain (`DeviceMaxIDLength`).
const NAME: u64 = 32;
/// The longest string or version an attribute has (`DeviceAttributeMaxValueLength`).
const VALUE: u64 = 64;

/// The sizes the selector environment gives what `device` reaches: its driver's name, its
/// maps of domains and, reached by index (`device.attributes["dra.example.com"]`, not by
/// field), of names in a domain, their keys and the attributes' values (by index or field).
/// Anything else has no size (unbounded). Found against kube-apiserver v1.34 by where it
/// starts refusing selectors.
struct DeviceSizes;

impl VariableSizes for DeviceSizes {
    fn max_size(&self, path: &[String]) -> Option<u64> {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        match path.as_slice() {
            ["device", "driver"] => Some(DRIVER),
            ["device", "attributes" | "capacity"] => Some(PER_DEVICE),
            ["device", "attributes" | "capacity", "@keys"] => Some(DOMAIN),
            ["device", "attributes" | "capacity", "@values"] => Some(PER_DEVICE),
            ["device", "attributes" | "capacity", "@values", "@keys"] => Some(NAME),
            ["device", "attributes", "@values", _] => Some(VALUE),
            _ => None,
        }
    }
}

/// The estimated worst-case cost of a checked selector.
pub fn selector_cost(expr: &IdedExpr, checked: &Checked) -> u64 {
    estimate_with(expr, checked, &DeviceSizes)
}
