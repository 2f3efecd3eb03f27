//! `resource.k8s.io/v1`: DeviceClass, ResourceClaim (with its status: the allocation and
//! reservations a scheduler and drivers put to `/status`), ResourceClaimTemplate and ResourceSlice.

use super::meta::OBJECT_META;
use super::meta_more::CONDITION;
use super::pod_affinity::NODE_SELECTOR;
use super::schema::{Message, Ty, inline, list, map, ptr, val};

/// `CELDeviceSelector`.
pub(super) static CEL_DEVICE_SELECTOR: Message =
    Message::new("CELDeviceSelector", &[val(1, "expression", Ty::Str)]);

/// `DeviceSelector`.
pub(super) static DEVICE_SELECTOR: Message = Message::new(
    "DeviceSelector",
    &[ptr(1, "cel", Ty::Msg(&CEL_DEVICE_SELECTOR))],
);

/// `OpaqueDeviceConfiguration`.
pub(super) static OPAQUE_DEVICE_CONFIGURATION: Message = Message::new(
    "OpaqueDeviceConfiguration",
    &[val(1, "driver", Ty::Str), val(2, "parameters", Ty::Raw)],
);

/// `DeviceConfiguration`.
pub(super) static DEVICE_CONFIGURATION: Message = Message::new(
    "DeviceConfiguration",
    &[ptr(1, "opaque", Ty::Msg(&OPAQUE_DEVICE_CONFIGURATION))],
);

/// `DeviceClassConfiguration`.
pub(super) static DEVICE_CLASS_CONFIGURATION: Message = Message::new(
    "DeviceClassConfiguration",
    &[inline(1, &DEVICE_CONFIGURATION)],
);

/// `DeviceClassSpec`.
pub(super) static DEVICE_CLASS_SPEC: Message = Message::new(
    "DeviceClassSpec",
    &[
        list(1, "selectors", Ty::Msg(&DEVICE_SELECTOR)),
        list(2, "config", Ty::Msg(&DEVICE_CLASS_CONFIGURATION)),
        ptr(4, "extendedResourceName", Ty::Str),
    ],
);

/// `DeviceClass`.
pub(super) static DEVICE_CLASS: Message = Message::new(
    "DeviceClass",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&DEVICE_CLASS_SPEC)),
    ],
);

/// `DeviceToleration`.
pub(super) static DEVICE_TOLERATION: Message = Message::new(
    "DeviceToleration",
    &[
        val(1, "key", Ty::Str),
        val(2, "operator", Ty::Str),
        val(3, "value", Ty::Str),
        val(4, "effect", Ty::Str),
        ptr(5, "tolerationSeconds", Ty::Int),
    ],
);

/// `CapacityRequirements`.
pub(super) static CAPACITY_REQUIREMENTS: Message =
    Message::new("CapacityRequirements", &[map(1, "requests", Ty::Quantity)]);

/// `ExactDeviceRequest`.
pub(super) static EXACT_DEVICE_REQUEST: Message = Message::new(
    "ExactDeviceRequest",
    &[
        val(1, "deviceClassName", Ty::Str),
        list(2, "selectors", Ty::Msg(&DEVICE_SELECTOR)),
        val(3, "allocationMode", Ty::Str),
        val(4, "count", Ty::Int),
        ptr(5, "adminAccess", Ty::Bool),
        list(6, "tolerations", Ty::Msg(&DEVICE_TOLERATION)),
        ptr(7, "capacity", Ty::Msg(&CAPACITY_REQUIREMENTS)),
    ],
);

/// `DeviceSubRequest`.
pub(super) static DEVICE_SUB_REQUEST: Message = Message::new(
    "DeviceSubRequest",
    &[
        val(1, "name", Ty::Str),
        val(2, "deviceClassName", Ty::Str),
        list(3, "selectors", Ty::Msg(&DEVICE_SELECTOR)),
        val(4, "allocationMode", Ty::Str),
        val(5, "count", Ty::Int),
        list(6, "tolerations", Ty::Msg(&DEVICE_TOLERATION)),
        ptr(7, "capacity", Ty::Msg(&CAPACITY_REQUIREMENTS)),
    ],
);

/// `DeviceRequest`.
pub(super) static DEVICE_REQUEST: Message = Message::new(
    "DeviceRequest",
    &[
        val(1, "name", Ty::Str),
        ptr(2, "exactly", Ty::Msg(&EXACT_DEVICE_REQUEST)),
        list(3, "firstAvailable", Ty::Msg(&DEVICE_SUB_REQUEST)),
    ],
);

/// `DeviceConstraint`.
pub(super) static DEVICE_CONSTRAINT: Message = Message::new(
    "DeviceConstraint",
    &[
        list(1, "requests", Ty::Str),
        ptr(2, "matchAttribute", Ty::Str),
        ptr(3, "distinctAttribute", Ty::Str),
    ],
);

/// `DeviceClaimConfiguration`.
pub(super) static DEVICE_CLAIM_CONFIGURATION: Message = Message::new(
    "DeviceClaimConfiguration",
    &[
        list(1, "requests", Ty::Str),
        inline(2, &DEVICE_CONFIGURATION),
    ],
);

/// `DeviceClaim`.
pub(super) static DEVICE_CLAIM: Message = Message::new(
    "DeviceClaim",
    &[
        list(1, "requests", Ty::Msg(&DEVICE_REQUEST)),
        list(2, "constraints", Ty::Msg(&DEVICE_CONSTRAINT)),
        list(3, "config", Ty::Msg(&DEVICE_CLAIM_CONFIGURATION)),
    ],
);

/// `ResourceClaimSpec`.
pub(super) static RESOURCE_CLAIM_SPEC: Message = Message::new(
    "ResourceClaimSpec",
    &[val(1, "devices", Ty::Msg(&DEVICE_CLAIM))],
);

/// `DeviceRequestAllocationResult`.
pub(super) static DEVICE_REQUEST_ALLOCATION_RESULT: Message = Message::new(
    "DeviceRequestAllocationResult",
    &[
        val(1, "request", Ty::Str),
        val(2, "driver", Ty::Str),
        val(3, "pool", Ty::Str),
        val(4, "device", Ty::Str),
        ptr(5, "adminAccess", Ty::Bool),
        list(6, "tolerations", Ty::Msg(&DEVICE_TOLERATION)),
        list(7, "bindingConditions", Ty::Str),
        list(8, "bindingFailureConditions", Ty::Str),
        ptr(9, "shareID", Ty::Str),
        map(10, "consumedCapacity", Ty::Quantity),
    ],
);

/// `DeviceAllocationConfiguration`.
pub(super) static DEVICE_ALLOCATION_CONFIGURATION: Message = Message::new(
    "DeviceAllocationConfiguration",
    &[
        val(1, "source", Ty::Str),
        list(2, "requests", Ty::Str),
        inline(3, &DEVICE_CONFIGURATION),
    ],
);

/// `DeviceAllocationResult`.
pub(super) static DEVICE_ALLOCATION_RESULT: Message = Message::new(
    "DeviceAllocationResult",
    &[
        list(1, "results", Ty::Msg(&DEVICE_REQUEST_ALLOCATION_RESULT)),
        list(2, "config", Ty::Msg(&DEVICE_ALLOCATION_CONFIGURATION)),
    ],
);

/// `AllocationResult`.
pub(super) static ALLOCATION_RESULT: Message = Message::new(
    "AllocationResult",
    &[
        val(1, "devices", Ty::Msg(&DEVICE_ALLOCATION_RESULT)),
        ptr(3, "nodeSelector", Ty::Msg(&NODE_SELECTOR)),
        ptr(5, "allocationTimestamp", Ty::Time),
    ],
);

/// `ResourceClaimConsumerReference`.
pub(super) static RESOURCE_CLAIM_CONSUMER_REFERENCE: Message = Message::new(
    "ResourceClaimConsumerReference",
    &[
        val(1, "apiGroup", Ty::Str),
        val(3, "resource", Ty::Str),
        val(4, "name", Ty::Str),
        val(5, "uid", Ty::Str),
    ],
);

/// `NetworkDeviceData`.
pub(super) static NETWORK_DEVICE_DATA: Message = Message::new(
    "NetworkDeviceData",
    &[
        val(1, "interfaceName", Ty::Str),
        list(2, "ips", Ty::Str),
        val(3, "hardwareAddress", Ty::Str),
    ],
);

/// `AllocatedDeviceStatus`.
pub(super) static ALLOCATED_DEVICE_STATUS: Message = Message::new(
    "AllocatedDeviceStatus",
    &[
        val(1, "driver", Ty::Str),
        val(2, "pool", Ty::Str),
        val(3, "device", Ty::Str),
        ptr(7, "shareID", Ty::Str),
        list(4, "conditions", Ty::Msg(&CONDITION)),
        ptr(5, "data", Ty::Raw),
        ptr(6, "networkData", Ty::Msg(&NETWORK_DEVICE_DATA)),
    ],
);

/// `ResourceClaimStatus`.
pub(super) static RESOURCE_CLAIM_STATUS: Message = Message::new(
    "ResourceClaimStatus",
    &[
        ptr(1, "allocation", Ty::Msg(&ALLOCATION_RESULT)),
        list(
            2,
            "reservedFor",
            Ty::Msg(&RESOURCE_CLAIM_CONSUMER_REFERENCE),
        ),
        list(4, "devices", Ty::Msg(&ALLOCATED_DEVICE_STATUS)),
    ],
);

/// `ResourceClaim`.
pub(super) static RESOURCE_CLAIM: Message = Message::new(
    "ResourceClaim",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&RESOURCE_CLAIM_SPEC)),
        val(3, "status", Ty::Msg(&RESOURCE_CLAIM_STATUS)),
    ],
);

/// `ResourceClaimTemplateSpec`.
pub(super) static RESOURCE_CLAIM_TEMPLATE_SPEC: Message = Message::new(
    "ResourceClaimTemplateSpec",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&RESOURCE_CLAIM_SPEC)),
    ],
);

/// `ResourceClaimTemplate`.
pub(super) static RESOURCE_CLAIM_TEMPLATE: Message = Message::new(
    "ResourceClaimTemplate",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&RESOURCE_CLAIM_TEMPLATE_SPEC)),
    ],
);

/// `ResourcePool`.
pub(super) static RESOURCE_POOL: Message = Message::new(
    "ResourcePool",
    &[
        val(1, "name", Ty::Str),
        val(2, "generation", Ty::Int),
        val(3, "resourceSliceCount", Ty::Int),
    ],
);

/// `DeviceAttribute`.
pub(super) static DEVICE_ATTRIBUTE: Message = Message::new(
    "DeviceAttribute",
    &[
        ptr(2, "int", Ty::Int),
        ptr(3, "bool", Ty::Bool),
        ptr(4, "string", Ty::Str),
        ptr(5, "version", Ty::Str),
    ],
);

/// `CapacityRequestPolicyRange`.
pub(super) static CAPACITY_REQUEST_POLICY_RANGE: Message = Message::new(
    "CapacityRequestPolicyRange",
    &[
        ptr(1, "min", Ty::Quantity),
        ptr(2, "max", Ty::Quantity),
        ptr(3, "step", Ty::Quantity),
    ],
);

/// `CapacityRequestPolicy`.
pub(super) static CAPACITY_REQUEST_POLICY: Message = Message::new(
    "CapacityRequestPolicy",
    &[
        ptr(1, "default", Ty::Quantity),
        list(3, "validValues", Ty::Quantity),
        ptr(4, "validRange", Ty::Msg(&CAPACITY_REQUEST_POLICY_RANGE)),
    ],
);

/// `DeviceCapacity`.
pub(super) static DEVICE_CAPACITY: Message = Message::new(
    "DeviceCapacity",
    &[
        val(1, "value", Ty::Quantity),
        ptr(2, "requestPolicy", Ty::Msg(&CAPACITY_REQUEST_POLICY)),
    ],
);

/// `Counter`.
pub(super) static COUNTER: Message = Message::new("Counter", &[val(1, "value", Ty::Quantity)]);

/// `DeviceCounterConsumption`.
pub(super) static DEVICE_COUNTER_CONSUMPTION: Message = Message::new(
    "DeviceCounterConsumption",
    &[
        val(1, "counterSet", Ty::Str),
        map(2, "counters", Ty::Msg(&COUNTER)),
    ],
);

/// `DeviceTaint`.
pub(super) static DEVICE_TAINT: Message = Message::new(
    "DeviceTaint",
    &[
        val(1, "key", Ty::Str),
        val(2, "value", Ty::Str),
        val(3, "effect", Ty::Str),
        ptr(4, "timeAdded", Ty::Time),
    ],
);

/// `Device`.
pub(super) static DEVICE: Message = Message::new(
    "Device",
    &[
        val(1, "name", Ty::Str),
        map(2, "attributes", Ty::Msg(&DEVICE_ATTRIBUTE)),
        map(3, "capacity", Ty::Msg(&DEVICE_CAPACITY)),
        list(4, "consumesCounters", Ty::Msg(&DEVICE_COUNTER_CONSUMPTION)),
        ptr(5, "nodeName", Ty::Str),
        ptr(6, "nodeSelector", Ty::Msg(&NODE_SELECTOR)),
        ptr(7, "allNodes", Ty::Bool),
        list(8, "taints", Ty::Msg(&DEVICE_TAINT)),
        ptr(9, "bindsToNode", Ty::Bool),
        list(10, "bindingConditions", Ty::Str),
        list(11, "bindingFailureConditions", Ty::Str),
        ptr(12, "allowMultipleAllocations", Ty::Bool),
    ],
);

/// `CounterSet`.
pub(super) static COUNTER_SET: Message = Message::new(
    "CounterSet",
    &[
        val(1, "name", Ty::Str),
        map(2, "counters", Ty::Msg(&COUNTER)),
    ],
);

/// `ResourceSliceSpec`.
pub(super) static RESOURCE_SLICE_SPEC: Message = Message::new(
    "ResourceSliceSpec",
    &[
        val(1, "driver", Ty::Str),
        val(2, "pool", Ty::Msg(&RESOURCE_POOL)),
        ptr(3, "nodeName", Ty::Str),
        ptr(4, "nodeSelector", Ty::Msg(&NODE_SELECTOR)),
        ptr(5, "allNodes", Ty::Bool),
        list(6, "devices", Ty::Msg(&DEVICE)),
        ptr(7, "perDeviceNodeSelection", Ty::Bool),
        list(8, "sharedCounters", Ty::Msg(&COUNTER_SET)),
    ],
);

/// `ResourceSlice`.
pub(super) static RESOURCE_SLICE: Message = Message::new(
    "ResourceSlice",
    &[
        val(1, "metadata", Ty::Msg(&OBJECT_META)),
        val(2, "spec", Ty::Msg(&RESOURCE_SLICE_SPEC)),
    ],
);
