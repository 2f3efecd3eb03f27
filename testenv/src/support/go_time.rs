//! Go's `time.Parse` for the two layouts Kubernetes decodes timestamps with, with its error
//! messages: `metav1.Time` parses RFC 3339 (`2006-01-02T15:04:05Z07:00`, fractional seconds
//! accepted and dropped), `metav1.MicroTime` RFC 3339 with exactly six fractional digits
//! (`2006-01-02T15:04:05.000000Z07:00`). Both are written back in UTC, Time to the second
//! and MicroTime to the microsecond, as their `MarshalJSON` writes them.

use crate::support::go_quote::go_quote;
use chrono::{DateTime, FixedOffset, NaiveDate, SecondsFormat, TimeZone, Utc};

/// Which Kubernetes time type a value decodes into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `metav1.Time`: seconds.
    Seconds,
    /// `metav1.MicroTime`: microseconds, exactly six digits on input.
    Micros,
}

impl Precision {
    /// The Go layout of the type.
    fn layout(self) -> &'static str {
        match self {
            Precision::Seconds => "2006-01-02T15:04:05Z07:00",
            Precision::Micros => "2006-01-02T15:04:05.000000Z07:00",
        }
    }
}

/// The layout's elements, in order: literals and Go's standard chunks.
#[derive(Debug, Clone, Copy)]
enum Chunk {
    Literal(&'static str),
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Micros,
    Zone,
}

impl Chunk {
    /// The chunk as the layout writes it (Go's `ParseError.LayoutElem`).
    fn text(self) -> &'static str {
        match self {
            Chunk::Literal(s) => s,
            Chunk::Year => "2006",
            Chunk::Month => "01",
            Chunk::Day => "02",
            Chunk::Hour => "15",
            Chunk::Minute => "04",
            Chunk::Second => "05",
            Chunk::Micros => ".000000",
            Chunk::Zone => "Z07:00",
        }
    }
}

fn chunks(precision: Precision) -> Vec<Chunk> {
    use Chunk::*;
    let mut out = vec![
        Year,
        Literal("-"),
        Month,
        Literal("-"),
        Day,
        Literal("T"),
        Hour,
        Literal(":"),
        Minute,
        Literal(":"),
        Second,
    ];
    if precision == Precision::Micros {
        out.push(Micros);
    }
    out.push(Zone);
    out
}

fn digit(s: &[u8], i: usize) -> Option<u32> {
    s.get(i)
        .filter(|b| b.is_ascii_digit())
        .map(|b| u32::from(b - b'0'))
}

/// Go's `getnum`: one or two digits (exactly two when `fixed`).
fn number(s: &[u8], fixed: bool) -> Option<(u32, usize)> {
    let first = digit(s, 0)?;
    match digit(s, 1) {
        Some(second) => Some((first * 10 + second, 2)),
        None if fixed => None,
        None => Some((first, 1)),
    }
}

/// Go's `parseNanoseconds` over `s[..n]` (`s[0]` a period or comma).
fn nanoseconds(s: &[u8], n: usize) -> Option<u32> {
    if !matches!(s.first(), Some(b'.' | b',')) {
        return None;
    }
    let n = n.min(10);
    let digits = s.get(1..n)?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut ns: u32 = 0;
    for i in 0..9 {
        ns = ns * 10 + digits.get(i).map_or(0, |d| u32::from(d - b'0'));
    }
    Some(ns)
}

/// Why a value is not a time of the layout, worded as Go's `time.ParseError`.
fn error(value: &str, precision: Precision, rest: &str, chunk: Chunk) -> String {
    format!(
        "parsing time {} as {}: cannot parse {} as {}",
        go_quote(value),
        go_quote(precision.layout()),
        go_quote(rest),
        go_quote(chunk.text())
    )
}

fn out_of_range(value: &str, what: &str) -> String {
    format!("parsing time {}: {what} out of range", go_quote(value))
}

/// The fields Go's parser reads.
#[derive(Default)]
struct Parsed {
    year: i32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nanos: u32,
    offset_seconds: i32,
}

/// Parses `value` as Go's `time.Parse` does with the layout of `precision`; the error is Go's
/// message (what the real server puts after `cannot be handled as a <Kind>: `).
pub fn parse(value: &str, precision: Precision) -> Result<DateTime<FixedOffset>, String> {
    let bytes = value.as_bytes();
    let mut at = 0;
    let mut p = Parsed::default();
    let all = chunks(precision);
    for (i, &chunk) in all.iter().enumerate() {
        let rest = &bytes[at..];
        let held = &value[at..];
        let fail = || error(value, precision, held, chunk);
        match chunk {
            Chunk::Literal(lit) => {
                if !rest.starts_with(lit.as_bytes()) {
                    return Err(fail());
                }
                at += lit.len();
            }
            Chunk::Year => {
                if rest.len() < 4 || digit(rest, 0).is_none() {
                    return Err(fail());
                }
                p.year = value[at..at + 4].parse().map_err(|_| fail())?;
                at += 4;
            }
            Chunk::Month | Chunk::Day | Chunk::Minute | Chunk::Second | Chunk::Hour => {
                let (n, len) = number(rest, !matches!(chunk, Chunk::Hour)).ok_or_else(fail)?;
                at += len;
                let (field, limit_ok, name) = match chunk {
                    Chunk::Month => (&mut p.month, (1..=12).contains(&n), "month"),
                    // Any day of one or two digits: checked against the month at the end.
                    Chunk::Day => (&mut p.day, true, "day"),
                    Chunk::Hour => (&mut p.hour, n < 24, "hour"),
                    Chunk::Minute => (&mut p.minute, n < 60, "minute"),
                    _ => (&mut p.second, n < 60, "second"),
                };
                *field = n;
                if !limit_ok {
                    return Err(out_of_range(value, name));
                }
                // A fraction the layout does not ask for is read after the seconds.
                let rest = &bytes[at..];
                let fraction_next = matches!(all.get(i + 1), Some(Chunk::Micros));
                if matches!(chunk, Chunk::Second)
                    && !fraction_next
                    && rest.len() >= 2
                    && matches!(rest[0], b'.' | b',')
                    && rest[1].is_ascii_digit()
                {
                    let n = 2 + rest[2..].iter().take_while(|b| b.is_ascii_digit()).count();
                    p.nanos = nanoseconds(rest, n).ok_or_else(fail)?;
                    at += n;
                }
            }
            Chunk::Micros => {
                if rest.len() < 7 {
                    return Err(fail());
                }
                p.nanos = nanoseconds(rest, 7).ok_or_else(fail)?;
                at += 7;
            }
            Chunk::Zone => {
                if rest.first() == Some(&b'Z') {
                    at += 1;
                    continue;
                }
                if rest.len() < 6 || rest[3] != b':' {
                    return Err(fail());
                }
                let hours = number(&rest[1..3], true).ok_or_else(fail)?.0;
                let minutes = number(&rest[4..6], true).ok_or_else(fail)?.0;
                let sign = match rest[0] {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return Err(fail()),
                };
                if hours > 24 {
                    return Err(out_of_range(value, "time zone offset hour"));
                }
                if minutes > 60 {
                    return Err(out_of_range(value, "time zone offset minute"));
                }
                p.offset_seconds = sign * (hours * 3600 + minutes * 60) as i32;
                at += 6;
            }
        }
    }
    if at < bytes.len() {
        return Err(format!(
            "parsing time {}: extra text: {}",
            go_quote(value),
            go_quote(&value[at..])
        ));
    }
    let date = NaiveDate::from_ymd_opt(p.year, p.month, p.day)
        .ok_or_else(|| out_of_range(value, "day"))?;
    let naive = date
        .and_hms_nano_opt(p.hour, p.minute, p.second, p.nanos)
        .ok_or_else(|| out_of_range(value, "second"))?;
    let zone = FixedOffset::east_opt(p.offset_seconds)
        .ok_or_else(|| out_of_range(value, "time zone offset hour"))?;
    zone.from_local_datetime(&naive)
        .single()
        .ok_or_else(|| out_of_range(value, "day"))
}

/// The value as the type's `MarshalJSON` writes it back: UTC, to the second (Time) or the
/// microsecond (MicroTime).
pub fn normalize(time: DateTime<FixedOffset>, precision: Precision) -> String {
    let utc = time.with_timezone(&Utc);
    match precision {
        Precision::Seconds => utc.to_rfc3339_opts(SecondsFormat::Secs, true),
        Precision::Micros => utc.to_rfc3339_opts(SecondsFormat::Micros, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micro(v: &str) -> Result<String, String> {
        parse(v, Precision::Micros).map(|t| normalize(t, Precision::Micros))
    }

    fn seconds(v: &str) -> Result<String, String> {
        parse(v, Precision::Seconds).map(|t| normalize(t, Precision::Seconds))
    }

    const MICRO: &str = "\"2006-01-02T15:04:05.000000Z07:00\"";

    #[test]
    fn micro_time_needs_exactly_six_digits_as_the_real_server_says() {
        // Messages recorded from kube-apiserver v1.34 (a Lease's spec.acquireTime).
        assert_eq!(
            micro("2026-01-01T00:00:00Z").unwrap_err(),
            format!(
                "parsing time \"2026-01-01T00:00:00Z\" as {MICRO}: cannot parse \"Z\" as \".000000\""
            )
        );
        assert_eq!(
            micro("2026-01-01T00:00:00.12345Z").unwrap_err(),
            format!(
                "parsing time \"2026-01-01T00:00:00.12345Z\" as {MICRO}: cannot parse \".12345Z\" as \".000000\""
            )
        );
        assert_eq!(
            micro("2026-01-01T00:00:00.1234567Z").unwrap_err(),
            format!(
                "parsing time \"2026-01-01T00:00:00.1234567Z\" as {MICRO}: cannot parse \"7Z\" as \"Z07:00\""
            )
        );
        assert_eq!(
            micro("2026-13-01T00:00:00.123456Z").unwrap_err(),
            "parsing time \"2026-13-01T00:00:00.123456Z\": month out of range"
        );
        assert_eq!(
            micro("yesterday").unwrap_err(),
            format!(
                "parsing time \"yesterday\" as {MICRO}: cannot parse \"yesterday\" as \"2006\""
            )
        );
        assert_eq!(
            micro("2026-01-01T00:00:00.123456+01:00").unwrap(),
            "2025-12-31T23:00:00.123456Z"
        );
    }

    #[test]
    fn time_accepts_a_fraction_and_writes_seconds_in_utc() {
        // Messages recorded from kubectl v1.34's decoder (the same Go code).
        assert_eq!(
            seconds("2026-01-01T00:00:00.5Z").unwrap(),
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(
            seconds("2026-01-01 00:00:00Z").unwrap_err(),
            "parsing time \"2026-01-01 00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" 00:00:00Z\" as \"T\""
        );
        assert_eq!(
            seconds("2026-01-01T25:00:00Z").unwrap_err(),
            "parsing time \"2026-01-01T25:00:00Z\": hour out of range"
        );
        assert_eq!(
            seconds("2026-02-30T00:00:00Z").unwrap_err(),
            "parsing time \"2026-02-30T00:00:00Z\": day out of range"
        );
        assert_eq!(
            seconds("2026-01-01T00:00:00Zjunk").unwrap_err(),
            "parsing time \"2026-01-01T00:00:00Zjunk\": extra text: \"junk\""
        );
    }
}
