//! The order rustfmt (style edition 2024) gives `use` declarations: their paths compared
//! segment by segment in version order, a raw identifier by its name (`r#type` as `type`).

use std::cmp::Ordering;

/// Compares two `use` paths (`::demo::api::v2::M`) as rustfmt orders the declarations.
pub fn use_path_cmp(a: &str, b: &str) -> Ordering {
    let segments = |path: &'_ str| -> Vec<String> {
        path.trim_start_matches("::")
            .split("::")
            .map(|s| s.trim().trim_start_matches("r#").to_owned())
            .collect()
    };
    let (a, b) = (segments(a), segments(b));
    for (x, y) in a.iter().zip(&b) {
        let ordering = version_cmp(x, y);
        if ordering.is_ne() {
            return ordering;
        }
    }
    a.len().cmp(&b.len())
}

/// The Rust style guide's version sort: runs of digits compare as numbers (`v2` before `v10`;
/// at equal value the run with more leading zeros first), other runs character by character
/// with `_` before every other character.
fn version_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (chunks(a), chunks(b));
    let mut zeros = Ordering::Equal;
    for (x, y) in a.iter().zip(&b) {
        let ordering = match (x, y) {
            (Chunk::Digits(x), Chunk::Digits(y)) => {
                let (tx, ty) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                let by_value = tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty));
                if by_value.is_eq() && zeros.is_eq() {
                    // More leading zeros sort first.
                    zeros = y.len().cmp(&x.len());
                }
                by_value
            }
            (Chunk::Digits(_), Chunk::Text(_)) => Ordering::Less,
            (Chunk::Text(_), Chunk::Digits(_)) => Ordering::Greater,
            (Chunk::Text(x), Chunk::Text(y)) => x.chars().map(rank).cmp(y.chars().map(rank)),
        };
        if ordering.is_ne() {
            return ordering;
        }
    }
    a.len().cmp(&b.len()).then(zeros)
}

/// A character's place: `_` right after the space, before every other character.
fn rank(c: char) -> (u32, u32) {
    match c {
        ' ' => (0, 0),
        '_' => (1, 0),
        c => (2, c as u32),
    }
}

enum Chunk<'a> {
    Digits(&'a str),
    Text(&'a str),
}

/// `s` cut into maximal runs of ASCII digits and of other characters.
fn chunks(s: &str) -> Vec<Chunk<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut digits = None;
    for (i, c) in s.char_indices() {
        let d = c.is_ascii_digit();
        if digits.is_some_and(|was| was != d) {
            out.push(chunk(&s[start..i], digits == Some(true)));
            start = i;
        }
        digits = Some(d);
    }
    if start < s.len() {
        out.push(chunk(&s[start..], digits == Some(true)));
    }
    out
}

fn chunk(s: &str, digits: bool) -> Chunk<'_> {
    if digits {
        Chunk::Digits(s)
    } else {
        Chunk::Text(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs as rustfmt 1.9 (style edition 2024) orders them.
    #[test]
    fn orders_paths_as_rustfmt_does() {
        for (first, second) in [
            ("::x::api::v2::M", "::x::api::v10::M"),
            ("::x::api::v1::M", "::x::api::v1alpha1::M"),
            ("::x::api::v1_beta::M", "::x::api::v1beta::M"),
            ("::x::api::r#type::M", "::x::api::tz::M"),
            ("::x::api::r#type::M", "::x::api::typf::M"),
            ("::x::api::v01::M", "::x::api::v1::M"),
            ("::x::api::v1::M", "::x::api::v1a::M"),
            ("::x::api::crate_::M", "::x::api::self_::M"),
            ("::x::api::v1_beta::M", "::x::api::v2::M"),
        ] {
            assert_eq!(
                use_path_cmp(first, second),
                Ordering::Less,
                "{first} {second}"
            );
            assert_eq!(
                use_path_cmp(second, first),
                Ordering::Greater,
                "{second} {first}"
            );
        }
        assert_eq!(use_path_cmp("::x::s::M", "::x::r#s::M"), Ordering::Equal);
    }
}
