//! Base64 as Go's `encoding/json` decodes `[]byte` fields (standard alphabet, padding
//! required, line breaks skipped), with Go's error offsets: a Secret's `data`, a
//! ConfigMap's `binaryData` or a CertificateSigningRequest's request that is not base64 is a
//! 400 before any validation.

use serde_json::Value;

fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

fn skip_newlines(src: &[u8], mut i: usize) -> usize {
    while i < src.len() && matches!(src[i], b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Decodes `text`, or gives the offset Go's `CorruptInputError` reports.
pub fn decode(text: &str) -> Result<Vec<u8>, usize> {
    let src = text.as_bytes();
    let mut out = Vec::new();
    let mut si = 0;
    loop {
        let mut quantum = [0u8; 4];
        let mut len = 4;
        let mut j = 0;
        let mut finished = false;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(si - j);
            }
            let c = src[si];
            si += 1;
            if let Some(v) = sextet(c) {
                quantum[j] = v;
                j += 1;
                continue;
            }
            if matches!(c, b'\n' | b'\r') {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            // Padding: only after two or three characters of a quantum.
            match j {
                0 | 1 => return Err(si - 1),
                2 => {
                    si = skip_newlines(src, si);
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if src[si] != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            si = skip_newlines(src, si);
            if si < src.len() {
                return Err(si);
            }
            len = j;
            finished = true;
            break;
        }
        let n = (u32::from(quantum[0]) << 18)
            | (u32::from(quantum[1]) << 12)
            | (u32::from(quantum[2]) << 6)
            | u32::from(quantum[3]);
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..len]);
        if finished {
            return Ok(out);
        }
    }
}

/// The 400 message for a kind whose `field` holds a value that is not base64, as the real
/// server's decoder words it; `None` when every value decodes.
pub fn undecodable(kind: &str, object: &Value, field: &str) -> Option<String> {
    let map = object[field].as_object()?;
    map.values().find_map(|v| undecodable_value(kind, v))
}

/// The 400 message for a kind with one `[]byte` field holding `value` (a
/// CertificateSigningRequest's `spec.request`), when it is a string that is not base64.
pub fn undecodable_value(kind: &str, value: &Value) -> Option<String> {
    let offset = decode(value.as_str()?).err()?;
    Some(format!(
        "{kind} in version \"v1\" cannot be handled as a {kind}: illegal base64 data at input byte {offset}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_go() {
        assert_eq!(decode("aGk=").unwrap(), b"hi");
        assert_eq!(decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode("eA==").unwrap(), b"x");
        assert_eq!(decode("").unwrap(), b"");
        assert_eq!(decode("not base64!"), Err(3));
        assert_eq!(decode("eA="), Err(3));
        assert_eq!(decode("eA"), Err(0));
        assert_eq!(decode("eA==x"), Err(4));
    }
}
