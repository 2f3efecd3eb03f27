//! The server's first SETTINGS frame in the order Go's HTTP/2 server writes its entries:
//! `MAX_FRAME_SIZE`, `MAX_CONCURRENT_STREAMS`, `MAX_HEADER_LIST_SIZE`, `HEADER_TABLE_SIZE`,
//! `INITIAL_WINDOW_SIZE`. The `h2` crate writes the same entries in an order of its own; the
//! frame keeps its length, so its bytes are permuted on their way out and nothing else changes.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Go's order of the SETTINGS identifiers; any other comes after them, in the order written.
const GO_ORDER: [u16; 5] = [0x5, 0x3, 0x6, 0x1, 0x4];

/// A connection whose first written frame, when it is a SETTINGS frame, goes out with its
/// entries in Go's order.
pub struct GoSettingsOrder<T> {
    io: T,
    /// The first frame as it goes out, once the server has written it whole in one write;
    /// empty when there is nothing (left) to rewrite.
    first: Vec<u8>,
    /// How many bytes have been written so far (while they fall within `first`).
    written: usize,
    /// Whether the first write has been seen.
    started: bool,
}

impl<T> GoSettingsOrder<T> {
    pub fn new(io: T) -> Self {
        GoSettingsOrder {
            io,
            first: Vec::new(),
            written: 0,
            started: false,
        }
    }
}

/// `bytes` (starting with a frame header) rewritten when they hold a whole SETTINGS frame:
/// that frame with its entries in Go's order; None otherwise.
fn reordered(bytes: &[u8]) -> Option<Vec<u8>> {
    let header = bytes.get(..9)?;
    let len = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
    let (kind, flags, stream) = (header[3], header[4], &header[5..9]);
    if kind != 4 || flags != 0 || stream != [0, 0, 0, 0] || !len.is_multiple_of(6) {
        return None;
    }
    let payload = bytes.get(9..9 + len)?;
    let mut entries: Vec<&[u8]> = payload.chunks(6).collect();
    let rank = |entry: &&[u8]| {
        let id = u16::from_be_bytes([entry[0], entry[1]]);
        GO_ORDER
            .iter()
            .position(|known| *known == id)
            .unwrap_or(GO_ORDER.len())
    };
    entries.sort_by_key(rank);
    let mut frame = header.to_vec();
    frame.extend(entries.concat());
    Some(frame)
}

impl<T: AsyncRead + Unpin> AsyncRead for GoSettingsOrder<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for GoSettingsOrder<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if !this.started {
            this.started = true;
            this.first = reordered(buf).unwrap_or_default();
        }
        if this.written >= this.first.len() {
            return Pin::new(&mut this.io).poll_write(cx, buf);
        }
        // Within the first frame: its bytes in Go's order (the same length as the ones given),
        // then the rest of `buf` as it is.
        let mut out = this.first[this.written..].to_vec();
        out.truncate(buf.len());
        out.extend_from_slice(&buf[out.len()..]);
        let n = std::task::ready!(Pin::new(&mut this.io).poll_write(cx, &out))?;
        this.written += n;
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(entries: &[(u16, u32)]) -> Vec<u8> {
        let len = (entries.len() * 6) as u32;
        let mut frame = len.to_be_bytes()[1..].to_vec();
        frame.extend([4, 0, 0, 0, 0, 0]);
        for (id, value) in entries {
            frame.extend(id.to_be_bytes());
            frame.extend(value.to_be_bytes());
        }
        frame
    }

    #[test]
    fn the_settings_entries_take_go_s_order() {
        let h2 = settings(&[
            (1, 4096),
            (3, 100),
            (4, 262_144),
            (5, 262_144),
            (6, 1_048_896),
        ]);
        let go = settings(&[
            (5, 262_144),
            (3, 100),
            (6, 1_048_896),
            (1, 4096),
            (4, 262_144),
        ]);
        assert_eq!(reordered(&h2), Some(go.clone()));
        // What follows the frame is not touched; anything but a whole SETTINGS frame is left.
        let mut more = h2.clone();
        more.extend([0, 0, 4, 8, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
        assert_eq!(reordered(&more), Some(go));
        assert_eq!(reordered(&h2[..12]), None);
        let mut ack = settings(&[]);
        ack[4] = 1;
        assert_eq!(reordered(&ack), None);
    }

    #[tokio::test]
    async fn written_in_pieces_the_frame_still_goes_out_reordered() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let h2 = settings(&[(1, 4096), (3, 100), (4, 65_535)]);
        let go = settings(&[(3, 100), (1, 4096), (4, 65_535)]);
        let (client, server) = tokio::io::duplex(4);
        let mut server = GoSettingsOrder::new(server);
        let mut whole = h2.clone();
        whole.extend(b"after");
        let write = tokio::spawn(async move {
            server.write_all(&whole).await.unwrap();
            server.shutdown().await.unwrap();
        });
        let mut read = Vec::new();
        let mut client = client;
        client.read_to_end(&mut read).await.unwrap();
        write.await.unwrap();
        let mut expected = go;
        expected.extend(b"after");
        assert_eq!(read, expected);
    }
}
