//! What yaml.v2's reader makes of the JSON it is given (a raw NEL folded; numbers typed as
//! ints or float64s and written back in Go's form) and the order its encoder writes map keys
//! in.

use serde_json::{Number, Value};

/// `value` with its strings (keys too) as yaml.v2's scanner reads them from a double-quoted
/// scalar holding a raw NEL (U+0085, the only line break Go's JSON encoder leaves unescaped):
/// a line break, folded with the spaces around it into one space, or into `n - 1` line feeds
/// for `n` breaks in a row.
pub(super) fn fold_next_lines(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(fold(&s)),
        Value::Array(items) => Value::Array(items.into_iter().map(fold_next_lines).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (fold(&k), fold_next_lines(v)))
                .collect(),
        ),
        other => other,
    }
}

pub(super) fn fold(s: &str) -> String {
    if !s.contains('\u{85}') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c != ' ' && c != '\u{85}' {
            out.push(c);
            chars.next();
            continue;
        }
        let (mut spaces, mut breaks) = (String::new(), 0usize);
        while let Some(&c) = chars.peek() {
            match c {
                ' ' if breaks == 0 => spaces.push(' '),
                ' ' => {}
                '\u{85}' => breaks += 1,
                _ => break,
            }
            chars.next();
        }
        match breaks {
            0 => out.push_str(&spaces),
            1 => out.push(' '),
            n => out.push_str(&"\n".repeat(n - 1)),
        }
    }
    out
}

/// A JSON number as yaml.v2 reads it (an int when `ParseInt` or `ParseUint` takes it, else a
/// float64) and writes it back.
pub(super) fn number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or_default();
    // Go writes negative zero `-0`, which yaml.v2 reads as the int 0.
    if f == 0.0 {
        return "0".into();
    }
    go_float_g(f)
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`: the shortest digits, in `%e` form when the exponent
/// is below -4 or at least 6 (the exponent with a sign and at least two digits).
pub(super) fn go_float_g(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let text = format!("{:e}", f.abs());
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exponent.parse().unwrap_or_default();
    let sign = if f < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{point}{rest}e{esign}{:02}", exp.abs());
    }
    let dp = exp + 1;
    let nd = digits.len() as i32;
    if dp <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-dp) as usize))
    } else if nd <= dp {
        format!("{sign}{digits}{}", "0".repeat((dp - nd) as usize))
    } else {
        let (whole, fraction) = digits.split_at(dp as usize);
        format!("{sign}{whole}.{fraction}")
    }
}

/// Whether `c` is in `class` (a one-character regex such as `\p{L}`).
fn in_class(class: &regex::Regex, c: char) -> bool {
    class.is_match(c.encode_utf8(&mut [0; 4]))
}

/// Go's `unicode.IsLetter`: the general category L.
fn is_letter(c: char) -> bool {
    static LETTER: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_class(
        LETTER.get_or_init(|| regex::Regex::new(r"\A\p{L}\z").expect("a valid class")),
        c,
    )
}

/// Go's `unicode.IsDigit`: the general category Nd.
fn is_digit(c: char) -> bool {
    static DIGIT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_class(
        DIGIT.get_or_init(|| regex::Regex::new(r"\A\p{Nd}\z").expect("a valid class")),
        c,
    )
}

/// A digit's value as Go's `keyList` reads it: the rune minus `'0'` (so not a decimal
/// digit's own value past ASCII).
fn digit_value(c: char) -> i64 {
    i64::from(c as u32) - i64::from(b'0')
}

/// `keyList.Less` for two string keys.
fn key_less(a: &str, b: &str) -> bool {
    let (ar, br): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let digit = is_digit;
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (is_letter(ar[i]), is_letter(br[i]));
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && digit(ar[j - 1]) {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(digit_value(ar[ai]));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(digit_value(br[bi]));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// The keys of a map in yaml.v2's order (a merge sort on [`key_less`], which never fails
/// whatever the order's quirks).
pub(super) fn sorted_keys(map: &serde_json::Map<String, Value>) -> Vec<&str> {
    let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
    merge_sort(&mut keys);
    keys
}

pub(super) fn merge_sort(keys: &mut Vec<&str>) {
    if keys.len() < 2 {
        return;
    }
    let mut right = keys.split_off(keys.len() / 2);
    merge_sort(keys);
    merge_sort(&mut right);
    let left = std::mem::take(keys);
    let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
    while let (Some(a), Some(b)) = (l.peek(), r.peek()) {
        if key_less(b, a) {
            keys.extend(r.next());
        } else {
            keys.extend(l.next());
        }
    }
    keys.extend(l);
    keys.extend(r);
}
