//! What yaml.v2's emitter finds in a scalar (`yaml_emitter_analyze_scalar`) and the byte
//! tests libyaml makes on the way, on UTF-8 bytes with a NUL past the end.

/// What `yaml_emitter_analyze_scalar` finds in a scalar.
pub(super) struct Analysis {
    pub(super) multiline: bool,
    pub(super) flow_plain: bool,
    pub(super) block_plain: bool,
    pub(super) single_quoted: bool,
    pub(super) block: bool,
}

/// The byte at `i`, or 0 past the end (libyaml's strings end in NUL).
pub(super) fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// The width of the UTF-8 sequence a byte leads.
pub(super) fn width(c: u8) -> usize {
    match c {
        c if c & 0x80 == 0 => 1,
        c if c & 0xE0 == 0xC0 => 2,
        c if c & 0xF0 == 0xE0 => 3,
        _ => 4,
    }
}

pub(super) fn is_space(b: &[u8], i: usize) -> bool {
    at(b, i) == b' '
}

pub(super) fn is_blank(b: &[u8], i: usize) -> bool {
    matches!(at(b, i), b' ' | b'\t')
}

pub(super) fn is_break(b: &[u8], i: usize) -> bool {
    match at(b, i) {
        b'\r' | b'\n' => true,
        0xC2 => at(b, i + 1) == 0x85,
        0xE2 => at(b, i + 1) == 0x80 && matches!(at(b, i + 2), 0xA8 | 0xA9),
        _ => false,
    }
}

pub(super) fn is_blankz(b: &[u8], i: usize) -> bool {
    is_blank(b, i) || is_break(b, i) || at(b, i) == 0
}

/// `is_printable`, byte by byte as libyaml tests it.
pub(super) fn is_printable(b: &[u8], i: usize) -> bool {
    let (c, n1, n2) = (at(b, i), at(b, i + 1), at(b, i + 2));
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || c == 0xC2 && n1 >= 0xA0
        || c > 0xC2 && c < 0xED
        || c == 0xED && n1 < 0xA0
        || c == 0xEE
        || c == 0xEF && !(n1 == 0xBB && n2 == 0xBF) && !(n1 == 0xBF && matches!(n2, 0xBE | 0xBF))
}

pub(super) fn analyze(value: &str) -> Analysis {
    let b = value.as_bytes();
    if b.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain: false,
            block_plain: true,
            single_quoted: true,
            block: false,
        };
    }
    let (mut block_indicators, mut flow_indicators) = (false, false);
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    if value.starts_with("---") || value.starts_with("...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let mut preceded_by_whitespace = true;
    let mut i = 0;
    while i < b.len() {
        let w = width(b[i]);
        let followed_by_whitespace = i + w >= b.len() || is_blank(b, i + w);
        if i == 0 {
            match b[i] {
                b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>'
                | b'\'' | b'"' | b'%' | b'@' | b'`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                b'?' | b':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                b'-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match b[i] {
                b',' | b'?' | b'[' | b']' | b'{' | b'}' => flow_indicators = true,
                b':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                b'#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if !is_printable(b, i) {
            special = true;
        }
        if is_space(b, i) {
            leading_space |= i == 0;
            trailing_space |= i + w == b.len();
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(b, i) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= i + w == b.len();
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(b, i);
        i += w;
    }
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain: true,
        block_plain: true,
        single_quoted: true,
        block: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if trailing_space {
        a.block = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || special {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
        a.block = false;
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_indicators {
        a.flow_plain = false;
    }
    if block_indicators {
        a.block_plain = false;
    }
    a
}
