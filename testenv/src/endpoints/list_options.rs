//! The `ListOptions` of a list or a watch, checked as the real server checks them before it
//! reads anything: `timeoutSeconds` and `limit` must be Go integers (a 400 with
//! `strconv.ParseInt`'s words), then the `resourceVersionMatch`/`sendInitialEvents`/`continue`
//! rules (a 422 `ListOptions.meta.k8s.io` error listing every rule that fails).

use crate::registry::schema::go_quote;
use crate::support::query::Query;
use crate::support::status::{ApiError, Cause};

/// `resourceVersionMatch=Exact`.
const EXACT: &str = "Exact";
/// `resourceVersionMatch=NotOlderThan`.
const NOT_OLDER_THAN: &str = "NotOlderThan";

/// The options of a list or watch request that decide how it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListOptions {
    /// `timeoutSeconds`, when given.
    pub timeout_seconds: Option<i64>,
    /// `limit` (0 when not given).
    pub limit: i64,
}

/// Reads and checks the options of a list (`watch` false) or a watch (`watch` true).
pub fn parse(query: &Query, watch: bool) -> Result<ListOptions, ApiError> {
    let timeout_seconds = int_param(query, "timeoutSeconds")?;
    let limit = int_param(query, "limit")?.unwrap_or(0);
    let rv = query.get("resourceVersion").unwrap_or_default();
    let mut matched = query.get("resourceVersionMatch").unwrap_or_default();
    let continued = !query.get("continue").unwrap_or_default().is_empty();
    // Any value counts as given (the real server keeps the pointer even when the value is
    // not a boolean).
    let mut send_initial = query
        .get("sendInitialEvents")
        .map(|v| v == "true" || v == "1");
    // The real server defaults a watch without these, from no resourceVersion (or `0`), to
    // `sendInitialEvents=true&resourceVersionMatch=NotOlderThan` before it checks them.
    if watch && send_initial.is_none() && matched.is_empty() && matches!(rv, "" | "0") {
        send_initial = Some(true);
        matched = NOT_OLDER_THAN;
    }
    let causes = if watch {
        watch_causes(matched, send_initial.is_some(), continued)
    } else {
        list_causes(matched, rv, send_initial.is_some(), continued)
    };
    if !causes.is_empty() {
        return Err(super::options::options_invalid("ListOptions", causes));
    }
    Ok(ListOptions {
        timeout_seconds,
        limit,
    })
}

/// An integer query parameter read as Go's `strconv.ParseInt` reads it (base 10, an
/// optional sign); a parameter given empty is an error, as on the real server.
fn int_param(query: &Query, key: &str) -> Result<Option<i64>, ApiError> {
    let Some(value) = query.get(key) else {
        return Ok(None);
    };
    let well_formed = {
        let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    let why = if !well_formed {
        "invalid syntax"
    } else {
        match value.parse::<i64>() {
            Ok(n) => return Ok(Some(n)),
            Err(_) => "value out of range",
        }
    };
    Err(ApiError::bad_request(format!(
        "strconv.ParseInt: parsing {}: {why}",
        go_quote(value)
    )))
}

/// The real server's 500 for a get or a watch at a resourceVersion that is not a number
/// (a list's is a 400, see `read`).
pub fn resource_version_not_a_number(rv: &str) -> ApiError {
    ApiError::without_reason(
        500,
        format!(
            "resourceVersion: Invalid value: {}: strconv.ParseUint: parsing {}: invalid syntax",
            go_quote(rv),
            go_quote(rv)
        ),
    )
}

fn forbidden(field: &str, message: &str) -> Cause {
    Cause {
        reason: "FieldValueForbidden".into(),
        message: format!("Forbidden: {message}"),
        field: field.into(),
    }
}

fn not_supported(value: &str, supported: &[&str]) -> Cause {
    let supported: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
    Cause {
        reason: "FieldValueNotSupported".into(),
        message: format!(
            "Unsupported value: {}: supported values: {}",
            go_quote(value),
            supported.join(", ")
        ),
        field: "resourceVersionMatch".into(),
    }
}

/// The rules of a list, in the real server's order.
fn list_causes(matched: &str, rv: &str, send_initial: bool, continued: bool) -> Vec<Cause> {
    let mut causes = Vec::new();
    if !matched.is_empty() {
        if rv.is_empty() {
            causes.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if continued {
            causes.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if matched != EXACT && matched != NOT_OLDER_THAN {
            causes.push(not_supported(matched, &[EXACT, NOT_OLDER_THAN, ""]));
        }
        if matched == EXACT && rv == "0" {
            causes.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if send_initial {
        causes.push(forbidden(
            "sendInitialEvents",
            "sendInitialEvents is forbidden for list",
        ));
    }
    causes
}

/// The rules of a watch, in the real server's order.
fn watch_causes(matched: &str, send_initial: bool, continued: bool) -> Vec<Cause> {
    let mut causes = Vec::new();
    if send_initial && matched != NOT_OLDER_THAN {
        causes.push(forbidden(
            "resourceVersionMatch",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    if !matched.is_empty() {
        if !send_initial {
            causes.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ));
        }
        if matched != NOT_OLDER_THAN {
            causes.push(not_supported(matched, &[NOT_OLDER_THAN]));
        }
        if continued {
            causes.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(raw: &str, watch: bool) -> String {
        match parse(&Query::parse(Some(raw)), watch) {
            Ok(_) => String::new(),
            Err(e) => e.message,
        }
    }

    #[test]
    fn numbers_are_read_as_go_reads_them() {
        assert_eq!(
            messages("limit=abc", false),
            "strconv.ParseInt: parsing \"abc\": invalid syntax"
        );
        assert_eq!(
            messages("timeoutSeconds=", true),
            "strconv.ParseInt: parsing \"\": invalid syntax"
        );
        assert_eq!(
            messages("limit=99999999999999999999", false),
            "strconv.ParseInt: parsing \"99999999999999999999\": value out of range"
        );
        assert_eq!(messages("limit=-1&timeoutSeconds=-5", false), "");
    }

    #[test]
    fn every_failing_rule_is_listed() {
        assert_eq!(
            messages("resourceVersionMatch=Foo", false),
            "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: \"Foo\": supported values: \"Exact\", \"NotOlderThan\", \"\"]"
        );
        assert_eq!(
            messages("continue=abc", true),
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"
        );
        assert_eq!(messages("continue=abc&resourceVersion=5", true), "");
    }
}
