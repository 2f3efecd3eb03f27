//! The functions of the real server's CEL environment for CRD rules (kube-apiserver 1.34,
//! compatibility version 1.33): the standard library, cel-go's strings (version 2), sets and
//! two-variable comprehensions, and Kubernetes' lists, regex, URL, quantity, IP, CIDR,
//! format, semver and authz libraries, with cel-go's overload ids (the cost estimator goes by
//! them). cel-go's math, lists and bindings extensions are not part of it.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::types::{Type, opaque};

/// One overload: its id, whether it is called on a receiver, its argument types (receiver
/// first) with parameters numbered from 0, and its result.
#[derive(Debug)]
pub struct Overload {
    /// cel-go's overload id.
    pub id: &'static str,
    /// Called as `receiver.f(args)`.
    pub member: bool,
    /// Argument types, receiver first.
    pub args: Vec<Type>,
    /// The result type.
    pub result: Type,
}

/// (function, overload id, member, "arg, arg -> result").
type Row = (&'static str, &'static str, bool, &'static str);

const G: bool = false;
const M: bool = true;

#[rustfmt::skip]
const STANDARD: &[Row] = &[
    ("_+_", "add_int64", G, "int, int -> int"),
    ("_+_", "add_uint64", G, "uint, uint -> uint"),
    ("_+_", "add_double", G, "double, double -> double"),
    ("_+_", "add_string", G, "string, string -> string"),
    ("_+_", "add_bytes", G, "bytes, bytes -> bytes"),
    ("_+_", "add_list", G, "list(A), list(A) -> list(A)"),
    ("_+_", "add_timestamp_duration", G, "timestamp, duration -> timestamp"),
    ("_+_", "add_duration_timestamp", G, "duration, timestamp -> timestamp"),
    ("_+_", "add_duration_duration", G, "duration, duration -> duration"),
    ("_-_", "subtract_int64", G, "int, int -> int"),
    ("_-_", "subtract_uint64", G, "uint, uint -> uint"),
    ("_-_", "subtract_double", G, "double, double -> double"),
    ("_-_", "subtract_timestamp_timestamp", G, "timestamp, timestamp -> duration"),
    ("_-_", "subtract_timestamp_duration", G, "timestamp, duration -> timestamp"),
    ("_-_", "subtract_duration_duration", G, "duration, duration -> duration"),
    ("_*_", "multiply_int64", G, "int, int -> int"),
    ("_*_", "multiply_uint64", G, "uint, uint -> uint"),
    ("_*_", "multiply_double", G, "double, double -> double"),
    ("_/_", "divide_int64", G, "int, int -> int"),
    ("_/_", "divide_uint64", G, "uint, uint -> uint"),
    ("_/_", "divide_double", G, "double, double -> double"),
    ("_%_", "modulo_int64", G, "int, int -> int"),
    ("_%_", "modulo_uint64", G, "uint, uint -> uint"),
    ("-_", "negate_int64", G, "int -> int"),
    ("-_", "negate_double", G, "double -> double"),
    ("!_", "logical_not", G, "bool -> bool"),
    ("_&&_", "logical_and", G, "bool, bool -> bool"),
    ("_||_", "logical_or", G, "bool, bool -> bool"),
    ("_?_:_", "conditional", G, "bool, A, A -> A"),
    ("_==_", "equals", G, "A, A -> bool"),
    ("_!=_", "not_equals", G, "A, A -> bool"),
    ("_[_]", "index_list", G, "list(A), int -> A"),
    ("_[_]", "index_map", G, "map(A, B), A -> B"),
    ("@in", "in_list", G, "A, list(A) -> bool"),
    ("@in", "in_map", G, "A, map(A, B) -> bool"),
    ("@not_strictly_false", "not_strictly_false", G, "bool -> bool"),
    ("size", "size_string", G, "string -> int"),
    ("size", "size_bytes", G, "bytes -> int"),
    ("size", "size_list", G, "list(A) -> int"),
    ("size", "size_map", G, "map(A, B) -> int"),
    ("size", "string_size", M, "string -> int"),
    ("size", "bytes_size", M, "bytes -> int"),
    ("size", "list_size", M, "list(A) -> int"),
    ("size", "map_size", M, "map(A, B) -> int"),
    ("int", "int64_to_int64", G, "int -> int"),
    ("int", "uint64_to_int64", G, "uint -> int"),
    ("int", "double_to_int64", G, "double -> int"),
    ("int", "string_to_int64", G, "string -> int"),
    ("int", "timestamp_to_int64", G, "timestamp -> int"),
    ("uint", "uint64_to_uint64", G, "uint -> uint"),
    ("uint", "int64_to_uint64", G, "int -> uint"),
    ("uint", "double_to_uint64", G, "double -> uint"),
    ("uint", "string_to_uint64", G, "string -> uint"),
    ("double", "double_to_double", G, "double -> double"),
    ("double", "int64_to_double", G, "int -> double"),
    ("double", "uint64_to_double", G, "uint -> double"),
    ("double", "string_to_double", G, "string -> double"),
    ("string", "string_to_string", G, "string -> string"),
    ("string", "int64_to_string", G, "int -> string"),
    ("string", "uint64_to_string", G, "uint -> string"),
    ("string", "double_to_string", G, "double -> string"),
    ("string", "bool_to_string", G, "bool -> string"),
    ("string", "bytes_to_string", G, "bytes -> string"),
    ("string", "timestamp_to_string", G, "timestamp -> string"),
    ("string", "duration_to_string", G, "duration -> string"),
    ("bytes", "bytes_to_bytes", G, "bytes -> bytes"),
    ("bytes", "string_to_bytes", G, "string -> bytes"),
    ("bool", "bool_to_bool", G, "bool -> bool"),
    ("bool", "string_to_bool", G, "string -> bool"),
    ("dyn", "to_dyn", G, "A -> dyn"),
    ("type", "type", G, "A -> type(A)"),
    ("duration", "duration_to_duration", G, "duration -> duration"),
    ("duration", "string_to_duration", G, "string -> duration"),
    ("timestamp", "timestamp_to_timestamp", G, "timestamp -> timestamp"),
    ("timestamp", "string_to_timestamp", G, "string -> timestamp"),
    ("timestamp", "int64_to_timestamp", G, "int -> timestamp"),
    ("contains", "contains_string", M, "string, string -> bool"),
    ("endsWith", "ends_with_string", M, "string, string -> bool"),
    ("startsWith", "starts_with_string", M, "string, string -> bool"),
    ("matches", "matches", G, "string, string -> bool"),
    ("matches", "matches_string", M, "string, string -> bool"),
    ("getFullYear", "timestamp_to_year", M, "timestamp -> int"),
    ("getFullYear", "timestamp_to_year_with_tz", M, "timestamp, string -> int"),
    ("getMonth", "timestamp_to_month", M, "timestamp -> int"),
    ("getMonth", "timestamp_to_month_with_tz", M, "timestamp, string -> int"),
    ("getDayOfYear", "timestamp_to_day_of_year", M, "timestamp -> int"),
    ("getDayOfYear", "timestamp_to_day_of_year_with_tz", M, "timestamp, string -> int"),
    ("getDate", "timestamp_to_day_of_month_1_based", M, "timestamp -> int"),
    ("getDate", "timestamp_to_day_of_month_1_based_with_tz", M, "timestamp, string -> int"),
    ("getDayOfMonth", "timestamp_to_day_of_month", M, "timestamp -> int"),
    ("getDayOfMonth", "timestamp_to_day_of_month_with_tz", M, "timestamp, string -> int"),
    ("getDayOfWeek", "timestamp_to_day_of_week", M, "timestamp -> int"),
    ("getDayOfWeek", "timestamp_to_day_of_week_with_tz", M, "timestamp, string -> int"),
    ("getHours", "timestamp_to_hours", M, "timestamp -> int"),
    ("getHours", "timestamp_to_hours_with_tz", M, "timestamp, string -> int"),
    ("getHours", "duration_to_hours", M, "duration -> int"),
    ("getMinutes", "timestamp_to_minutes", M, "timestamp -> int"),
    ("getMinutes", "timestamp_to_minutes_with_tz", M, "timestamp, string -> int"),
    ("getMinutes", "duration_to_minutes", M, "duration -> int"),
    ("getSeconds", "timestamp_to_seconds", M, "timestamp -> int"),
    ("getSeconds", "timestamp_to_seconds_with_tz", M, "timestamp, string -> int"),
    ("getSeconds", "duration_to_seconds", M, "duration -> int"),
    ("getMilliseconds", "timestamp_to_milliseconds", M, "timestamp -> int"),
    ("getMilliseconds", "timestamp_to_milliseconds_with_tz", M, "timestamp, string -> int"),
    ("getMilliseconds", "duration_to_milliseconds", M, "duration -> int"),
    // optional types
    ("optional.of", "optional_of", G, "A -> optional(A)"),
    ("optional.ofNonZeroValue", "optional_ofNonZeroValue", G, "A -> optional(A)"),
    ("optional.none", "optional_none", G, " -> optional(A)"),
    ("hasValue", "optional_hasValue", M, "optional(A) -> bool"),
    ("value", "optional_value", M, "optional(A) -> A"),
    ("orValue", "optional_orValue_value", M, "optional(A), A -> A"),
    ("or", "optional_or_optional", M, "optional(A), optional(A) -> optional(A)"),
    ("_[?_]", "list_optindex_optional_int", G, "list(A), int -> optional(A)"),
    ("_[?_]", "map_optindex_optional_value", G, "map(A, B), A -> optional(B)"),
    ("first", "list_first", M, "list(A) -> optional(A)"),
    ("last", "list_last", M, "list(A) -> optional(A)"),
    ("optional.unwrap", "optional_unwrap", G, "list(optional(A)) -> list(A)"),
    ("unwrapOpt", "optional_unwrapOpt", M, "list(optional(A)) -> list(A)"),
    // strings extension, version 2
    ("charAt", "string_char_at_int", M, "string, int -> string"),
    ("indexOf", "string_index_of_string", M, "string, string -> int"),
    ("indexOf", "string_index_of_string_int", M, "string, string, int -> int"),
    ("lastIndexOf", "string_last_index_of_string", M, "string, string -> int"),
    ("lastIndexOf", "string_last_index_of_string_int", M, "string, string, int -> int"),
    ("lowerAscii", "string_lower_ascii", M, "string -> string"),
    ("upperAscii", "string_upper_ascii", M, "string -> string"),
    ("replace", "string_replace_string_string", M, "string, string, string -> string"),
    ("replace", "string_replace_string_string_int", M, "string, string, string, int -> string"),
    ("split", "string_split_string", M, "string, string -> list(string)"),
    ("split", "string_split_string_int", M, "string, string, int -> list(string)"),
    ("substring", "string_substring_int", M, "string, int -> string"),
    ("substring", "string_substring_int_int", M, "string, int, int -> string"),
    ("trim", "string_trim", M, "string -> string"),
    ("join", "list_join", M, "list(string) -> string"),
    ("join", "list_join_string", M, "list(string), string -> string"),
    ("strings.quote", "strings_quote", G, "string -> string"),
    ("format", "string_format", M, "string, list(dyn) -> string"),
    // two-variable comprehensions: what transformMap and transformMapEntry build with
    ("cel.@mapInsert", "cel_@mapInsert_map_key_value", G, "map(A, B), A, B -> map(A, B)"),
    ("cel.@mapInsert", "cel_@mapInsert_map_map", G, "map(A, B), map(A, B) -> map(A, B)"),
    // sets extension
    ("sets.contains", "list_sets_contains_list", G, "list(A), list(A) -> bool"),
    ("sets.equivalent", "list_sets_equivalent_list", G, "list(A), list(A) -> bool"),
    ("sets.intersects", "list_sets_intersects_list", G, "list(A), list(A) -> bool"),
    // Kubernetes lists
    // (isSorted, sum, max and min: see `list_rows`)
    ("indexOf", "list_index_of", M, "list(A), A -> int"),
    ("lastIndexOf", "list_last_index_of", M, "list(A), A -> int"),
    // Kubernetes regex
    ("find", "string_find_string", M, "string, string -> string"),
    ("findAll", "string_find_all_string", M, "string, string -> list(string)"),
    ("findAll", "string_find_all_string_int", M, "string, string, int -> list(string)"),
    // Kubernetes URLs
    ("url", "string_to_url", G, "string -> URL"),
    ("isURL", "is_url_string", G, "string -> bool"),
    ("getScheme", "url_get_scheme", M, "URL -> string"),
    ("getHost", "url_get_host", M, "URL -> string"),
    ("getHostname", "url_get_hostname", M, "URL -> string"),
    ("getPort", "url_get_port", M, "URL -> string"),
    ("getEscapedPath", "url_get_escaped_path", M, "URL -> string"),
    ("getQuery", "url_get_query", M, "URL -> map(string, list(string))"),
    // Kubernetes quantity
    ("quantity", "string_to_quantity", G, "string -> Quantity"),
    ("isQuantity", "is_quantity_string", G, "string -> bool"),
    ("sign", "quantity_sign", G, "Quantity -> int"),
    ("isInteger", "quantity_is_integer", M, "Quantity -> bool"),
    ("asInteger", "quantity_as_integer", M, "Quantity -> int"),
    ("asApproximateFloat", "quantity_as_float", M, "Quantity -> double"),
    ("add", "quantity_add", M, "Quantity, Quantity -> Quantity"),
    ("add", "quantity_add_int", M, "Quantity, int -> Quantity"),
    ("sub", "quantity_sub", M, "Quantity, Quantity -> Quantity"),
    ("sub", "quantity_sub_int", M, "Quantity, int -> Quantity"),
    ("isLessThan", "quantity_less", M, "Quantity, Quantity -> bool"),
    ("isGreaterThan", "quantity_greater", M, "Quantity, Quantity -> bool"),
    ("compareTo", "quantity_compare_to", M, "Quantity, Quantity -> int"),
    // Kubernetes IP and CIDR
    ("ip", "string_to_ip", G, "string -> IP"),
    ("isIP", "is_ip", G, "string -> bool"),
    ("ip.isCanonical", "ip_is_canonical", G, "string -> bool"),
    ("family", "ip_family", M, "IP -> int"),
    ("isUnspecified", "ip_is_unspecified", M, "IP -> bool"),
    ("isLoopback", "ip_is_loopback", M, "IP -> bool"),
    ("isLinkLocalMulticast", "ip_is_link_local_multicast", M, "IP -> bool"),
    ("isLinkLocalUnicast", "ip_is_link_local_unicast", M, "IP -> bool"),
    ("isGlobalUnicast", "ip_is_global_unicast", M, "IP -> bool"),
    ("string", "ip_to_string", G, "IP -> string"),
    ("cidr", "string_to_cidr", G, "string -> CIDR"),
    ("isCIDR", "is_cidr", G, "string -> bool"),
    ("containsIP", "cidr_contains_ip_string", M, "CIDR, string -> bool"),
    ("containsIP", "cidr_contains_ip_ip", M, "CIDR, IP -> bool"),
    ("containsCIDR", "cidr_contains_cidr_string", M, "CIDR, string -> bool"),
    ("containsCIDR", "cidr_contains_cidr", M, "CIDR, CIDR -> bool"),
    ("ip", "cidr_ip", M, "CIDR -> IP"),
    ("masked", "cidr_masked", M, "CIDR -> CIDR"),
    ("prefixLength", "cidr_prefix_length", M, "CIDR -> int"),
    ("string", "cidr_to_string", G, "CIDR -> string"),
    // Kubernetes format
    ("format.named", "format_named", G, "string -> optional(Format)"),
    ("validate", "format_validate", M, "Format, string -> optional(list(string))"),
    ("format.dns1123Label", "format_dns1123Label", G, " -> Format"),
    ("format.dns1123Subdomain", "format_dns1123Subdomain", G, " -> Format"),
    ("format.dns1035Label", "format_dns1035Label", G, " -> Format"),
    ("format.qualifiedName", "format_qualifiedName", G, " -> Format"),
    ("format.dns1123LabelPrefix", "format_dns1123LabelPrefix", G, " -> Format"),
    ("format.dns1123SubdomainPrefix", "format_dns1123SubdomainPrefix", G, " -> Format"),
    ("format.dns1035LabelPrefix", "format_dns1035LabelPrefix", G, " -> Format"),
    ("format.labelValue", "format_labelValue", G, " -> Format"),
    ("format.uri", "format_uri", G, " -> Format"),
    ("format.uuid", "format_uuid", G, " -> Format"),
    ("format.byte", "format_byte", G, " -> Format"),
    ("format.date", "format_date", G, " -> Format"),
    ("format.datetime", "format_datetime", G, " -> Format"),
    // Kubernetes semver
    ("semver", "string_to_semver", G, "string -> Semver"),
    ("semver", "string_bool_to_semver", G, "string, bool -> Semver"),
    ("isSemver", "is_semver", G, "string -> bool"),
    ("isSemver", "is_semver_normalize", G, "string, bool -> bool"),
    ("major", "semver_major", M, "Semver -> int"),
    ("minor", "semver_minor", M, "Semver -> int"),
    ("patch", "semver_patch", M, "Semver -> int"),
    ("isGreaterThan", "semver_greater", M, "Semver, Semver -> bool"),
    ("isLessThan", "semver_less", M, "Semver, Semver -> bool"),
    ("compareTo", "semver_compare_to", M, "Semver, Semver -> int"),
    // Kubernetes authz (declared in every environment; only admission expressions have an
    // `authorizer` to call them on)
    ("path", "authorizer_path", M, "Authorizer, string -> PathCheck"),
    ("group", "authorizer_group", M, "Authorizer, string -> GroupCheck"),
    ("serviceAccount", "authorizer_serviceaccount", M, "Authorizer, string, string -> Authorizer"),
    ("resource", "groupcheck_resource", M, "GroupCheck, string -> ResourceCheck"),
    ("subresource", "resourcecheck_subresource", M, "ResourceCheck, string -> ResourceCheck"),
    ("namespace", "resourcecheck_namespace", M, "ResourceCheck, string -> ResourceCheck"),
    ("name", "resourcecheck_name", M, "ResourceCheck, string -> ResourceCheck"),
    ("check", "pathcheck_check", M, "PathCheck, string -> Decision"),
    ("check", "resourcecheck_check", M, "ResourceCheck, string -> Decision"),
    ("errored", "decision_errored", M, "Decision -> bool"),
    ("error", "decision_error", M, "Decision -> string"),
    ("allowed", "decision_allowed", M, "Decision -> bool"),
    ("reason", "decision_reason", M, "Decision -> string"),
    // Kubernetes authz selectors
    ("fieldSelector", "authorizer_fieldselector", M, "ResourceCheck, string -> ResourceCheck"),
    ("labelSelector", "authorizer_labelselector", M, "ResourceCheck, string -> ResourceCheck"),
];

/// The ordering operators: every pair cel-go declares with cross-type numeric comparisons.
fn ordering_rows() -> Vec<(String, String, String)> {
    let mut rows = Vec::new();
    for (op, name) in [
        ("_<_", "less"),
        ("_<=_", "less_equals"),
        ("_>_", "greater"),
        ("_>=_", "greater_equals"),
    ] {
        for (ty, id) in [
            ("bool", "bool"),
            ("int", "int64"),
            ("uint", "uint64"),
            ("double", "double"),
            ("string", "string"),
            ("bytes", "bytes"),
            ("timestamp", "timestamp"),
            ("duration", "duration"),
        ] {
            rows.push((
                op.to_string(),
                format!("{name}_{id}"),
                format!("{ty}, {ty} -> bool"),
            ));
        }
        for (a, ai, b, bi) in [
            ("int", "int64", "uint", "uint64"),
            ("int", "int64", "double", "double"),
            ("uint", "uint64", "int", "int64"),
            ("uint", "uint64", "double", "double"),
            ("double", "double", "int", "int64"),
            ("double", "double", "uint", "uint64"),
        ] {
            rows.push((
                op.to_string(),
                format!("{name}_{ai}_{bi}"),
                format!("{a}, {b} -> bool"),
            ));
        }
    }
    rows
}

/// Kubernetes' lists library: `isSorted`, `max` and `min` on lists of comparable types,
/// `sum` on lists of summable types, one overload per element type.
fn list_rows() -> Vec<(String, String, String)> {
    const COMPARABLE: &[&str] = &[
        "int",
        "uint",
        "double",
        "bool",
        "duration",
        "timestamp",
        "string",
        "bytes",
    ];
    const SUMMABLE: &[&str] = &["int", "uint", "double", "duration"];
    let mut rows = Vec::new();
    for t in COMPARABLE {
        rows.push((
            "isSorted".to_string(),
            format!("list_{t}_is_sorted_bool"),
            format!("list({t}) -> bool"),
        ));
        for f in ["max", "min"] {
            rows.push((
                f.to_string(),
                format!("list_{t}_{f}_{t}"),
                format!("list({t}) -> {t}"),
            ));
        }
    }
    for t in SUMMABLE {
        rows.push((
            "sum".to_string(),
            format!("list_{t}_sum_{t}"),
            format!("list({t}) -> {t}"),
        ));
    }
    rows
}

fn parse_type(text: &str) -> (Type, u32) {
    let text = text.trim();
    let param = |c: &str| match c {
        "A" => Some(0),
        "B" => Some(1),
        _ => None,
    };
    if let Some(i) = param(text) {
        return (Type::Param(i), i + 1);
    }
    if let Some(inner) = text.strip_suffix(')')
        && let Some((head, args)) = inner.split_once('(')
    {
        let parts = split_top(args);
        let parsed: Vec<(Type, u32)> = parts.iter().map(|p| parse_type(p)).collect();
        let n = parsed.iter().map(|(_, n)| *n).max().unwrap_or(0);
        let mut types = parsed.into_iter().map(|(t, _)| t);
        let t = match head {
            "list" => Type::list(types.next().unwrap_or(Type::Dyn)),
            "map" => Type::map(
                types.next().unwrap_or(Type::Dyn),
                types.next().unwrap_or(Type::Dyn),
            ),
            "type" => Type::Meta(Box::new(types.next().unwrap_or(Type::Dyn))),
            _ => Type::optional(types.next().unwrap_or(Type::Dyn)),
        };
        return (t, n);
    }
    let t = match text {
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "null" => Type::Null,
        "duration" => Type::Duration,
        "timestamp" => Type::Timestamp,
        "Quantity" => Type::Opaque(opaque::QUANTITY, vec![]),
        "URL" => Type::Opaque(opaque::URL, vec![]),
        "IP" => Type::Opaque(opaque::IP, vec![]),
        "CIDR" => Type::Opaque(opaque::CIDR, vec![]),
        "Semver" => Type::Opaque(opaque::SEMVER, vec![]),
        "Format" => Type::Opaque(opaque::FORMAT, vec![]),
        "Authorizer" => Type::Opaque(opaque::AUTHORIZER, vec![]),
        "PathCheck" => Type::Opaque(opaque::PATH_CHECK, vec![]),
        "GroupCheck" => Type::Opaque(opaque::GROUP_CHECK, vec![]),
        "ResourceCheck" => Type::Opaque(opaque::RESOURCE_CHECK, vec![]),
        "Decision" => Type::Opaque(opaque::DECISION, vec![]),
        _ => Type::Dyn,
    };
    (t, 0)
}

fn split_top(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(&text[start..]);
    }
    out
}

fn parse(id: &'static str, member: bool, sig: &str) -> Overload {
    let (args, result) = sig.split_once("->").unwrap_or((sig, "dyn"));
    let args = split_top(args)
        .into_iter()
        .map(|a| parse_type(a).0)
        .collect();
    let (result, _) = parse_type(result);
    Overload {
        id,
        member,
        args,
        result,
    }
}

/// Every overload by function name.
pub fn table() -> &'static HashMap<String, Vec<Overload>> {
    static TABLE: OnceLock<HashMap<String, Vec<Overload>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t: HashMap<String, Vec<Overload>> = HashMap::new();
        for (f, id, member, sig) in STANDARD {
            t.entry(f.to_string())
                .or_default()
                .push(parse(id, *member, sig));
        }
        for (f, id, sig) in ordering_rows() {
            let id: &'static str = Box::leak(id.into_boxed_str());
            t.entry(f).or_default().push(parse(id, false, &sig));
        }
        for (f, id, sig) in list_rows() {
            let id: &'static str = Box::leak(id.into_boxed_str());
            t.entry(f).or_default().push(parse(id, true, &sig));
        }
        t
    })
}
