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

#[cfg(test)]
mod tests {
    use super::Quantity;

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
}
