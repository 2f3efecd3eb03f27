//! HTTP dates as Go's `net/http` writes them (`Last-Modified`) and reads them
//! (`If-Modified-Since`, `If-Unmodified-Since`, `If-Range`): whole seconds, in GMT.

use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, NaiveDateTime, Utc};

/// The form every date is written in (RFC 9110's IMF-fixdate): `Sat, 28 Nov 2026 02:21:58 GMT`.
const WRITTEN: &str = "%a, %d %b %Y %H:%M:%S GMT";

/// The forms a date is read in: IMF-fixdate, the obsolete RFC 850 form and C's `asctime`.
const READ: [&str; 3] = [WRITTEN, "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"];

/// `t` as an HTTP date (the fraction of a second dropped).
pub fn format(t: SystemTime) -> String {
    DateTime::<Utc>::from(t).format(WRITTEN).to_string()
}

/// The whole seconds since the Unix epoch of an HTTP date in any of the forms HTTP allows;
/// `None` for anything else (a request header that does not parse is ignored).
pub fn parse(value: &str) -> Option<i64> {
    READ.iter()
        .find_map(|form| NaiveDateTime::parse_from_str(value, form).ok())
        .map(|t| t.and_utc().timestamp())
}

/// The whole seconds since the Unix epoch of `t` (what a date written for it says).
pub fn seconds(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn writes_imf_fixdate_in_gmt_without_the_fraction() {
        let t = UNIX_EPOCH + Duration::from_millis(1_795_832_518_900);
        assert_eq!(format(t), "Sat, 28 Nov 2026 02:21:58 GMT");
        assert_eq!(seconds(t), 1_795_832_518);
    }

    #[test]
    fn reads_the_three_forms_and_nothing_else() {
        for form in [
            "Sat, 28 Nov 2026 02:21:58 GMT",
            "Saturday, 28-Nov-26 02:21:58 GMT",
            "Sat Nov 28 02:21:58 2026",
        ] {
            assert_eq!(parse(form), Some(1_795_832_518), "{form}");
        }
        assert_eq!(parse("Thu Jan  1 00:00:09 1970"), Some(9));
        assert_eq!(parse("garbage"), None);
        assert_eq!(parse("2026-11-28T02:21:58Z"), None);
    }
}
