//! The `Range` header of a request for a served document, read as Go's `http.ServeContent`
//! reads it: one `bytes=` range (kube-apiserver drops a header naming several), from the
//! start (`bytes=10-19`, `bytes=10-`) or from the end (`bytes=-10`).

/// Why a `Range` header cannot be served: the real server's 416 body, less its newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// Not a byte range (another unit, no `-`, not numbers, an end before the start).
    #[error("invalid range")]
    Invalid,
    /// The range starts at or after the end of the body.
    #[error("invalid range: failed to overlap")]
    NoOverlap,
}

/// The bytes of a body a range selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    /// The first byte.
    pub start: i64,
    /// How many bytes (0 for `bytes=-0`).
    pub length: i64,
}

impl ByteRange {
    /// The `Content-Range` of this range of a body of `size` bytes.
    pub fn content_range(&self, size: i64) -> String {
        format!(
            "bytes {}-{}/{size}",
            self.start,
            self.start + self.length - 1
        )
    }

    /// The selected bytes of `body`.
    pub fn slice(&self, body: &bytes::Bytes) -> bytes::Bytes {
        let start = usize::try_from(self.start).unwrap_or(0);
        let end = usize::try_from(self.start + self.length).unwrap_or(start);
        body.slice(start.min(body.len())..end.min(body.len()))
    }
}

/// Trims what Go's `textproto.TrimString` trims: ASCII spaces, tabs and line ends.
fn trim(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\r', '\n'])
}

/// A number as Go's `strconv.ParseInt` reads it (an optional sign, decimal digits).
fn number(s: &str) -> Result<i64, RangeError> {
    s.parse().map_err(|_| RangeError::Invalid)
}

/// The range `header` selects in a body of `size` bytes: `None` for the whole body (no
/// header, or `bytes=` with nothing after it).
pub fn byte_range(header: &str, size: i64) -> Result<Option<ByteRange>, RangeError> {
    if header.is_empty() {
        return Ok(None);
    }
    let spec = header.strip_prefix("bytes=").ok_or(RangeError::Invalid)?;
    let spec = trim(spec);
    if spec.is_empty() {
        return Ok(None);
    }
    let (first, last) = spec.split_once('-').ok_or(RangeError::Invalid)?;
    let (first, last) = (trim(first), trim(last));
    if first.is_empty() {
        // A suffix: the last `last` bytes (all of them when there are fewer).
        if last.is_empty() || last.starts_with('-') {
            return Err(RangeError::Invalid);
        }
        let n = number(last)?;
        if n < 0 {
            return Err(RangeError::Invalid);
        }
        let start = size - n.min(size);
        return Ok(Some(ByteRange {
            start,
            length: size - start,
        }));
    }
    let start = number(first)?;
    if start < 0 {
        return Err(RangeError::Invalid);
    }
    if start >= size {
        return Err(RangeError::NoOverlap);
    }
    let end = if last.is_empty() {
        size - 1
    } else {
        let end = number(last)?;
        if start > end {
            return Err(RangeError::Invalid);
        }
        end.min(size - 1)
    };
    Ok(Some(ByteRange {
        start,
        length: end - start + 1,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(header: &str) -> Result<Option<(i64, i64)>, RangeError> {
        byte_range(header, 100).map(|r| r.map(|r| (r.start, r.length)))
    }

    #[test]
    fn reads_ranges_from_the_start_and_from_the_end() {
        assert_eq!(range("bytes=0-9"), Ok(Some((0, 10))));
        assert_eq!(range("bytes= 5 - 9 "), Ok(Some((5, 5))));
        assert_eq!(range("bytes=01-+02"), Ok(Some((1, 2))));
        assert_eq!(range("bytes=90-"), Ok(Some((90, 10))));
        assert_eq!(range("bytes=90-1000"), Ok(Some((90, 10))));
        assert_eq!(range("bytes=-5"), Ok(Some((95, 5))));
        assert_eq!(range("bytes=-500"), Ok(Some((0, 100))));
        assert_eq!(range("bytes=-0"), Ok(Some((100, 0))));
        assert_eq!(range(""), Ok(None));
        assert_eq!(range("bytes="), Ok(None));
    }

    #[test]
    fn refuses_what_is_no_byte_range_and_what_starts_past_the_end() {
        for header in [
            "Bytes=0-9",
            "items=0-5",
            "bytes=abc",
            "bytes=5-2",
            "bytes=-",
            "bytes=--5",
        ] {
            assert_eq!(range(header), Err(RangeError::Invalid), "{header}");
        }
        assert_eq!(range("bytes=100-"), Err(RangeError::NoOverlap));
        assert_eq!(range("bytes=5000-6000"), Err(RangeError::NoOverlap));
        assert_eq!(
            RangeError::NoOverlap.to_string(),
            "invalid range: failed to overlap"
        );
    }

    #[test]
    fn names_and_cuts_the_selected_bytes() {
        let r = byte_range("bytes=2-4", 10).unwrap().unwrap();
        assert_eq!(r.content_range(10), "bytes 2-4/10");
        assert_eq!(r.slice(&bytes::Bytes::from_static(b"0123456789")), "234");
        let empty = byte_range("bytes=-0", 10).unwrap().unwrap();
        assert_eq!(empty.content_range(10), "bytes 10-9/10");
        assert!(
            empty
                .slice(&bytes::Bytes::from_static(b"0123456789"))
                .is_empty()
        );
    }
}
