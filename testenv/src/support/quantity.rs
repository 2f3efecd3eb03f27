//! Resource quantities (`500m`, `1Gi`, `2`) held exactly, added, compared and written in
//! the canonical form the real server writes (`1000m` is `1`, `2048Mi` is `2Gi`), for the
//! admission plugins that sum and compare resources (LimitRanger, ResourceQuota) and for
//! the CEL quantity library of the registry's schemas, which parse with [`Quantity::try_parse`].

use std::fmt;

const NANO: i128 = 1_000_000_000;

/// A quantity in nano-units, with the suffix family it was written in (binary `Ki`..`Ei`
/// or decimal), which decides how it is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Quantity {
    /// The value in nano-units.
    pub nanos: i128,
    /// Whether it was written with a binary suffix.
    pub binary: bool,
}

/// Why a quantity does not parse, as the real server's CEL library words it.
pub const FORMAT_ERROR: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

impl Quantity {
    /// Parses a quantity string, surrounding whitespace allowed; `None` when it does not
    /// parse.
    pub fn parse(s: &str) -> Option<Quantity> {
        Quantity::try_parse(s.trim()).ok()
    }

    /// Parses a quantity string exactly (`500m`, `1.5Gi`, `1e3`, `-2k`), or says why not:
    /// the parser of every user of quantities (admission plugins, the CEL library).
    pub fn try_parse(s: &str) -> Result<Quantity, String> {
        let (sign, rest) = match s.as_bytes().first() {
            Some(b'-') => (-1, &s[1..]),
            Some(b'+') => (1, &s[1..]),
            _ => (1, s),
        };
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, suffix) = rest.split_at(end);
        let (int, frac) = number.split_once('.').unwrap_or((number, ""));
        if (int.is_empty() && frac.is_empty()) || frac.contains('.') {
            return Err(FORMAT_ERROR.into());
        }
        // Leading zeros are dropped first so that they cannot overflow the parse.
        let digits = format!("{int}{frac}");
        let significant = digits.trim_start_matches('0');
        let digits: i128 = if significant.is_empty() {
            0
        } else {
            significant.parse().map_err(|_| FORMAT_ERROR.to_string())?
        };
        let (multiplier, binary): (i128, bool) = match suffix {
            "" => (NANO, false),
            "n" => (1, false),
            "u" => (1_000, false),
            "m" => (1_000_000, false),
            "k" => (1_000 * NANO, false),
            "M" => (1_000_000 * NANO, false),
            "G" => (1_000_000_000 * NANO, false),
            "T" => (1_000_000_000_000 * NANO, false),
            "P" => (1_000_000_000_000_000 * NANO, false),
            "E" => (1_000_000_000_000_000_000 * NANO, false),
            "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
                let power = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
                    .iter()
                    .position(|p| *p == suffix)
                    .map_or(0, |p| p as u32 + 1);
                (1024i128.pow(power) * NANO, true)
            }
            e if e.starts_with(['e', 'E']) => {
                let e: i32 = e[1..].parse().map_err(|_| FORMAT_ERROR.to_string())?;
                if !(-9..=18).contains(&e) {
                    return Err("quantity exponent out of the supported range".into());
                }
                (10i128.pow((e + 9) as u32), false)
            }
            _ => return Err(FORMAT_ERROR.into()),
        };
        let scaled = digits.checked_mul(multiplier).ok_or("quantity too large")?;
        let divisor = 10i128
            .checked_pow(frac.len() as u32)
            .ok_or("quantity has too many digits")?;
        // Below a nano-unit the real server rounds up.
        let nanos = (scaled + divisor - 1) / divisor;
        Ok(Quantity {
            nanos: sign * nanos,
            binary,
        })
    }

    /// Reads a quantity from a JSON value (a string or a number).
    pub fn from_json(v: &serde_json::Value) -> Option<Quantity> {
        match v {
            serde_json::Value::String(s) => Quantity::parse(s),
            serde_json::Value::Number(n) => Quantity::parse(&n.to_string()),
            _ => None,
        }
    }

    /// The sum, written in the family of `self` (as Go's `Quantity.Add` keeps the
    /// receiver's format), or of `other` when `self` is zero.
    pub fn add(self, other: Quantity) -> Quantity {
        Quantity {
            nanos: self.nanos + other.nanos,
            binary: if self.nanos == 0 {
                other.binary
            } else {
                self.binary
            },
        }
    }
}

impl fmt::Display for Quantity {
    /// The canonical form: the largest suffix that keeps the number whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.nanos;
        if n == 0 {
            return f.write_str("0");
        }
        // Binary only for whole values of at least 1024 (as the real server).
        if self.binary && n % NANO == 0 && n.abs() >= 1024 * NANO {
            let mut value = n / NANO;
            let mut power = 0;
            while value % 1024 == 0 && power < 6 {
                value /= 1024;
                power += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power];
            return write!(f, "{value}{suffix}");
        }
        let suffixes = ["n", "u", "m", "", "k", "M", "G", "T", "P", "E"];
        let mut value = n;
        let mut index = 0;
        while index + 1 < suffixes.len() && value % 1000 == 0 {
            value /= 1000;
            index += 1;
        }
        write!(f, "{value}{}", suffixes[index])
    }
}

/// `text` (a quantity Go's decoder accepted, [`go_parse_error`] being `None`) as the real
/// server writes it back. Go keeps the text as sent (trimmed) when its fast parse finds it
/// canonical already (see [`kept_scale`]); otherwise it writes `Quantity.String()`'s
/// canonical form, in the format the text was written in (binary `Ki`..`Ei` while whole and
/// at least 1024 in magnitude, an `e` exponent, or decimal SI). With `milli` (the defaulting
/// of a core `ResourceList`, `SetDefaults_ResourceList`) a value finer than a milli-unit is
/// rounded up to one, away from zero, and written canonically. `1000m` is `1`, `1024Mi` is
/// `1Gi`, `0.5` is `500m`, ` 1Gi ` is `1Gi`, `.` is `0`, `1.` and `+1` stay. `None` when
/// the value is beyond what is held here (nano-units in an `i128`): it is then kept.
pub fn canonical(text: &str, milli: bool) -> Option<String> {
    let text = text.trim();
    if text == "0" {
        return Some(text.into());
    }
    let scale = kept_scale(text);
    if let Some(scale) = scale
        && (!milli || scale >= -3)
    {
        return Some(text.into());
    }
    let suffix_at = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+')))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(suffix_at);
    let mut quantity = if number.bytes().any(|b| b.is_ascii_digit()) {
        Quantity::try_parse(text).ok()?
    } else {
        // Go reads a number part without digits (`.`, `-`, `m`) as zero.
        Quantity::default()
    };
    if milli {
        const MILLI: i128 = 1_000_000;
        let n = quantity.nanos;
        // inf.RoundUp: away from zero.
        quantity.nanos = n.signum() * ((n.abs() + MILLI - 1) / MILLI) * MILLI;
    }
    let exponent_format = suffix.len() > 1 && suffix.starts_with(['e', 'E']);
    if quantity.nanos == 0 || !exponent_format {
        return Some(quantity.to_string());
    }
    // DecimalExponent: the mantissa without trailing zeros, the exponent a multiple of 3.
    let mut mantissa = quantity.nanos;
    let mut exponent: i32 = -9;
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    while exponent.rem_euclid(3) != 0 {
        mantissa *= 10;
        exponent -= 1;
    }
    Some(if exponent == 0 {
        mantissa.to_string()
    } else {
        format!("{mantissa}e{exponent}")
    })
}

/// When Go's `ParseQuantity` keeps `text` as its string (its fast path, for a text it takes
/// as canonical), the decimal scale of the value; `None` when it writes the canonical form
/// instead. Decimal and exponent forms are kept when their digits (without leading zeros,
/// the fraction's included) neither start with `0` nor end in `000` and the scale is a
/// multiple of 3; binary ones when they have no fraction and their digits are not a
/// multiple of 8.
fn kept_scale(text: &str) -> Option<i32> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let stripped = unsigned.trim_start_matches('0');
    if stripped.is_empty() {
        return None;
    }
    let end = stripped
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(stripped.len());
    let (num, rest) = stripped.split_at(end);
    let num = if num.is_empty() { "0" } else { num };
    let (denom, suffix) = match rest.strip_prefix('.') {
        Some(after) => {
            let end = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            after.split_at(end)
        }
        None => ("", rest),
    };
    let digits = (num.len() + denom.len()) as i32;
    let shifted = format!("{num}{denom}");
    let value: i64 = shifted.parse().ok()?;
    let binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
        .iter()
        .position(|p| *p == suffix)
        .map(|p| 10 * (p as i32 + 1));
    if let Some(exponent) = binary {
        // Only whole binary numbers take the fast path.
        let precision = 15 - num.len() as i32 - (exponent as f32 * 3.0 / 10.0) as i32 - 1;
        if !denom.is_empty() || precision < 0 {
            return None;
        }
        value.checked_mul(1i64 << exponent)?;
        return (value & 0x07 != 0).then_some(0);
    }
    let exponent = match suffix {
        "n" => -9,
        "u" => -6,
        "m" => -3,
        "" => 0,
        "k" => 3,
        "M" => 6,
        "G" => 9,
        "T" => 12,
        "P" => 15,
        "E" => 18,
        e => e.get(1..)?.parse::<i32>().ok()?,
    };
    let scale = exponent - denom.len() as i32;
    if 18 - digits < 0 || scale < -9 {
        return None;
    }
    let canonical = scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0');
    canonical.then_some(scale)
}

/// Why Go's `resource.ParseQuantity` refuses `text`, the error a built-in object's body
/// gets when one of its quantities does not decode (`None` when it parses). Only the
/// syntax matters here, not the value: Go keeps any size, so this is not
/// [`Quantity::try_parse`], which holds values in nano-units. Go's scanner takes a sign,
/// digits with at most one `.` (`.`, `1.` and `-` all parse, as zero or one), then a
/// suffix of the letters `eEinumkKMGTP` with an optional signed exponent, which must be one
/// of the known suffixes (`Ki`..`Ei`, `n`, `u`, `m`, `k`..`E`) or `e`/`E` and an integer.
pub fn go_parse_error(text: &str) -> Option<&'static str> {
    const SUFFIX_ERROR: &str = "unable to parse quantity's suffix";
    if text.is_empty() {
        return Some(FORMAT_ERROR);
    }
    let bytes = text.as_bytes();
    let mut pos = usize::from(matches!(bytes[0], b'-' | b'+'));
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(bytes.len(), |n| from + n)
    };
    pos = digits(pos);
    if bytes.get(pos) == Some(&b'.') {
        pos = digits(pos + 1);
    }
    let suffix_start = pos;
    let letters = bytes[pos..]
        .iter()
        .position(|b| !b"eEinumkKMGTP".contains(b))
        .map_or(bytes.len(), |n| pos + n);
    pos = letters;
    if matches!(bytes.get(pos), Some(b'-' | b'+')) {
        pos += 1;
    }
    if digits(pos) != bytes.len() {
        return Some(FORMAT_ERROR);
    }
    let suffix = &text[suffix_start..];
    let known = matches!(
        suffix,
        "" | "n"
            | "u"
            | "m"
            | "k"
            | "M"
            | "G"
            | "T"
            | "P"
            | "E"
            | "Ki"
            | "Mi"
            | "Gi"
            | "Ti"
            | "Pi"
            | "Ei"
    );
    let exponent =
        suffix.len() > 1 && suffix.starts_with(['e', 'E']) && suffix[1..].parse::<i64>().is_ok();
    (!known && !exponent).then_some(SUFFIX_ERROR)
}

#[cfg(test)]
mod tests {
    use super::{FORMAT_ERROR, Quantity, go_parse_error};

    fn canonical(s: &str) -> String {
        Quantity::parse(s).unwrap().to_string()
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(canonical("1000m"), "1");
        assert_eq!(canonical("600m"), "600m");
        assert_eq!(canonical("2048Mi"), "2Gi");
        assert_eq!(canonical("100Mi"), "100Mi");
        assert_eq!(canonical("1.5"), "1500m");
        assert_eq!(canonical("0"), "0");
        let sum = Quantity::parse("600m")
            .unwrap()
            .add(Quantity::parse("400m").unwrap());
        assert_eq!(sum.to_string(), "1");
        assert!(Quantity::parse("abc").is_none());
    }

    #[test]
    fn go_refuses_what_its_scanner_and_suffixes_refuse() {
        for fine in [
            "1", "500m", "1.5Gi", "-2k", "+3", ".", "1.", "-", "m", "1e3", "1E+3", "2e-3", "0",
        ] {
            assert_eq!(go_parse_error(fine), None, "{fine}");
        }
        for (bad, why) in [
            ("", FORMAT_ERROR),
            ("Bad_Value!", FORMAT_ERROR),
            ("1 Gi", FORMAT_ERROR),
            ("1Gi3x", FORMAT_ERROR),
            ("1..5", FORMAT_ERROR),
            ("1i", "unable to parse quantity's suffix"),
            ("1e", "unable to parse quantity's suffix"),
            ("1mi", "unable to parse quantity's suffix"),
            ("1KK", "unable to parse quantity's suffix"),
        ] {
            assert_eq!(go_parse_error(bad), Some(why), "{bad:?}");
        }
    }

    #[test]
    fn written_back_in_go_s_canonical_form() {
        for (sent, milli, written) in [
            ("1000m", true, "1"),
            ("0.5", true, "500m"),
            ("1.5", true, "1500m"),
            ("2", true, "2"),
            ("2000000k", true, "2G"),
            ("1024Mi", true, "1Gi"),
            ("1.5Gi", true, "1536Mi"),
            ("1000Ki", true, "1000Ki"),
            ("512Ki", true, "512Ki"),
            ("0.1m", true, "1m"),
            ("0.1m", false, "100u"),
            ("-0.1m", true, "-1m"),
            ("-0", true, "0"),
            (".", true, "0"),
            (" 1Gi ", true, "1Gi"),
            ("1e3", true, "1e3"),
            ("2E-3", true, "2E-3"),
            ("1.", true, "1."),
            ("+1", true, "+1"),
            ("+5m", true, "+5m"),
            ("1Gi", true, "1Gi"),
            ("5n", true, "1m"),
            ("5n", false, "5n"),
            ("1.5e3", true, "1500"),
            ("12e4", true, "120e3"),
            ("100", false, "100"),
            ("1000", false, "1k"),
        ] {
            assert_eq!(
                super::canonical(sent, milli).as_deref(),
                Some(written),
                "{sent} {milli}"
            );
        }
    }
}
