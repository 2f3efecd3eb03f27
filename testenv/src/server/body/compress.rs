//! Response compression as kube-apiserver does it (`APIResponseCompression`, on by default).
//! Two writers compress, each by its own rules:
//!
//! - API responses (objects, lists, tables, `Status` errors, discovery) are gzipped at level 1
//!   when the request's `Accept-Encoding` has the token `gzip` itself (no parameters, compared
//!   exactly) and the body is larger than 128 KiB; only then is `Vary: Accept-Encoding` added.
//!   Watch streams are never compressed.
//! - `/openapi/v2` is wrapped in a gzip handler of its own: it always varies on
//!   `Accept-Encoding`, and gzips (at the default level) a body of at least 1400 bytes when
//!   `Accept-Encoding` gives `gzip` (any case) a quality above zero. `HEAD` answers and bodies
//!   that are empty (304, 412, 406) or short (a small range, a 416) go out as they are.
//!
//! The `/openapi/v3` documents and their index are never compressed.

use std::io::Write;

use bytes::Bytes;
use flate2::Compression;
use flate2::write::GzEncoder;

/// An API response is compressed when its body is larger than this.
pub const API_THRESHOLD: usize = 128 * 1024;
/// The OpenAPI v2 handler compresses bodies of at least this size.
pub const HANDLER_MIN_SIZE: usize = 1400;

/// Whether an API response may be gzipped: one of the comma-separated tokens of
/// `accept_encoding`, with spaces trimmed, is exactly `gzip`.
pub fn api_accepts_gzip(accept_encoding: &str) -> bool {
    accept_encoding.split(',').any(|t| t.trim() == "gzip")
}

/// Whether the OpenAPI v2 handler may gzip: the quality it reads for `gzip` (any case) is
/// above zero. It reads each coding as its name and the quality of its last parameter
/// (`q=<number>`, clamped to 0..1, or 1 for any other parameter); a coding with a quality
/// that is not a number is dropped, and a later mention of a coding replaces an earlier one.
pub fn handler_accepts_gzip(accept_encoding: &str) -> bool {
    let mut quality = None;
    for coding in accept_encoding.split(',') {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or_default().to_ascii_lowercase();
        let (mut q, mut malformed) = (1.0_f64, false);
        for part in parts {
            q = 1.0;
            if let Some(number) = part.strip_prefix("q=") {
                match number.parse::<f64>() {
                    Ok(v) => q = v.clamp(0.0, 1.0),
                    Err(_) => malformed = true,
                }
            }
        }
        if name == "gzip" && !malformed {
            quality = Some(q);
        }
    }
    quality.is_some_and(|q| q > 0.0)
}

/// `body` gzipped at `level` (1 for API responses, 6 for the OpenAPI v2 handler).
pub fn gzip(body: &[u8], level: u32) -> Bytes {
    let mut encoder = GzEncoder::new(
        Vec::with_capacity(body.len() / 4 + 64),
        Compression::new(level),
    );
    // Writing into a Vec cannot fail.
    let written = encoder.write_all(body).and_then(|()| encoder.finish());
    Bytes::from(written.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn api_responses_need_the_bare_gzip_token() {
        for yes in ["gzip", "deflate, gzip", " gzip ", "br,gzip,deflate"] {
            assert!(api_accepts_gzip(yes), "{yes}");
        }
        for no in ["", "GZIP", "gzip;q=0.5", "*", "x-gzip", "deflate"] {
            assert!(!api_accepts_gzip(no), "{no}");
        }
    }

    #[test]
    fn the_openapi_handler_reads_qualities() {
        for yes in [
            "gzip",
            "GZIP",
            "gzip;q=0.5",
            "deflate, gzip",
            "gzip;q=0;level=1",
            "gzip;q=7",
        ] {
            assert!(handler_accepts_gzip(yes), "{yes}");
        }
        for no in [
            "",
            "*",
            "gzip;q=0",
            "gzip;q=-1",
            "gzip;q=abc",
            "gzip, gzip;q=0",
            "gzip;q=abc;level=1",
            "deflate",
        ] {
            assert!(!handler_accepts_gzip(no), "{no}");
        }
    }

    #[test]
    fn gzip_round_trips() {
        let body = "{\"kind\":\"ConfigMapList\"}".repeat(1000);
        for level in [1, 6] {
            let packed = gzip(body.as_bytes(), level);
            assert!(packed.len() < body.len() / 10);
            let mut unpacked = String::new();
            flate2::read::GzDecoder::new(packed.as_ref())
                .read_to_string(&mut unpacked)
                .unwrap();
            assert_eq!(unpacked, body);
        }
    }
}
