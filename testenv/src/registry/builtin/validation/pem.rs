//! PEM as Go's `encoding/pem` decodes it: the blocks a certificate request, a certificate or
//! a private key is read from, malformed blocks skipped the way `pem.Decode` skips them.

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// One PEM block: its type and its decoded contents.
pub struct Block {
    /// The type named in the BEGIN line.
    pub kind: Vec<u8>,
    /// The decoded body.
    pub bytes: Vec<u8>,
}

/// A line up to `\n` with its trailing spaces, tabs and `\r` removed, and what follows.
fn get_line(data: &[u8]) -> (&[u8], &[u8]) {
    let (line, rest) = match data.iter().position(|b| *b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[data.len()..]),
    };
    let end = line
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r'))
        .map_or(0, |i| i + 1);
    (&line[..end], rest)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Go's standard base64 decoding: padding required, newlines skipped, extra bits allowed.
fn base64_decode(data: &[u8]) -> Option<Vec<u8>> {
    let config = GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical);
    let engine = GeneralPurpose::new(&base64::alphabet::STANDARD, config);
    let clean: Vec<u8> = data
        .iter()
        .copied()
        .filter(|b| !matches!(b, b'\n' | b'\r'))
        .collect();
    engine.decode(clean).ok()
}

/// The first well-formed PEM block of `data` and what follows it, as Go's `pem.Decode`
/// finds it (malformed blocks are skipped).
pub fn decode(data: &[u8]) -> Option<(Block, &[u8])> {
    const START: &[u8] = b"\n-----BEGIN ";
    const END: &[u8] = b"\n-----END ";
    const DASHES: &[u8] = b"-----";
    let mut rest = data;
    loop {
        if rest.starts_with(&START[1..]) {
            rest = &rest[START.len() - 1..];
        } else if let Some(i) = find(rest, START) {
            rest = &rest[i + START.len()..];
        } else {
            return None;
        }
        let (type_line, after) = get_line(rest);
        rest = after;
        let Some(kind) = type_line.strip_suffix(DASHES) else {
            continue;
        };
        let mut headers = 0;
        loop {
            if rest.is_empty() {
                return None;
            }
            let (line, next) = get_line(rest);
            if !line.contains(&b':') {
                break;
            }
            headers += 1;
            rest = next;
        }
        let (end_index, trailer_index) = if headers == 0 && rest.starts_with(&END[1..]) {
            (0, END.len() - 1)
        } else {
            match find(rest, END) {
                Some(i) => (i, i + END.len()),
                None => continue,
            }
        };
        let trailer = &rest[trailer_index..];
        let trailer_len = kind.len() + DASHES.len();
        if trailer.len() < trailer_len {
            continue;
        }
        let (end_line, rest_of_line) = trailer.split_at(trailer_len);
        if !end_line.starts_with(kind) || !end_line.ends_with(DASHES) {
            continue;
        }
        if !get_line(rest_of_line).0.is_empty() {
            continue;
        }
        let body: Vec<u8> = rest[..end_index]
            .iter()
            .copied()
            .filter(|b| !matches!(b, b' ' | b'\t'))
            .collect();
        let Some(bytes) = base64_decode(&body) else {
            continue;
        };
        // What follows the END line (it may have matched without its leading newline).
        let (_, after_end) = get_line(&rest[end_index + END.len() - 1..]);
        return Some((
            Block {
                kind: kind.to_vec(),
                bytes,
            },
            after_end,
        ));
    }
}
