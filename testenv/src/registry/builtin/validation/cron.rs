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

/// Where the IANA time zone database is read from, as Go's `time.LoadLocation` reads it
/// first (kube-apiserver also embeds a copy, which serves when the system has none).
const ZONEINFO: &str = "/usr/share/zoneinfo";

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

/// Whether the time zone database knows `name`. Without a database on this machine every
/// well-formed name is taken as known.
fn zone_known(name: &str) -> bool {
    if name == "UTC" || name == "Local" {
        return true;
    }
    let root = std::path::Path::new(ZONEINFO);
    if !root.is_dir() {
        return true;
    }
    std::fs::read(root.join(name)).is_ok_and(|data| data.starts_with(b"TZif"))
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
    if !zone_known(zone) {
        out.push(format!("unknown time zone {zone}"));
    }
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
        if std::path::Path::new(ZONEINFO).is_dir() {
            assert!(time_zone_error("Europe/Paris").is_empty());
            assert_eq!(
                time_zone_error("Mars/Olympus"),
                ["unknown time zone Mars/Olympus"]
            );
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
