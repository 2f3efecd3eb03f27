//! CronJob schedules, parsed as the real server parses them (the standard five-field cron
//! syntax of `robfig/cron` with its descriptors), with that parser's error messages.

struct Field {
    min: u32,
    max: u32,
    names: &'static [(&'static str, u32)],
}

const MONTHS: &[(&str, u32)] = &[
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("may", 5),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];
const DAYS: &[(&str, u32)] = &[
    ("sun", 0),
    ("mon", 1),
    ("tue", 2),
    ("wed", 3),
    ("thu", 4),
    ("fri", 5),
    ("sat", 6),
];
const FIELDS: [Field; 5] = [
    Field {
        min: 0,
        max: 59,
        names: &[],
    },
    Field {
        min: 0,
        max: 23,
        names: &[],
    },
    Field {
        min: 1,
        max: 31,
        names: &[],
    },
    Field {
        min: 1,
        max: 12,
        names: MONTHS,
    },
    Field {
        min: 0,
        max: 6,
        names: DAYS,
    },
];
const DESCRIPTORS: &[&str] = &[
    "@yearly",
    "@annually",
    "@monthly",
    "@weekly",
    "@daily",
    "@midnight",
    "@hourly",
];

/// Go's `strconv.Atoi`, with its error text.
fn atoi(expr: &str) -> Result<i64, String> {
    let digits = expr.strip_prefix(['+', '-']).unwrap_or(expr);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "failed to parse int from {expr}: strconv.Atoi: parsing {expr:?}: invalid syntax"
        ));
    }
    expr.parse::<i64>().map_err(|_| {
        format!(
            "failed to parse int from {expr}: strconv.Atoi: parsing {expr:?}: value out of range"
        )
    })
}

fn number(expr: &str) -> Result<u32, String> {
    let n = atoi(expr)?;
    if n < 0 {
        return Err(format!("negative number ({n}) not allowed: {expr}"));
    }
    u32::try_from(n).map_err(|_| format!("end of range ({n}) above maximum: {expr}"))
}

fn number_or_name(expr: &str, field: &Field) -> Result<u32, String> {
    let lower = expr.to_ascii_lowercase();
    match field.names.iter().find(|(n, _)| *n == lower) {
        Some((_, v)) => Ok(*v),
        None => number(expr),
    }
}

fn range(expr: &str, field: &Field) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let (start, mut end) = if matches!(low_and_high[0], "*" | "?") {
        (field.min, field.max)
    } else {
        let start = number_or_name(low_and_high[0], field)?;
        let end = match low_and_high.len() {
            1 => start,
            2 => number_or_name(low_and_high[1], field)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        (start, end)
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = number(range_and_step[1])?;
            if low_and_high.len() == 1 {
                end = field.max;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < field.min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            field.min
        ));
    }
    if end > field.max {
        return Err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            field.max
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(())
}

/// Why the real server's cron parser refuses `spec`; `None` when it accepts it.
pub fn schedule_error(spec: &str) -> Option<String> {
    if spec.is_empty() {
        return Some("empty spec string".into());
    }
    let mut spec = spec;
    for prefix in ["TZ=", "CRON_TZ="] {
        if let Some(rest) = spec.strip_prefix(prefix) {
            let (_, after) = rest.split_once(' ').unwrap_or((rest, ""));
            spec = after.trim();
        }
    }
    if spec.starts_with('@') {
        if DESCRIPTORS.contains(&spec) || spec.starts_with("@every ") {
            return None;
        }
        return Some(format!("unrecognized descriptor: {spec}"));
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Some(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    for (expr, field) in fields.iter().zip(FIELDS.iter()) {
        for part in expr.split(',') {
            if let Err(e) = range(part, field) {
                return Some(e);
            }
        }
    }
    None
}

/// Where Go's `time.LoadLocation` looks for a time zone first, in this order, before the
/// copy of the IANA database embedded in kube-apiserver (here chrono-tz's, the same names).
const ZONE_SOURCES: &[&str] = &[
    "/usr/share/zoneinfo",
    "/usr/share/lib/zoneinfo",
    "/usr/lib/locale/TZ",
    "/etc/zoneinfo",
];

/// Whether `name` is a component of a time zone name the real server accepts (IANA's
/// naming rules, digits and `+` tolerated for legacy names).
fn zone_part(part: &str) -> bool {
    (1..=14).contains(&part.len())
        && part != "."
        && part != ".."
        && !part.starts_with('-')
        && part
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_' | b'+'))
}

/// Go's text of a file system error other than "not found" (`syscall.Errno`'s).
fn errno_text(error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(21) => "is a directory".into(),
        Some(20) => "not a directory".into(),
        Some(13) => "permission denied".into(),
        Some(40) => "too many levels of symbolic links".into(),
        _ => error.to_string(),
    }
}

/// `time.LoadLocation(name)`'s error, if it fails: the system's zone files first (a file
/// that is not TZif data, or a directory, is the first error kept), then the embedded IANA
/// database, else `unknown time zone`.
fn load_location(name: &str) -> Option<String> {
    if name.is_empty() || name == "UTC" || name == "Local" {
        return None;
    }
    let mut first = None;
    for dir in ZONE_SOURCES {
        match std::fs::read(std::path::Path::new(dir).join(name)) {
            Ok(data) if data.starts_with(b"TZif") => return None,
            Ok(_) => {
                first.get_or_insert_with(|| "malformed time zone information".to_string());
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                first.get_or_insert_with(|| errno_text(&e));
            }
        }
    }
    if name.parse::<chrono_tz::Tz>().is_ok() {
        return None;
    }
    Some(first.unwrap_or_else(|| format!("unknown time zone {name}")))
}

/// Why a CronJob's `timeZone` is refused (`validateTimeZone`), every reason.
pub fn time_zone_error(zone: &str) -> Vec<String> {
    if zone.is_empty() {
        return vec!["timeZone must be nil or non-empty string".into()];
    }
    if !zone.split('/').all(zone_part) {
        return vec![format!("unknown time zone {zone}")];
    }
    let mut out = Vec::new();
    if zone.eq_ignore_ascii_case("Local") {
        out.push(
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
                .into(),
        );
    }
    out.extend(load_location(zone));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_zones() {
        assert!(time_zone_error("UTC").is_empty());
        assert_eq!(time_zone_error("a//b"), ["unknown time zone a//b"]);
        assert_eq!(time_zone_error("").len(), 1);
        assert_eq!(time_zone_error("Local").len(), 1);
        assert_eq!(
            time_zone_error("local"),
            [
                "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
                "unknown time zone local"
            ]
        );
    }

    #[test]
    fn time_zones_come_from_the_iana_database_without_system_files() {
        // Names the embedded database knows, whatever this machine has.
        for zone in [
            "Europe/Paris",
            "US/Eastern",
            "Etc/GMT+5",
            "America/Ciudad_Juarez",
        ] {
            assert_eq!(load_location(zone), None, "{zone}");
        }
        assert_eq!(
            time_zone_error("Mars/Olympus"),
            ["unknown time zone Mars/Olympus"]
        );
        assert_eq!(
            time_zone_error("europe/paris"),
            ["unknown time zone europe/paris"]
        );
    }

    #[test]
    fn system_zone_files_that_are_not_zones() {
        let root = std::path::Path::new(ZONE_SOURCES[0]);
        if root.join("zone.tab").is_file() {
            assert_eq!(
                load_location("zone.tab").as_deref(),
                Some("malformed time zone information")
            );
        }
        if root.join("Europe").is_dir() {
            assert_eq!(load_location("Europe").as_deref(), Some("is a directory"));
        }
    }

    #[test]
    fn schedules() {
        assert_eq!(schedule_error("*/5 * * * *"), None);
        assert_eq!(schedule_error("0 0 1 jan mon-fri"), None);
        assert_eq!(schedule_error("@daily"), None);
        assert_eq!(
            schedule_error("every day").unwrap(),
            "expected exactly 5 fields, found 2: [every day]"
        );
        assert_eq!(
            schedule_error("61 * * * *").unwrap(),
            "end of range (61) above maximum (59): 61"
        );
        assert_eq!(
            schedule_error("x * * * *").unwrap(),
            "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"
        );
    }
}
